"""The documented path ``lmml_mdit.chat.writer``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_writer`` (see docs/architecture.md)."""

from __future__ import annotations

from ._writer import (
    HASH_DIGITS,
    SETTINGS_ENTRY,
    asset_name,
    save_conversation,
    turn_heading,
    write_bundle,
    write_narrative,
)

__all__ = [
    "HASH_DIGITS",
    "SETTINGS_ENTRY",
    "asset_name",
    "save_conversation",
    "turn_heading",
    "write_bundle",
    "write_narrative",
]
