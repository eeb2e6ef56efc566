"""The documented path ``lmml_mdit.narrative.images``, kept: its names, from
``lmml_mdit.narrative``'s private module ``_images`` (see docs/architecture.md)."""

from __future__ import annotations

from ._images import (
    UNSENT_IMAGE,
    AssetLookup,
    MarkdownImage,
    image_asset_name,
    markdown_images,
    unsent_image_issues,
    unsent_image_message,
    url_scheme,
)

__all__ = [
    "UNSENT_IMAGE",
    "AssetLookup",
    "MarkdownImage",
    "image_asset_name",
    "markdown_images",
    "unsent_image_issues",
    "unsent_image_message",
    "url_scheme",
]
