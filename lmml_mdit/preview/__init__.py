"""The preview layer: what a person reads: the self-contained HTML preview and the plain
Markdown export. The modules are private; every name is imported from here, on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "DEFAULT_MAX_EMBEDDED_BYTES",
    "DEFAULT_MAX_IMAGE_BYTES",
    "DEFAULT_MAX_TEXT_BYTES",
    "LEXER_ALIAS",
    "MAX_HIGHLIGHT_CHARS",
    "PREVIEW_CSS",
    "ROLE_COLOURS",
    "SAFE_URL_SCHEMES",
    "LmmlLexer",
    "PreviewOptions",
    "PreviewSource",
    "display_markdown",
    "is_safe_url",
    "placeholder",
    "render_html",
    "sniff_media_type",
    "to_markdown",
    "write_preview",
]

if TYPE_CHECKING:
    from ._lexer import LEXER_ALIAS, LmmlLexer
    from ._markdown import display_markdown, placeholder, to_markdown
    from ._page import (
        CONTENT_SECURITY_POLICY,
        DEFAULT_MAX_EMBEDDED_BYTES,
        DEFAULT_MAX_IMAGE_BYTES,
        DEFAULT_MAX_TEXT_BYTES,
        MAX_HIGHLIGHT_CHARS,
        SAFE_URL_SCHEMES,
        PreviewOptions,
        PreviewSource,
        is_safe_url,
        render_html,
        sniff_media_type,
        write_preview,
    )
    from ._style import PREVIEW_CSS, ROLE_COLOURS

_NAMES = {
    name: f".{module}"
    for module, names in {
        "_lexer": ("LEXER_ALIAS", "LmmlLexer"),
        "_markdown": ("display_markdown", "placeholder", "to_markdown"),
        "_page": (
            "CONTENT_SECURITY_POLICY",
            "DEFAULT_MAX_EMBEDDED_BYTES",
            "DEFAULT_MAX_IMAGE_BYTES",
            "DEFAULT_MAX_TEXT_BYTES",
            "MAX_HIGHLIGHT_CHARS",
            "SAFE_URL_SCHEMES",
            "PreviewOptions",
            "PreviewSource",
            "is_safe_url",
            "render_html",
            "sniff_media_type",
            "write_preview",
        ),
        "_style": ("PREVIEW_CSS", "ROLE_COLOURS"),
    }.items()
    for name in names
}

# Each on first use: the HTML page loads its renderer only for a preview, Pygments only
# with the lexer.
__getattr__ = lazy_attributes(__name__, _NAMES)
