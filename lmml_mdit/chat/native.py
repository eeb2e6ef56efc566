"""The documented path ``lmml_mdit.chat.native``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_native`` (see docs/architecture.md)."""

from ._native import *  # noqa: F403
from ._native import __all__ as __all__
