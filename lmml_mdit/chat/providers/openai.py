"""OpenAI Chat Completions (``POST /v1/chat/completions``) messages.

- ``system`` (and ``context``) turns: ``{"role": "system", "content": [text parts]}``.
- ``user`` turns: text, ``image_url`` (data URI), ``file`` (PDF as a data URI) and
  ``input_audio`` (wav, mp3) parts; text files as text parts headed by the file name.
- ``assistant`` turns: text parts, and ``tool_calls`` (arguments as a JSON string).
- ``tool`` turns: ``{"role": "tool", "tool_call_id": ..., "content": ...}``, text only. Other
  parts of a tool result go, with ``tool_result_images="user-message"`` (the default), into
  one user message after the run of tool messages, opened by a line naming the call; with
  ``"error"`` they raise :class:`~lmml_mdit.errors.UnsupportedContentError`.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ...narrative.toolcalls import ToolCall
from ..content import Conversation, Message, Options
from ..handlers import DocumentPart, ImagePart, Part, TextFilePart, TextPart
from ._common import Payload, start_body, text_file_text, unsupported

__all__ = ["PROVIDER", "content_part", "export", "request"]

PROVIDER = "openai"

SETTINGS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "max_tokens": "max_completion_tokens",
    "stop": "stop",
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "n": "n",
}
"""LMML settings key -> Chat Completions parameter."""

NATIVE_SETTINGS = frozenset(
    {
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "response_format",
        "logprobs",
        "top_logprobs",
        "logit_bias",
        "user",
        "reasoning_effort",
        "metadata",
        "store",
        "service_tier",
        "modalities",
        "audio",
        "prediction",
        "verbosity",
        "max_completion_tokens",
    }
)
"""Chat Completions parameters a settings embed may give under their own names."""


def content_part(part: Part, options: Options) -> dict[str, Any]:
    """One neutral part as a Chat Completions user content part."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, TextFilePart):
        return {"type": "text", "text": text_file_text(part)}
    if isinstance(part, ImagePart):
        image: dict[str, Any] = {"url": part.asset.data_uri(part.media_type)}
        if options.image_detail is not None:
            image["detail"] = options.image_detail
        return {"type": "image_url", "image_url": image}
    if isinstance(part, DocumentPart):
        return {
            "type": "file",
            "file": {
                "file_data": part.asset.data_uri(part.media_type),
                "filename": posixpath.basename(part.asset.name),
            },
        }
    return {
        "type": "input_audio",
        "input_audio": {"data": part.asset.base64, "format": part.format},
    }


def tool_call(call: ToolCall) -> dict[str, Any]:
    """One call as an assistant ``tool_calls`` entry."""
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments_json},
    }


def _text_only(message: Message, options: Options) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for item in message.items:
        if isinstance(item, (TextPart, TextFilePart)):
            parts.append(content_part(item, options))
        elif isinstance(item, ToolCall):  # pragma: no cover - only assistant turns hold calls
            continue
        else:
            raise unsupported(item, PROVIDER, message)
    return parts


def export(conversation: Conversation, options: Options) -> Payload:
    """Write *conversation* as a Chat Completions ``messages`` list.

    :raises UnsupportedContentError: for parts a role cannot hold (images in system or
        assistant messages; tool-result images with ``tool_result_images="error"``).
    """
    out: list[dict[str, Any]] = []
    deferred: list[dict[str, Any]] = []
    for message in conversation.messages:
        if message.role != "tool" and deferred:
            out.append({"role": "user", "content": deferred})
            deferred = []
        if message.role == "system":
            out.append({"role": "system", "content": _text_only(message, options)})
        elif message.role == "user":
            content = [
                content_part(item, options)
                for item in message.items
                if not isinstance(item, ToolCall)
            ]
            out.append({"role": "user", "content": content})
        elif message.role == "assistant":
            texts: list[dict[str, Any]] = []
            calls: list[dict[str, Any]] = []
            for item in message.items:
                if isinstance(item, ToolCall):
                    calls.append(tool_call(item))
                elif isinstance(item, (TextPart, TextFilePart)):
                    texts.append(content_part(item, options))
                else:
                    raise unsupported(item, PROVIDER, message)
            entry: dict[str, Any] = {"role": "assistant", "content": texts or None}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
        else:
            assert message.call is not None
            texts = []
            others: list[dict[str, Any]] = []
            for item in message.items:
                if isinstance(item, (TextPart, TextFilePart)):
                    texts.append(content_part(item, options))
                elif isinstance(item, ToolCall):  # pragma: no cover
                    continue
                elif options.tool_result_images == "error":
                    raise unsupported(
                        item,
                        PROVIDER,
                        message,
                        hint="Chat Completions tool messages hold text only; pass "
                        "tool_result_images='user-message' to send it in a user message",
                    )
                else:
                    others.append(content_part(item, options))
            out.append({"role": "tool", "tool_call_id": message.call.id, "content": texts or ""})
            if others:
                call = message.call
                header = f"Attachments of the result of tool call {call.id} ({call.name}):"
                deferred.append({"type": "text", "text": header})
                deferred.extend(others)
    if deferred:
        out.append({"role": "user", "content": deferred})
    return Payload(PROVIDER, out, None, conversation.warnings)


def request(payload: Payload, model: str | None, params: dict[str, Any]) -> dict[str, Any]:
    """The Chat Completions request body."""
    body = start_body(model)
    body["messages"] = payload.messages
    body.update(params)
    return body
