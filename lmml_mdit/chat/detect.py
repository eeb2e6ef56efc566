"""The documented path ``lmml_mdit.chat.detect``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_detect`` (see docs/architecture.md)."""

from __future__ import annotations

from ._detect import (
    FORMAT_DESCRIPTIONS,
    detect_format,
)

__all__ = [
    "FORMAT_DESCRIPTIONS",
    "detect_format",
]
