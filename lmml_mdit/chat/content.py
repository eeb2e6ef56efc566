"""The documented path ``lmml_mdit.chat.content``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_content`` (see docs/architecture.md)."""

from ._content import *  # noqa: F403
from ._content import __all__ as __all__
