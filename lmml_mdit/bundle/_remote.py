"""Remote assets: an image or file a bundle names by URL or by a provider's file id.

A remote asset is an entry or fence named ``*.remote.json`` (:data:`REMOTE_SUFFIX`) holding
one JSON object (``kind``, then ``url`` or ``file_id`` with ``provider``, optionally
``media_type``), written by :func:`remote_entry` and read by :func:`parse_remote`; its
bytes are never fetched. See docs/bridge.md, "Remote assets".
"""

from __future__ import annotations

import hashlib
import json

from ..conversation import FILE_ID_PROVIDERS, MAX_URL_LENGTH, RemoteAsset, RemoteKind
from ..errors import BundleError
from ..jsonio import load_json
from ..model import Issue
from ._contents import BundleContents
from ._names import REMOTE_SUFFIX, is_remote_name

__all__ = [
    "FILE_ID_PROVIDERS",
    "MAX_URL_LENGTH",
    "REMOTE_SUFFIX",
    "RemoteAsset",
    "RemoteKind",
    "is_remote_name",
    "link_target",
    "parse_remote",
    "remote_entry",
    "remote_issues",
]

_LINK_SCHEMES = ("https://", "http://")


def remote_entry(remote: RemoteAsset) -> tuple[str, bytes]:
    """The entry name and bytes for *remote*: named by the first 16 hex digits of the
    SHA-256 of its JSON, so the same asset gives the same name."""
    data = (json.dumps(remote.as_json(), ensure_ascii=False, sort_keys=True) + "\n").encode()
    return hashlib.sha256(data).hexdigest()[:16] + REMOTE_SUFFIX, data


def parse_remote(data: bytes, *, name: str) -> RemoteAsset:
    """Read a remote asset's entry.

    :param name: the entry's name, for the error.
    :raises BundleError: when *data* is not the JSON object described above, read as
        :func:`~lmml_mdit.jsonio.parse_json` reads JSON (a repeated key is refused), with
        the line and column in the entry of JSON that does not parse.
    """
    hint = 'write {"kind": "image", "url": "https://..."} or {"kind": "file", "file_id": ...}'
    value = load_json(
        data,
        error_class=BundleError,
        name=name,
        subject="remote asset",
        hint=hint,
        wording=_not_json,
    )
    if not isinstance(value, dict):
        raise BundleError("remote asset must be a JSON object", name=name, hint=hint)
    unknown = sorted(set(value) - {"kind", "url", "file_id", "provider", "media_type"})
    if unknown:
        raise BundleError(f"remote asset has unknown keys {unknown}", name=name, hint=hint)
    fields: dict[str, str | None] = {}
    for key in ("kind", "url", "file_id", "provider", "media_type"):
        given = value.get(key)
        if given is not None and not isinstance(given, str):
            raise BundleError(f"remote asset's {key} must be a string", name=name, hint=hint)
        fields[key] = given
    kind: RemoteKind
    given_kind = fields.pop("kind")
    if given_kind == "image":
        kind = "image"
    elif given_kind == "file":
        kind = "file"
    else:
        raise BundleError(
            f"remote asset's kind must be 'image' or 'file', not {given_kind!r}",
            name=name,
            hint=hint,
        )
    try:
        return RemoteAsset(kind=kind, **fields)
    except ValueError as error:
        raise BundleError(f"invalid remote asset: {error}", name=name, hint=hint) from None


def _not_json(error: json.JSONDecodeError | RecursionError) -> str:
    if isinstance(error, RecursionError):
        return "remote asset nests too deeply to read"
    return f"remote asset is not JSON ({error})"  # its place too, for validate's issue


def link_target(url: str) -> str | None:
    """*url* when the preview may link to it (``https`` or ``http``, no whitespace or
    control characters anywhere), else None (shown as text)."""
    if len(url) > MAX_URL_LENGTH or any(ord(char) <= 0x20 or ord(char) == 0x7F for char in url):
        return None
    return url if url.lower().startswith(_LINK_SCHEMES) else None


def remote_issues(bundle: BundleContents) -> list[Issue]:
    """One ``invalid_remote_asset`` issue (a warning: sending the asset raises
    :class:`~lmml_mdit.errors.UnsupportedContentError` itself) per remote asset the
    narrative references whose content is not the JSON object above; a reference that
    resolves to nothing is ``missing_reference`` instead."""
    issues: list[Issue] = []
    for name, embed in bundle.narrative.first_embeds.items():
        if not is_remote_name(name):
            continue
        try:
            data = bundle.embed(name)
        except BundleError:
            continue  # reported as missing_reference
        try:
            parse_remote(data, name=name)
        except BundleError as error:
            message = f"{error.message}; {error.hint}" if error.hint else error.message
            issues.append(Issue("invalid_remote_asset", name, embed.line, embed.column, message))
    return issues
