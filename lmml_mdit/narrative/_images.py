"""Markdown images in a narrative: what they name, and why none is sent to the model.

A Markdown image is text to LMML; when it names an asset the bundle has,
:func:`unsent_image_issues` reports it as ``unsent_image`` (and the preview marks it "not
sent"), read from the narrative's one token stream. See docs/syntax.md, "Markdown images
are text, not references".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import unquote

from markdown_it.token import Token

from ..model import Issue
from ..syntax import match_reference_name, place_references
from ._narrative import Narrative

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

UNSENT_IMAGE = "unsent_image"
"""The issue kind of a Markdown image naming a bundle asset (a warning)."""

IMAGE_OPENER = "!["
"""The text every Markdown image starts with (markdown-it's image rule reads it literally)."""


class AssetLookup(Protocol):
    """What :func:`unsent_image_issues` reads from a bundle (:class:`lmml_mdit.Bundle`
    provides it)."""

    @property
    def narrative(self) -> Narrative: ...

    def has_asset(self, name: str) -> bool: ...


@dataclass(frozen=True)
class MarkdownImage:
    """One Markdown image of the narrative.

    :ivar src: the destination as the parser gives it (entities decoded, URL-normalized).
    :ivar alt: the alt text as written (the image's label).
    :ivar name: the asset name the destination points to (:func:`image_asset_name`), or
        None for a URL, an absolute path or an empty destination.
    :ivar line: the 1-based source line of the ``![``.
    :ivar column: the 1-based column (in characters) of the ``![``.
    """

    src: str
    alt: str
    name: str | None
    line: int
    column: int


_URL_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")


def url_scheme(url: str) -> str | None:
    """The scheme a URL starts with (``https``, ``data``), lowercased, or None.

    :param url: the URL as given; the caller removes what a browser ignores in it.
    """
    match = _URL_SCHEME.match(url)
    return match.group(1).lower() if match else None


def image_asset_name(src: str) -> str | None:
    """The relative asset name an image destination points to, or None.

    The query and fragment are dropped, percent-escapes decoded and leading ``./`` removed:
    ``./charts/q3%20final.png#x`` names ``charts/q3 final.png``. A destination with a URL
    scheme (``https:``, ``data:``), an absolute or protocol-relative path, or nothing left
    names no asset.

    :param src: the image's ``src`` as the parser gives it.
    """
    if url_scheme(src) is not None or src.startswith("/"):
        return None
    path = src.split("#", 1)[0].split("?", 1)[0]
    name = unquote(path)
    while name.startswith("./"):
        name = name[2:]
    return name or None


def _image_children(children: Sequence[Token]) -> Iterator[Token]:
    # Only the inline's own children: an image inside another image's alt text is part of
    # that alt text, shown and sent as text.
    return (child for child in children if child.type == "image")


def _label_offset(content: str, image: Token, start: int) -> int:
    """The offset of the image's ``![`` in *content*, searching from *start*.

    The image token carries its label as written (``content``), so the first unescaped
    ``![label]`` at or after *start* is the image (images come in content order).
    """
    needle = f"![{image.content}]"
    found = content.find(needle, start)
    while found > 0 and _escaped(content, found):
        found = content.find(needle, found + 1)
    return found


def _escaped(content: str, offset: int) -> bool:
    """Whether the character at *offset* follows an odd run of backslashes."""
    before = offset
    while before > 0 and content[before - 1] == "\\":
        before -= 1
    return (offset - before) % 2 == 1


def markdown_images(narrative: Narrative) -> Iterator[MarkdownImage]:
    """Every Markdown image of *narrative*, in document order, with its source position.

    Read from the narrative's tokens: an image in a code span, a code block, an HTML block
    or an inline fence is no image. Work is linear in the size of the inline contents that
    hold images.
    """
    scratch: dict[str, object] = {}  # position caches shared by the whole walk
    for position, token in enumerate(narrative.parsed_tokens):
        # An image starts with a literal "![" in its block's content: only those blocks
        # need their inline children (parsed now if the parse left them for later).
        if token.type != "inline" or IMAGE_OPENER not in token.content:
            continue
        images = list(_image_children(narrative.inline_children(position)))
        if not images:
            continue
        content = token.content
        markers: list[Token] = []
        cursor = 0
        for image in images:
            offset = _label_offset(content, image, cursor)
            if offset < 0:  # never seen in practice: place it where the search started
                offset = cursor
            else:  # past the label, which may hold image look-alikes of its own
                cursor = offset + len(image.content) + 3
            markers.append(Token("lmml_image_position", "", 0, meta={"pos": offset}))
        place_references(narrative.source, scratch, token, markers)
        for image, marker in zip(images, markers, strict=True):
            src = str(image.attrGet("src") or "")
            yield MarkdownImage(
                src=src,
                alt=image.content,
                name=image_asset_name(src),
                line=marker.meta["line"],
                column=marker.meta["column"],
            )


def unsent_image_message(name: str) -> str:
    """Why a Markdown image naming the asset *name* is reported, and what to write."""
    if match_reference_name(name, 0, len(name)) == name:
        remedy = f"write @{name} to send the asset"
    else:
        remedy = (
            f"{name!r} cannot be written as an @reference: rename the asset to letters, "
            "digits and _ . - / and reference it with @"
        )
    return f"a Markdown image is not sent to the model, only its text; {remedy}"


def unsent_image_issues(bundle: AssetLookup) -> list[Issue]:
    """An ``unsent_image`` warning for each Markdown image naming an asset of *bundle* (an
    archive entry, an inline fence, or a file in the folder of a bare ``.lmml``), in
    document order.

    :param bundle: the bundle (:class:`lmml_mdit.Bundle`).
    """
    issues: list[Issue] = []
    known: dict[str, bool] = {}
    for image in markdown_images(bundle.narrative):
        name = image.name
        if name is None:
            continue
        found = known.get(name)
        if found is None:
            found = known[name] = bundle.has_asset(name)
        if found:
            issues.append(
                Issue(UNSENT_IMAGE, name, image.line, image.column, unsent_image_message(name))
            )
    return issues
