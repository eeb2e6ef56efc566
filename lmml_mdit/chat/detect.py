"""Tell which chat format a payload is in, from its shape alone.

Signals, strongest first:

- a record with ``conversations``, or entries with ``from``/``value``: ``sharegpt``;
- ``contents``/``parts``, ``inline_data``/``inlineData``, ``function_call`` parts or the
  role ``model``: ``gemini``;
- ``input``/``instructions``, or items typed ``message``, ``function_call``,
  ``function_call_output``, ``reasoning``, ``web_search_call``, or ``input_*``/
  ``output_text`` parts: ``openai-responses``;
- a top-level ``system`` beside ``messages``, ``tool_use``, ``tool_result``, ``image``
  or ``document`` blocks with a ``source``, or ``thinking``, ``redacted_thinking``,
  ``server_tool_use``, ``web_search_tool_result`` blocks: ``anthropic``;
- ``tool_calls``, ``tool``/``developer``/``system`` roles in ``messages``, or
  ``image_url``, ``input_audio``, ``file`` parts: ``openai``.

A plain list of ``user``/``assistant`` messages with string content reads the same in the
OpenAI and the Anthropic formats, so it is taken as ``openai``. Signals of two formats at
once are refused as ambiguous.
"""

from __future__ import annotations

from typing import Any

from ..errors import ImportFormatError
from .providers import FORMATS as _REGISTRY
from .providers import IMPORT_FORMATS, anthropic, gemini, openai, openai_responses, sharegpt

__all__ = ["FORMATS", "FORMAT_DESCRIPTIONS", "detect_format"]

FORMATS = IMPORT_FORMATS
"""The formats :func:`~lmml_mdit.chat.importer.import_messages` reads (the registry's)."""

FORMAT_DESCRIPTIONS = {name: found.description for name, found in _REGISTRY.items()}
"""Each format as a sentence names a payload in it ("looks like an OpenAI chat")."""

_NAMED = f"{', '.join(FORMATS[:-1])} or {FORMATS[-1]}"

_RESPONSES_ITEMS = {
    "message",
    "function_call",
    "function_call_output",
    "reasoning",
    "web_search_call",
}
_RESPONSES_PARTS = {"input_text", "output_text", "input_image", "input_file"}
_ANTHROPIC_BLOCKS = {"tool_use", "tool_result", "image", "document"}
# Block types only the Messages API has (replayed thinking and server-side tools).
_ANTHROPIC_ONLY_BLOCKS = {
    "thinking",
    "redacted_thinking",
    "server_tool_use",
    "web_search_tool_result",
}
_OPENAI_PARTS = {"image_url", "input_audio", "file", "refusal"}
_GEMINI_PART_KEYS = {
    "inline_data",
    "inlineData",
    "function_call",
    "functionCall",
    "function_response",
    "functionResponse",
    "file_data",
    "fileData",
}


def _signals_of_message(message: object, found: set[str]) -> None:
    if not isinstance(message, dict):
        return
    if "from" in message and "value" in message:
        found.add(sharegpt.NAME)
        return
    if "parts" in message or message.get("role") == "model":
        found.add(gemini.NAME)
        parts = message.get("parts")
        for part in parts if isinstance(parts, list) else []:
            if isinstance(part, dict) and _GEMINI_PART_KEYS & part.keys():
                found.add(gemini.NAME)
        return
    # Untrusted values: only a string can name a type (a list would not even hash).
    kind = message.get("type")
    if isinstance(kind, str) and kind in _RESPONSES_ITEMS:
        found.add(openai_responses.NAME)
    if "type" not in message and (
        message.get("tool_calls") or message.get("role") in ("tool", "developer", "system")
    ):
        found.add(openai.NAME)
    content = message.get("content")
    if isinstance(content, list):
        for part in content:
            if not isinstance(part, dict):
                continue
            part_type = part.get("type")
            if not isinstance(part_type, str):
                continue
            if part_type in _RESPONSES_PARTS:
                found.add(openai_responses.NAME)
            elif part_type in _ANTHROPIC_ONLY_BLOCKS or (
                part_type in _ANTHROPIC_BLOCKS
                and ("source" in part or part_type.startswith("tool"))
            ):
                found.add(anthropic.NAME)
            elif part_type in _OPENAI_PARTS:
                found.add(openai.NAME)


def _describe(data: object) -> str:
    if isinstance(data, dict):
        keys = ", ".join(sorted(map(str, data))[:8])
        return f"an object with keys {keys}" if keys else "an empty object"
    if isinstance(data, list):
        return f"a list of {len(data)} items"
    return f"a {type(data).__name__}"


def detect_format(data: object) -> str:
    """The format of *data* (a parsed JSON value): one of :data:`FORMATS`.

    :raises ImportFormatError: when no format fits, or several do; the message says what was
        seen and the hint how to choose (``format=``).
    """
    found: set[str] = set()
    messages: Any = None
    if isinstance(data, dict):
        if "conversations" in data:
            found.add(sharegpt.NAME)
        if "contents" in data or "system_instruction" in data or "systemInstruction" in data:
            found.add(gemini.NAME)
            messages = data.get("contents")
        if "input" in data or "instructions" in data:
            found.add(openai_responses.NAME)
            messages = data.get("input")
        if len(found) == 1:
            # The container's own keys are the strongest signal.
            return found.pop()
        if "messages" in data:
            messages = data["messages"]
            if "system" in data:
                found.add(anthropic.NAME)
        if not found and messages is None:
            raise ImportFormatError(
                f"cannot tell the chat format of {_describe(data)}",
                hint="expected messages, input, contents or conversations; pass format= "
                f"({_NAMED})",
                cli_hint="expected messages, input, contents or conversations; give --format "
                f"({_NAMED})",
            )
    elif isinstance(data, list):
        messages = data
    else:
        raise ImportFormatError(
            f"cannot import {_describe(data)}",
            hint="give a JSON object or list of messages",
        )
    if isinstance(messages, list):
        for message in messages:
            _signals_of_message(message, found)
    if isinstance(messages, list) and not found:
        if all(isinstance(m, dict) and m.get("role") in ("user", "assistant") for m in messages):
            return openai.NAME
        raise ImportFormatError(
            f"cannot tell the chat format of {_describe(data)}",
            hint=f"pass format= ({_NAMED})",
            cli_hint=f"give --format ({_NAMED})",
        )
    if len(found) > 1:
        raise ImportFormatError(
            f"ambiguous chat format: {_describe(data)} looks like {' and '.join(sorted(found))}",
            hint="pass format= to choose one",
            cli_hint="give --format to choose one",
        )
    if not found:
        raise ImportFormatError(
            f"cannot tell the chat format of {_describe(data)}",
            hint=f"pass format= ({_NAMED})",
            cli_hint=f"give --format ({_NAMED})",
        )
    return found.pop()
