"""The documented path ``lmml_mdit.bundle.source``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_source`` (see docs/architecture.md)."""

from __future__ import annotations

from ._source import (
    BundleSource,
)

__all__ = [
    "BundleSource",
]
