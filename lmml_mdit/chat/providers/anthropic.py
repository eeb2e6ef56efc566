"""Anthropic Messages (``POST /v1/messages``) messages.

- ``system`` (and ``context``) turns: text blocks in the top-level ``system`` parameter (in
  order); :func:`lmml_mdit.chat.outgoing.messages` refuses to drop them, use ``to_request``.
- ``user`` turns: ``text``, ``image`` (base64 source with media type) and ``document`` blocks
  (PDF as a base64 source; text files as a ``text`` source titled by the file name, or as
  text blocks with ``text_embeds="text"``). Audio raises: Anthropic takes no audio.
- ``assistant`` turns: ``text`` and ``tool_use`` blocks (``input`` is the arguments object).
  Images and documents raise: assistant content is text and tool use only.
- ``tool`` turns: a ``tool_result`` block (text, image and document content) in a ``user``
  message.

Consecutive messages of one role are merged into one (the API would merge them anyway), so
parallel tool results share the user message that follows the calls.
"""

from __future__ import annotations

from typing import Any

from ...narrative.toolcalls import ToolCall
from ..content import Conversation, Message, Options
from ..handlers import AudioPart, DocumentPart, ImagePart, Part, TextFilePart, TextPart
from ._common import (
    Payload,
    append_merged,
    arguments_object,
    start_body,
    system_texts,
    text_file_text,
    text_mode,
    unsupported,
)

__all__ = ["PROVIDER", "export", "request"]

PROVIDER = "anthropic"

SETTINGS = {
    "max_tokens": "max_tokens",
    "stop": "stop_sequences",
}
"""LMML settings key -> Messages parameter. The ``anthropic`` 2.14 request type has no
``temperature``, ``top_p`` or ``top_k``: they are unknown settings here."""

NATIVE_SETTINGS = frozenset(
    {
        "tools",
        "tool_choice",
        "metadata",
        "thinking",
        "service_tier",
        "stop_sequences",
        "output_config",
        "cache_control",
        "container",
        "inference_geo",
        "speed",
    }
)
"""Messages parameters a settings embed may give under their own names."""

LIST_SETTINGS = frozenset({"stop_sequences"})


def _block(part: Part, message: Message, options: Options) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, TextFilePart):
        if text_mode(options, "document") == "document":
            return {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": part.text},
                "title": part.asset.name,
            }
        return {"type": "text", "text": text_file_text(part)}
    if isinstance(part, ImagePart):
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": part.media_type, "data": part.asset.base64},
        }
    if isinstance(part, DocumentPart):
        return {
            "type": "document",
            "source": {"type": "base64", "media_type": part.media_type, "data": part.asset.base64},
            "title": part.asset.name,
        }
    assert isinstance(part, AudioPart)
    raise unsupported(part, PROVIDER, message, hint="Anthropic takes no audio input")


def export(conversation: Conversation, options: Options) -> Payload:
    """Write *conversation* as Anthropic ``messages`` plus top-level ``system`` blocks.

    :raises UnsupportedContentError: for audio, and for non-text parts in system or
        assistant turns.
    :raises InvalidToolCallError: for call arguments that are not a JSON object.
    """
    system: list[dict[str, Any]] = []
    out: list[dict[str, Any]] = []
    for message in conversation.messages:
        blocks: list[dict[str, Any]] = []
        role = "user"
        if message.role == "system":
            texts = system_texts(message, PROVIDER)
            system.extend({"type": "text", "text": text} for text in texts)
            continue
        if message.role == "assistant":
            role = "assistant"
            for item in message.items:
                if isinstance(item, ToolCall):
                    blocks.append(
                        {
                            "type": "tool_use",
                            "id": item.id,
                            "name": item.name,
                            "input": arguments_object(item, PROVIDER),
                        }
                    )
                elif isinstance(item, TextPart):
                    blocks.append({"type": "text", "text": item.text})
                elif isinstance(item, TextFilePart):
                    blocks.append({"type": "text", "text": text_file_text(item)})
                else:
                    raise unsupported(item, PROVIDER, message)
        elif message.role == "user":
            blocks = [
                _block(item, message, options)
                for item in message.items
                if not isinstance(item, ToolCall)
            ]
        else:
            assert message.call is not None
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.call.id}
            content = [
                _block(item, message, options)
                for item in message.items
                if not isinstance(item, ToolCall)
            ]
            if content:
                result["content"] = content
            blocks = [result]
        append_merged(out, role, "content", blocks)
    return Payload(PROVIDER, out, system or None, conversation.warnings)


def request(payload: Payload, model: str | None, params: dict[str, Any]) -> dict[str, Any]:
    """The Messages request body (``system`` at the top level)."""
    body = start_body(model)
    if "max_tokens" in params:
        body["max_tokens"] = params.pop("max_tokens")
    if payload.system:
        body["system"] = payload.system
    body["messages"] = payload.messages
    body.update(params)
    return body
