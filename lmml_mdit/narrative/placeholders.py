"""The documented path ``lmml_mdit.narrative.placeholders``, kept: its names, from
``lmml_mdit.narrative``'s private module ``_placeholders`` (see docs/architecture.md)."""

from ._placeholders import *  # noqa: F403
from ._placeholders import __all__ as __all__
