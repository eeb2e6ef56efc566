"""The documented path ``lmml_mdit.transcript.encoding``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_encoding`` (see docs/architecture.md)."""

from ._encoding import *  # noqa: F403
from ._encoding import __all__ as __all__
