"""Import OpenAI Chat Completions messages (a ``messages`` list or a request body).

Shapes read (``providers.md`` 1.1): ``system``/``developer``/``user``/``assistant``/``tool``
messages; content as a string, ``null`` or a list of ``text``, ``image_url`` (data URI),
``input_audio``, ``file`` (``file_data`` data URI) and ``refusal`` parts; assistant
``tool_calls`` with a JSON-string ``arguments``; ``tool`` messages with ``tool_call_id``.
"""

from __future__ import annotations

from typing import Any

from ...errors import ImportFormatError
from ...jsonio import parse_json
from ...media import AUDIO_TYPES
from ..imported import (
    Asset,
    Call,
    ChatTurn,
    Conversation,
    Part,
    Text,
    as_text,
    decode_base64,
    decode_data_uri,
    expect,
    expect_items,
    reject_unknown_keys,
    shown_value,
    split_body,
)

__all__ = ["audio_asset", "file_data_asset", "parse_arguments", "read"]

_SYSTEM_ROLES = ("system", "developer")  # a tuple: a role read from JSON may be unhashable
# Keys that carry nothing when empty; any other unknown key is refused, never dropped.
_EMPTY_OK = {"refusal", "audio", "function_call", "annotations", "tool_calls", "name"}


def parse_arguments(text: Any, *, where: str) -> Any:
    """A call's ``arguments`` string parsed as JSON, or kept as the string when it is not
    (or nests too deeply to parse), so it goes back out verbatim.

    :raises ImportFormatError: when ``arguments`` is not a string (the API sends JSON text).
    """
    expect(text, str, where=f"{where}.arguments")
    try:
        return parse_json(text)
    except (ValueError, RecursionError):
        return text


def audio_asset(part: dict[str, Any], *, where: str) -> Asset:
    """The asset of an ``input_audio`` part (Chat Completions and Responses alike):
    base64 ``data`` in a ``format`` (``wav``, ``mp3``)."""
    audio = expect(part.get("input_audio"), dict, where=where)
    reject_unknown_keys(audio, ("data", "format"), where=where)
    media_type = AUDIO_TYPES.get(
        as_text(audio.get("format")), f"audio/{as_text(audio.get('format'))}"
    )
    return Asset(decode_base64(audio.get("data"), where=where), media_type)


def file_data_asset(file: dict[str, Any], *, where: str, missing: str) -> Asset:
    """The asset of a file part (Chat Completions and Responses alike): its ``file_data``
    data URI. A file id or URL is never fetched.

    :param missing: the error message when the part has no ``file_data``.
    :raises ImportFormatError: without ``file_data``, or for a malformed data URI.
    """
    # The file name is not kept: the asset is named by its content (see the bridge docs).
    reject_unknown_keys(
        file, ("type", "file_data", "filename", "file_id", "file_url", "detail"), where=where
    )
    if "file_data" not in file:
        raise ImportFormatError(
            missing, name=where, hint="embed the file as a data URI in file_data"
        )
    return decode_data_uri(file["file_data"], where=where)


def _unexpected_keys(message: dict[str, Any], known: set[str], where: str) -> None:
    for key, value in message.items():
        if key in known or (key in _EMPTY_OK and not value):
            continue
        raise ImportFormatError(
            f"unsupported key {shown_value(key)}",
            name=where,
            hint="remove it or import the conversation without it; nothing is dropped silently",
        )


def content_parts(content: Any, *, where: str) -> list[Part]:
    """Read a Chat Completions ``content`` (string, null or part list) into parts."""
    if content is None:
        return []
    if isinstance(content, str):
        return [Text(content)]
    parts: list[Part] = []
    for here, part in expect_items(content, where=f"{where}.content"):
        kind = part.get("type")
        reject_unknown_keys(part, ("type", kind), where=here)
        if kind == "text":
            parts.append(Text(expect(part.get("text"), str, where=here)))
        elif kind == "refusal":
            raise ImportFormatError(
                "refusal parts are not imported",
                name=here,
                hint="turn the refusal into a text part",
            )
        elif kind == "image_url":
            image = expect(part.get("image_url"), dict, where=here)
            # detail is not kept: LMML has no per-image detail (export's image_detail=).
            reject_unknown_keys(image, ("url", "detail"), where=here)
            parts.append(decode_data_uri(image.get("url"), where=here))
        elif kind == "input_audio":
            parts.append(audio_asset(part, where=here))
        elif kind == "file":
            file = expect(part.get("file"), dict, where=here)
            missing = "a file part without file_data (a file id) cannot be imported"
            parts.append(file_data_asset(file, where=here, missing=missing))
        else:
            raise ImportFormatError(
                f"unknown content part type {shown_value(kind)}",
                name=here,
                hint="use text, image_url, input_audio or file parts",
            )
    return parts


def _tool_calls(raw: Any, *, where: str) -> list[Call]:
    calls: list[Call] = []
    for index, item in enumerate(expect(raw, list, where=where)):
        here = f"{where}.tool_calls[{index}]"
        call = expect(item, dict, where=here)
        if call.get("type", "function") != "function":
            raise ImportFormatError(
                f"unsupported tool call type {shown_value(call.get('type'))}",
                name=here,
                hint="only function tool calls are imported",
            )
        function = expect(call.get("function"), dict, where=here)
        calls.append(
            Call(
                id=expect(call.get("id"), str, where=here),
                name=expect(function.get("name"), str, where=here),
                arguments=parse_arguments(function.get("arguments", "{}"), where=here),
            )
        )
    return calls


def read_messages(messages: Any, *, where: str = "messages") -> list[ChatTurn]:
    """Read a Chat Completions ``messages`` list into turns."""
    turns: list[ChatTurn] = []
    for here, message in expect_items(messages, where=where):
        role = message.get("role")
        if role in _SYSTEM_ROLES or role == "user":
            _unexpected_keys(message, {"role", "content"}, here)
            turns.append(
                ChatTurn(
                    "system" if role in _SYSTEM_ROLES else "user",
                    content_parts(message.get("content"), where=here),
                )
            )
        elif role == "assistant":
            _unexpected_keys(message, {"role", "content", "tool_calls"}, here)
            parts = content_parts(message.get("content"), where=here)
            if message.get("tool_calls"):
                parts.extend(_tool_calls(message["tool_calls"], where=here))
            turns.append(ChatTurn("assistant", parts))
        elif role == "tool":
            _unexpected_keys(message, {"role", "content", "tool_call_id"}, here)
            call_id = expect(message.get("tool_call_id"), str, where=here)
            turns.append(
                ChatTurn("tool", content_parts(message.get("content"), where=here), call_id)
            )
        else:
            raise ImportFormatError(
                f"unknown message role {shown_value(role)}",
                name=here,
                hint="use system, developer, user, assistant or tool",
            )
    return turns


def read(data: Any) -> Conversation:
    """Read a ``messages`` list, or a request body holding one, into a conversation.

    :raises ImportFormatError: for anything outside the Chat Completions shapes.
    """
    messages, settings = split_body(
        data,
        "messages",
        missing="a Chat Completions request body needs a 'messages' list",
        hint="give the messages list or a body with 'messages'",
    )
    return Conversation(read_messages(messages), settings=settings)
