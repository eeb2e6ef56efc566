"""Bundles as rows of one Arrow schema, read and written through any fsspec filesystem.

Install the ``datasets`` extra (``pyarrow``, ``fsspec``). The entry points are
:func:`to_arrow`, :func:`from_arrow` and the Parquet files (:func:`write_parquet`,
:func:`read_parquet`, :func:`import_parquet`); the schema is :func:`conversation_schema`.
The modules are private; every name is imported from here, on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes, public_names

if TYPE_CHECKING:
    from ._arrow import DEFAULT_BATCH_ROWS as DEFAULT_BATCH_ROWS
    from ._arrow import from_arrow as from_arrow
    from ._arrow import iter_from_arrow as iter_from_arrow
    from ._arrow import rows_to_batches as rows_to_batches
    from ._arrow import to_arrow as to_arrow
    from ._folders import ImportReport as ImportReport
    from ._folders import PathClaims as PathClaims
    from ._folders import write_rows as write_rows
    from ._hf import hf_features as hf_features
    from ._hf import hf_fingerprint as hf_fingerprint
    from ._hf import hf_rows as hf_rows
    from ._hf import template_messages as template_messages
    from ._parquet import import_parquet as import_parquet
    from ._parquet import iter_parquet as iter_parquet
    from ._parquet import read_parquet as read_parquet
    from ._parquet import write_parquet as write_parquet
    from ._rows import OpenOptions as OpenOptions
    from ._rows import Row as Row
    from ._rows import request_cells as request_cells
    from ._rows import row_bundle as row_bundle
    from ._rows import source_row as source_row
    from ._schema import ASSET_MODES as ASSET_MODES
    from ._schema import ISSUE_TYPE as ISSUE_TYPE
    from ._schema import NOTE_TYPE as NOTE_TYPE
    from ._schema import SCHEMA_VERSION as SCHEMA_VERSION
    from ._schema import AssetMode as AssetMode
    from ._schema import checked_providers as checked_providers
    from ._schema import conversation_schema as conversation_schema
    from ._schema import request_column as request_column
    from ._storage import absolute as absolute
    from ._storage import is_folder as is_folder
    from ._storage import walk as walk

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
        "_folders": ("ImportReport", "PathClaims", "write_rows"),
        "_parquet": ("import_parquet", "iter_parquet", "read_parquet", "write_parquet"),
        "_hf": ("hf_features", "hf_fingerprint", "hf_rows", "template_messages"),
    }.items()
    for name in names
}


# pyarrow loads with the first name used, so ``import lmml_mdit.dataset`` alone does not
# load it (a worker process imports ``lmml_mdit.dataset._rows``).
__getattr__ = lazy_attributes(__name__, _NAMES)

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names(_NAMES)
