"""The documented path ``lmml_mdit.chat.escape``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_escape`` (see docs/architecture.md)."""

from ._escape import *  # noqa: F403
from ._escape import __all__ as __all__
