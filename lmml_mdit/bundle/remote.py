"""The documented path ``lmml_mdit.bundle.remote``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_remote`` (see docs/architecture.md)."""

from ._remote import *  # noqa: F403
from ._remote import __all__ as __all__
