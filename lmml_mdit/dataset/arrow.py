"""The documented path ``lmml_mdit.dataset.arrow``, kept: its names, from ``lmml_mdit.dataset``'s
private module ``_arrow`` (see docs/architecture.md)."""

from ._arrow import *  # noqa: F403
from ._arrow import __all__ as __all__
