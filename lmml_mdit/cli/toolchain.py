"""The documented path ``lmml_mdit.cli.toolchain``, kept: its names, from
``lmml_mdit.cli``'s private module ``_toolchain`` (see docs/architecture.md)."""

from ._toolchain import *  # noqa: F403
from ._toolchain import __all__ as __all__
