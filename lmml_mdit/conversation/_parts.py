"""The content parts of a message: text, and the assets a turn binds (their bytes resolved,
or a remote asset's address) as providers send them (see docs/messages.md, "Handlers")."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, get_args

from ..errors import UnsupportedContentError
from ..media import extension
from ..model import Embed
from ._remote import RemoteAsset

__all__ = [
    "TEXT_EMBEDS_CHOICES",
    "Asset",
    "AudioPart",
    "Base64Cache",
    "DocumentPart",
    "ImagePart",
    "ImportedAsset",
    "Part",
    "RemotePart",
    "Text",
    "TextEmbeds",
    "TextFilePart",
    "TextPart",
    "VideoPart",
]

TextEmbeds: TypeAlias = Literal["text", "document"]
"""How a text file is sent: as a text part headed by its name, or as the provider's document
part (the ``text_embeds`` option and setting, a :class:`TextFilePart`'s ``mode``)."""
TEXT_EMBEDS_CHOICES: tuple[TextEmbeds, ...] = get_args(TextEmbeds)


class Base64Cache:
    """The base64 text of each asset of one bundle, encoded once on first use.

    :ivar encodes: how many encodings were actually computed (for the benchmark and tests).
    """

    def __init__(self) -> None:
        self._encoded: dict[str, tuple[bytes, str]] = {}
        self.encodes = 0

    def encode(self, name: str, data: bytes) -> str:
        """The base64 text of *data*, stored under *name* for the next call; encoded
        again when *name* now holds other bytes (a handler's converted copy of the asset,
        ``dataclasses.replace(asset, data=...)``, shares this cache)."""
        cached = self._encoded.get(name)
        if cached is not None and (cached[0] is data or cached[0] == data):
            return cached[1]
        text = base64.b64encode(data).decode("ascii")
        self._encoded[name] = (data, text)
        self.encodes += 1
        return text


@dataclass(frozen=True)
class Asset:
    """One resolved embed, as a handler sees it.

    :ivar name: the embed name, e.g. ``charts/q3.png``.
    :ivar data: its bytes (an inline fence's UTF-8 text, or the archive entry).
    :ivar media_type: the media type the bytes show (see
        :func:`lmml_mdit.media.media_type_for`).
    :ivar embed: the first occurrence of the embed (for its line and column).
    """

    name: str
    data: bytes
    media_type: str
    embed: Embed
    cache: Base64Cache = field(default_factory=Base64Cache, repr=False, compare=False)

    @property
    def extension(self) -> str:
        """The lower-case extension with its dot (``".png"``), or ``""``."""
        return extension(self.name)

    @property
    def base64(self) -> str:
        """The bytes as base64 text, encoded once per bundle."""
        return self.cache.encode(self.name, self.data)

    def data_uri(self, media_type: str | None = None) -> str:
        """The bytes as a ``data:`` URI."""
        return f"data:{media_type or self.media_type};base64,{self.base64}"

    def text(self) -> str:
        """The bytes as UTF-8 text, without a leading byte order mark (a CSV saved by a
        spreadsheet often opens with one; it is no part of the text).

        :raises UnsupportedContentError: when they are not valid UTF-8.
        """
        try:
            return self.data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise self.unsupported(
                f"embed is not UTF-8 text ({self.media_type})",
                hint="register a handler for its extension with lmml_mdit.register_handler",
            ) from None

    def unsupported(self, message: str, *, hint: str) -> UnsupportedContentError:
        """The error refusing this asset: *message* and *hint*, with the asset's name and
        the line and column of its first occurrence (for handlers to raise)."""
        return UnsupportedContentError(
            message, name=self.name, line=self.embed.line, column=self.embed.column, hint=hint
        )


@dataclass(frozen=True)
class TextPart:
    """Plain text, kept verbatim (turn text, text a custom handler produced, or a run of
    an imported message's text)."""

    text: str


@dataclass(frozen=True)
class ImagePart:
    """An image, sent as base64 (``png``, ``jpeg``, ``gif`` or ``webp``; Gemini takes
    ``heic`` and ``heif`` too): a provider refuses one of a type it does not take."""

    asset: Asset
    media_type: str


@dataclass(frozen=True)
class DocumentPart:
    """A binary document (PDF), sent as a file or document part."""

    asset: Asset
    media_type: str


@dataclass(frozen=True)
class TextFilePart:
    """A text-like file (CSV, JSON, YAML, Markdown, logs, diffs, source code).

    Providers send it as a text part headed by the file name, or as their text-document
    part when asked (``text_embeds="document"``).

    :ivar mode: how its own conversation sends it when the rendering says nothing (a
        ``messages`` input's imported document), or None.
    """

    asset: Asset
    media_type: str
    text: str
    mode: TextEmbeds | None = None


@dataclass(frozen=True)
class AudioPart:
    """Audio input (``wav`` or ``mp3``)."""

    asset: Asset
    format: Literal["wav", "mp3"]


@dataclass(frozen=True)
class VideoPart:
    """Video input (``video/mp4``, ``video/webm`` or ``video/quicktime``); Gemini takes it
    as inline data, the other providers refuse it."""

    asset: Asset
    media_type: str


@dataclass(frozen=True)
class RemotePart:
    """An image or file given by URL or file id (a ``*.remote.json`` asset, see
    :mod:`lmml_mdit.bundle._remote`): sent as that URL or id where the provider takes it,
    refused where it needs the bytes."""

    asset: Asset
    remote: RemoteAsset


Part = TextPart | ImagePart | DocumentPart | TextFilePart | AudioPart | VideoPart | RemotePart
"""A provider-neutral content part."""


@dataclass(frozen=True)
class ImportedAsset:
    """Binary or file content carried in a message (an image, a PDF, audio).

    :ivar data: the decoded bytes.
    :ivar media_type: the media type the payload declared, lower case.
    """

    data: bytes
    media_type: str


Text = TextPart
"""The name import gave a run of text before the two directions shared one class:
``Text(text)``."""
