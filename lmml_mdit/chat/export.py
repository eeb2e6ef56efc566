"""The documented path ``lmml_mdit.chat.export``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_export`` (see docs/architecture.md)."""

from __future__ import annotations

from ._export import (
    EXPORT_PROVIDERS,
    ExportReport,
    export_bundle,
    export_folder,
    iter_bundles,
)

__all__ = [
    "EXPORT_PROVIDERS",
    "ExportReport",
    "export_bundle",
    "export_folder",
    "iter_bundles",
]
