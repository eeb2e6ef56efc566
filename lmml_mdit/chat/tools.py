"""The documented path ``lmml_mdit.chat.tools``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_tools`` (see docs/architecture.md)."""

from ._tools import *  # noqa: F403
from ._tools import __all__ as __all__
