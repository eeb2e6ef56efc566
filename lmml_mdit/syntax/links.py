"""The documented path ``lmml_mdit.syntax.links``, kept: its names, from
``lmml_mdit.syntax``'s private module ``_links`` (see docs/architecture.md)."""

from ._links import *  # noqa: F403
from ._links import __all__ as __all__
