"""The documented path ``lmml_mdit.bundle.bundle``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_bundle`` (see docs/architecture.md)."""

from __future__ import annotations

from ._bundle import (
    CLOSEST_NAME_BUDGET,
    Bundle,
    DefectWarning,
)

__all__ = [
    "CLOSEST_NAME_BUDGET",
    "Bundle",
    "DefectWarning",
]
