"""The Pygments lexer ``lmml``: the module the ``pygments.lexers`` entry point names
(``lmml_mdit.preview.lexer:LmmlLexer``), so it stays at this path. The code is in ``_lexer``;
see docs/toolchain.md, "The Pygments lexer"."""

from __future__ import annotations

from ._lexer import (
    EMBED_MARKER,
    EMBED_NAME,
    ESCAPE,
    FRONT_MATTER_MARKER,
    LEXER_ALIAS,
    PLACEHOLDER,
    REFERENCE,
    ROLE,
    LmmlLexer,
)

__all__ = [
    "EMBED_MARKER",
    "EMBED_NAME",
    "ESCAPE",
    "FRONT_MATTER_MARKER",
    "LEXER_ALIAS",
    "PLACEHOLDER",
    "REFERENCE",
    "ROLE",
    "LmmlLexer",
]
