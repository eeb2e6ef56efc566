"""The documented path ``lmml_mdit.chat.escape``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_escape`` (see docs/architecture.md)."""

from __future__ import annotations

from ._escape import (
    escape_text,
    normalize_text,
)

__all__ = [
    "escape_text",
    "normalize_text",
]
