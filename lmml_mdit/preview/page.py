"""The documented path ``lmml_mdit.preview.page``, kept: its names, from ``lmml_mdit.preview``'s
private module ``_page`` (see docs/architecture.md)."""

from __future__ import annotations

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

__all__ = [
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
]
