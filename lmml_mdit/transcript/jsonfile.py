"""The documented path ``lmml_mdit.transcript.jsonfile``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_jsonfile`` (see docs/architecture.md)."""

from ._jsonfile import *  # noqa: F403
from ._jsonfile import __all__ as __all__
