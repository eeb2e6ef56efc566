"""The documented path ``lmml_mdit.transcript.transcript``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_transcript`` (see docs/architecture.md)."""

from __future__ import annotations

from ._transcript import (
    Transcript,
)

__all__ = ["Transcript"]
