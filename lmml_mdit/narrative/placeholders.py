"""The documented path ``lmml_mdit.narrative.placeholders``, kept: its names, from
``lmml_mdit.narrative``'s private module ``_placeholders`` (see docs/architecture.md)."""

from __future__ import annotations

from ._placeholders import (
    OPEN,
    Parsed,
    Placeholder,
    PlaceholderContext,
    PlaceholderEscape,
    Placeholders,
    find_placeholders,
    placeholder_spans,
)

__all__ = [
    "OPEN",
    "Parsed",
    "Placeholder",
    "PlaceholderContext",
    "PlaceholderEscape",
    "Placeholders",
    "find_placeholders",
    "placeholder_spans",
]
