"""Remote assets in each provider's form: read from a payload, written into a request.

The on-disk form is :mod:`lmml_mdit.bundle.remote`'s; this module knows how each chat
format spells a URL or a file id, and which it takes:

- ``openai`` (Chat): an image URL as ``image_url.url``; an OpenAI file id of a file as
  ``file.file_id``; a file URL and an image file id are refused.
- ``openai-responses``: ``input_image.image_url`` / ``input_file.file_url`` for URLs,
  ``input_image.file_id`` / ``input_file.file_id`` for OpenAI file ids; a file declared
  audio or video is refused.
- ``anthropic``: an ``image`` or ``document`` block with a ``url`` source (a document
  declared of another type than PDF is refused), or a ``file`` source for an Anthropic
  file id.
- ``gemini``: ``file_data.file_uri`` (with ``mime_type`` when known) for a URL; a file id
  is refused.

Everything refused raises :class:`~lmml_mdit.errors.UnsupportedContentError` naming the
embed and what it points at: the provider needs the bytes, or the id was issued by
another provider. Nothing is ever fetched.
"""

from __future__ import annotations

from ..bundle.remote import RemoteAsset, RemoteKind
from ..errors import ImportFormatError, UnsupportedContentError
from ..jsontypes import JSONObject
from ..media import PDF_TYPE, VIDEO_TYPES
from .handlers import RemotePart

__all__ = [
    "anthropic_block",
    "anthropic_source",
    "gemini_part",
    "openai_chat_part",
    "read_file_id",
    "read_url",
    "responses_part",
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


def _refuse(part: RemotePart, target: str, why: str) -> UnsupportedContentError:
    remote = part.remote
    what = f"{part.asset.name}, a remote {remote.kind} ({remote.label})"
    return part.asset.unsupported(f"{target} cannot take {what}: {why}", hint=_BYTES_HINT)


def _is_media(remote: RemoteAsset) -> bool:
    """Whether *remote* is declared audio or video (no OpenAI or Anthropic file part
    takes them)."""
    media_type = remote.media_type or ""
    return media_type in VIDEO_TYPES or media_type.startswith(("video/", "audio/"))


def openai_chat_part(part: RemotePart, target: str, detail: str | None) -> JSONObject:
    """The Chat Completions content part for *part*.

    :raises UnsupportedContentError: for a file URL, an image file id, or an id not
        OpenAI's.
    """
    remote = part.remote
    if remote.url is not None:
        if remote.kind != "image":
            raise _refuse(part, target, "its file parts take the bytes or a file id, not a URL")
        image: JSONObject = {"url": remote.url}
        if detail is not None:
            image["detail"] = detail
        return {"type": "image_url", "image_url": image}
    if remote.provider != "openai":
        raise _refuse(part, target, "the file id was issued by another provider")
    if remote.kind != "file":
        raise _refuse(part, target, "an image_url part takes a URL, not a file id")
    return {"type": "file", "file": {"file_id": remote.file_id}}


def responses_part(part: RemotePart, target: str, detail: str) -> JSONObject:
    """The Responses input part for *part*.

    :raises UnsupportedContentError: for an id not OpenAI's.
    """
    remote = part.remote
    if remote.url is None and remote.provider != "openai":
        raise _refuse(part, target, "the file id was issued by another provider")
    if _is_media(remote):
        raise _refuse(part, target, f"its input_file takes documents, not {remote.media_type}")
    if remote.kind == "image":
        key = "image_url" if remote.url is not None else "file_id"
        return {"type": "input_image", key: remote.url or remote.file_id, "detail": detail}
    if remote.url is not None:
        return {"type": "input_file", "file_url": remote.url}
    return {"type": "input_file", "file_id": remote.file_id}


def anthropic_source(remote: RemoteAsset) -> JSONObject | None:
    """The Anthropic ``source`` of *remote*, or None when Anthropic cannot take it."""
    if remote.url is not None:
        return {"type": "url", "url": remote.url}
    if remote.provider == "anthropic":
        return {"type": "file", "file_id": remote.file_id}
    return None


def anthropic_block(part: RemotePart, target: str) -> JSONObject:
    """The Anthropic ``image`` or ``document`` block for *part*.

    :raises UnsupportedContentError: for an id not Anthropic's.
    """
    source = anthropic_source(part.remote)
    if source is None:
        raise _refuse(part, target, "the file id was issued by another provider")
    media_type = part.remote.media_type
    if part.remote.kind == "file" and media_type not in (None, PDF_TYPE) and part.remote.url:
        raise _refuse(part, target, f"a url document source is a PDF, not {media_type}")
    if part.remote.kind == "image":
        return {"type": "image", "source": source}
    return {"type": "document", "source": source}


def gemini_part(part: RemotePart, target: str) -> JSONObject:
    """The Gemini ``file_data`` part for *part*.

    :raises UnsupportedContentError: for a file id (Gemini takes a URI, not an id).
    """
    remote = part.remote
    if remote.url is None:
        raise _refuse(part, target, "Gemini takes a file_data URI, not another provider's id")
    file_data: JSONObject = {"file_uri": remote.url}
    if remote.media_type is not None:
        file_data["mime_type"] = remote.media_type
    return {"file_data": file_data}
