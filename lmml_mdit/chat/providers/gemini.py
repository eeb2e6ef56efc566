"""Gemini (``generateContent``; google-genai) contents.

The request is the keyword arguments of ``client.models.generate_content``: ``model``,
``contents`` and ``config`` (a ``GenerateContentConfig`` as a dict), in the SDK's
snake_case JSON form with base64 ``data`` strings (the SDK decodes them).

- ``system`` (and ``context``) turns: ``config.system_instruction`` (text parts, in order).
- ``user`` turns: ``text`` and ``inline_data`` parts (images, PDF, audio); text files as text
  parts headed by the file name, or ``inline_data`` with their own media type with
  ``text_embeds="document"``.
- ``assistant`` turns: role ``model``, ``text``, ``inline_data`` and ``function_call``
  (``args`` is the arguments object, ``id`` the call id).
- ``tool`` turns: role ``user``, a ``function_response`` (``response`` is the result text
  when it is a JSON object, else ``{"output": text}``), then the result's assets as
  ``inline_data`` parts.

Consecutive contents of one role are merged into one.
"""

from __future__ import annotations

from typing import Any

from ...jsonio import parse_json
from ...narrative.toolcalls import ToolCall
from ..content import Conversation, Options
from ..handlers import AudioPart, DocumentPart, ImagePart, Part, TextFilePart, TextPart
from ._common import (
    Payload,
    append_merged,
    arguments_object,
    start_body,
    system_texts,
    text_file_text,
    text_mode,
)

__all__ = ["PROVIDER", "export", "request"]

PROVIDER = "gemini"

SETTINGS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "top_k": "top_k",
    "max_tokens": "max_output_tokens",
    "stop": "stop_sequences",
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
    "n": "candidate_count",
}
"""LMML settings key -> ``GenerateContentConfig`` field."""

NATIVE_SETTINGS = frozenset(
    {
        "tools",
        "tool_config",
        "safety_settings",
        "response_mime_type",
        "response_schema",
        "response_json_schema",
        "response_modalities",
        "thinking_config",
        "candidate_count",
        "max_output_tokens",
        "stop_sequences",
        "labels",
        "cached_content",
        "media_resolution",
    }
)
"""``GenerateContentConfig`` fields a settings embed may give under their own names."""

LIST_SETTINGS = frozenset({"stop_sequences"})

_SYSTEM_TEXT_ONLY = "a system instruction holds text only"


def _part(part: Part, options: Options) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"text": part.text}
    if isinstance(part, TextFilePart):
        if text_mode(options, "text") == "document":
            return {"inline_data": {"mime_type": part.media_type, "data": part.asset.base64}}
        return {"text": text_file_text(part)}
    if isinstance(part, (ImagePart, DocumentPart)):
        return {"inline_data": {"mime_type": part.media_type, "data": part.asset.base64}}
    assert isinstance(part, AudioPart)
    return {"inline_data": {"mime_type": part.asset.media_type, "data": part.asset.base64}}


def _response(texts: list[str]) -> dict[str, Any]:
    text = "\n\n".join(texts)
    try:
        value = parse_json(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value
    return {"output": text}


def export(conversation: Conversation, options: Options) -> Payload:
    """Write *conversation* as Gemini ``contents`` plus a system instruction.

    :raises UnsupportedContentError: for non-text parts in system turns.
    :raises InvalidToolCallError: for call arguments that are not a JSON object.
    """
    system_parts: list[dict[str, Any]] = []
    contents: list[dict[str, Any]] = []
    for message in conversation.messages:
        parts: list[dict[str, Any]] = []
        role = "user"
        if message.role == "system":
            texts = system_texts(message, PROVIDER, hint=_SYSTEM_TEXT_ONLY)
            system_parts.extend({"text": text} for text in texts)
            continue
        if message.role == "assistant":
            role = "model"
            for item in message.items:
                if isinstance(item, ToolCall):
                    parts.append(
                        {
                            "function_call": {
                                "id": item.id,
                                "name": item.name,
                                "args": arguments_object(item, PROVIDER),
                            }
                        }
                    )
                else:
                    parts.append(_part(item, options))
        elif message.role == "user":
            parts = [
                _part(item, options) for item in message.items if not isinstance(item, ToolCall)
            ]
        else:
            call = message.call
            assert call is not None
            texts = []
            assets: list[dict[str, Any]] = []
            for item in message.items:
                if isinstance(item, TextPart):
                    texts.append(item.text)
                elif isinstance(item, TextFilePart) and text_mode(options, "text") == "text":
                    texts.append(text_file_text(item))
                elif not isinstance(item, ToolCall):
                    assets.append(_part(item, options))
            response = {"id": call.id, "name": call.name, "response": _response(texts)}
            parts = [{"function_response": response}, *assets]
        append_merged(contents, role, "parts", parts)
    system = {"parts": system_parts} if system_parts else None
    return Payload(PROVIDER, contents, system, conversation.warnings)


def request(payload: Payload, model: str | None, params: dict[str, Any]) -> dict[str, Any]:
    """The ``generate_content`` keyword arguments: model, contents and config."""
    body = start_body(model)
    body["contents"] = payload.messages
    config: dict[str, Any] = {}
    if payload.system:
        config["system_instruction"] = payload.system
    config.update(params)
    if config:
        body["config"] = config
    return body
