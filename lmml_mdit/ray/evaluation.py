"""The documented path ``lmml_mdit.ray.evaluation``, kept: its names, from ``lmml_mdit.ray``'s
private module ``_evaluation`` (see docs/architecture.md)."""

from ._evaluation import *  # noqa: F403
from ._evaluation import __all__ as __all__
