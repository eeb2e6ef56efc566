"""The documented path ``lmml_mdit.cli.table``, kept: its names, from
``lmml_mdit.cli``'s private module ``_table`` (see docs/architecture.md)."""

from ._table import *  # noqa: F403
from ._table import __all__ as __all__
