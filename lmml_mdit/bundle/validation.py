"""The documented path ``lmml_mdit.bundle.validation``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_validation`` (see docs/architecture.md)."""

from __future__ import annotations

from ._validation import (
    did_you_mean,
    find_issues,
    missing_wording,
)

__all__ = [
    "did_you_mean",
    "find_issues",
    "missing_wording",
]
