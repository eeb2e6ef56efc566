"""Bundles as rows of one Arrow schema, read and written through any fsspec filesystem.

Install the ``datasets`` extra (``pyarrow``, ``fsspec``). The entry points are
:func:`to_arrow`, :func:`from_arrow` and the Parquet files (:func:`write_parquet`,
:func:`read_parquet`, :func:`import_parquet`); the schema is :func:`conversation_schema`.
The modules are private; every name is imported from here, on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = [
    "ASSET_MODES",
    "DEFAULT_BATCH_ROWS",
    "ISSUE_TYPE",
    "NOTE_TYPE",
    "SCHEMA_VERSION",
    "AssetMode",
    "ImportReport",
    "OpenOptions",
    "Row",
    "absolute",
    "checked_providers",
    "conversation_schema",
    "from_arrow",
    "hf_features",
    "hf_fingerprint",
    "hf_rows",
    "import_parquet",
    "is_folder",
    "iter_from_arrow",
    "iter_parquet",
    "read_parquet",
    "request_cells",
    "request_column",
    "row_bundle",
    "rows_to_batches",
    "source_row",
    "template_messages",
    "to_arrow",
    "walk",
    "write_parquet",
    "write_rows",
]

if TYPE_CHECKING:
    from ._arrow import DEFAULT_BATCH_ROWS, from_arrow, iter_from_arrow, rows_to_batches, to_arrow
    from ._folders import ImportReport, write_rows
    from ._hf import hf_features, hf_fingerprint, hf_rows, template_messages
    from ._parquet import import_parquet, iter_parquet, read_parquet, write_parquet
    from ._rows import OpenOptions, Row, request_cells, row_bundle, source_row
    from ._schema import (
        ASSET_MODES,
        ISSUE_TYPE,
        NOTE_TYPE,
        SCHEMA_VERSION,
        AssetMode,
        checked_providers,
        conversation_schema,
        request_column,
    )
    from ._storage import absolute, is_folder, walk

_NAMES = {
    name: f".{module}"
    for module, names in {
        "_schema": (
            "ASSET_MODES",
            "ISSUE_TYPE",
            "NOTE_TYPE",
            "SCHEMA_VERSION",
            "AssetMode",
            "checked_providers",
            "conversation_schema",
            "request_column",
        ),
        "_rows": ("OpenOptions", "Row", "request_cells", "row_bundle", "source_row"),
        "_storage": ("absolute", "is_folder", "walk"),
        "_arrow": (
            "DEFAULT_BATCH_ROWS",
            "from_arrow",
            "iter_from_arrow",
            "rows_to_batches",
            "to_arrow",
        ),
        "_folders": ("ImportReport", "write_rows"),
        "_parquet": ("import_parquet", "iter_parquet", "read_parquet", "write_parquet"),
        "_hf": ("hf_features", "hf_fingerprint", "hf_rows", "template_messages"),
    }.items()
    for name in names
}


# pyarrow loads with the first name used, so ``import lmml_mdit.dataset`` alone does not
# load it (a worker process imports ``lmml_mdit.dataset._rows``).
__getattr__ = lazy_attributes(__name__, _NAMES)
