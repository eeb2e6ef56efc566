"""The documented path ``lmml_mdit.dataset.schema``, kept: its names, from ``lmml_mdit.dataset``'s
private module ``_schema`` (see docs/architecture.md)."""

from ._schema import *  # noqa: F403
from ._schema import __all__ as __all__
