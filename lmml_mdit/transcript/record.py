"""The documented path ``lmml_mdit.transcript.record``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_record`` (see docs/architecture.md)."""

from ._record import *  # noqa: F403
from ._record import __all__ as __all__
