"""The documented path ``lmml_mdit.ray.evaluation``, kept: its names, from ``lmml_mdit.ray``'s
private module ``_evaluation`` (see docs/architecture.md)."""

from __future__ import annotations

from ._evaluation import (
    eval_batches,
)

__all__ = [
    "eval_batches",
]
