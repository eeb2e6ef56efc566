"""The documented path ``lmml_mdit.lsp.server``, kept: its names, from ``lmml_mdit.lsp``'s
private module ``_server`` (see docs/architecture.md)."""

from __future__ import annotations

from ._server import (
    DEFAULT_DEBOUNCE,
    SERVER_NAME,
    LmmlLanguageServer,
    build_server,
    serve,
)

__all__ = [
    "DEFAULT_DEBOUNCE",
    "SERVER_NAME",
    "LmmlLanguageServer",
    "build_server",
    "serve",
]
