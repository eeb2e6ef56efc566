"""The documented path ``lmml_mdit.cli.commands``, kept: its names, from
``lmml_mdit.cli``'s private module ``_commands`` (see docs/architecture.md)."""

from ._commands import *  # noqa: F403
from ._commands import __all__ as __all__
