"""OpenAI Responses (``POST /v1/responses``): input items written, read and sent.

What each turn becomes: docs/messages.md ("Capability rules", "Tool calls"); the shapes
read: docs/bridge.md; the reply and its stream: docs/run.md ("The reply, written back").
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from operator import attrgetter
from typing import Any

from ...conversation import (
    CUSTOM_CALL_TYPE,
    MESSAGE_KEYS,
    PART_KEYS,
    AudioPart,
    ChatConversation,
    ChatMessage,
    DocumentPart,
    ImagePart,
    MessagePart,
    NativeItem,
    Part,
    RemotePart,
    TextFilePart,
    TextPart,
    ToolCall,
    VideoPart,
    sendable,
)
from ...errors import ImportFormatError
from ...jsontypes import JSONMapping, JSONObject
from ...model import Role
from .._content import Options
from .._format_names import OPENAI
from .._imported import (
    as_text,
    decode_data_uri,
    expect,
    expect_items,
    reject_unknown_keys,
    shown_value,
)
from .._native import message_keys, place_native
from .._remote import is_audio_or_video, read_file_id, read_url, refuse_remote
from .._tool_model import (
    PORTABLE_KEYS,
    NativeTool,
    OutputSchema,
    Tool,
    ToolChoice,
    ToolSpec,
    json_parameters,
    nested_output,
    nulls,
    tool_label,
    tool_spec,
    written_in_order,
)
from ._common import (
    checked_image,
    custom_input,
    list_body,
    named_schema,
    read_body,
    text_file_text,
    text_mode,
    typed_parts,
    unsupported,
)
from ._custom_tools import OPENAI_RESPONSES, responses_custom_choice, responses_custom_tool
from .base import Detection, Payload, Provider, ToolFormat
from .openai import (
    IMAGE_MEDIA_TYPES,
    audio_asset,
    file_data_asset,
    openai_sender,
    parse_arguments,
)
from .sending import (
    Emit,
    Exchange,
    Gathered,
    ToolCallEvent,
    reply_data,
)
from .sending import parse_arguments as streamed_arguments

__all__ = ["NAME", "PROVIDER", "SENDER", "export", "read", "request"]

_DEFAULT_DETAIL = "auto"
"""The ``detail`` an ``input_image`` is sent with when the options choose none (the API
requires one)."""

NAME = OPENAI_RESPONSES
ORDER = 20
"""Where the registry lists this format: by ``ORDER``, lowest first."""

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
        "prompt_cache_retention",
        "prompt_cache_options",
        "safety_identifier",
        "background",
        "background_options",
        "context_management",
        "conversation",
        "prompt",
        "image",
        "moderation",
        "access_programs",
    }
)
"""Responses parameters a settings embed may give under their own names."""


def _input_part(part: Part, message: ChatMessage, options: Options) -> JSONObject:
    if isinstance(part, TextPart):
        return {"type": "input_text", "text": part.text}
    if isinstance(part, RemotePart):
        return responses_part(part, PROVIDER.target, options.image_detail or _DEFAULT_DETAIL)
    if isinstance(part, TextFilePart):
        if text_mode(options, "text", part) == "document":
            return {
                "type": "input_file",
                "file_data": part.asset.data_uri(part.media_type),
                "filename": posixpath.basename(part.asset.name),
            }
        return {"type": "input_text", "text": text_file_text(part)}
    if isinstance(part, ImagePart):
        checked_image(part, PROVIDER, IMAGE_MEDIA_TYPES)
        return {
            "type": "input_image",
            "image_url": part.asset.data_uri(part.media_type),
            "detail": options.image_detail or _DEFAULT_DETAIL,
        }
    if isinstance(part, DocumentPart):
        return {
            "type": "input_file",
            "file_data": part.asset.data_uri(part.media_type),
            "filename": posixpath.basename(part.asset.name),
        }
    if isinstance(part, VideoPart):
        raise unsupported(
            part, PROVIDER, message, hint="the Responses API takes no video input; use 'gemini'"
        )
    assert isinstance(part, AudioPart)
    raise unsupported(
        part, PROVIDER, message, hint="the Responses API takes no audio input; use 'openai'"
    )


def export(conversation: ChatConversation, options: Options) -> Payload:
    """Write *conversation* as a Responses ``input`` item list.

    :raises UnsupportedContentError: for audio anywhere, and for non-text parts in system
        or assistant messages.
    """
    items: list[JSONObject] = []
    for message in conversation.messages:
        keys = message_keys(message.parts)
        if message.role in ("system", "user"):
            content: list[JSONObject] = []
            for item in sendable(message):
                if isinstance(item, ToolCall):  # pragma: no cover
                    continue
                if isinstance(item, NativeItem):
                    if item.kind in (PART_KEYS, MESSAGE_KEYS):
                        place_native(content, item)
                        continue
                    if content:  # a whole item stands between two messages
                        items.append({"type": "message", "role": message.role, "content": content})
                        content = []
                    place_native(items, item)
                    continue
                if message.role == "system" and not isinstance(item, (TextPart, TextFilePart)):
                    raise unsupported(item, PROVIDER, message)
                content.append(_input_part(item, message, options))
            if content or not any(isinstance(item, NativeItem) for item in sendable(message)):
                items.append({"type": "message", "role": message.role, "content": content, **keys})
        elif message.role == "assistant":
            texts: list[JSONObject] = []
            for item in sendable(message):
                if isinstance(item, ToolCall):
                    if texts:
                        items.append(_assistant_text(texts, keys))
                        texts = []
                    items.append(_call_item(item))
                elif isinstance(item, NativeItem):
                    if item.kind == PART_KEYS and texts:
                        place_native(texts, item)
                    elif item.kind == PART_KEYS:
                        place_native(items, item)  # keys of the item before
                    elif item.kind != MESSAGE_KEYS:
                        if texts:
                            items.append(_assistant_text(texts, keys))
                            texts = []
                        place_native(items, item)
                elif isinstance(item, TextPart):
                    texts.append(_output_text(item.text))
                elif isinstance(item, TextFilePart):
                    texts.append(_output_text(text_file_text(item)))
                else:
                    raise unsupported(item, PROVIDER, message)
            if texts:
                items.append(_assistant_text(texts, keys))
        else:
            assert message.call is not None
            parts: list[JSONObject] = []
            for item in sendable(message):
                if isinstance(item, NativeItem):
                    place_native(parts, item)
                elif not isinstance(item, ToolCall):
                    parts.append(_input_part(item, message, options))
            output: str | list[JSONObject]
            if all(
                set(part) == {"type", "text"} and part["type"] == "input_text" for part in parts
            ):
                output = "\n\n".join(part["text"] for part in parts)
            else:
                output = parts
            kind = _CUSTOM_OUTPUT if message.call.is_custom else "function_call_output"
            items.append({"type": kind, "call_id": message.call.id, "output": output, **keys})
    return Payload(NAME, items, None, conversation.warnings)


_CUSTOM_CALL = "custom_tool_call"
_CUSTOM_OUTPUT = "custom_tool_call_output"


def _call_item(call: ToolCall) -> JSONObject:
    """A call as its input item: a ``function_call``, or a custom tool's
    ``custom_tool_call`` (its input text verbatim).

    :raises InvalidToolCallError: for a custom call whose arguments are not text.
    """
    if call.is_custom:
        return {
            "type": _CUSTOM_CALL,
            "call_id": call.id,
            "name": call.name,
            "input": custom_input(call),
        }
    return {
        "type": "function_call",
        "call_id": call.id,
        "name": call.name,
        "arguments": call.arguments_json,
    }


def _output_text(text: str) -> JSONObject:
    return {"type": "output_text", "text": text}


def _assistant_text(texts: list[JSONObject], keys: JSONObject) -> JSONObject:
    """An assistant message: its text as one string, or, when a part carries native keys
    (``annotations``) or the message does (``id``, ``status``), as ``output_text`` parts,
    the replayed output message the Responses API takes. A ``phase`` alone stays on the
    string form: the input message takes it, and ``output_text`` parts would need the
    output message's ``id`` and ``status``."""
    if set(keys) - {"phase"} or any(set(text) != {"type", "text"} for text in texts):
        parts = [{**text, "annotations": text.get("annotations", [])} for text in texts]
        return {"type": "message", "role": "assistant", "content": parts, **keys}
    return {
        "type": "message",
        "role": "assistant",
        "content": "\n\n".join(t["text"] for t in texts),
        **keys,
    }


def request(payload: Payload, model: str | None, params: JSONObject) -> JSONObject:
    """The Responses request body."""
    return list_body(payload, model, "input", params)


_ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
}
_MESSAGE_KEYS = ("type", "role", "content")
# The other fields the API reference documents on a message item: the replay bookkeeping
# of output items (``id``, ``status``) and an assistant message's ``phase``. Each is kept
# in the message's record (a ``message`` fence) and sent back.
_RECORD_KEYS = ("id", "status", "phase")
# The fields the API reference documents on an input part beyond its content: each is kept
# as given (part keys beside the part) and put back onto it on export.
_OWN_PART_KEYS = ("prompt_cache_breakpoint",)
# A part's keys that are read.
_PART_KEYS = {
    "input_text": ("type", "text", *_OWN_PART_KEYS),
    "output_text": ("type", "text", "annotations", "logprobs"),
    "input_image": ("type", "image_url", "file_id", "detail", *_OWN_PART_KEYS),
    "input_file": (
        "type",
        "file_data",
        "filename",
        "file_id",
        "file_url",
        "detail",
        *_OWN_PART_KEYS,
    ),
    "input_audio": ("type", "input_audio"),
}


def content_parts(content: object, *, where: str) -> list[MessagePart]:
    """Read a Responses ``content`` or ``output`` (string or part list) into parts."""
    if isinstance(content, str):
        return [TextPart(content)]
    parts: list[MessagePart] = []
    for here, part in expect_items(content, where=where):
        kind = part.get("type")
        reject_unknown_keys(part, _PART_KEYS.get(str(kind), ("type",)), where=here)
        if kind in ("input_text", "output_text"):
            text = expect(part.get("text"), str, where=here)
            # a replayed output_text's non-empty annotations and logprobs (an empty list
            # is the default) and an input_text's own fields travel as the part's keys
            own = {
                **{key: part[key] for key in ("annotations", "logprobs") if part.get(key)},
                **_own_keys(part),
            }
            if own and text.strip():
                parts.extend([TextPart(text), NativeItem(NAME, PART_KEYS, own)])
            elif own:  # no text to hold the keys: the part travels whole
                parts.append(NativeItem(NAME, str(kind), part))
            else:
                parts.append(TextPart(text))
        elif kind == "input_image":
            url = part.get("image_url")
            if "file_id" in part and url is not None:
                raise ImportFormatError(
                    "an input_image gives both image_url and file_id",
                    name=here,
                    hint="keep one of them",
                )
            if "file_id" in part:
                parts.append(read_file_id(part["file_id"], "image", "openai", where=here))
            elif isinstance(url, str) and not url.startswith("data:"):
                parts.append(read_url(url, "image", where=here))
            else:
                parts.append(decode_data_uri(url, where=here))
            detail = part.get("detail", _DEFAULT_DETAIL)
            own = _own_keys(part)
            if detail != _DEFAULT_DETAIL:  # "auto" is what the export sends anyway
                own = {"detail": expect(detail, str, where=f"{here}.detail"), **own}
            if own:
                parts.append(NativeItem(NAME, PART_KEYS, own))
        elif kind == "input_file":
            parts.append(_input_file(part, where=here))
            # An input_file has no default detail, and its filename is its own (the asset
            # is named by its content): each is kept as given, put back onto it on export.
            own = {
                **{
                    key: expect(part[key], str, where=f"{here}.{key}")
                    for key in ("filename", "detail")
                    if key in part
                },
                **_own_keys(part),
            }
            if own:
                parts.append(NativeItem(NAME, PART_KEYS, own))
        elif kind == "input_audio":
            parts.append(audio_asset(part, where=here))
        else:
            raise ImportFormatError(
                f"unknown content part type {shown_value(kind)}",
                name=here,
                hint="use input_text, output_text, input_image, input_file or input_audio",
            )
    return parts


def _own_keys(part: JSONObject) -> JSONObject:
    """The fields of *part* kept as given (:data:`_OWN_PART_KEYS`)."""
    return {key: part[key] for key in _OWN_PART_KEYS if key in part}


def _input_file(part: JSONObject, *, where: str) -> MessagePart:
    """An ``input_file``'s content: its bytes, or the URL or file id it names."""
    kept = ("filename", "detail", *_OWN_PART_KEYS)
    if "file_data" not in part and "file_url" in part:
        reject_unknown_keys(part, ("type", "file_url", *kept), where=where)
        return read_url(part["file_url"], "file", where=where)
    if "file_data" not in part and "file_id" in part:
        reject_unknown_keys(part, ("type", "file_id", *kept), where=where)
        return read_file_id(part["file_id"], "file", "openai", where=where)
    missing = "an input_file needs file_data, file_url or file_id"
    content = {key: value for key, value in part.items() if key not in _OWN_PART_KEYS}
    return file_data_asset(content, where=where, missing=missing)


def _record(item: JSONObject) -> JSONObject:
    """The documented fields of *item* beyond its content (:data:`_RECORD_KEYS`)."""
    return {key: item[key] for key in _RECORD_KEYS if key in item}


_FUNCTION_CALL_KEYS = ("type", "call_id", "name", "arguments")
_CUSTOM_CALL_KEYS = ("type", "call_id", "name", "input")
_OUTPUT_KEYS = ("type", "call_id", "output")


def _call(item: JSONObject, *, where: str) -> tuple[ToolCall, JSONObject]:
    """A ``function_call`` or ``custom_tool_call`` item as a tool call, and its record:
    every field of the item but its type, call id, name and arguments (or input), kept
    beside the call (``id``, ``status``, ``namespace``, ``caller``, ``async``, ...)."""
    call_id = expect(item.get("call_id"), str, where=f"{where}.call_id")
    name = expect(item.get("name"), str, where=f"{where}.name")
    custom = item.get("type") == _CUSTOM_CALL
    read = _CUSTOM_CALL_KEYS if custom else _FUNCTION_CALL_KEYS
    record = {key: value for key, value in item.items() if key not in read}
    if not custom:
        arguments = parse_arguments(item.get("arguments", "{}"), where=where)
        return ToolCall(call_id, name, arguments), record
    text = expect(item.get("input"), str, where=f"{where}.input")
    return ToolCall(call_id, name, text, extra={"type": CUSTOM_CALL_TYPE}), record


def _output_record(item: JSONObject) -> JSONObject:
    """The fields of a ``function_call_output`` or ``custom_tool_call_output`` kept on its
    tool turn: every one but its type, call id and output (``id``, ``status``, ``name``,
    ``namespace``, ``caller``, ...)."""
    return {key: value for key, value in item.items() if key not in _OUTPUT_KEYS}


def read_items(items: object, *, where: str = "input") -> list[ChatMessage]:
    """Read a Responses ``input`` (string or item list) into turns."""
    if isinstance(items, str):
        return [ChatMessage("user", [TextPart(items)])]
    turns: list[ChatMessage] = []
    custom: dict[str, bool] = {}  # each call id read so far: whether a custom tool's
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
            parts = content_parts(item.get("content"), where=f"{here}.content")
            if _record(item):  # its id, status and phase come back on the message
                parts.insert(0, NativeItem(NAME, MESSAGE_KEYS, _record(item)))
            turns.append(ChatMessage(role, parts))
            reject_unknown_keys(item, _MESSAGE_KEYS + _RECORD_KEYS, where=here)
        elif kind in ("function_call", _CUSTOM_CALL):
            call, record = _call(item, where=here)
            custom[call.id] = call.is_custom
            made: list[MessagePart] = [call]
            if record:  # the call item's own fields (id, status, ...), put back on it
                made.append(NativeItem(NAME, PART_KEYS, record))
            if turns and turns[-1].role == "assistant":
                turns[-1].parts.extend(made)
            else:
                turns.append(ChatMessage("assistant", made))
        elif kind in ("function_call_output", _CUSTOM_OUTPUT):
            call_id = expect(item.get("call_id"), str, where=here)
            if custom.get(call_id, kind == _CUSTOM_OUTPUT) != (kind == _CUSTOM_OUTPUT):
                made_as = _CUSTOM_CALL if custom[call_id] else "function_call"
                raise ImportFormatError(
                    f"a {kind} answers call {shown_value(call_id)}, a {made_as}",
                    name=here,
                    hint="answer a function_call with function_call_output and a "
                    "custom_tool_call with custom_tool_call_output",
                )
            output = content_parts(item.get("output"), where=f"{here}.output")
            record = _output_record(item)
            if record:
                output.insert(0, NativeItem(NAME, MESSAGE_KEYS, record))
            turns.append(ChatMessage("tool", output, ToolCall(call_id, "", None)))
        elif isinstance(kind, str) and kind:
            # reasoning, web_search_call and any other item: kept whole, in an assistant turn
            native = NativeItem(NAME, kind, item)
            if turns and turns[-1].role == "assistant":
                turns[-1].parts.append(native)
            else:
                turns.append(ChatMessage("assistant", [native]))
        else:
            raise ImportFormatError(
                f"unsupported input item type {shown_value(kind)}",
                name=here,
                hint="use message, function_call, function_call_output or typed items",
            )
    return turns


def read(data: object) -> ChatConversation:
    """Read an ``input`` list, or a request body with ``input``, into a conversation.

    :raises ImportFormatError: for anything outside the Responses shapes.
    """
    return read_body(
        data,
        "input",
        read_items,
        missing="a Responses request body needs an 'input'",
        hint="give the input item list or a body with 'input'",
        system=("instructions", lambda value: [TextPart(expect(value, str, where="instructions"))]),
    )


# -- tools, tool choice and structured output ----------------------------------------------


def _read_tool(item: JSONObject, where: str) -> list[Tool] | None:
    """A function tool in Responses' form (``{"type": "function", "name": ...}``)."""
    if item.get("type") != "function":
        return None
    label = tool_label(item, where)
    if set(item) - PORTABLE_KEYS - {"type"}:
        return [NativeTool(NAME, item, f"{label} ({where})")]
    return [
        tool_spec(
            item.get("name"),
            item.get("description"),
            item.get("parameters"),
            item.get("strict"),
            where,
            label,
            nulls(item) - {"strict"},  # Responses sends strict: null for "not given"
        )
    ]


def _read_builtin(item: JSONObject, where: str) -> NativeTool | None:
    """A built-in tool (``web_search``, ``file_search``, ``mcp``, ...)."""
    kind = item.get("type")
    if kind is None:
        return None
    return NativeTool(NAME, item, f"{kind!s} tool ({where})")


def _write_tool(tool: ToolSpec) -> JSONObject:
    function: JSONObject = {"type": "function", "name": tool.name}
    if tool.description is not None or "description" in tool.nulls:
        function["description"] = tool.description
    function["parameters"] = json_parameters(tool)
    function["strict"] = tool.strict  # required (null allowed)
    return function


def _write_tools(tools: Iterable[ToolSpec | NativeTool]) -> list[JSONObject]:
    return written_in_order(tools, _write_tool)


def _write_choice(choice: ToolChoice) -> JSONObject:
    name = choice.name
    return {"tool_choice": choice.mode if name is None else {"type": "function", "name": name}}


def _owns_choice(value: JSONMapping) -> bool:
    """Any typed choice the other providers leave: a built-in tool, ``allowed_tools``, ..."""
    return isinstance(value.get("type"), str)


def _read_output(rest: JSONObject) -> tuple[OutputSchema | None, JSONObject]:
    return nested_output(rest, "text", "format")


def _write_output(output: OutputSchema) -> JSONObject:
    return {"text": {"format": {"type": "json_schema", **named_schema(output)}}}


def _adopt_tool(tool: NativeTool) -> JSONObject | None:
    """A Chat custom tool in Responses' form."""
    return responses_custom_tool(tool, PROVIDER.title)


TOOLS = ToolFormat(
    read_tool=_read_tool,
    write_tools=_write_tools,
    write_choice=_write_choice,
    write_output=_write_output,
    read_builtin=_read_builtin,
    owns_choice=_owns_choice,
    read_output=_read_output,
    adopt_tool=_adopt_tool,
    adopt_choice=responses_custom_choice,
)
"""Responses' tools and ``text.format``; its readers go last (a typed item is its own)."""


# -- detected ------------------------------------------------------------------------------

_SIGNAL_ITEMS = frozenset(
    {"message", "function_call", "function_call_output", "reasoning", "web_search_call"}
    | {_CUSTOM_CALL, _CUSTOM_OUTPUT}
)
_SIGNAL_PARTS = frozenset(_PART_KEYS) - {"input_audio"}
"""The parts only Responses reads (Chat Completions has ``input_audio`` too)."""


def _shows_format(message: JSONMapping) -> bool:
    kind = message.get("type")
    if isinstance(kind, str) and kind in _SIGNAL_ITEMS:
        return True
    return any(kind in _SIGNAL_PARTS for kind, _ in typed_parts(message))


DETECTION = Detection(
    strength=30,
    body_keys=frozenset({"input", "instructions"}),
    messages_key="input",
    message=_shows_format,
)
"""A body's ``input``/``instructions``, typed items, or ``input_*``/``output_text`` parts."""


PROVIDER = Provider(
    name=NAME,
    title="OpenAI Responses",
    description="an OpenAI Responses conversation",
    read=read,
    write=export,
    request=request,
    settings=SETTINGS,
    native_settings=NATIVE_SETTINGS,
    requires_model=False,
    tools=TOOLS,
    custom_calls=True,
    detection=DETECTION,
)
"""OpenAI Responses, as the registry lists it."""


# -- sent through the SDK ------------------------------------------------------------------


_ITEM_KEYS_DROPPED = ("status",)


def _item(item: JSONMapping) -> JSONObject:
    kept = {key: value for key, value in item.items() if key not in _ITEM_KEYS_DROPPED}
    if kept.get("type") == "message":
        kept.pop("id", None)
        kept["content"] = [
            {key: value for key, value in part.items() if key not in ("annotations", "logprobs")}
            for part in kept.get("content") or []
        ]
    elif kept.get("type") in ("function_call", "custom_tool_call"):
        kept.pop("id", None)  # a stored item's id: a request with store false cannot name it
    return kept


def _read(exchange: Exchange, data: JSONMapping) -> None:
    exchange.model = data.get("model") or exchange.model
    exchange.request_id = exchange.request_id or data.get("id")
    exchange.response_id = data.get("id") or exchange.response_id
    usage = data.get("usage") or {}
    exchange.input_tokens = usage.get("input_tokens", exchange.input_tokens)
    exchange.output_tokens = usage.get("output_tokens", exchange.output_tokens)
    details = data.get("incomplete_details") or {}
    exchange.finish_reason = details.get("reason") or data.get("status")
    exchange.payload = {"input": [_item(item) for item in data.get("output") or []]}


def _whole(response: Any) -> Exchange:
    exchange = Exchange({}, raw=response, request_id=getattr(response, "_request_id", None))
    _read(exchange, reply_data(response, "output"))
    return exchange


class _Gathered(Gathered):
    def __init__(self, emit: Emit) -> None:
        super().__init__(emit)
        self.items: dict[int, JSONObject] = {}

    def add(self, event: Any) -> None:
        self.events.append(event)
        data = event.model_dump(mode="json", exclude_none=True)
        kind = data.get("type")
        if kind == "response.output_text.delta":
            self.streamed(data.get("delta", ""))
        elif kind == "response.output_item.done":
            item = data.get("item") or {}
            self.items[data.get("output_index", len(self.items))] = item
            if item.get("type") == "function_call":
                self.emit(
                    ToolCallEvent(
                        item.get("call_id", ""),
                        item.get("name", ""),
                        streamed_arguments(item.get("arguments", "")),
                    )
                )
            elif item.get("type") == _CUSTOM_CALL:
                self.emit(
                    ToolCallEvent(
                        item.get("call_id", ""),
                        item.get("name", ""),
                        item.get("input", ""),
                        custom=True,
                    )
                )
        elif kind in ("response.completed", "response.incomplete"):
            _read(self.exchange, data.get("response") or {})
            self.exchange.complete = True
        elif kind == "response.created":
            created = data.get("response") or {}
            self.exchange.model = created.get("model")
            self.exchange.response_id = created.get("id")

    def finish(self, request_id: str | None) -> Exchange:
        if not self.exchange.complete:
            self.exchange.payload = {
                "input": [_item(self.items[index]) for index in sorted(self.items)]
            }
            if self.text and not any(i.get("type") == "message" for i in self.items.values()):
                self.exchange.payload["input"].append(
                    {"type": "message", "role": "assistant", "content": "".join(self.text)}
                )
        return super().finish(request_id or self.exchange.request_id)


SENDER = openai_sender(
    name=NAME,
    create=attrgetter("responses.create"),
    whole=_whole,
    gathering=_Gathered,
)
"""OpenAI Responses sent through ``api.responses.create``."""


def responses_part(part: RemotePart, target: str, detail: str) -> JSONObject:
    """The Responses input part for *part*.

    :raises UnsupportedContentError: for an id not OpenAI's.
    """
    remote = part.remote
    if remote.url is None and remote.provider != OPENAI:  # the ids are the Files API's
        raise refuse_remote(part, target, "the file id was issued by another provider")
    if is_audio_or_video(remote):
        raise refuse_remote(
            part, target, f"its input_file takes documents, not {remote.media_type}"
        )
    if remote.kind == "image":
        key = "image_url" if remote.url is not None else "file_id"
        return {"type": "input_image", key: remote.url or remote.file_id, "detail": detail}
    if remote.url is not None:
        return {"type": "input_file", "file_url": remote.url}
    return {"type": "input_file", "file_id": remote.file_id}
