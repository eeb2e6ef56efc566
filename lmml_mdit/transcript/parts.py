"""The documented path ``lmml_mdit.transcript.parts``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_parts`` (see docs/architecture.md)."""

from __future__ import annotations

from ._parts import (
    content_parts,
)

__all__ = ["content_parts"]
