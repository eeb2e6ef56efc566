"""The documented path ``lmml_mdit.cli.progress``, kept: its names, from
``lmml_mdit.cli``'s private module ``_progress`` (see docs/architecture.md)."""

from ._progress import *  # noqa: F403
from ._progress import __all__ as __all__
