"""The documented path ``lmml_mdit.ray.datasink``, kept: its names, from ``lmml_mdit.ray``'s
private module ``_datasink`` (see docs/architecture.md)."""

from ._datasink import *  # noqa: F403
from ._datasink import __all__ as __all__
