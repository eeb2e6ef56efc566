"""The documented path ``lmml_mdit.chat.outgoing``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_outgoing`` (see docs/architecture.md)."""

from ._outgoing import *  # noqa: F403
from ._outgoing import __all__ as __all__
