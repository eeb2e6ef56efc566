"""The documented path ``lmml_mdit.chat.native``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_native`` (see docs/architecture.md)."""

from __future__ import annotations

from ._native import (
    NativeItemDroppedWarning,
    keep_native,
    message_keys,
    place_native,
)

__all__ = [
    "NativeItemDroppedWarning",
    "keep_native",
    "message_keys",
    "place_native",
]
