"""The documented path ``lmml_mdit.bundle.opening``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_opening`` (see docs/architecture.md)."""

from __future__ import annotations

from ._opening import (
    STREAM_CHUNK,
    BaseDir,
    BundleInput,
    ParseOptions,
    narrative_cap,
    not_lmml,
    open_bundle,
)

__all__ = [
    "STREAM_CHUNK",
    "BaseDir",
    "BundleInput",
    "ParseOptions",
    "narrative_cap",
    "not_lmml",
    "open_bundle",
]
