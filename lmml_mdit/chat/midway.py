"""The documented path ``lmml_mdit.chat.midway``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_midway`` (see docs/architecture.md)."""

from ._midway import *  # noqa: F403
from ._midway import __all__ as __all__
