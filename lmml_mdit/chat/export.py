"""The documented path ``lmml_mdit.chat.export``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_export`` (see docs/architecture.md)."""

from ._export import *  # noqa: F403
from ._export import __all__ as __all__
