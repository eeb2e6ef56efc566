"""Asset handlers below the bundle: the registry and the built-in handler.

A handler turns an :class:`Asset` into neutral parts. :func:`register_handler` keeps one
per extension or media type; :func:`builtin_part` is the handler used when none is
registered (it refuses what :func:`lmml_mdit.media.builtin_refusal` says), and
:func:`is_handled` tells whether one is registered for an asset (``validate`` asks it
before reporting ``unsendable_embed``). See docs/messages.md, "Handlers".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..media import (
    AUDIO_FORMATS,
    DOCUMENT_TYPES,
    IMAGE_TYPES,
    VIDEO_TYPES,
    builtin_refusal,
    extension,
)
from ._parts import (
    Asset,
    AudioPart,
    DocumentPart,
    ImagePart,
    Part,
    RemotePart,
    TextFilePart,
    TextPart,
    VideoPart,
)

__all__ = [
    "PART_TYPES",
    "Handler",
    "builtin_part",
    "handler_for",
    "handler_key",
    "is_handled",
    "register_handler",
    "registered_handlers",
    "unregister_handler",
]


Handler = Callable[[Asset], Part | Sequence[Part]]
"""A handler: an :class:`Asset` in, one part or a sequence of parts out."""

# --- registry ----------------------------------------------------------------------------

_REGISTRY: dict[str, Handler] = {}


def handler_key(key: str) -> str:
    """*key* normalised (``".py"``, ``"image/png"``); a key no asset could ever match (a
    pattern, two extensions, media type parameters) is refused, never kept unused."""
    given = key
    key = key.strip().lower()
    if not key:
        raise ValueError("a handler key must be an extension ('.py') or a media type")
    if "/" not in key and not key.startswith("."):
        key = "." + key
    if "/" in key:
        kind, _, subtype = key.partition("/")
        if not kind or not subtype or "/" in subtype or _unmatchable(key):
            raise ValueError(
                f"handler key {given!r} is not a media type a handler can match: give one "
                "exact type, such as 'image/svg+xml' (no '*' pattern, no parameters)"
            )
    elif key.count(".") != 1 or _unmatchable(key):
        last = key.rsplit(".", 1)[-1]
        example = f" (here '.{last}')" if last and not _unmatchable(last) else ""
        raise ValueError(
            f"handler key {given!r} is not an extension a handler can match: an asset's "
            f"extension is the part of its name after the last dot{example}, with no "
            "'*' pattern"
        )
    return key


def _unmatchable(key: str) -> bool:
    """Whether *key* holds a pattern, a parameter or a space, which no name or sniffed
    media type does."""
    return any(char in "*?[];,=" or char.isspace() for char in key)


def register_handler(key: str, handler: Handler) -> None:
    """Register *handler* for an extension (``".py"``) or a media type (``"image/svg+xml"``).

    It replaces any handler registered for the same key, and takes precedence over the
    built-ins. Per-call ``handlers={...}`` passed to ``messages()`` take precedence over it.

    :param key: an extension with or without the dot, or a media type; any case.
    :param handler: a callable taking an :class:`Asset` and returning a part or parts.
    :raises ValueError: for a key no asset can match: empty, a pattern (``"*.py"``,
        ``"image/*"``), two extensions (``".tar.gz"``: an asset's extension is what follows
        the last dot), a media type with parameters.
    """
    _REGISTRY[handler_key(key)] = handler


def unregister_handler(key: str) -> None:
    """Remove the handler registered for *key*, if any."""
    _REGISTRY.pop(handler_key(key), None)


def registered_handlers() -> dict[str, Handler]:
    """A copy of the registry, keys normalised (``".py"``, ``"image/png"``)."""
    return dict(_REGISTRY)


def _lookup(name: str, media_type: str, table: Mapping[str, Handler]) -> Handler | None:
    """The handler *table* holds for the name's extension, else for the media type."""
    if not table:
        return None
    return table.get(extension(name)) or table.get(media_type)


def handler_for(asset: Asset, overrides: Mapping[str, Handler] | None = None) -> Handler:
    """The first handler that applies to *asset*: a per-call override, a registered one,
    else :func:`builtin_part`.

    :param overrides: per-call handlers, keyed like :func:`register_handler`.
    :raises ValueError: for an override key no asset can match (:func:`handler_key`).
    """
    table = {handler_key(key): value for key, value in (overrides or {}).items()}
    found = _lookup(asset.name, asset.media_type, table)
    return found or _lookup(asset.name, asset.media_type, _REGISTRY) or builtin_part


PART_TYPES = (TextPart, ImagePart, DocumentPart, TextFilePart, AudioPart, VideoPart, RemotePart)


def builtin_part(asset: Asset) -> Part:
    """The built-in handler: the part the bytes' media type makes.

    :raises UnsupportedContentError: for what :func:`lmml_mdit.media.builtin_refusal`
        refuses (a refused image type, a binary name with no bytes, bytes named as text
        that are not UTF-8, any other media type).
    """
    media_type = asset.media_type
    refused = builtin_refusal(asset.name, media_type, asset.data)
    if refused is not None:
        message, hint = refused
        raise asset.unsupported(message, hint=hint)
    if media_type in IMAGE_TYPES:
        return ImagePart(asset, media_type)
    if media_type in DOCUMENT_TYPES:
        return DocumentPart(asset, media_type)
    audio_format = AUDIO_FORMATS.get(media_type)
    if audio_format is not None:
        return AudioPart(asset, audio_format)
    if media_type in VIDEO_TYPES:
        return VideoPart(asset, media_type)
    return TextFilePart(asset, media_type, asset.text())


def is_handled(name: str, media_type: str) -> bool:
    """Whether a registered handler takes an asset of this name and media type."""
    return _lookup(name, media_type, _REGISTRY) is not None
