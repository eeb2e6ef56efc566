"""Import OpenAI Responses API input (an ``input`` item list or a request body).

Shapes read (``providers.md`` 1.2): ``instructions`` (a system turn first); ``message``
items (the ``type`` may be left out) with string content or ``input_text``,
``output_text``, ``input_image`` (data URI), ``input_file`` (``file_data``) and
``input_audio`` parts; ``function_call`` items (joined to the assistant turn before them)
and ``function_call_output`` items (a ``tool`` turn each) whose output is a string or a
part list.
"""

from __future__ import annotations

from typing import Any

from ..errors import ImportFormatError
from ..model import Role
from .openai import parse_arguments
from .parts import (
    Asset,
    Call,
    ChatTurn,
    Conversation,
    Part,
    Text,
    decode_base64,
    decode_data_uri,
    expect,
)

__all__ = ["read"]

_AUDIO_TYPES = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
}
# Replay bookkeeping the API adds to output items; it carries no conversation content.
_IGNORED_ITEM_KEYS = {"id", "status"}


def content_parts(content: Any, *, where: str) -> list[Part]:
    """Read a Responses ``content`` or ``output`` (string or part list) into parts."""
    if isinstance(content, str):
        return [Text(content)]
    parts: list[Part] = []
    for index, raw in enumerate(expect(content, list, where=where)):
        here = f"{where}[{index}]"
        part = expect(raw, dict, where=here)
        kind = part.get("type")
        if kind in ("input_text", "output_text"):
            if part.get("annotations"):
                raise ImportFormatError(
                    "output_text annotations are not imported",
                    name=here,
                    hint="drop the annotations first",
                )
            parts.append(Text(expect(part.get("text"), str, where=here)))
        elif kind == "input_image":
            parts.append(decode_data_uri(part.get("image_url"), where=here))
        elif kind == "input_file":
            if "file_data" not in part:
                raise ImportFormatError(
                    "an input_file without file_data (a file id or URL) cannot be imported",
                    name=here,
                    hint="embed the file as a data URI in file_data",
                )
            parts.append(decode_data_uri(part["file_data"], where=here))
        elif kind == "input_audio":
            audio = expect(part.get("input_audio"), dict, where=here)
            media_type = _AUDIO_TYPES.get(str(audio.get("format")), f"audio/{audio.get('format')}")
            parts.append(Asset(decode_base64(audio.get("data"), where=here), media_type))
        else:
            raise ImportFormatError(
                f"unknown content part type {kind!r}",
                name=here,
                hint="use input_text, output_text, input_image, input_file or input_audio",
            )
    return parts


def read_items(items: Any, *, where: str = "input") -> list[ChatTurn]:
    """Read a Responses ``input`` (string or item list) into turns."""
    if isinstance(items, str):
        return [ChatTurn("user", [Text(items)])]
    turns: list[ChatTurn] = []
    for index, raw in enumerate(expect(items, list, where=where)):
        here = f"{where}[{index}]"
        item = expect(raw, dict, where=here)
        kind = item.get("type", "message")
        if kind == "message":
            role = _ROLES.get(str(item.get("role")))
            if role is None:
                raise ImportFormatError(
                    f"unknown message role {item.get('role')!r}",
                    name=here,
                    hint="use user, assistant, system or developer",
                )
            turns.append(
                ChatTurn(role, content_parts(item.get("content"), where=f"{here}.content"))
            )
        elif kind == "function_call":
            call = Call(
                id=expect(item.get("call_id"), str, where=here),
                name=expect(item.get("name"), str, where=here),
                arguments=parse_arguments(item.get("arguments", "{}"), where=here),
            )
            if turns and turns[-1].role == "assistant":
                turns[-1].parts.append(call)
            else:
                turns.append(ChatTurn("assistant", [call]))
        elif kind == "function_call_output":
            call_id = expect(item.get("call_id"), str, where=here)
            turns.append(
                ChatTurn("tool", content_parts(item.get("output"), where=f"{here}.output"), call_id)
            )
        else:
            raise ImportFormatError(
                f"unsupported input item type {kind!r}",
                name=here,
                hint="only message, function_call and function_call_output items are imported",
            )
        for key in item:
            if (
                key
                not in {"type", "role", "content", "call_id", "name", "arguments", "output"}
                | _IGNORED_ITEM_KEYS
            ):
                raise ImportFormatError(
                    f"unsupported key {key!r}", name=here, hint="remove it before importing"
                )
    return turns


def read(data: Any) -> Conversation:
    """Read an ``input`` list, or a request body with ``input``, into a conversation.

    :raises ImportFormatError: for anything outside the Responses shapes.
    """
    if isinstance(data, dict):
        body = dict(data)
        if "input" not in body:
            raise ImportFormatError(
                "a Responses request body needs an 'input'",
                hint="give the input item list or a body with 'input'",
            )
        turns = read_items(body.pop("input"))
        instructions = body.pop("instructions", None)
        if instructions is not None:
            turns.insert(
                0, ChatTurn("system", [Text(expect(instructions, str, where="instructions"))])
            )
        return Conversation(turns, settings=body)
    return Conversation(read_items(data))
