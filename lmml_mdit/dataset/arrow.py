"""The documented path ``lmml_mdit.dataset.arrow``, kept: its names, from ``lmml_mdit.dataset``'s
private module ``_arrow`` (see docs/architecture.md)."""

from __future__ import annotations

from ._arrow import (
    ArrowInput,
    BundleItem,
    from_arrow,
    iter_from_arrow,
    iter_rows,
    rows_to_batches,
    to_arrow,
)

__all__ = [
    "ArrowInput",
    "BundleItem",
    "from_arrow",
    "iter_from_arrow",
    "iter_rows",
    "rows_to_batches",
    "to_arrow",
]
