"""The documented path ``lmml_mdit.bundle.opening``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_opening`` (see docs/architecture.md)."""

from ._opening import *  # noqa: F403
from ._opening import __all__ as __all__
