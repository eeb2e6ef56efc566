"""The documented path ``lmml_mdit.transcript.rendering``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_rendering`` (see docs/architecture.md)."""

from ._rendering import *  # noqa: F403
from ._rendering import __all__ as __all__
