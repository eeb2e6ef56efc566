"""The documented path ``lmml_mdit.dataset.hf``, kept: its names, from ``lmml_mdit.dataset``'s
private module ``_hf`` (see docs/architecture.md)."""

from ._hf import *  # noqa: F403
from ._hf import __all__ as __all__
