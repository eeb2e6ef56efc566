"""The documented path ``lmml_mdit.transcript.writing``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_writing`` (see docs/architecture.md)."""

from __future__ import annotations

from ._writing import (
    narrative_text,
    save_file,
    write_bundle,
)

__all__ = ["narrative_text", "save_file", "write_bundle"]
