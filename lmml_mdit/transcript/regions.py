"""The documented path ``lmml_mdit.transcript.regions``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_regions`` (see docs/architecture.md)."""

from ._regions import *  # noqa: F403
from ._regions import __all__ as __all__
