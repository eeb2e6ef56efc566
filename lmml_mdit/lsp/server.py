"""The documented path ``lmml_mdit.lsp.server``, kept: its names, from ``lmml_mdit.lsp``'s
private module ``_server`` (see docs/architecture.md)."""

from ._server import *  # noqa: F403
from ._server import __all__ as __all__
