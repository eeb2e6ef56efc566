"""The documented path ``lmml_mdit.narrative.index``, kept: its names, from
``lmml_mdit.narrative``'s private module ``_index`` (see docs/architecture.md)."""

from __future__ import annotations

from ._index import (
    AttachmentParagraph,
    Block,
    Delimiter,
    Fence,
    Records,
    StructureIndex,
)

__all__ = ["AttachmentParagraph", "Block", "Delimiter", "Fence", "Records", "StructureIndex"]
