"""The documented path ``lmml_mdit.transcript.message``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_message`` (see docs/architecture.md)."""

from ._message import *  # noqa: F403
from ._message import __all__ as __all__
