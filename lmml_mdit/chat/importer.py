"""The documented path ``lmml_mdit.chat.importer``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_importer`` (see docs/architecture.md)."""

from ._importer import *  # noqa: F403
from ._importer import __all__ as __all__
