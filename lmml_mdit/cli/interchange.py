"""The documented path ``lmml_mdit.cli.interchange``, kept: its names, from
``lmml_mdit.cli``'s private module ``_interchange`` (see docs/architecture.md)."""

from ._interchange import *  # noqa: F403
from ._interchange import __all__ as __all__
