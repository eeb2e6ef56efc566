"""The documented path ``lmml_mdit.ray.datasource``, kept: its names, from ``lmml_mdit.ray``'s
private module ``_datasource`` (see docs/architecture.md)."""

from ._datasource import *  # noqa: F403
from ._datasource import __all__ as __all__
