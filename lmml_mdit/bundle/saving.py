"""The documented path ``lmml_mdit.bundle.saving``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_saving`` (see docs/architecture.md)."""

from ._saving import *  # noqa: F403
from ._saving import __all__ as __all__
