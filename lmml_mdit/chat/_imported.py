"""What the importers share: decoding base64 and data URIs, checking a payload's shape,
splitting a message into turns.

Each importer reads one chat format into an
:class:`~lmml_mdit.conversation.ChatConversation` of
:class:`~lmml_mdit.conversation.ChatMessage` values (the model lives in
:mod:`lmml_mdit.conversation`; its import names ``Text``, ``Call``, ``Native``, ... stay
importable from here). The import writer then turns that into an LMML narrative and its
assets, so the formats share one writer and one set of rules for names and escaping.
"""

from __future__ import annotations

import base64
import binascii
import re
import urllib.parse
from collections.abc import Iterable, Iterator
from typing import TypeVar

from ..conversation import (
    Call,
    ChatMessage,
    ChatTurn,
    ImportedAsset,
    ImportedConversation,
    ImportedPart,
    MessagePart,
    Native,
    Text,
    ToolCall,
    ToolResult,
)
from ..errors import ImportFormatError
from ..jsontypes import JSONObject
from ..model import Role

__all__ = [
    "Call",
    "ChatTurn",
    "ImportedAsset",
    "ImportedConversation",
    "ImportedPart",
    "Native",
    "Text",
    "ToolResult",
    "decode_base64",
    "decode_data_uri",
    "expect",
    "expect_items",
    "reject_unknown_keys",
    "split_body",
    "tools_listed",
    "turns_of_message",
    "without_results",
]


_URL_SAFE = str.maketrans("-_", "+/")


def decode_base64(text: object, *, where: str) -> bytes:
    """Decode base64 (whitespace allowed), strictly: the standard alphabet, or the URL-safe
    one (``-`` and ``_`` for ``+`` and ``/``, padding optional) that the Gemini REST API and
    some SDKs write. One string may not mix the two alphabets.

    :param where: where the data sits in the payload, for the error message.
    :raises ImportFormatError: when *text* is not valid base64.
    """
    if not isinstance(text, str):
        raise ImportFormatError(
            f"expected a base64 string, found {type(text).__name__}",
            name=where,
            hint="give the bytes as a base64 string",
        )
    compact = "".join(text.split())
    if "-" in compact or "_" in compact:
        if "+" in compact or "/" in compact:
            raise ImportFormatError(
                "invalid base64 data (it mixes the standard and the URL-safe alphabets)",
                name=where,
                hint="check the encoding of the payload",
            )
        compact = compact.translate(_URL_SAFE)
    if "=" not in compact:  # the URL-safe spelling may leave the padding out
        compact += "=" * (-len(compact) % 4)
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ImportFormatError(
            f"invalid base64 data ({error})", name=where, hint="check the encoding of the payload"
        ) from None


_DATA_URI = re.compile(r"data:(?P<type>[^;,]*)(?P<params>(?:;[^;,]*)*),(?P<data>.*)", re.DOTALL)


def decode_data_uri(uri: object, *, where: str) -> ImportedAsset:
    """Decode a ``data:`` URI into an :class:`ImportedAsset`.

    :raises ImportFormatError: for a remote URL (never fetched) or a malformed URI.
    """
    match = _DATA_URI.fullmatch(uri) if isinstance(uri, str) else None
    if match is None:
        shown = uri[:60] if isinstance(uri, str) else repr(uri)
        raise ImportFormatError(
            f"expected a data: URI, found {shown_value(shown)}",
            name=where,
            hint="remote URLs and file ids are not fetched; embed the bytes as a data URI "
            "or base64",
        )
    media_type = (match["type"] or "text/plain").lower()
    params = [p.strip().lower() for p in match["params"].split(";") if p.strip()]
    if "base64" in params:
        data = decode_base64(match["data"], where=where)
    else:
        data = urllib.parse.unquote_to_bytes(match["data"])
    return ImportedAsset(data=data, media_type=media_type)


_LONG_INTEGER_BITS = 1024
"""Integers longer than this (about 300 digits) are described by size in messages: past
Python's digit limit, ``str()`` and ``repr()`` of one raise instead of converting."""


def shown_value(value: object, limit: int = 80) -> str:
    """*value* from a payload as an error message quotes it: its ``repr`` cut to *limit*
    characters, an integer too long to print described by its size. Never raises, whatever
    the payload holds (a 5,000-digit ``role``, a structure that contains itself)."""
    if isinstance(value, int) and value.bit_length() > _LONG_INTEGER_BITS:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return f"a {type(value).__name__} too large to show"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def as_text(value: object) -> str:
    """*value* as a string to look up in a table of known names (roles, formats): itself
    when it is one, else :func:`shown_value` (which matches no name, and never raises as
    ``str()`` of a huge integer does)."""
    return value if isinstance(value, str) else shown_value(value)


_Expected = TypeVar("_Expected")


def expect(value: object, kind: type[_Expected], *, where: str) -> _Expected:
    """Return *value* when it is an instance of *kind*, else raise.

    :raises ImportFormatError: naming *where* and the type found.
    """
    if isinstance(value, kind):
        return value
    raise ImportFormatError(
        f"expected {kind.__name__}, found {type(value).__name__}",
        name=where,
        hint="check that the payload matches the format given",
    )


def expect_items(value: object, *, where: str) -> Iterator[tuple[str, JSONObject]]:
    """Each item of the list *value* with its location ``where[i]``; every item must be an
    object.

    :raises ImportFormatError: when *value* is not a list or an item is not an object.
    """
    for index, raw in enumerate(expect(value, list, where=where)):
        here = f"{where}[{index}]"
        yield here, expect(raw, dict, where=here)


def reject_unknown_keys(mapping: JSONObject, known: Iterable[object], *, where: str) -> None:
    """Refuse a key outside *known*: nothing in a payload is dropped silently.

    :raises ImportFormatError: naming the first unknown key.
    """
    # A known name read from the payload itself (a part's "type") may be any JSON value.
    allowed = {name for name in known if isinstance(name, str)}
    for key in mapping:
        if key not in allowed:
            raise ImportFormatError(
                f"unsupported key {shown_value(key)}", name=where, hint="remove it before importing"
            )


def split_body(data: object, key: str, *, missing: str, hint: str) -> tuple[object, JSONObject]:
    """Split a request body into its conversation (the value under *key*) and the rest, the
    settings. Anything but an object is the conversation itself, with no settings.

    :param missing: the error message when the body has no *key* (or it is null).
    :param hint: what to do about it.
    :raises ImportFormatError: for an object without *key*.
    """
    if not isinstance(data, dict):
        return data, {}
    body = dict(data)
    conversation = body.pop(key, None)
    if conversation is None:
        raise ImportFormatError(missing, hint=hint)
    return conversation, body


def tools_listed(settings: JSONObject) -> JSONObject:
    """*settings* with a ``tools`` given as one object (the APIs take one) as a list of
    it, the form every provider documents; other settings as they are."""
    tools = settings.get("tools")
    if isinstance(tools, dict):
        return {**settings, "tools": [tools]}
    return settings


def without_results(parts: Iterable[MessagePart | ToolResult]) -> list[MessagePart]:
    """*parts* without the tool results (where a format allows none, e.g. a system prompt)."""
    return [part for part in parts if not isinstance(part, tuple)]


def turns_of_message(role: Role, parts: Iterable[MessagePart | ToolResult]) -> list[ChatMessage]:
    """One message's parts as turns, in order: each tool result a ``tool`` turn of its own,
    each run of other parts a *role* turn; a message without parts one empty turn."""
    turns: list[ChatMessage] = []
    current: ChatMessage | None = None
    for part in parts:
        if isinstance(part, tuple):
            turns.append(ChatMessage("tool", part[1], ToolCall(part[0], "", None)))
            current = None
            continue
        if current is None:
            current = ChatMessage(role, [])
            turns.append(current)
        current.parts.append(part)
    return turns or [ChatMessage(role, [])]
