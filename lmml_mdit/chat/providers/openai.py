"""OpenAI Chat Completions (``POST /v1/chat/completions``): messages written, read and sent.

What each turn becomes: docs/messages.md ("Capability rules", "Tool calls"); the shapes
read: docs/bridge.md; the reply and its stream: docs/run.md ("The reply, written back").
"""

from __future__ import annotations

import copy
import functools
import posixpath
from collections.abc import Iterable
from operator import attrgetter
from typing import Any

from ...conversation import (
    CUSTOM_CALL_TYPE,
    PART_KEYS,
    ChatConversation,
    ChatMessage,
    MessagePart,
    NativeItem,
    ToolCall,
    sendable,
)
from ...errors import ImportFormatError
from ...jsonio import parse_json
from ...jsontypes import JSONMapping, JSONObject
from ...media import AUDIO_TYPES, IMAGE_TYPES
from .._content import Options
from .._format_names import OPENAI
from .._handlers import DocumentPart, ImagePart, Part, RemotePart, TextFilePart, TextPart, VideoPart
from .._imported import (
    ImportedAsset,
    as_text,
    decode_base64,
    decode_data_uri,
    expect,
    expect_items,
    reject_unknown_keys,
    shown_value,
)
from .._native import message_keys, place_native
from .._remote import read_file_id, read_url, refuse_remote
from .._tool_model import (
    PORTABLE_KEYS,
    NativeTool,
    OutputSchema,
    Tool,
    ToolChoice,
    ToolSpec,
    json_object,
    json_parameters,
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
from ._custom_tools import chat_custom_choice, chat_custom_tool
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

__all__ = [
    "NAME",
    "PROVIDER",
    "SENDER",
    "audio_asset",
    "content_part",
    "export",
    "file_data_asset",
    "openai_client",
    "openai_failure",
    "openai_sender",
    "parse_arguments",
    "read",
    "request",
]

NAME = OPENAI
ORDER = 10
"""Where the registry lists this format: by ``ORDER``, lowest first."""

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
        "prompt_cache_key",
        "prompt_cache_retention",
        "prompt_cache_options",
        "safety_identifier",
        "web_search_options",
        "moderation",
    }
)
"""Chat Completions parameters a settings embed may give under their own names."""


IMAGE_MEDIA_TYPES = IMAGE_TYPES
"""The image types an ``image_url`` data URI may hold (OpenAI's vision guide: PNG, JPEG,
WebP, non-animated GIF; the SDK types the URL as a plain string)."""


def _file(part: DocumentPart | TextFilePart) -> JSONObject:
    return {
        "file_data": part.asset.data_uri(part.media_type),
        "filename": posixpath.basename(part.asset.name),
    }


def content_part(part: Part, options: Options) -> JSONObject:
    """One neutral part as a Chat Completions user content part."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, RemotePart):
        return openai_chat_part(part, PROVIDER.target, options.image_detail)
    if isinstance(part, TextFilePart):
        if text_mode(options, "text", part) == "document":
            return {"type": "file", "file": _file(part)}
        return {"type": "text", "text": text_file_text(part)}
    if isinstance(part, ImagePart):
        checked_image(part, PROVIDER, IMAGE_MEDIA_TYPES)
        image: JSONObject = {"url": part.asset.data_uri(part.media_type)}
        if options.image_detail is not None:
            image["detail"] = options.image_detail
        return {"type": "image_url", "image_url": image}
    if isinstance(part, DocumentPart):
        return {"type": "file", "file": _file(part)}
    if isinstance(part, VideoPart):
        raise part.asset.unsupported(
            f"{PROVIDER.target} cannot take {part.asset.name}, a video ({part.media_type})",
            hint="Chat Completions takes no video input; use 'gemini'",
        )
    return {
        "type": "input_audio",
        "input_audio": {"data": part.asset.base64, "format": part.format},
    }


def tool_call(call: ToolCall) -> JSONObject:
    """One call as an assistant ``tool_calls`` entry: a function call, or a custom tool's
    (``{"type": "custom", "custom": {"name", "input"}}``), with the call's
    :attr:`~lmml_mdit.conversation.ToolCall.extra` keys (those under ``"function"`` or
    ``"custom"`` inside that object).

    :raises InvalidToolCallError: for a custom call whose arguments are not its input text.
    """
    inner: JSONObject
    if call.is_custom:
        kind, inner = CUSTOM_CALL_TYPE, {"name": call.name, "input": custom_input(call)}
    else:
        kind, inner = "function", {"name": call.name, "arguments": call.arguments_json}
    entry: JSONObject = {"id": call.id, "type": kind, kind: inner}
    for key, value in call.extra.items():
        if key == kind and isinstance(value, dict):
            inner.update({k: copy.deepcopy(v) for k, v in value.items() if k not in inner})
        elif key not in entry:
            entry[key] = copy.deepcopy(value)
    return entry


def _text_only(message: ChatMessage, options: Options) -> list[JSONObject]:
    parts: list[JSONObject] = []
    for item in sendable(message):
        if isinstance(item, (TextPart, TextFilePart)):
            parts.append(content_part(item, options))
        elif isinstance(item, NativeItem):
            place_native(parts, item)
        elif isinstance(item, ToolCall):  # pragma: no cover - only assistant turns hold calls
            continue
        else:
            raise unsupported(item, PROVIDER, message)
    return parts


def export(conversation: ChatConversation, options: Options) -> Payload:
    """Write *conversation* as a Chat Completions ``messages`` list.

    :raises UnsupportedContentError: for parts a role cannot hold (images in system or
        assistant messages; tool-result images with ``tool_result_images="error"``).
    """
    out: list[JSONObject] = []
    deferred: list[JSONObject] = []
    for message in conversation.messages:
        if message.role != "tool" and deferred:
            out.append({"role": "user", "content": deferred})
            deferred = []
        if message.role == "system":
            entry: JSONObject = {"role": "system", "content": _text_only(message, options)}
            out.append({**entry, **message_keys(message.parts)})
        elif message.role == "user":
            content: list[JSONObject] = []
            for item in sendable(message):
                if isinstance(item, NativeItem):
                    place_native(content, item)
                elif not isinstance(item, ToolCall):
                    content.append(content_part(item, options))
            out.append({"role": "user", "content": content, **message_keys(message.parts)})
        elif message.role == "assistant":
            texts: list[JSONObject] = []
            calls: list[JSONObject] = []
            for item in sendable(message):
                if isinstance(item, ToolCall):
                    calls.append(tool_call(item))
                elif isinstance(item, NativeItem):
                    place_native(calls if item.kind == PART_KEYS and calls else texts, item)
                elif isinstance(item, (TextPart, TextFilePart)):
                    texts.append(content_part(item, options))
                else:
                    raise unsupported(item, PROVIDER, message)
            entry = {"role": "assistant", "content": texts or None}
            if calls:
                entry["tool_calls"] = calls
            out.append({**entry, **message_keys(message.parts)})
        else:
            assert message.call is not None
            texts = []
            others: list[JSONObject] = []
            for item in sendable(message):
                if isinstance(item, (TextPart, TextFilePart)):
                    texts.append(content_part(item, options))
                elif isinstance(item, NativeItem):
                    place_native(texts, item)
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
    return Payload(NAME, out, None, conversation.warnings)


def request(payload: Payload, model: str | None, params: JSONObject) -> JSONObject:
    """The Chat Completions request body."""
    return list_body(payload, model, "messages", params)


_SYSTEM_ROLES = ("system", "developer")  # a tuple: a role read from JSON may be unhashable
# Keys that carry nothing when empty; any other unknown key is refused, never dropped.
_EMPTY_OK = {"refusal", "audio", "function_call", "annotations", "tool_calls", "name"}


def parse_arguments(text: object, *, where: str) -> object:
    """A call's ``arguments`` string parsed as JSON, or kept as the string when it is not
    (or nests too deeply to parse), so it goes back out verbatim.

    :raises ImportFormatError: when ``arguments`` is not a string (the API sends JSON text).
    """
    text = expect(text, str, where=f"{where}.arguments")
    try:
        return parse_json(text)
    except (ValueError, RecursionError):
        return text


def audio_asset(part: JSONObject, *, where: str) -> ImportedAsset:
    """The asset of an ``input_audio`` part (Chat Completions and Responses alike):
    base64 ``data`` in a ``format`` (``wav``, ``mp3``)."""
    audio = expect(part.get("input_audio"), dict, where=where)
    reject_unknown_keys(audio, ("data", "format"), where=where)
    media_type = AUDIO_TYPES.get(
        as_text(audio.get("format")), f"audio/{as_text(audio.get('format'))}"
    )
    return ImportedAsset(decode_base64(audio.get("data"), where=where), media_type)


def file_data_asset(file: JSONObject, *, where: str, missing: str) -> ImportedAsset:
    """The asset of a file part (Chat Completions and Responses alike): its ``file_data``
    data URI. A file id or URL is never fetched.

    :param missing: the error message when the part has no ``file_data``.
    :raises ImportFormatError: without ``file_data``, or for a malformed data URI.
    """
    # The asset is named by its content; the part's own filename travels as a part key
    # (see the bridge docs), read by the caller.
    reject_unknown_keys(
        file, ("type", "file_data", "filename", "file_id", "file_url", "detail"), where=where
    )
    if "file_data" not in file:
        raise ImportFormatError(
            missing, name=where, hint="embed the file as a data URI in file_data"
        )
    return decode_data_uri(file["file_data"], where=where)


def _unexpected_keys(message: JSONObject, known: set[str], where: str) -> None:
    for key, value in message.items():
        if key in known or (key in _EMPTY_OK and not value):
            continue
        raise ImportFormatError(
            f"unsupported key {shown_value(key)}",
            name=where,
            hint="remove it or import the conversation without it; nothing is dropped silently",
        )


_OWN_PART_KEYS = ("prompt_cache_breakpoint",)
"""The fields the API reference documents on every content part beside its content."""


def content_parts(content: object, *, where: str) -> list[MessagePart]:
    """Read a Chat Completions ``content`` (string, null or part list) into parts."""
    if content is None:
        return []
    if isinstance(content, str):
        return [TextPart(content)]
    parts: list[MessagePart] = []
    for here, part in expect_items(content, where=f"{where}.content"):
        kind = part.get("type")
        reject_unknown_keys(part, ("type", kind, *_OWN_PART_KEYS), where=here)
        # the part's own documented fields, kept as given and put back onto it on export
        own: JSONObject = {key: part[key] for key in _OWN_PART_KEYS if key in part}
        if kind == "text":
            parts.append(TextPart(expect(part.get("text"), str, where=here)))
        elif kind == "refusal":
            raise ImportFormatError(
                "refusal parts are not imported",
                name=here,
                hint="turn the refusal into a text part",
            )
        elif kind == "image_url":
            image = expect(part.get("image_url"), dict, where=here)
            reject_unknown_keys(image, ("url", "detail"), where=here)
            url = image.get("url")
            if isinstance(url, str) and not url.startswith("data:"):
                parts.append(read_url(url, "image", where=here))
            else:
                parts.append(decode_data_uri(url, where=here))
            if "detail" in image:  # the image's own detail, put back onto it on export
                detail = expect(image["detail"], str, where=f"{here}.image_url.detail")
                own = {"image_url": {"detail": detail}, **own}
        elif kind == "input_audio":
            parts.append(audio_asset(part, where=here))
        elif kind == "file":
            file = expect(part.get("file"), dict, where=here)
            if "file_data" not in file and "file_id" in file:
                reject_unknown_keys(file, ("file_id", "filename"), where=here)
                parts.append(read_file_id(file["file_id"], "file", "openai", where=here))
            else:
                missing = "a file part needs file_data or file_id"
                parts.append(file_data_asset(file, where=here, missing=missing))
            if "filename" in file:  # the file's own name, put back onto it on export
                filename = expect(file["filename"], str, where=f"{here}.file.filename")
                own = {"file": {"filename": filename}, **own}
        else:
            raise ImportFormatError(
                f"unknown content part type {shown_value(kind)}",
                name=here,
                hint="use text, image_url, input_audio or file parts",
            )
        if own:
            parts.append(NativeItem(NAME, PART_KEYS, own))
    return parts


def _tool_calls(raw: object, *, where: str) -> list[ToolCall]:
    calls: list[ToolCall] = []
    for index, item in enumerate(expect(raw, list, where=where)):
        here = f"{where}.tool_calls[{index}]"
        call = expect(item, dict, where=here)
        if call.get("type") == CUSTOM_CALL_TYPE:
            calls.append(_custom_call(call, where=here))
            continue
        if call.get("type", "function") != "function":
            raise ImportFormatError(
                f"unsupported tool call type {shown_value(call.get('type'))}",
                name=here,
                hint="only function and custom tool calls are imported",
            )
        function = expect(call.get("function"), dict, where=here)
        calls.append(
            ToolCall(
                id=expect(call.get("id"), str, where=here),
                name=expect(function.get("name"), str, where=here),
                arguments=parse_arguments(function.get("arguments", "{}"), where=here),
                extra=_call_extra(call, function),
            )
        )
    return calls


_CALL_KEYS = frozenset({"id", "type", "index"})
_FUNCTION_KEYS = frozenset({"name", "arguments"})
_CUSTOM_KEYS = frozenset({"name", "input"})


def _call_extra(call: JSONObject, inner: JSONObject, kind: str = "function") -> JSONObject:
    """A call entry's other keys (Gemini's ``extra_content``), kept in the call's ``extra``
    to be sent back; those of its *kind* object (``function`` or ``custom``) beside the
    name and arguments (or input) under *kind*. A stream's ``index`` is not kept: the
    call's place in the list says it."""
    extra: JSONObject = {
        key: value for key, value in call.items() if key not in _CALL_KEYS and key != kind
    }
    known = _CUSTOM_KEYS if kind == CUSTOM_CALL_TYPE else _FUNCTION_KEYS
    others = {key: value for key, value in inner.items() if key not in known}
    if others:
        extra[kind] = others
    return extra


def _custom_call(call: JSONObject, *, where: str) -> ToolCall:
    """A call of a custom tool (``{"id", "type": "custom", "custom": {"name", "input"}}``):
    a tool call whose arguments are the input text, kept verbatim, and whose other keys
    are kept as a function call's are."""
    custom = expect(call.get(CUSTOM_CALL_TYPE), dict, where=f"{where}.custom")
    return ToolCall(
        id=expect(call.get("id"), str, where=f"{where}.id"),
        name=expect(custom.get("name"), str, where=f"{where}.custom.name"),
        arguments=expect(custom.get("input"), str, where=f"{where}.custom.input"),
        extra={"type": CUSTOM_CALL_TYPE, **_call_extra(call, custom, CUSTOM_CALL_TYPE)},
    )


def _named(message: JSONObject, where: str) -> list[MessagePart]:
    """A message's ``name`` (a participant's name) as a native ``message`` item, first in
    its turn; nothing when it has none."""
    name = message.get("name")
    if not name:
        return []
    return [NativeItem(NAME, "message", {"name": expect(name, str, where=f"{where}.name")})]


def read_messages(messages: object, *, where: str = "messages") -> list[ChatMessage]:
    """Read a Chat Completions ``messages`` list into turns."""
    turns: list[ChatMessage] = []
    for here, message in expect_items(messages, where=where):
        role = message.get("role")
        if role in _SYSTEM_ROLES or role == "user":
            _unexpected_keys(message, {"role", "content", "name"}, here)
            turns.append(
                ChatMessage(
                    "system" if role in _SYSTEM_ROLES else "user",
                    _named(message, here) + content_parts(message.get("content"), where=here),
                )
            )
        elif role == "assistant":
            _unexpected_keys(message, {"role", "content", "tool_calls", "name"}, here)
            parts = _named(message, here) + content_parts(message.get("content"), where=here)
            if message.get("tool_calls"):
                parts.extend(_tool_calls(message["tool_calls"], where=here))
            turns.append(ChatMessage("assistant", parts))
        elif role == "tool":
            _unexpected_keys(message, {"role", "content", "tool_call_id"}, here)
            call_id = expect(message.get("tool_call_id"), str, where=here)
            turns.append(
                ChatMessage(
                    "tool",
                    content_parts(message.get("content"), where=here),
                    ToolCall(call_id, "", None),
                )
            )
        else:
            raise ImportFormatError(
                f"unknown message role {shown_value(role)}",
                name=here,
                hint="use system, developer, user, assistant or tool",
            )
    return turns


def read(data: object) -> ChatConversation:
    """Read a ``messages`` list, or a request body holding one, into a conversation.

    :raises ImportFormatError: for anything outside the Chat Completions shapes.
    """
    return read_body(
        data,
        "messages",
        read_messages,
        missing="a Chat Completions request body needs a 'messages' list",
        hint="give the messages list or a body with 'messages'",
    )


# -- tools, tool choice and structured output ----------------------------------------------


def _read_tool(item: JSONObject, where: str) -> list[Tool] | None:
    """A function tool in Chat's form (``{"type": "function", "function": {...}}``), or
    Chat's own custom tool (``{"type": "custom", "custom": {...}}``, kept as it is: read
    here, before Anthropic's reader takes its ``"type": "custom"`` for its own)."""
    if item.get("type") == "custom" and "custom" in item:
        given = item["custom"]
        name = given.get("name") if isinstance(given, dict) else None
        label = f"custom tool {name!r}" if isinstance(name, str) else "custom tool"
        return [NativeTool(NAME, item, f"{label} ({where})")]
    if "function" not in item or item.get("type") not in (None, "function"):
        return None
    given = item.get("function")
    label = tool_label(given if isinstance(given, dict) else {}, where)
    function = json_object(given, f"{label}: 'function'", f"{where}.function")
    if set(item) - {"type", "function"} or set(function) - PORTABLE_KEYS:
        return [NativeTool(NAME, item, f"{label} ({where})")]
    return [
        tool_spec(
            function.get("name"),
            function.get("description"),
            function.get("parameters"),
            function.get("strict"),
            f"{where}.function",
            label,
            nulls(function),
        )
    ]


def _write_tool(tool: ToolSpec) -> JSONObject:
    function: JSONObject = {"name": tool.name}
    if tool.description is not None:
        function["description"] = tool.description
    function["parameters"] = json_parameters(tool)
    if tool.strict is not None or "strict" in tool.nulls:
        function["strict"] = tool.strict
    return {"type": "function", "function": function}


def _write_tools(tools: Iterable[ToolSpec | NativeTool]) -> list[JSONObject]:
    return written_in_order(tools, _write_tool)


def _write_choice(choice: ToolChoice) -> JSONObject:
    if choice.name is None:
        return {"tool_choice": choice.mode}
    return {"tool_choice": {"type": "function", "function": {"name": choice.name}}}


def _owns_choice(value: JSONMapping) -> bool:
    kind = value.get("type")
    return kind in ("allowed_tools", "custom") and kind in value


def _write_output(output: OutputSchema) -> JSONObject:
    return {"response_format": {"type": "json_schema", "json_schema": named_schema(output)}}


def _adopt_tool(tool: NativeTool) -> JSONObject | None:
    """A Responses custom tool in Chat's form."""
    return chat_custom_tool(tool, PROVIDER.title)


TOOLS = ToolFormat(
    read_tool=_read_tool,
    write_tools=_write_tools,
    write_choice=_write_choice,
    write_output=_write_output,
    owns_choice=_owns_choice,
    precedence=3,
    adopt_tool=_adopt_tool,
    adopt_choice=chat_custom_choice,
)
"""Chat's tools; its structured output is ``response_format``, read as the portable one."""


# -- detected ------------------------------------------------------------------------------

_SIGNAL_PARTS = frozenset({"image_url", "input_audio", "file", "refusal"})


def _shows_format(message: JSONMapping) -> bool:
    if "type" not in message and (
        message.get("tool_calls") or message.get("role") in ("tool", "developer", "system")
    ):
        return True
    return any(kind in _SIGNAL_PARTS for kind, _ in typed_parts(message))


DETECTION = Detection(strength=10, messages_key="messages", message=_shows_format, plain=True)
"""``tool_calls``, ``tool``/``developer``/``system`` roles or OpenAI's own parts; and a plain
list of user and assistant messages, which reads the same in Anthropic's format."""


PROVIDER = Provider(
    name=NAME,
    title="OpenAI Chat Completions",
    description="an OpenAI chat",
    read=read,
    write=export,
    request=request,
    settings=SETTINGS,
    native_settings=NATIVE_SETTINGS,
    tools=TOOLS,
    custom_calls=True,
    call_keys=True,
    detection=DETECTION,
)
"""OpenAI Chat Completions, as the registry lists it."""


# -- sent through the SDK ------------------------------------------------------------------


KEY_VARIABLES = ("OPENAI_API_KEY",)


openai_client = openai_style_client("openai", "OpenAI", "AsyncOpenAI")
"""An ``openai`` client with the SDK's own retries off."""

openai_failure = openai_style_failure("openai")
"""An ``openai`` exception read as a :class:`~.sending.Failure`."""


def _usage(exchange: Exchange, usage: JSONMapping | None) -> None:
    if usage:
        exchange.input_tokens = usage.get("prompt_tokens")
        exchange.output_tokens = usage.get("completion_tokens")


def _message(message: JSONMapping) -> JSONObject:
    """The reply message as the importer takes it: null fields and empty lists left out."""
    kept = {
        key: value
        for key, value in message.items()
        if value is not None and value != [] and key not in ("annotations", "refusal", "audio")
    }
    kept.setdefault("content", "")
    return kept


def _whole(response: Any) -> Exchange:
    data = reply_data(response, "choices")
    choice = (data.get("choices") or [{}])[0]
    exchange = Exchange(
        {"messages": [_message(choice.get("message") or {"role": "assistant"})]},
        raw=response,
        model=data.get("model"),
        finish_reason=choice.get("finish_reason"),
        request_id=getattr(response, "_request_id", None),
        response_id=data.get("id"),
    )
    _usage(exchange, data.get("usage"))
    return exchange


class _Gathered(Gathered):
    """A stream's chunks gathered into one reply message."""

    def __init__(self, emit: Emit) -> None:
        super().__init__(emit)
        self.calls: dict[int, dict[str, str]] = {}
        self.kept: dict[int, JSONObject] = {}  # a call's other keys (``extra_content``)

    def add(self, chunk: Any) -> None:
        self.events.append(chunk)
        data = chunk.model_dump(mode="json", exclude_none=True)
        self.exchange.model = data.get("model") or self.exchange.model
        self.exchange.response_id = data.get("id") or self.exchange.response_id
        _usage(self.exchange, data.get("usage"))
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            text = delta.get("content")
            if text:
                self.streamed(text)
            for call in delta.get("tool_calls") or []:
                slot = self.calls.setdefault(
                    call.get("index", 0),
                    {"id": "", "type": "function", "name": "", "arguments": ""},
                )
                if call.get("type") == CUSTOM_CALL_TYPE or CUSTOM_CALL_TYPE in call:
                    slot["type"] = CUSTOM_CALL_TYPE  # a custom tool's input streams as text
                kind = slot["type"]
                inner = call.get(kind) or {}
                _merge_keys(self.kept.setdefault(call.get("index", 0), {}), call, inner, kind)
                slot["id"] = call.get("id") or slot["id"]
                slot["name"] += inner.get("name") or ""
                slot["arguments"] += inner.get(_ARGUMENTS[kind]) or ""
            if choice.get("finish_reason"):
                self.exchange.finish_reason = choice["finish_reason"]
                self.exchange.complete = True
                self._calls_done()

    def _calls_done(self) -> None:
        for slot in self.calls.values():
            if slot["type"] == CUSTOM_CALL_TYPE:
                event = ToolCallEvent(slot["id"], slot["name"], slot["arguments"], custom=True)
            else:
                event = ToolCallEvent(
                    slot["id"], slot["name"], streamed_arguments(slot["arguments"])
                )
            self.emit(event)

    def finish(self, request_id: str | None) -> Exchange:
        message: JSONObject = {"role": "assistant", "content": "".join(self.text)}
        if self.calls:
            message["tool_calls"] = [
                _streamed_call(slot, self.kept.get(index, {}))
                for index, slot in sorted(self.calls.items())
            ]
        self.exchange.payload = {"messages": [message]}
        return super().finish(request_id)


_ARGUMENTS = {"function": "arguments", CUSTOM_CALL_TYPE: "input"}
"""Where a call entry's object (``function`` or ``custom``) holds its arguments."""


def _merge_keys(kept: JSONObject, call: JSONObject, inner: JSONObject, kind: str) -> None:
    """Add a call delta's other keys (those of its *kind* object, ``function`` or
    ``custom``, under *kind*) to *kept*, the later value of a key taking its place."""
    for key, value in _call_extra(call, inner, kind).items():
        if key == kind and isinstance(value, dict):
            held = kept.setdefault(kind, {})
            if isinstance(held, dict):
                held.update(value)
        else:
            kept[key] = value


def _streamed_call(slot: dict[str, str], kept: JSONObject) -> JSONObject:
    """A gathered call as a ``tool_calls`` entry, with its other keys where they came."""
    kind = slot["type"]
    inner: JSONObject = {"name": slot["name"], _ARGUMENTS[kind]: slot["arguments"]}
    held = kept.get(kind)
    if isinstance(held, dict):
        inner.update(held)
    entry: JSONObject = {key: value for key, value in kept.items() if key != kind}
    return {**entry, "id": slot["id"], "type": kind, kind: inner}


def _stream_options(body: JSONMapping) -> JSONObject:
    arguments = dict(body)
    arguments["stream"] = True
    arguments.setdefault("stream_options", {"include_usage": True})
    return arguments


openai_sender = functools.partial(
    EventSender,
    key_variables=KEY_VARIABLES,
    sdk="openai",
    extra="openai",
    otel_name="openai",
    default_url="https://api.openai.com/v1",
    make_client=openai_client,
    read_failure=openai_failure,
)
"""An :class:`~.sending.EventSender` through the ``openai`` SDK, given the rest."""

SENDER = openai_sender(
    name=NAME,
    create=attrgetter("chat.completions.create"),
    whole=_whole,
    gathering=_Gathered,
    stream_body=_stream_options,
)
"""OpenAI Chat Completions sent through ``api.chat.completions.create``."""


def openai_chat_part(part: RemotePart, target: str, detail: str | None) -> JSONObject:
    """The Chat Completions content part for *part*.

    :raises UnsupportedContentError: for a file URL, an image file id, or an id not
        OpenAI's.
    """
    remote = part.remote
    if remote.url is not None:
        if remote.kind != "image":
            raise refuse_remote(
                part, target, "its file parts take the bytes or a file id, not a URL"
            )
        image: JSONObject = {"url": remote.url}
        if detail is not None:
            image["detail"] = detail
        return {"type": "image_url", "image_url": image}
    if remote.provider != NAME:
        raise refuse_remote(part, target, "the file id was issued by another provider")
    if remote.kind != "file":
        raise refuse_remote(part, target, "an image_url part takes a URL, not a file id")
    return {"type": "file", "file": {"file_id": remote.file_id}}
