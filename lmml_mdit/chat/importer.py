"""The documented path ``lmml_mdit.chat.importer``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_importer`` (see docs/architecture.md)."""

from __future__ import annotations

from ._importer import (
    MAX_DEPTH,
    READ_CHUNK,
    Progress,
    import_messages,
    import_path,
    read_conversation,
)

__all__ = [
    "MAX_DEPTH",
    "READ_CHUNK",
    "Progress",
    "import_messages",
    "import_path",
    "read_conversation",
]
