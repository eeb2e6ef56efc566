"""The tool-chain layer: plugins that make LMML at home in the tools people already run on
Markdown (mdformat, Sphinx and MyST). Each module imports its tool only when used, from an
optional extra."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = ["format_text", "outline"]

if TYPE_CHECKING:
    from ._formatter import format_text, outline

# On first use: a Sphinx build loads its extension alone.
__getattr__ = lazy_attributes(__name__, {"format_text": "._formatter", "outline": "._formatter"})
