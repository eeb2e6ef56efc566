"""The preview layer: what a person reads: the self-contained HTML preview and the plain
Markdown export."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = ["placeholder", "render_html", "to_markdown", "write_preview"]

if TYPE_CHECKING:
    from .markdown import placeholder, to_markdown
    from .page import render_html, write_preview

# Each on first use: the HTML page loads its renderer only for a preview.
__getattr__ = lazy_attributes(
    __name__,
    {
        "placeholder": ".markdown",
        "to_markdown": ".markdown",
        "render_html": ".page",
        "write_preview": ".page",
    },
)
