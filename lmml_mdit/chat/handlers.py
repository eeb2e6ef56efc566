"""The documented path ``lmml_mdit.chat.handlers``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_handlers`` (see docs/architecture.md)."""

from ._handlers import *  # noqa: F403
from ._handlers import __all__ as __all__
