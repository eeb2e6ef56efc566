"""The documented path ``lmml_mdit.transcript.reading``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_reading`` (see docs/architecture.md)."""

from __future__ import annotations

from ._reading import (
    TranscriptContents,
    read_bundle,
    read_file,
)

__all__ = ["TranscriptContents", "read_bundle", "read_file"]
