"""The documented path ``lmml_mdit.cli.render``, kept: its names, from
``lmml_mdit.cli``'s private module ``_render`` (see docs/architecture.md)."""

from ._render import *  # noqa: F403
from ._render import __all__ as __all__
