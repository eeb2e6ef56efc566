"""The documented path ``lmml_mdit.chat.detect``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_detect`` (see docs/architecture.md)."""

from ._detect import *  # noqa: F403
from ._detect import __all__ as __all__
