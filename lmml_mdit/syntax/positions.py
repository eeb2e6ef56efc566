"""The documented path ``lmml_mdit.syntax.positions``, kept: its names, from
``lmml_mdit.syntax``'s private module ``_positions`` (see docs/architecture.md)."""

from __future__ import annotations

from ._positions import FoundInline, place_offsets, place_references

__all__ = ["FoundInline", "place_offsets", "place_references"]
