"""Remote assets in a payload: the shared reading and refusing every provider uses.

The on-disk form is :mod:`lmml_mdit.bundle.remote`'s; each provider module
(:mod:`lmml_mdit.chat.providers`) says how its format spells a URL or a file id, and which
it takes. Everything refused raises :class:`~lmml_mdit.errors.UnsupportedContentError`
naming the embed and what it points at: the provider needs the bytes, or the id was issued
by another provider. Nothing is ever fetched.
"""

from __future__ import annotations

from ..conversation import RemoteAsset, RemoteKind, RemotePart
from ..errors import ImportFormatError, UnsupportedContentError
from ..media import VIDEO_TYPES

__all__ = [
    "is_audio_or_video",
    "read_file_id",
    "read_url",
    "refuse_remote",
]

_BYTES_HINT = "embed the bytes instead (nothing is fetched), or export to a provider that takes it"


def _remote(
    *, where: str, kind: RemoteKind, media_type: object = None, **given: object
) -> RemoteAsset:
    fields: dict[str, str] = {}
    for key, value in given.items():
        if not isinstance(value, str):
            raise ImportFormatError(
                f"expected a string {key}, found {type(value).__name__}",
                name=where,
                hint="check that the payload matches the format given",
            )
        fields[key] = value
    if media_type is not None and not isinstance(media_type, str):
        raise ImportFormatError(
            f"expected a string media type, found {type(media_type).__name__}",
            name=where,
            hint="check that the payload matches the format given",
        )
    try:
        return RemoteAsset(
            kind=kind, media_type=media_type.lower() if media_type else None, **fields
        )
    except ValueError as error:
        raise ImportFormatError(
            f"invalid remote asset: {error}", name=where, hint="give a well-formed URL or id"
        ) from None


def read_url(
    url: object, kind: RemoteKind, *, where: str, media_type: object = None
) -> RemoteAsset:
    """A remote asset for an image or file given by *url* (recorded, not fetched).

    :raises ImportFormatError: for a URL that is not a string, is over
        :data:`~lmml_mdit.bundle.remote.MAX_URL_LENGTH` characters or holds control
        characters.
    """
    return _remote(where=where, kind=kind, media_type=media_type, url=url)


def read_file_id(file_id: object, kind: RemoteKind, provider: str, *, where: str) -> RemoteAsset:
    """A remote asset for a file id issued by *provider*.

    :raises ImportFormatError: for an id that is not a short string.
    """
    return _remote(where=where, kind=kind, file_id=file_id, provider=provider)


def refuse_remote(part: RemotePart, target: str, why: str) -> UnsupportedContentError:
    """The error for a remote *part* that the format called *target* cannot take, saying
    *why* and that the bytes would do."""
    remote = part.remote
    what = f"{part.asset.name}, a remote {remote.kind} ({remote.label})"
    return part.asset.unsupported(f"{target} cannot take {what}: {why}", hint=_BYTES_HINT)


def is_audio_or_video(remote: RemoteAsset) -> bool:
    """Whether *remote* is declared audio or video (no OpenAI or Anthropic file part
    takes them)."""
    media_type = remote.media_type or ""
    return media_type in VIDEO_TYPES or media_type.startswith(("video/", "audio/"))
