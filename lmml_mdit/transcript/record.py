"""The documented path ``lmml_mdit.transcript.record``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_record`` (see docs/architecture.md)."""

from __future__ import annotations

from ._record import (
    MANIFEST_KEY,
    TRANSCRIPT_LMML_VERSION,
    manifest_data,
    record_entries,
    record_of,
    recorded_content,
)

__all__ = [
    "MANIFEST_KEY",
    "TRANSCRIPT_LMML_VERSION",
    "manifest_data",
    "record_entries",
    "record_of",
    "recorded_content",
]
