"""What an asset name resolves to, described for a person: an inline fence or a file beside
the narrative, its media type, size, an image's dimensions and a text's first lines, or why
it resolves to nothing (worded as validation words it).

Only the first bytes of a file are read (:data:`~.dimensions.HEAD_BYTES`): hovering over a
reference to a large video costs no more than over a small image.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from ..bundle import Bundle, path_under
from ..errors import BundleError
from ..media import guess_type, is_image_type, is_text_type, media_type_for
from ._dimensions import HEAD_BYTES, image_dimensions

__all__ = ["AssetInfo", "describe", "describe_file"]

PREVIEW_LINES = 8
"""How many first lines of a text asset a description shows."""


@dataclass(frozen=True)
class AssetInfo:
    """What an asset name resolves to.

    :ivar name: the asset name.
    :ivar source: ``"fence"`` (an inline fence), ``"file"`` (a file beside the narrative),
        ``"entry"`` (an archive entry) or ``"missing"``.
    :ivar media_type: its media type, when it resolves.
    :ivar size: its size in bytes, when it resolves.
    :ivar dimensions: an image's ``(width, height)`` in pixels, when they can be read.
    :ivar first_lines: a text asset's first lines.
    :ivar path: the file's path, for a file.
    :ivar line: the fence's 1-based opening line, for a fence.
    :ivar problem: why it does not resolve, for a missing one.
    """

    name: str
    source: str
    media_type: str | None = None
    size: int | None = None
    dimensions: tuple[int, int] | None = None
    first_lines: tuple[str, ...] = ()
    path: str | None = None
    line: int | None = None
    problem: str | None = None

    def summary(self) -> str:
        """One line: media type, size and dimensions (``image/png, 1,234 bytes, 64×48``)."""
        parts = [self.media_type or "unknown type"]
        if self.size is not None:
            parts.append(f"{self.size:,} byte" + ("" if self.size == 1 else "s"))
        if self.dimensions is not None:
            parts.append(f"{self.dimensions[0]}×{self.dimensions[1]} px")
        return ", ".join(parts)


def _details(name: str, head: bytes) -> tuple[str, tuple[int, int] | None, tuple[str, ...]]:
    media_type = media_type_for(name, head)
    dimensions = image_dimensions(head) if is_image_type(media_type) else None
    first: tuple[str, ...] = ()
    if is_text_type(media_type):
        text = head.decode("utf-8", "replace").removeprefix("\ufeff")
        first = tuple(text.splitlines()[:PREVIEW_LINES])
    return media_type, dimensions, first


def describe_file(name: str, path: str) -> AssetInfo:
    """The description of the file *path*, referenced as *name* (only its head is read).

    :raises OSError: when the file cannot be read.
    """
    size = os.stat(path).st_size
    with open(path, "rb") as stream:
        head = stream.read(HEAD_BYTES)
    media_type, dimensions, first = _details(name, head)
    return AssetInfo(name, "file", media_type, size, dimensions, first, path=path)


def describe(bundle: Bundle, name: str) -> AssetInfo:
    """What *name* resolves to in *bundle*, as :meth:`Bundle.embed
    <lmml_mdit.bundle.Bundle.embed>` would resolve it."""
    fence = bundle.fences.get(name)
    if fence is not None:
        content = fence.content or b""
        media_type, dimensions, first = _details(name, content[:HEAD_BYTES])
        return AssetInfo(
            name, "fence", media_type, len(content), dimensions, first, line=fence.line
        )
    try:
        bundle.resolve(name)
    except BundleError as error:
        advice = error.advice(cli=True)
        problem = error.message + (f"; {advice}" if advice else "")
        return AssetInfo(name, "missing", guess_type(name), problem=problem)
    if bundle.kind == "text" and bundle.base_dir is not None:
        path = path_under(os.path.realpath(bundle.base_dir), name)
        if path is not None:
            try:
                return describe_file(name, path)
            except OSError as error:
                return AssetInfo(name, "missing", guess_type(name), problem=str(error))
    head = bundle.embed(name)[:HEAD_BYTES]
    media_type, dimensions, first = _details(name, head)
    return AssetInfo(name, "entry", media_type, bundle.entry_size(name), dimensions, first)
