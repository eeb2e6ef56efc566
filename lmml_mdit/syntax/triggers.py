"""The documented path ``lmml_mdit.syntax.triggers``, kept: its names, from
``lmml_mdit.syntax``'s private module ``_triggers`` (see docs/architecture.md)."""

from ._triggers import *  # noqa: F403
from ._triggers import __all__ as __all__
