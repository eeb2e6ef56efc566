"""The documented path ``lmml_mdit.narrative.toolcalls``, kept: its names, from
``lmml_mdit.narrative``'s private module ``_toolcalls`` (see docs/architecture.md)."""

from ._toolcalls import *  # noqa: F403
from ._toolcalls import __all__ as __all__
