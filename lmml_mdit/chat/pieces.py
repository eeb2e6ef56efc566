"""The documented path ``lmml_mdit.chat.pieces``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_pieces`` (see docs/architecture.md)."""

from ._pieces import *  # noqa: F403
from ._pieces import __all__ as __all__
