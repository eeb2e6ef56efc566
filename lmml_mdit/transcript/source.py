"""The documented path ``lmml_mdit.transcript.source``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_source`` (see docs/architecture.md)."""

from __future__ import annotations

from ._source import (
    FRESH_STYLE,
    NUMBERED_HEADING,
    Origin,
    SourceNarrative,
    Style,
    raw_lines,
    source_of,
)

__all__ = [
    "FRESH_STYLE",
    "NUMBERED_HEADING",
    "Origin",
    "SourceNarrative",
    "Style",
    "raw_lines",
    "source_of",
]
