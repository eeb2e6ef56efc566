"""The documented path ``lmml_mdit.chat.midway``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_midway`` (see docs/architecture.md)."""

from __future__ import annotations

from ._midway import (
    MIDWAY_SYSTEM_MARKER,
    place_midway_system,
)

__all__ = [
    "MIDWAY_SYSTEM_MARKER",
    "place_midway_system",
]
