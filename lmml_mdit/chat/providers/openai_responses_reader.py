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

from ...errors import ImportFormatError
from ...model import Role
from ..imported import (
    Call,
    ChatTurn,
    Conversation,
    Part,
    Text,
    as_text,
    decode_data_uri,
    expect,
    expect_items,
    reject_unknown_keys,
    shown_value,
    split_body,
)
from .openai_reader import audio_asset, file_data_asset, parse_arguments

__all__ = ["read"]

_ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
}
# Replay bookkeeping the API adds to output items; it carries no conversation content.
_IGNORED_ITEM_KEYS = {"id", "status"}
_ITEM_KEYS = {"type", "role", "content", "call_id", "name", "arguments", "output"}
# A part's keys that are read; detail and filename are not kept (see the bridge docs).
_PART_KEYS = {
    "input_text": ("type", "text"),
    "output_text": ("type", "text", "annotations", "logprobs"),
    "input_image": ("type", "image_url", "detail"),
    "input_file": ("type", "file_data", "filename", "file_id", "file_url", "detail"),
    "input_audio": ("type", "input_audio"),
}


def content_parts(content: Any, *, where: str) -> list[Part]:
    """Read a Responses ``content`` or ``output`` (string or part list) into parts."""
    if isinstance(content, str):
        return [Text(content)]
    parts: list[Part] = []
    for here, part in expect_items(content, where=where):
        kind = part.get("type")
        reject_unknown_keys(part, _PART_KEYS.get(str(kind), ("type",)), where=here)
        if kind in ("input_text", "output_text"):
            for extra in ("annotations", "logprobs"):
                if part.get(extra):
                    raise ImportFormatError(
                        f"output_text {extra} are not imported",
                        name=here,
                        hint=f"drop the {extra} first",
                    )
            parts.append(Text(expect(part.get("text"), str, where=here)))
        elif kind == "input_image":
            parts.append(decode_data_uri(part.get("image_url"), where=here))
        elif kind == "input_file":
            missing = "an input_file without file_data (a file id or URL) cannot be imported"
            parts.append(file_data_asset(part, where=here, missing=missing))
        elif kind == "input_audio":
            parts.append(audio_asset(part, where=here))
        else:
            raise ImportFormatError(
                f"unknown content part type {shown_value(kind)}",
                name=here,
                hint="use input_text, output_text, input_image, input_file or input_audio",
            )
    return parts


def read_items(items: Any, *, where: str = "input") -> list[ChatTurn]:
    """Read a Responses ``input`` (string or item list) into turns."""
    if isinstance(items, str):
        return [ChatTurn("user", [Text(items)])]
    turns: list[ChatTurn] = []
    for here, item in expect_items(items, where=where):
        kind = item.get("type", "message")
        if kind == "message":
            role = _ROLES.get(as_text(item.get("role")))
            if role is None:
                raise ImportFormatError(
                    f"unknown message role {shown_value(item.get('role'))}",
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
                f"unsupported input item type {shown_value(kind)}",
                name=here,
                hint="only message, function_call and function_call_output items are imported",
            )
        reject_unknown_keys(item, _ITEM_KEYS | _IGNORED_ITEM_KEYS, where=here)
    return turns


def read(data: Any) -> Conversation:
    """Read an ``input`` list, or a request body with ``input``, into a conversation.

    :raises ImportFormatError: for anything outside the Responses shapes.
    """
    items, settings = split_body(
        data,
        "input",
        missing="a Responses request body needs an 'input'",
        hint="give the input item list or a body with 'input'",
    )
    turns = read_items(items)
    instructions = settings.pop("instructions", None)
    if instructions is not None:
        turns.insert(0, ChatTurn("system", [Text(expect(instructions, str, where="instructions"))]))
    return Conversation(turns, settings=settings)
