"""Bundles as rows of one Arrow schema, read and written through any fsspec filesystem.

Install the ``datasets`` extra (``pyarrow``, ``fsspec``). The entry points are
:func:`~lmml_mdit.dataset.arrow.to_arrow`, :func:`~lmml_mdit.dataset.arrow.from_arrow` and
the Parquet files of :mod:`lmml_mdit.dataset.parquet`; the schema is
:mod:`lmml_mdit.dataset.schema`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = [
    "ASSET_MODES",
    "SCHEMA_VERSION",
    "conversation_schema",
    "from_arrow",
    "hf_features",
    "hf_fingerprint",
    "hf_rows",
    "import_parquet",
    "iter_from_arrow",
    "read_parquet",
    "to_arrow",
    "write_parquet",
]

if TYPE_CHECKING:
    from .arrow import from_arrow, iter_from_arrow, to_arrow
    from .hf import hf_features, hf_fingerprint, hf_rows
    from .parquet import import_parquet, read_parquet, write_parquet
    from .schema import ASSET_MODES, SCHEMA_VERSION, conversation_schema

_NAMES = {
    "ASSET_MODES": ".schema",
    "SCHEMA_VERSION": ".schema",
    "conversation_schema": ".schema",
    "from_arrow": ".arrow",
    "iter_from_arrow": ".arrow",
    "to_arrow": ".arrow",
    "read_parquet": ".parquet",
    "write_parquet": ".parquet",
    "import_parquet": ".parquet",
    "hf_features": ".hf",
    "hf_fingerprint": ".hf",
    "hf_rows": ".hf",
}


# pyarrow loads with the first name used, so ``import lmml_mdit.dataset.rows`` (what a
# worker process needs) does not load it.
__getattr__ = lazy_attributes(__name__, _NAMES)
