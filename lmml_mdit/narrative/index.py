"""The documented path ``lmml_mdit.narrative.index``, kept: its names, from
``lmml_mdit.narrative``'s private module ``_index`` (see docs/architecture.md)."""

from ._index import *  # noqa: F403
from ._index import __all__ as __all__
