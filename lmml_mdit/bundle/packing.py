"""The documented path ``lmml_mdit.bundle.packing``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_packing`` (see docs/architecture.md)."""

from ._packing import *  # noqa: F403
from ._packing import __all__ as __all__
