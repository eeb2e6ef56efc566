"""The documented path ``lmml_mdit.lsp.document``, kept: its names, from ``lmml_mdit.lsp``'s
private module ``_document`` (see docs/architecture.md)."""

from ._document import *  # noqa: F403
from ._document import __all__ as __all__
