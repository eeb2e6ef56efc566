"""The documented path ``lmml_mdit.transcript.parts``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_parts`` (see docs/architecture.md)."""

from ._parts import *  # noqa: F403
from ._parts import __all__ as __all__
