"""Asset handlers: from an embed's bytes to a provider-neutral content part (RFC section 7).

A handler turns an :class:`Asset` (a resolved embed) into neutral parts (:class:`TextPart`,
:class:`ImagePart`, ...) that the provider modules write in their own shape. Lookup, first
match wins: a per-call override, a handler given to :func:`register_handler`, the
built-in one for the media type the bytes show (:mod:`lmml_mdit.media`).
:class:`Base64Cache` encodes each asset once per bundle. See docs/messages.md, "Handlers".
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..bundle.remote import RemoteAsset, is_remote_name, parse_remote
from ..errors import BundleError, UnsupportedContentError
from ..media import (
    AUDIO_FORMATS,
    DOCUMENT_TYPES,
    IMAGE_TYPES,
    REFUSED_IMAGE_TYPES,
    VIDEO_TYPES,
    extension,
    extension_type,
    is_text_type,
)
from ..model import Embed

__all__ = [
    "Asset",
    "AudioPart",
    "Base64Cache",
    "DocumentPart",
    "Handler",
    "ImagePart",
    "Part",
    "RemotePart",
    "TextFilePart",
    "TextPart",
    "VideoPart",
    "build_parts",
    "register_handler",
    "registered_handlers",
    "unregister_handler",
]


class Base64Cache:
    """The base64 text of each asset of one bundle, encoded once on first use.

    :ivar encodes: how many encodings were actually computed (for the benchmark and tests).
    """

    def __init__(self) -> None:
        self._encoded: dict[str, str] = {}
        self.encodes = 0

    def encode(self, name: str, data: bytes) -> str:
        """The base64 text of *data*, stored under *name* for the next call."""
        cached = self._encoded.get(name)
        if cached is None:
            cached = base64.b64encode(data).decode("ascii")
            self._encoded[name] = cached
            self.encodes += 1
        return cached


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
        """The bytes as UTF-8 text.

        :raises UnsupportedContentError: when they are not valid UTF-8.
        """
        try:
            return self.data.decode("utf-8")
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
    """Plain text (turn text, or text a custom handler produced)."""

    text: str


@dataclass(frozen=True)
class ImagePart:
    """An image, sent as base64 (``png``, ``jpeg``, ``gif`` or ``webp``)."""

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
    mode: Literal["text", "document"] | None = None


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
    :mod:`lmml_mdit.bundle.remote`): sent as that URL or id where the provider takes it,
    refused where it needs the bytes."""

    asset: Asset
    remote: RemoteAsset


Part = TextPart | ImagePart | DocumentPart | TextFilePart | AudioPart | VideoPart | RemotePart
"""A provider-neutral content part."""

Handler = Callable[[Asset], Part | Sequence[Part]]
"""A handler: an :class:`Asset` in, one part or a sequence of parts out."""

# --- registry ----------------------------------------------------------------------------

_REGISTRY: dict[str, Handler] = {}


def _key(key: str) -> str:
    key = key.strip().lower()
    if not key:
        raise ValueError("a handler key must be an extension ('.py') or a media type")
    if "/" not in key and not key.startswith("."):
        key = "." + key
    return key


def register_handler(key: str, handler: Handler) -> None:
    """Register *handler* for an extension (``".py"``) or a media type (``"image/svg+xml"``).

    It replaces any handler registered for the same key, and takes precedence over the
    built-ins. Per-call ``handlers={...}`` passed to ``messages()`` take precedence over it.

    :param key: an extension with or without the dot, or a media type; any case.
    :param handler: a callable taking an :class:`Asset` and returning a part or parts.
    """
    _REGISTRY[_key(key)] = handler


def unregister_handler(key: str) -> None:
    """Remove the handler registered for *key*, if any."""
    _REGISTRY.pop(_key(key), None)


def registered_handlers() -> dict[str, Handler]:
    """A copy of the registry, keys normalised (``".py"``, ``"image/png"``)."""
    return dict(_REGISTRY)


def _lookup(asset: Asset, table: Mapping[str, Handler]) -> Handler | None:
    if not table:
        return None
    return table.get(asset.extension) or table.get(asset.media_type)


def build_parts(asset: Asset, overrides: Mapping[str, Handler] | None = None) -> list[Part]:
    """Turn *asset* into neutral parts with the first handler that applies.

    :param overrides: per-call handlers, keyed like :func:`register_handler`.
    :raises UnsupportedContentError: for refused image types (svg, bmp, tiff, ico) and for
        bytes no handler takes.
    :raises TypeError: when a handler returns something other than a part or a list of
        parts.
    """
    if is_remote_name(asset.name):
        # Where the bytes are, not bytes: no handler applies to it.
        try:
            return [RemotePart(asset, parse_remote(asset.data, name=asset.name))]
        except BundleError as error:
            raise asset.unsupported(error.message, hint=error.hint or "") from None
    table = {_key(key): value for key, value in (overrides or {}).items()}
    handler = _lookup(asset, table) or _lookup(asset, _REGISTRY) or _builtin
    result = handler(asset)
    if isinstance(result, _PART_TYPES):
        return [result]
    if isinstance(result, (str, bytes)) or not isinstance(result, Sequence):
        raise TypeError(
            f"handler for {asset.name!r} returned {type(result).__name__}, not a part "
            "or a sequence of parts"
        )
    parts = list(result)
    for part in parts:
        if not isinstance(part, _PART_TYPES):
            raise TypeError(f"handler for {asset.name!r} returned {type(part).__name__}")
    return parts


_PART_TYPES = (TextPart, ImagePart, DocumentPart, TextFilePart, AudioPart, VideoPart, RemotePart)


def _builtin(asset: Asset) -> Part:
    media_type = asset.media_type
    if media_type in IMAGE_TYPES:
        return ImagePart(asset, media_type)
    if media_type in REFUSED_IMAGE_TYPES:
        raise asset.unsupported(
            f"the chat providers accept no {media_type} images",
            hint=f"convert it to PNG, or register a handler for {media_type} with "
            "lmml_mdit.register_handler",
        )
    if media_type in DOCUMENT_TYPES:
        return DocumentPart(asset, media_type)
    audio_format = AUDIO_FORMATS.get(media_type)
    if audio_format is not None:
        return AudioPart(asset, audio_format)
    if media_type in VIDEO_TYPES:
        return VideoPart(asset, media_type)
    if is_text_type(media_type):
        return TextFilePart(asset, media_type, asset.text())
    by_extension = extension_type(asset.name)
    if by_extension is not None and is_text_type(by_extension):
        # A text extension whose bytes are not UTF-8 (Latin-1, UTF-16, binary).
        raise asset.unsupported(
            f"embed is named as {by_extension} but its bytes are not UTF-8 text",
            hint="re-encode it as UTF-8, or register a handler for its extension",
        )
    raise asset.unsupported(
        f"no handler for {media_type} content",
        hint="register one with lmml_mdit.register_handler(extension, fn)",
    )
