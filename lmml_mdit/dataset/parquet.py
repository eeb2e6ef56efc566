"""The documented path ``lmml_mdit.dataset.parquet``, kept: its names, from ``lmml_mdit.dataset``'s
private module ``_parquet`` (see docs/architecture.md)."""

from __future__ import annotations

from ._parquet import (
    ImportReport,
    ParquetReport,
    import_parquet,
    iter_parquet,
    read_parquet,
    write_parquet,
)

__all__ = [
    "ImportReport",
    "ParquetReport",
    "import_parquet",
    "iter_parquet",
    "read_parquet",
    "write_parquet",
]
