"""The documented path ``lmml_mdit.transcript.readback``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_readback`` (see docs/architecture.md)."""

from ._readback import *  # noqa: F403
from ._readback import __all__ as __all__
