"""The documented path ``lmml_mdit.bundle.packing``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_packing`` (see docs/architecture.md)."""

from __future__ import annotations

from ._packing import (
    InlineReport,
    OrphanedEntryWarning,
    fence_text,
    inline_assets,
    pack_fences,
    rewrite_fence,
)

__all__ = [
    "InlineReport",
    "OrphanedEntryWarning",
    "fence_text",
    "inline_assets",
    "pack_fences",
    "rewrite_fence",
]
