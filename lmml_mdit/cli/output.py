"""The documented path ``lmml_mdit.cli.output``, kept: its names, from
``lmml_mdit.cli``'s private module ``_output`` (see docs/architecture.md)."""

from ._output import *  # noqa: F403
from ._output import __all__ as __all__
