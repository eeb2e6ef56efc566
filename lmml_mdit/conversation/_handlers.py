"""Asset handlers below the bundle: the registry and the built-in handler.

A handler turns an :class:`Asset` into neutral parts. :func:`register_handler` keeps one
per extension or media type; :func:`builtin_part` is the handler used when none is
registered, and :func:`refusal` says, without sending, why it refuses an asset (what
``validate`` reports as ``unsendable_embed``). See docs/messages.md, "Handlers".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ..errors import UnsupportedContentError
from ..media import (
    AUDIO_FORMATS,
    DOCUMENT_TYPES,
    IMAGE_TYPES,
    REFUSED_IMAGE_TYPES,
    VIDEO_TYPES,
    extension_type,
    is_text_type,
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
    "refusal",
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


def _lookup(asset: Asset, table: Mapping[str, Handler]) -> Handler | None:
    if not table:
        return None
    return table.get(asset.extension) or table.get(asset.media_type)


def handler_for(asset: Asset, overrides: Mapping[str, Handler] | None = None) -> Handler:
    """The first handler that applies to *asset*: a per-call override, a registered one,
    else :func:`builtin_part`.

    :param overrides: per-call handlers, keyed like :func:`register_handler`.
    :raises ValueError: for an override key no asset can match (:func:`handler_key`).
    """
    table = {handler_key(key): value for key, value in (overrides or {}).items()}
    return _lookup(asset, table) or _lookup(asset, _REGISTRY) or builtin_part


PART_TYPES = (TextPart, ImagePart, DocumentPart, TextFilePart, AudioPart, VideoPart, RemotePart)


def builtin_part(asset: Asset) -> Part:
    """The built-in handler: the part the bytes' media type makes.

    :raises UnsupportedContentError: for a refused image type, a binary name with no
        bytes, text bytes that are not UTF-8, and any other media type.
    """
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
    by_extension = extension_type(asset.name)
    if not asset.data and by_extension is not None and not is_text_type(by_extension):
        # No bytes to sniff: an empty '.png' would go out as an empty text file.
        raise asset.unsupported(
            f"embed is named as {by_extension} but holds no bytes (an empty file)",
            hint="put the file's content in it, or remove the reference",
        )
    if is_text_type(media_type):
        return TextFilePart(asset, media_type, asset.text())
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


def refusal(asset: Asset) -> UnsupportedContentError | None:
    """Why the asset cannot be sent with the registered handlers, or None.

    Only the built-in handler refuses here: an asset a registered handler takes is the
    handler's to judge when it is sent.
    """
    if _lookup(asset, _REGISTRY) is not None:
        return None
    try:
        builtin_part(asset)
    except UnsupportedContentError as error:
        return error
    return None
