"""The documented path ``lmml_mdit.transcript.writing``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_writing`` (see docs/architecture.md)."""

from ._writing import *  # noqa: F403
from ._writing import __all__ as __all__
