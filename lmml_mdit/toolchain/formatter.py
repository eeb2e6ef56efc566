"""The mdformat plugin ``lmml``: the module the ``mdformat.parser_extension`` entry point
names, so it stays at this path. The code is in ``_formatter``; see docs/toolchain.md."""

from __future__ import annotations

from ._formatter import (
    CHANGES_AST,
    EXTENSION_NAME,
    POSTPROCESSORS,
    RENDERERS,
    format_text,
    outline,
    update_mdit,
)

__all__ = [
    "CHANGES_AST",
    "EXTENSION_NAME",
    "POSTPROCESSORS",
    "RENDERERS",
    "format_text",
    "outline",
    "update_mdit",
]
