"""The documented path ``lmml_mdit.syntax.blocks``, kept: its names, from
``lmml_mdit.syntax``'s private module ``_blocks`` (see docs/architecture.md)."""

from ._blocks import *  # noqa: F403
from ._blocks import __all__ as __all__
