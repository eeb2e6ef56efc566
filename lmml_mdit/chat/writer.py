"""The documented path ``lmml_mdit.chat.writer``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_writer`` (see docs/architecture.md)."""

from ._writer import *  # noqa: F403
from ._writer import __all__ as __all__
