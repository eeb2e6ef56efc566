"""The documented path ``lmml_mdit.cli.sources``, kept: its names, from
``lmml_mdit.cli``'s private module ``_sources`` (see docs/architecture.md)."""

from ._sources import *  # noqa: F403
from ._sources import __all__ as __all__
