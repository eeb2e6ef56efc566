"""The documented path ``lmml_mdit.dataset.parquet``, kept: its names, from ``lmml_mdit.dataset``'s
private module ``_parquet`` (see docs/architecture.md)."""

from ._parquet import *  # noqa: F403
from ._parquet import __all__ as __all__
