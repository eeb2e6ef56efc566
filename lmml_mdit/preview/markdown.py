"""The documented path ``lmml_mdit.preview.markdown``, kept: its names, from ``lmml_mdit.preview``'s
private module ``_markdown`` (see docs/architecture.md)."""

from __future__ import annotations

from ._markdown import (
    display_markdown,
    placeholder,
    to_markdown,
)

__all__ = [
    "display_markdown",
    "placeholder",
    "to_markdown",
]
