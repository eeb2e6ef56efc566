"""Asset handlers: from an embed's bytes to a provider-neutral content part (RFC section 7).

A handler turns an :class:`Asset` (a resolved embed) into neutral parts (:class:`TextPart`,
:class:`ImagePart`, ...) that the provider modules write in their own shape. Lookup, first
match wins: a per-call override, a handler given to :func:`register_handler`, the
built-in one for the media type the bytes show (:mod:`lmml_mdit.media`).
:class:`Base64Cache` encodes each asset once per bundle. See docs/messages.md, "Handlers".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..bundle import is_remote_name, parse_remote
from ..conversation import (
    PART_TYPES,
    Asset,
    AudioPart,
    Base64Cache,
    DocumentPart,
    Handler,
    ImagePart,
    Part,
    RemotePart,
    TextFilePart,
    TextPart,
    VideoPart,
    handler_for,
    register_handler,
    registered_handlers,
    unregister_handler,
)
from ..errors import BundleError

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
    result = handler_for(asset, overrides)(asset)
    if isinstance(result, PART_TYPES):
        return [result]
    if isinstance(result, (str, bytes)) or not isinstance(result, Sequence):
        raise TypeError(
            f"handler for {asset.name!r} returned {type(result).__name__}, not a part "
            "or a sequence of parts"
        )
    parts = list(result)
    for part in parts:
        if not isinstance(part, PART_TYPES):
            raise TypeError(
                f"handler for {asset.name!r} returned a sequence holding "
                f"{type(part).__name__}, not a part (each item must be one)"
            )
    return parts
