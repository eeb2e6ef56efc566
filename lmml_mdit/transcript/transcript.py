"""The documented path ``lmml_mdit.transcript.transcript``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_transcript`` (see docs/architecture.md)."""

from ._transcript import *  # noqa: F403
from ._transcript import __all__ as __all__
