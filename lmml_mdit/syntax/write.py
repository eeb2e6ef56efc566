"""The documented path ``lmml_mdit.syntax.write``, kept: its names, from
``lmml_mdit.syntax``'s private module ``_write`` (see docs/architecture.md)."""

from ._write import *  # noqa: F403
from ._write import __all__ as __all__
