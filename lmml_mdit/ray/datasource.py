"""The documented path ``lmml_mdit.ray.datasource``, kept: its names, from ``lmml_mdit.ray``'s
private module ``_datasource`` (see docs/architecture.md)."""

from __future__ import annotations

from ._datasource import (
    DEFAULT_FILES_PER_TASK,
    LmmlDatasource,
    read_lmml,
)

__all__ = [
    "DEFAULT_FILES_PER_TASK",
    "LmmlDatasource",
    "read_lmml",
]
