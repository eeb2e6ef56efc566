"""Anthropic Messages (``POST /v1/messages``): messages written, read and sent.

What each turn becomes: docs/messages.md ("System content", "Capability rules", "Tool
calls"); the shapes read: docs/bridge.md; the reply and its stream: docs/run.md ("The reply,
written back").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from operator import attrgetter
from typing import Any

from ...conversation import (
    MESSAGE_KEYS,
    PART_KEYS,
    AudioPart,
    ChatConversation,
    ChatMessage,
    DocumentPart,
    ImagePart,
    ImportedAsset,
    MessagePart,
    NativeItem,
    Part,
    RemoteAsset,
    RemoteKind,
    RemotePart,
    TextFilePart,
    TextPart,
    ToolCall,
    ToolResult,
    VideoPart,
    sendable,
)
from ...errors import ImportFormatError
from ...jsontypes import JSONMapping, JSONObject
from ...media import IMAGE_TYPES, PDF_TYPE
from .._content import Options
from .._imported import (
    as_text,
    decode_base64,
    expect,
    expect_items,
    reject_unknown_keys,
    shown_value,
    turns_of_message,
    without_results,
)
from .._native import message_keys, place_native
from .._remote import read_file_id, read_url, refuse_remote
from .._tool_model import (
    NativeTool,
    OutputSchema,
    Tool,
    ToolChoice,
    ToolSpec,
    json_parameters,
    nested_output,
    nulls,
    schema_only,
    tool_label,
    tool_spec,
    written_in_order,
)
from ._common import (
    append_merged,
    arguments_object,
    checked_image,
    read_body,
    start_body,
    system_text,
    text_file_text,
    text_mode,
    typed_parts,
    unsupported,
)
from .base import Detection, Payload, Provider, ToolFormat
from .sending import (
    Emit,
    EventSender,
    Exchange,
    Gathered,
    ToolCallEvent,
    openai_style_client,
    openai_style_failure,
    reply_data,
)
from .sending import parse_arguments as streamed_arguments

__all__ = ["DEFAULT_MAX_TOKENS", "NAME", "PROVIDER", "SENDER", "export", "read", "request"]

NAME = "anthropic"
ORDER = 30
"""Where the registry lists this format: by ``ORDER``, lowest first."""

DEFAULT_MAX_TOKENS = 4096
"""The ``max_tokens`` a live Messages request takes when the settings give none (the API
requires it): enough for a long answer, within every current model's output limit. The
request warns a :class:`~lmml_mdit.MissingSettingWarning` when it is used."""

SETTINGS = {
    "max_tokens": "max_tokens",
    "stop": "stop_sequences",
}
"""LMML settings key -> Messages parameter. The ``anthropic`` request type (2.17, the
version the extras require, as 2.14) has no ``temperature``, ``top_p`` or ``top_k``: they
are unknown settings here."""

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
        "diagnostics",
        "user_profile_id",
        "workspace_id",
    }
)
"""Messages parameters a settings embed may give under their own names."""


def _is_messages_metadata(value: object) -> bool:
    """Whether *value* is Messages ``metadata``: an object with at most ``user_id`` (OpenAI's
    free-form ``metadata`` of the same name is not)."""
    return isinstance(value, dict) and set(value) <= {"user_id"}


LIST_SETTINGS = frozenset({"stop_sequences"})

IMAGE_MEDIA_TYPES = IMAGE_TYPES
"""The image types a base64 image source takes (the ``anthropic`` SDK's closed
``media_type`` literal: PNG, JPEG, GIF, WebP)."""


def _block(part: Part, message: ChatMessage, options: Options) -> JSONObject:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, RemotePart):
        return anthropic_block(part, PROVIDER.target)
    if isinstance(part, TextFilePart):
        if text_mode(options, "document", part) == "document":
            return {
                "type": "document",
                "source": {"type": "text", "media_type": "text/plain", "data": part.text},
                "title": part.asset.name,
            }
        return {"type": "text", "text": text_file_text(part)}
    if isinstance(part, ImagePart):
        checked_image(part, PROVIDER, IMAGE_MEDIA_TYPES)
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
    if isinstance(part, VideoPart):
        raise unsupported(part, PROVIDER, message, hint="Anthropic takes no video input")
    assert isinstance(part, AudioPart)
    raise unsupported(part, PROVIDER, message, hint="Anthropic takes no audio input")


def export(conversation: ChatConversation, options: Options) -> Payload:
    """Write *conversation* as Anthropic ``messages`` plus top-level ``system`` blocks.

    :raises UnsupportedContentError: for audio, and for non-text parts in system or
        assistant turns.
    :raises InvalidToolCallError: for call arguments that are not a JSON object.
    """
    system: list[JSONObject] = []
    out: list[JSONObject] = []
    for message in conversation.messages:
        blocks: list[JSONObject] = []
        role = "user"
        if message.role == "system":
            for item in sendable(message):
                if isinstance(item, NativeItem) and item.kind == PART_KEYS:
                    place_native(system, item)  # a caching breakpoint on the block before
                elif (text := system_text(item, message, PROVIDER)) is not None:
                    system.append({"type": "text", "text": text})
            continue
        if message.role == "assistant":
            role = "assistant"
            for item in sendable(message):
                if isinstance(item, ToolCall):
                    blocks.append(
                        {
                            "type": "tool_use",
                            "id": item.id,
                            "name": item.name,
                            "input": arguments_object(item, PROVIDER),
                        }
                    )
                elif isinstance(item, NativeItem):
                    place_native(blocks, item)
                elif isinstance(item, TextPart):
                    blocks.append({"type": "text", "text": item.text})
                elif isinstance(item, TextFilePart):
                    blocks.append({"type": "text", "text": text_file_text(item)})
                else:
                    raise unsupported(item, PROVIDER, message)
        elif message.role == "user":
            for item in sendable(message):
                if isinstance(item, NativeItem):
                    place_native(blocks, item)
                elif not isinstance(item, ToolCall):
                    blocks.append(_block(item, message, options))
        else:
            assert message.call is not None
            result: JSONObject = {"type": "tool_result", "tool_use_id": message.call.id}
            content: list[JSONObject] = []
            for item in sendable(message):
                if isinstance(item, NativeItem):
                    place_native(content, item)
                elif not isinstance(item, ToolCall):
                    content.append(_block(item, message, options))
            if content:
                result["content"] = content
            result.update(message_keys(message.parts))
            if len(out) > 1 and out[-1]["role"] == "user" and out[-2]["role"] == "assistant":
                # The API takes a call's results first in the user message after it: user
                # text placed between a call and its result (a system turn there) follows
                # the results, so the call/result pair stays intact.
                held = out[-1]["content"]
                first = next(
                    (i for i, block in enumerate(held) if block.get("type") != "tool_result"),
                    len(held),
                )
                held.insert(first, result)
                continue
            blocks = [result]
        append_merged(out, role, "content", blocks)
    return Payload(NAME, out, system or None, conversation.warnings)


def request(payload: Payload, model: str | None, params: JSONObject) -> JSONObject:
    """The Messages request body (``system`` at the top level)."""
    body = start_body(model)
    if "max_tokens" in params:
        body["max_tokens"] = params.pop("max_tokens")
    if payload.system:
        body["system"] = payload.system
    body["messages"] = payload.messages
    body.update(params)
    return body


# A document's citation switch steers the API and holds no conversation content; a block's
# prompt-caching breakpoint (cache_control) is kept as keys of the part (see _part_keys).
_IGNORED_BLOCK_KEYS = {"cache_control", "citations"}


_OWN_KEYS: dict[str, tuple[str, ...]] = {
    "image": ("transformations",),
    "tool_use": ("caller", "toolset_name"),
}
"""The other fields the API reference documents on a block, kept as given beside it."""


def _part_keys(block: JSONObject, keys: JSONObject | None = None) -> list[NativeItem]:
    """The keys of *block* that travel in a ``part`` fence after it: *keys* (a text
    block's citations), its ``cache_control`` and its type's own fields (:data:`_OWN_KEYS`)."""
    kept = dict(keys or {})
    own = ("cache_control", *_OWN_KEYS.get(str(block.get("type")), ()))
    kept.update({key: block[key] for key in own if key in block})
    return [NativeItem(NAME, PART_KEYS, kept)] if kept else []


_RESULT_KEYS = ("is_error", "cache_control", "toolset_name")
"""A ``tool_result`` block's fields beside its content, kept as the tool turn's keys."""


def _check_keys(block: JSONObject, known: set[str], where: str) -> None:
    reject_unknown_keys(block, known | _IGNORED_BLOCK_KEYS, where=where)


def _source(block: JSONObject, where: str) -> ImportedAsset | RemoteAsset:
    source = expect(block.get("source"), dict, where=where)
    kind = source.get("type")
    if kind == "base64":
        media_type = expect(source.get("media_type"), str, where=where).lower()
        return ImportedAsset(decode_base64(source.get("data"), where=where), media_type)
    if kind == "text":
        media_type = as_text(source.get("media_type", "text/plain")).lower()
        return ImportedAsset(
            expect(source.get("data"), str, where=where).encode("utf-8"), media_type
        )
    remote_kind: RemoteKind = "image" if block.get("type") == "image" else "file"
    if kind == "url":
        reject_unknown_keys(source, ("type", "url"), where=where)
        return read_url(source.get("url"), remote_kind, where=where)
    if kind == "file":
        reject_unknown_keys(source, ("type", "file_id"), where=where)
        return read_file_id(source.get("file_id"), remote_kind, "anthropic", where=where)
    raise ImportFormatError(
        f"unsupported source type {shown_value(kind)}",
        name=where,
        hint="use a base64, text, url or file source",
    )


def block_parts(
    content: object, *, where: str, allow_tools: bool, allow_native: bool = True
) -> list[MessagePart | ToolResult]:
    """Read a content string or block list; a tool result comes back as ``(id, parts)``.

    With *allow_native*, a block of another type (``thinking``, ``redacted_thinking``,
    ``server_tool_use``, ``web_search_tool_result``, ...) is kept whole as a
    :class:`~lmml_mdit.conversation.NativeItem`, and a text block's ``citations`` as the
    keys of the part before (:mod:`lmml_mdit.narrative`).
    """
    if isinstance(content, str):
        return [TextPart(content)]
    parts: list[MessagePart | ToolResult] = []
    for here, block in expect_items(content, where=where):
        kind = block.get("type")
        if kind == "text":
            _check_keys(block, {"type", "text"}, here)
            text = expect(block.get("text"), str, where=here)
            citations = block.get("citations")
            cited = {"citations": citations} if isinstance(citations, list) and citations else {}
            if allow_native and (cited or "cache_control" in block) and not text.strip():
                parts.append(NativeItem(NAME, "text", block))  # no text to hold the keys
            else:
                parts.append(TextPart(text))
                if allow_native:
                    parts.extend(_part_keys(block, cited))
        elif kind == "image":
            _check_keys(block, {"type", "source", *_OWN_KEYS["image"]}, here)
            parts.append(_source(block, here))
            if allow_native:
                parts.extend(_part_keys(block))
        elif kind == "document":
            # Its title (the asset is named by its content, and the export titles the
            # document by that name when it has none), context and citation switch are
            # the document's own keys.
            _check_keys(block, {"type", "source", "title", "context"}, here)
            parts.append(_source(block, here))
            if allow_native:
                own: JSONObject = {
                    key: block[key] for key in ("title", "context", "citations") if key in block
                }
                parts.extend(_part_keys(block, own))
        elif kind == "tool_use" and allow_tools:
            _check_keys(block, {"type", "id", "name", "input", *_OWN_KEYS["tool_use"]}, here)
            parts.append(
                ToolCall(
                    id=expect(block.get("id"), str, where=here),
                    name=expect(block.get("name"), str, where=here),
                    arguments=expect(block.get("input", {}), dict, where=f"{here}.input"),
                )
            )
            if allow_native:
                parts.extend(_part_keys(block))
        elif kind == "tool_result" and allow_tools:
            _check_keys(block, {"type", "tool_use_id", "content", *_RESULT_KEYS}, here)
            inner = block_parts(
                block.get("content", []), where=f"{here}.content", allow_tools=False
            )
            # The error flag, a caching breakpoint and the toolset are the result block's
            # own keys: they travel as the keys of the tool turn's message, put back onto
            # the block.
            flags: JSONObject = {key: block[key] for key in _RESULT_KEYS if key in block}
            if flags.get("is_error") is False:
                del flags["is_error"]  # the default, as if not given
            if flags:
                inner.insert(0, NativeItem(NAME, MESSAGE_KEYS, flags))
            call_id = expect(block.get("tool_use_id"), str, where=here)
            parts.append((call_id, without_results(inner)))
        elif allow_native and isinstance(kind, str) and kind:
            parts.append(NativeItem(NAME, kind, block))
        else:
            raise ImportFormatError(
                f"unsupported block type {shown_value(kind)}",
                name=here,
                hint="use text, image, document, tool_use or tool_result blocks",
            )
    return parts


def read_messages(messages: object, *, where: str = "messages") -> list[ChatMessage]:
    """Read an Anthropic ``messages`` list into turns."""
    turns: list[ChatMessage] = []
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


def _read_system(system: object) -> list[MessagePart]:
    if isinstance(system, list):
        # The API's system takes text blocks only: an image or a document there could
        # not be sent back, so it is refused here rather than at the export.
        for here, block in expect_items(system, where="system"):
            if block.get("type") != "text":
                raise ImportFormatError(
                    f"unsupported system block type {shown_value(block.get('type'))}",
                    name=here,
                    hint="give system content as text blocks",
                )
    parts = without_results(block_parts(system, where="system", allow_tools=False))
    for part in parts:
        # Only the keys of a text block (a caching breakpoint, citations) travel with
        # system content; a block of another type has no place there.
        if isinstance(part, NativeItem) and part.kind != PART_KEYS:
            raise ImportFormatError(
                f"unsupported system block type {shown_value(part.value.get('type'))}",
                name="system",
                hint="give system content as text blocks",
            )
    return parts


def read(data: object) -> ChatConversation:
    """Read a ``messages`` list, or a request body with ``messages`` and ``system``.

    :raises ImportFormatError: for anything outside the Messages shapes.
    """
    return read_body(
        data,
        "messages",
        read_messages,
        missing="an Anthropic request body needs a 'messages' list",
        hint="give the messages list or a body with 'messages'",
        system=("system", _read_system),
    )


# -- tools, tool choice and structured output ----------------------------------------------


_TOOL_KEYS = frozenset({"type", "name", "description", "input_schema", "strict"})
_SERVER_TOOL = re.compile(r"_\d{8}$")
"""Anthropic's server tools are versioned by date (``web_search_20250305``)."""


def _read_tool(item: JSONObject, where: str) -> list[Tool] | None:
    """A custom tool (``input_schema``, which Anthropic's custom tools always carry: a
    ``"type": "custom"`` tool without one is Responses') or a server tool."""
    kind = item.get("type")
    if "input_schema" not in item and not (isinstance(kind, str) and _SERVER_TOOL.search(kind)):
        return None
    label = tool_label(item, where)
    if item.get("type", "custom") != "custom" or set(item) - _TOOL_KEYS:
        return [NativeTool(NAME, item, f"{label} ({where})")]
    return [
        tool_spec(
            item.get("name"),
            item.get("description"),
            item.get("input_schema"),
            item.get("strict"),
            where,
            label,
            nulls(item),
        )
    ]


def _write_tool(tool: ToolSpec) -> JSONObject:
    written: JSONObject = {"name": tool.name}
    if tool.description is not None:
        written["description"] = tool.description
    written["input_schema"] = json_parameters(tool)
    if tool.strict is not None:
        written["strict"] = tool.strict
    return written


def _write_tools(tools: Iterable[ToolSpec | NativeTool]) -> list[JSONObject]:
    return written_in_order(tools, _write_tool)


def _write_choice(choice: ToolChoice) -> JSONObject:
    if choice.name is not None:
        return {"tool_choice": {"type": "tool", "name": choice.name}}
    return {"tool_choice": {"type": {"required": "any"}.get(choice.mode, choice.mode)}}


def _owns_choice(value: JSONMapping) -> bool:
    return value.get("type") in ("auto", "any", "tool", "none")  # with disable_parallel_tool_use


def _read_output(rest: JSONObject) -> tuple[OutputSchema | None, JSONObject]:
    return nested_output(rest, "output_config", "format")


def _write_output(output: OutputSchema) -> JSONObject:
    schema = schema_only(output, "Anthropic")
    return {"output_config": {"format": {"type": "json_schema", "schema": schema}}}


TOOLS = ToolFormat(
    read_tool=_read_tool,
    write_tools=_write_tools,
    write_choice=_write_choice,
    write_output=_write_output,
    owns_choice=_owns_choice,
    read_output=_read_output,
    precedence=1,
)
"""Anthropic's tools, ``tool_choice`` and ``output_config.format``."""


# -- detected ------------------------------------------------------------------------------

_SIGNAL_BLOCKS = frozenset({"tool_use", "tool_result", "image", "document"})
_OWN_BLOCKS = frozenset(
    {"thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result"}
)
"""Block types only the Messages API has (replayed thinking and server-side tools)."""


def _shows_format(message: JSONMapping) -> bool:
    return any(
        kind in _OWN_BLOCKS
        or (kind in _SIGNAL_BLOCKS and ("source" in part or kind.startswith("tool")))
        for kind, part in typed_parts(message)
    )


DETECTION = Detection(
    strength=20,
    messages_key="messages",
    beside_messages=frozenset({"system"}),
    message=_shows_format,
)
"""A top-level ``system`` beside ``messages``, tool blocks, sourced image or document blocks,
or the blocks only the Messages API has."""


PROVIDER = Provider(
    name=NAME,
    title="Anthropic Messages",
    description="an Anthropic chat",
    read=read,
    write=export,
    request=request,
    settings=SETTINGS,
    native_settings=NATIVE_SETTINGS,
    list_settings=LIST_SETTINGS,
    required_settings=frozenset({"max_tokens"}),
    system_up_front=True,
    setting_defaults={"max_tokens": DEFAULT_MAX_TOKENS},
    native_shapes={"metadata": _is_messages_metadata},
    tools=TOOLS,
    detection=DETECTION,
)
"""Anthropic Messages, as the registry lists it."""


# -- sent through the SDK ------------------------------------------------------------------


def _usage(exchange: Exchange, usage: JSONMapping | None) -> None:
    if not usage:
        return
    if usage.get("input_tokens") is not None:
        exchange.input_tokens = usage["input_tokens"]
    if usage.get("output_tokens") is not None:
        exchange.output_tokens = usage["output_tokens"]


def _whole(response: Any) -> Exchange:
    data = reply_data(response, "content")
    exchange = Exchange(
        {"messages": [{"role": "assistant", "content": data.get("content") or []}]},
        raw=response,
        model=data.get("model"),
        finish_reason=data.get("stop_reason"),
        request_id=getattr(response, "_request_id", None),
        response_id=data.get("id"),
    )
    _usage(exchange, data.get("usage"))
    return exchange


class _Gathered(Gathered):
    """A stream's events gathered into the reply's content blocks."""

    def __init__(self, emit: Emit) -> None:
        super().__init__(emit)
        self.blocks: dict[int, JSONObject] = {}
        self.partial_json: dict[int, list[str]] = {}

    def add(self, event: Any) -> None:
        self.events.append(event)
        data = event.model_dump(mode="json", exclude_none=True)
        kind = data.get("type")
        if kind == "message_start":
            message = data.get("message") or {}
            self.exchange.model = message.get("model")
            self.exchange.response_id = message.get("id")
            _usage(self.exchange, message.get("usage"))
        elif kind == "content_block_start":
            self.blocks[data["index"]] = dict(data.get("content_block") or {})
        elif kind == "content_block_delta":
            self._delta(data["index"], data.get("delta") or {})
        elif kind == "content_block_stop":
            block = self.blocks.get(data["index"], {})
            pieces = self.partial_json.pop(data["index"], None)
            if block.get("type") == "tool_use":
                if pieces is not None:
                    block["input"] = streamed_arguments("".join(pieces))
                self.emit(ToolCallEvent(block["id"], block["name"], block.get("input", {})))
        elif kind == "message_delta":
            delta = data.get("delta") or {}
            self.exchange.finish_reason = delta.get("stop_reason") or self.exchange.finish_reason
            _usage(self.exchange, data.get("usage"))
        elif kind == "message_stop":
            self.exchange.complete = True

    def _delta(self, index: int, delta: JSONMapping) -> None:
        block = self.blocks.setdefault(index, {})
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta.get("text", "")
            self.streamed(delta.get("text", ""))
        elif kind == "input_json_delta":
            self.partial_json.setdefault(index, []).append(delta.get("partial_json", ""))
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
        elif kind == "signature_delta":
            block["signature"] = block.get("signature", "") + delta.get("signature", "")
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(delta.get("citation"))

    def finish(self, request_id: str | None) -> Exchange:
        content = [self.blocks[index] for index in sorted(self.blocks)]
        self.exchange.payload = {"messages": [{"role": "assistant", "content": content}]}
        return super().finish(request_id)


SENDER = EventSender(
    name=NAME,
    key_variables=("ANTHROPIC_API_KEY",),
    sdk="anthropic",
    extra="anthropic",
    otel_name="anthropic",
    default_url="https://api.anthropic.com",
    make_client=openai_style_client("anthropic", "Anthropic", "AsyncAnthropic"),
    read_failure=openai_style_failure("anthropic"),
    create=attrgetter("messages.create"),
    whole=_whole,
    gathering=_Gathered,
    request_id_header="request-id",
)
"""Anthropic Messages sent through ``api.messages.create``."""


def anthropic_source(remote: RemoteAsset) -> JSONObject | None:
    """The Anthropic ``source`` of *remote*, or None when Anthropic cannot take it."""
    if remote.url is not None:
        return {"type": "url", "url": remote.url}
    if remote.provider == NAME:
        return {"type": "file", "file_id": remote.file_id}
    return None


def anthropic_block(part: RemotePart, target: str) -> JSONObject:
    """The Anthropic ``image`` or ``document`` block for *part*.

    :raises UnsupportedContentError: for an id not Anthropic's.
    """
    source = anthropic_source(part.remote)
    if source is None:
        raise refuse_remote(part, target, "the file id was issued by another provider")
    media_type = part.remote.media_type
    if part.remote.kind == "file" and media_type not in (None, PDF_TYPE) and part.remote.url:
        raise refuse_remote(part, target, f"a url document source is a PDF, not {media_type}")
    if part.remote.kind == "image":
        return {"type": "image", "source": source}
    return {"type": "document", "source": source}
