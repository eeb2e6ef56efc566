"""Import Anthropic Messages (a ``messages`` list or a request body with ``system``).

Shapes read (``providers.md`` 1.3): top-level ``system`` (string or text blocks) as a
``system`` turn; ``user``/``assistant`` messages with string content or ``text``,
``image`` and ``document`` blocks (``base64`` or ``text`` sources), ``tool_use`` blocks
(assistant) and ``tool_result`` blocks (a ``tool`` turn each, content a string or blocks).
A user message that holds tool results and text becomes ``tool`` turns followed by a
``user`` turn, in block order.
"""

from __future__ import annotations

from typing import Any

from ...errors import ImportFormatError
from ..imported import (
    Asset,
    Call,
    ChatTurn,
    Conversation,
    Part,
    Text,
    ToolResult,
    as_text,
    decode_base64,
    expect,
    expect_items,
    reject_unknown_keys,
    shown_value,
    split_body,
    turns_of_message,
    without_results,
)

__all__ = ["read"]

# Prompt-caching and citation switches steer the API, they hold no conversation content.
_IGNORED_BLOCK_KEYS = {"cache_control", "citations"}


def _check_keys(block: dict[str, Any], known: set[str], where: str) -> None:
    reject_unknown_keys(block, known | _IGNORED_BLOCK_KEYS, where=where)


def _source(block: dict[str, Any], where: str) -> Asset:
    source = expect(block.get("source"), dict, where=where)
    kind = source.get("type")
    if kind == "base64":
        media_type = expect(source.get("media_type"), str, where=where).lower()
        return Asset(decode_base64(source.get("data"), where=where), media_type)
    if kind == "text":
        media_type = as_text(source.get("media_type", "text/plain")).lower()
        return Asset(expect(source.get("data"), str, where=where).encode("utf-8"), media_type)
    raise ImportFormatError(
        f"unsupported source type {shown_value(kind)}",
        name=where,
        hint="URLs and file ids are not fetched; embed the bytes as a base64 source",
    )


def block_parts(content: Any, *, where: str, allow_tools: bool) -> list[Part | ToolResult]:
    """Read a content string or block list; a tool result comes back as ``(id, parts)``."""
    if isinstance(content, str):
        return [Text(content)]
    parts: list[Part | ToolResult] = []
    for here, block in expect_items(content, where=where):
        kind = block.get("type")
        if kind == "text":
            _check_keys(block, {"type", "text"}, here)
            parts.append(Text(expect(block.get("text"), str, where=here)))
        elif kind in ("image", "document"):
            _check_keys(block, {"type", "source"}, here)
            parts.append(_source(block, here))
        elif kind == "tool_use" and allow_tools:
            _check_keys(block, {"type", "id", "name", "input"}, here)
            parts.append(
                Call(
                    id=expect(block.get("id"), str, where=here),
                    name=expect(block.get("name"), str, where=here),
                    arguments=expect(block.get("input", {}), dict, where=f"{here}.input"),
                )
            )
        elif kind == "tool_result" and allow_tools:
            _check_keys(block, {"type", "tool_use_id", "content", "is_error"}, here)
            if block.get("is_error"):
                raise ImportFormatError(
                    "tool results marked is_error are not imported",
                    name=here,
                    hint="LMML has no error flag for results; state the error in the text",
                )
            inner = block_parts(
                block.get("content", []), where=f"{here}.content", allow_tools=False
            )
            call_id = expect(block.get("tool_use_id"), str, where=here)
            parts.append((call_id, without_results(inner)))
        else:
            raise ImportFormatError(
                f"unsupported block type {shown_value(kind)}",
                name=here,
                hint="use text, image, document, tool_use or tool_result blocks",
            )
    return parts


def read_messages(messages: Any, *, where: str = "messages") -> list[ChatTurn]:
    """Read an Anthropic ``messages`` list into turns."""
    turns: list[ChatTurn] = []
    for here, message in expect_items(messages, where=where):
        role = message.get("role")
        if role not in ("user", "assistant", "system"):
            raise ImportFormatError(
                f"unknown message role {shown_value(role)}", name=here, hint="use user or assistant"
            )
        reject_unknown_keys(message, ("role", "content"), where=here)
        parts = block_parts(message.get("content"), where=f"{here}.content", allow_tools=True)
        turns.extend(turns_of_message(role, parts))
    return turns


def read(data: Any) -> Conversation:
    """Read a ``messages`` list, or a request body with ``messages`` and ``system``.

    :raises ImportFormatError: for anything outside the Messages shapes.
    """
    messages, settings = split_body(
        data,
        "messages",
        missing="an Anthropic request body needs a 'messages' list",
        hint="give the messages list or a body with 'messages'",
    )
    turns = read_messages(messages)
    system = settings.pop("system", None)
    if system is not None:
        parts = block_parts(system, where="system", allow_tools=False)
        turns.insert(0, ChatTurn("system", without_results(parts)))
    return Conversation(turns, settings=settings)
