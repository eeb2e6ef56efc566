"""The documented path ``lmml_mdit.chat.pieces``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_pieces`` (see docs/architecture.md)."""

from __future__ import annotations

from ._pieces import (
    LOCAL_LINE,
    PIECE_CHARACTERS,
    Cut,
    Piece,
    cut_offsets,
    read_in_pieces,
)

__all__ = [
    "LOCAL_LINE",
    "PIECE_CHARACTERS",
    "Cut",
    "Piece",
    "cut_offsets",
    "read_in_pieces",
]
