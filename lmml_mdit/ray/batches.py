"""The documented path ``lmml_mdit.ray.batches``, kept: its names, from ``lmml_mdit.ray``'s
private module ``_batches`` (see docs/architecture.md)."""

from __future__ import annotations

from ._batches import (
    CASE_ERROR,
    CASE_KIND,
    CASE_WARNINGS,
    add_payloads,
    render_case_batch,
    validate_batch,
)

__all__ = [
    "CASE_ERROR",
    "CASE_KIND",
    "CASE_WARNINGS",
    "add_payloads",
    "render_case_batch",
    "validate_batch",
]
