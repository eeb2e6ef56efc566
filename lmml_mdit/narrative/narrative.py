"""The documented path ``lmml_mdit.narrative.narrative``, kept: its names, from
``lmml_mdit.narrative``'s private module ``_narrative`` (see docs/architecture.md)."""

from __future__ import annotations

from ._narrative import (
    CONTEXT_TURN_NUMBER,
    FULL_PARSE_VARIABLE,
    PARSE_CACHE_BYTES,
    Narrative,
    decode_narrative,
    default_parser,
    numbered_turns,
    parse,
    parse_shared,
    turn_label,
)

__all__ = [
    "CONTEXT_TURN_NUMBER",
    "FULL_PARSE_VARIABLE",
    "PARSE_CACHE_BYTES",
    "Narrative",
    "decode_narrative",
    "default_parser",
    "numbered_turns",
    "parse",
    "parse_shared",
    "turn_label",
]
