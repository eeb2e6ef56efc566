"""The documented path ``lmml_mdit.chat.imported``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_imported`` (see docs/architecture.md)."""

from ._imported import *  # noqa: F403
from ._imported import __all__ as __all__
