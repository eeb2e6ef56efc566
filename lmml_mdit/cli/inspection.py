"""The documented path ``lmml_mdit.cli.inspection``, kept: its names, from
``lmml_mdit.cli``'s private module ``_inspection`` (see docs/architecture.md)."""

from ._inspection import *  # noqa: F403
from ._inspection import __all__ as __all__
