"""The preview layer: what a person reads: the self-contained HTML preview and the plain
Markdown export. The modules are private; every name is imported from here, on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes, public_names

if TYPE_CHECKING:
    from ._lexer import LEXER_ALIAS as LEXER_ALIAS
    from ._lexer import LmmlLexer as LmmlLexer
    from ._markdown import display_markdown as display_markdown
    from ._markdown import placeholder as placeholder
    from ._markdown import to_markdown as to_markdown
    from ._page import CONTENT_SECURITY_POLICY as CONTENT_SECURITY_POLICY
    from ._page import DEFAULT_MAX_EMBEDDED_BYTES as DEFAULT_MAX_EMBEDDED_BYTES
    from ._page import DEFAULT_MAX_IMAGE_BYTES as DEFAULT_MAX_IMAGE_BYTES
    from ._page import DEFAULT_MAX_TEXT_BYTES as DEFAULT_MAX_TEXT_BYTES
    from ._page import MAX_HIGHLIGHT_CHARS as MAX_HIGHLIGHT_CHARS
    from ._page import SAFE_URL_SCHEMES as SAFE_URL_SCHEMES
    from ._page import PreviewOptions as PreviewOptions
    from ._page import PreviewSource as PreviewSource
    from ._page import is_safe_url as is_safe_url
    from ._page import render_html as render_html
    from ._page import sniff_media_type as sniff_media_type
    from ._page import write_preview as write_preview
    from ._style import PREVIEW_CSS as PREVIEW_CSS
    from ._style import ROLE_COLOURS as ROLE_COLOURS

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

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names(_NAMES)
