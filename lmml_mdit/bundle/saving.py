"""The documented path ``lmml_mdit.bundle.saving``, kept: its names, from
``lmml_mdit.bundle``'s private module ``_saving`` (see docs/architecture.md)."""

from __future__ import annotations

from ._saving import (
    bundle_bytes,
    save_archive,
    save_bundle,
)

__all__ = [
    "bundle_bytes",
    "save_archive",
    "save_bundle",
]
