"""The documented path ``lmml_mdit.preview.page``, kept: its names, from ``lmml_mdit.preview``'s
private module ``_page`` (see docs/architecture.md)."""

from ._page import *  # noqa: F403
from ._page import __all__ as __all__
