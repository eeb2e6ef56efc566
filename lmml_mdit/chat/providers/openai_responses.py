"""OpenAI Responses (``POST /v1/responses``) input items.

- ``system`` (and ``context``) turns: ``{"type": "message", "role": "system", "content":
  [input_text]}``, in place (the ``instructions`` parameter is left to the caller).
- ``user`` turns: ``input_text``, ``input_image`` (data URI, ``detail`` required, ``"auto"``
  by default) and ``input_file`` (PDF, or a text file with ``text_embeds="document"``).
  Audio raises: the Responses input types have no audio part.
- ``assistant`` turns: a ``message`` item with the text, and one ``function_call`` item per
  call, in source order.
- ``tool`` turns: ``function_call_output`` whose ``output`` is the text, or a list of
  ``input_text``/``input_image``/``input_file`` when the result has assets.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ...narrative.toolcalls import ToolCall
from ..content import Conversation, Message, Options
from ..handlers import AudioPart, DocumentPart, ImagePart, Part, TextFilePart, TextPart
from ._common import Payload, start_body, text_file_text, text_mode, unsupported

__all__ = ["PROVIDER", "export", "request"]

PROVIDER = "openai-responses"

SETTINGS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "max_tokens": "max_output_tokens",
}
"""LMML settings key -> Responses parameter."""

NATIVE_SETTINGS = frozenset(
    {
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "instructions",
        "reasoning",
        "text",
        "metadata",
        "store",
        "service_tier",
        "truncation",
        "user",
        "include",
        "max_tool_calls",
        "top_logprobs",
        "previous_response_id",
        "prompt_cache_key",
        "max_output_tokens",
    }
)
"""Responses parameters a settings embed may give under their own names."""


def _input_part(part: Part, message: Message, options: Options) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "input_text", "text": part.text}
    if isinstance(part, TextFilePart):
        if text_mode(options, "text") == "document":
            return {
                "type": "input_file",
                "file_data": part.asset.data_uri(part.media_type),
                "filename": posixpath.basename(part.asset.name),
            }
        return {"type": "input_text", "text": text_file_text(part)}
    if isinstance(part, ImagePart):
        return {
            "type": "input_image",
            "image_url": part.asset.data_uri(part.media_type),
            "detail": options.image_detail or "auto",
        }
    if isinstance(part, DocumentPart):
        return {
            "type": "input_file",
            "file_data": part.asset.data_uri(part.media_type),
            "filename": posixpath.basename(part.asset.name),
        }
    assert isinstance(part, AudioPart)
    raise unsupported(
        part, PROVIDER, message, hint="the Responses API takes no audio input; use 'openai'"
    )


def export(conversation: Conversation, options: Options) -> Payload:
    """Write *conversation* as a Responses ``input`` item list.

    :raises UnsupportedContentError: for audio anywhere, and for non-text parts in system
        or assistant messages.
    """
    items: list[dict[str, Any]] = []
    for message in conversation.messages:
        if message.role in ("system", "user"):
            content: list[dict[str, Any]] = []
            for item in message.items:
                if isinstance(item, ToolCall):  # pragma: no cover
                    continue
                if message.role == "system" and not isinstance(item, (TextPart, TextFilePart)):
                    raise unsupported(item, PROVIDER, message)
                content.append(_input_part(item, message, options))
            items.append({"type": "message", "role": message.role, "content": content})
        elif message.role == "assistant":
            texts: list[str] = []
            for item in message.items:
                if isinstance(item, ToolCall):
                    if texts:
                        items.append(_assistant_text(texts))
                        texts = []
                    items.append(
                        {
                            "type": "function_call",
                            "call_id": item.id,
                            "name": item.name,
                            "arguments": item.arguments_json,
                        }
                    )
                elif isinstance(item, TextPart):
                    texts.append(item.text)
                elif isinstance(item, TextFilePart):
                    texts.append(text_file_text(item))
                else:
                    raise unsupported(item, PROVIDER, message)
            if texts:
                items.append(_assistant_text(texts))
        else:
            assert message.call is not None
            parts = [
                _input_part(item, message, options)
                for item in message.items
                if not isinstance(item, ToolCall)
            ]
            output: str | list[dict[str, Any]]
            if all(part["type"] == "input_text" for part in parts):
                output = "\n\n".join(part["text"] for part in parts)
            else:
                output = parts
            items.append(
                {"type": "function_call_output", "call_id": message.call.id, "output": output}
            )
    return Payload(PROVIDER, items, None, conversation.warnings)


def _assistant_text(texts: list[str]) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": "\n\n".join(texts)}


def request(payload: Payload, model: str | None, params: dict[str, Any]) -> dict[str, Any]:
    """The Responses request body."""
    body = start_body(model)
    body["input"] = payload.messages
    body.update(params)
    return body
