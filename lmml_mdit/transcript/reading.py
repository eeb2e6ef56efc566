"""The documented path ``lmml_mdit.transcript.reading``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_reading`` (see docs/architecture.md)."""

from ._reading import *  # noqa: F403
from ._reading import __all__ as __all__
