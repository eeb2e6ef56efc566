"""The documented path ``lmml_mdit.lsp.document``, kept: its names, from ``lmml_mdit.lsp``'s
private module ``_document`` (see docs/architecture.md)."""

from __future__ import annotations

from ._document import (
    Analysis,
    analyse,
    path_of,
)

__all__ = [
    "Analysis",
    "analyse",
    "path_of",
]
