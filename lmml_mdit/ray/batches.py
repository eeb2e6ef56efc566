"""The documented path ``lmml_mdit.ray.batches``, kept: its names, from ``lmml_mdit.ray``'s
private module ``_batches`` (see docs/architecture.md)."""

from ._batches import *  # noqa: F403
from ._batches import __all__ as __all__
