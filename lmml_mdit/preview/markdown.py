"""The documented path ``lmml_mdit.preview.markdown``, kept: its names, from ``lmml_mdit.preview``'s
private module ``_markdown`` (see docs/architecture.md)."""

from ._markdown import *  # noqa: F403
from ._markdown import __all__ as __all__
