"""The documented path ``lmml_mdit.cli.arguments``, kept: its names, from
``lmml_mdit.cli``'s private module ``_arguments`` (see docs/architecture.md)."""

from ._arguments import *  # noqa: F403
from ._arguments import __all__ as __all__
