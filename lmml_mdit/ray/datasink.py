"""The documented path ``lmml_mdit.ray.datasink``, kept: its names, from ``lmml_mdit.ray``'s
private module ``_datasink`` (see docs/architecture.md)."""

from __future__ import annotations

from ._datasink import (
    LmmlDatasink,
    write_lmml,
)

__all__ = [
    "LmmlDatasink",
    "write_lmml",
]
