"""The documented path ``lmml_mdit.syntax.blocks``, kept: its names, from
``lmml_mdit.syntax``'s private module ``_blocks`` (see docs/architecture.md)."""

from __future__ import annotations

from ._blocks import STARTS, DispatchingBlockParser

__all__ = ["STARTS", "DispatchingBlockParser"]
