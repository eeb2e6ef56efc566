"""Gemini (``generateContent``, google-genai): contents written, read and sent.

What each turn becomes: docs/messages.md ("System content", "Capability rules", "Tool
calls"); the shapes read, camelCase and the accepted short forms: docs/bridge.md; the reply
and its stream: docs/run.md ("The reply, written back").
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
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
from ...jsonio import parse_json
from ...jsontypes import JSONMapping, JSONObject
from ...media import IMAGE_TYPES, is_image_type
from ...model import Role
from .._content import Options
from .._imported import (
    as_text,
    decode_base64,
    expect,
    expect_items,
    shown_value,
    split_body,
    tools_listed,
    turns_of_message,
    without_results,
)
from .._native import message_keys, place_native
from .._remote import read_url, refuse_remote
from .._tool_model import (
    PORTABLE_KEYS,
    NativeTool,
    OutputSchema,
    Tool,
    ToolChoice,
    ToolSpec,
    first,
    from_openapi,
    is_openapi,
    json_object,
    left_out,
    named_choice,
    nulls,
    schema_only,
    settings_error,
    tool_label,
    tool_spec,
)
from ._common import (
    append_merged,
    arguments_object,
    checked_image,
    start_body,
    system_texts,
    text_file_text,
    text_mode,
)
from .base import Detection, Payload, Provider, ToolFormat
from .sending import (
    Emit,
    Exchange,
    Failure,
    Gathered,
    ToolCallEvent,
    reply_data,
    retry_after_seconds,
)

__all__ = ["NAME", "PROVIDER", "SENDER", "GeminiSender", "export", "read", "request"]

NAME = "gemini"
ORDER = 40
"""Where the registry lists this format: by ``ORDER``, lowest first."""

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
        "logprobs",
        "response_logprobs",
        "audio_timestamp",
        "audio_transcription_config",
        "speech_config",
        "image_config",
        "routing_config",
        "model_selection_config",
        "model_armor_config",
        "enable_enhanced_civic_answers",
        "generation_output_config",
        "service_tier",
        "store",
        "continuation_token",
        "automatic_function_calling",
        "automatic_continuation",
    }
)
"""``GenerateContentConfig`` fields a settings embed may give under their own names."""

LIST_SETTINGS = frozenset({"stop_sequences"})

IMAGE_MEDIA_TYPES = IMAGE_TYPES | {"image/heic", "image/heif"}
"""The image types sent as ``inline_data``: the package's four, and HEIC and HEIF, which
Gemini's image-understanding guide lists too (the SDK types ``mime_type`` as a plain
string)."""

_SYSTEM_TEXT_ONLY = "a system instruction holds text only"


def _part(part: Part, options: Options) -> JSONObject:
    if isinstance(part, TextPart):
        return {"text": part.text}
    if isinstance(part, RemotePart):
        return gemini_part(part, PROVIDER.target)
    if isinstance(part, TextFilePart):
        if text_mode(options, "text", part) == "document":
            return {"inline_data": {"mime_type": part.media_type, "data": part.asset.base64}}
        return {"text": text_file_text(part)}
    if isinstance(part, ImagePart):
        checked_image(part, PROVIDER, IMAGE_MEDIA_TYPES)
    if isinstance(part, (ImagePart, DocumentPart, VideoPart)):
        return {"inline_data": {"mime_type": part.media_type, "data": part.asset.base64}}
    assert isinstance(part, AudioPart)
    return {"inline_data": {"mime_type": part.asset.media_type, "data": part.asset.base64}}


def _response(texts: list[str]) -> JSONObject:
    text = "\n\n".join(texts)
    try:
        value = parse_json(text)
    except ValueError:
        value = None
    if isinstance(value, dict):
        return value
    return {"output": text}


def export(conversation: ChatConversation, options: Options) -> Payload:
    """Write *conversation* as Gemini ``contents`` plus a system instruction.

    :raises UnsupportedContentError: for non-text parts in system turns.
    :raises InvalidToolCallError: for call arguments that are not a JSON object.
    """
    system_parts: list[JSONObject] = []
    contents: list[JSONObject] = []
    for message in conversation.messages:
        parts: list[JSONObject] = []
        role = "user"
        if message.role == "system":
            texts = system_texts(message, PROVIDER, hint=_SYSTEM_TEXT_ONLY)
            system_parts.extend({"text": text} for text in texts)
            continue
        if message.role == "assistant":
            role = "model"
            for item in sendable(message):
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
                elif isinstance(item, NativeItem):
                    place_native(parts, item)
                else:
                    parts.append(_part(item, options))
        elif message.role == "user":
            for item in sendable(message):
                if isinstance(item, NativeItem):
                    place_native(parts, item)
                elif not isinstance(item, ToolCall):
                    parts.append(_part(item, options))
        else:
            call = message.call
            assert call is not None
            texts = []
            assets: list[JSONObject] = []
            for item in sendable(message):
                if isinstance(item, NativeItem):
                    place_native(assets, item)
                elif isinstance(item, TextPart):
                    texts.append(item.text)
                elif isinstance(item, TextFilePart) and text_mode(options, "text", item) == "text":
                    texts.append(text_file_text(item))
                elif not isinstance(item, ToolCall):
                    assets.append(_part(item, options))
            response: JSONObject = {
                "id": call.id,
                "name": call.name,
                "response": _response(texts),
            }
            # A tool turn's message keys (a signature given beside the response) are the
            # function_response part's own; its "function_response" keys are the response's
            # own, and a "parts" list among them takes the result's assets.
            keys = message_keys(message.parts)
            inner = keys.pop("function_response", None)
            if isinstance(inner, dict):
                response.update({key: value for key, value in inner.items() if key != "parts"})
                if "parts" in inner:
                    response["parts"] = assets
                    assets = []
            parts = [{"function_response": response, **keys}, *assets]
        append_merged(contents, role, "parts", parts)
    system = {"parts": system_parts} if system_parts else None
    return Payload(NAME, contents, system, conversation.warnings)


def request(payload: Payload, model: str | None, params: JSONObject) -> JSONObject:
    """The ``generate_content`` keyword arguments: model, contents and config."""
    body = start_body(model)
    body["contents"] = payload.messages
    config: JSONObject = {}
    if payload.system:
        config["system_instruction"] = payload.system
    config.update(params)
    if config:
        body["config"] = config
    return body


_ROLES: dict[str, Role] = {"user": "user", "model": "assistant", "function": "user", "tool": "user"}


def _get(mapping: JSONObject, snake: str) -> Any:
    """Read a key given in snake_case or in its camelCase spelling."""
    if snake in mapping:
        return mapping[snake]
    head, *rest = snake.split("_")
    return mapping.get(head + "".join(word.title() for word in rest))


class _Calls:
    """Assigns ids to calls and matches responses to them."""

    def __init__(self, contents: list[Any]) -> None:
        self.used: set[str] = set()
        for content in contents:
            # A pre-scan of untrusted data: malformed contents are reported by the reader.
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else []:
                call = _get(part, "function_call") if isinstance(part, dict) else None
                if isinstance(call, dict) and isinstance(call.get("id"), str):
                    self.used.add(call["id"])
        self.count = 0
        self.open: list[ToolCall] = []

    def new(self, name: str, arguments: Any, given: Any) -> ToolCall:
        self.count += 1
        if isinstance(given, str) and given:
            call_id = given
        else:
            call_id = f"call_{self.count}"
            while call_id in self.used:
                self.count += 1
                call_id = f"call_{self.count}"
            self.used.add(call_id)
        call = ToolCall(call_id, name, arguments)
        self.open.append(call)
        return call

    def answer(self, name: str, given: Any, where: str) -> str:
        for index, call in enumerate(self.open):
            if (isinstance(given, str) and given and call.id == given) or (
                not given and call.name == name
            ):
                del self.open[index]
                return call.id
        raise ImportFormatError(
            f"function_response {shown_value(name)} answers no earlier function_call",
            name=where,
            hint="every function_response needs a function_call before it",
        )


def _check_keys(value: JSONObject, known: tuple[str, ...], *, where: str) -> None:
    """Refuse a key outside *known* (each in snake_case or camelCase): nothing is dropped
    silently, e.g. a ``function_response``'s multimodal ``parts``."""
    allowed = set(known)
    for key in value:
        if _snake(as_text(key)) not in allowed:
            raise ImportFormatError(
                f"unsupported key {shown_value(key)}",
                name=where,
                hint=f"keep only {', '.join(known)}; nothing is dropped silently",
            )


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


_SIGNATURE = "thought_signature"
_MEDIA_EXTRAS = ("video_metadata", "media_resolution")
"""A media part's fields beside its data, in a message or in a function response's parts."""
_PART_EXTRAS = (_SIGNATURE, *_MEDIA_EXTRAS, "part_metadata")
"""A part's fields that go beside its one content field: kept as the part's keys."""
_SERVER_PARTS = ("executable_code", "code_execution_result", "tool_call", "tool_response")
"""Parts of Gemini's server-side tools (code execution, built-in tool calls): kept whole."""
_THOUGHT = "thought"


def _unset(key: object, value: object) -> bool:
    """Whether a part's field *key* holds its default: ``null`` (what the SDK's
    ``model_dump()`` writes for every field not set), or a ``thought`` flag of ``false``
    (the part is no thought summary)."""
    return value is None or (key == _THOUGHT and value is False)


def _no_content(raw: JSONObject) -> str:
    """The error message for a part holding no content field (its other fields named)."""
    given = sorted(as_text(key) for key, value in raw.items() if not _unset(key, value))
    return "a part holds no content field" + (f", only {', '.join(given)}" if given else "")


def _parts(raw_parts: object, calls: _Calls, *, where: str) -> list[MessagePart | ToolResult]:
    parts: list[MessagePart | ToolResult] = []
    for here, raw in expect_items(raw_parts, where=where):
        if raw.get(_THOUGHT):  # a thought summary: kept whole, with its signature
            parts.append(NativeItem(NAME, _THOUGHT, raw))
            continue
        part = {
            key: value
            for key, value in raw.items()
            if _snake(as_text(key)) not in _PART_EXTRAS and not _unset(key, value)
        }
        server = [_snake(as_text(key)) for key in part if _snake(as_text(key)) in _SERVER_PARTS]
        if server and len(part) == 1:  # a server-side tool's code, call or result
            parts.append(NativeItem(NAME, server[0], raw))
            continue
        extras = {key: value for key in _PART_EXTRAS if (value := _get(raw, key)) is not None}
        if not part:
            if _SIGNATURE not in extras:
                raise ImportFormatError(
                    _no_content(raw),
                    name=here,
                    hint="give the part one of text, inline_data, file_data, function_call "
                    "or function_response, or remove it",
                )
            # a signature alone (a stream's last chunk may carry one): kept whole, where
            # it stands, never moved onto another part
            parts.append(NativeItem(NAME, _SIGNATURE, raw))
            continue
        signature = extras.get(_SIGNATURE)
        if (
            signature is not None
            and len(part) == 1
            and "text" in part
            and not expect(part["text"], str, where=here).strip()
        ):
            parts.append(NativeItem(NAME, "text", raw))  # no text to hold the signature
            continue
        inline = _get(part, "inline_data")
        call = _get(part, "function_call")
        response = _get(part, "function_response")
        file_data = _get(part, "file_data")
        if "text" in part:
            parts.append(TextPart(expect(part["text"], str, where=here)))
        elif inline is not None or file_data is not None:
            found = _media(part, where=here)
            parts.extend(found if isinstance(found, list) else [found])
        elif call is not None:
            call = expect(call, dict, where=here)
            _check_keys(call, ("id", "name", "args"), where=here)
            name = expect(call.get("name"), str, where=here)
            arguments = expect(call.get("args", {}), dict, where=f"{here}.args")
            parts.append(calls.new(name, arguments, call.get("id")))
        elif response is not None:
            parts.append(_function_response(response, extras, calls, where=here))
        else:
            raise ImportFormatError(
                f"unsupported part with keys {shown_value(sorted(map(as_text, part)))}",
                name=here,
                hint="use text, inline_data, function_call or function_response parts; "
                "file_data URIs are not fetched",
            )
        if len(part) != 1:
            raise ImportFormatError(
                f"a part must hold exactly one field, found {sorted(map(as_text, part))}",
                name=here,
                hint="split it into one part per field",
            )
        if extras and response is None:  # kept with the part they belong to
            parts.append(NativeItem(NAME, "part", extras))
    return parts


def _media(part: JSONObject, *, where: str) -> list[MessagePart] | MessagePart:
    """An ``inline_data`` part's asset, or a ``file_data`` part's remote asset; a
    ``display_name`` (which a function response's parts carry) follows as its keys."""
    inline = _get(part, "inline_data")
    if inline is not None:
        blob = expect(inline, dict, where=where)
        _check_keys(blob, ("mime_type", "data", "display_name"), where=where)
        media_type = expect(_get(blob, "mime_type"), str, where=where).lower()
        found: MessagePart = ImportedAsset(decode_base64(blob.get("data"), where=where), media_type)
        key, given = "inline_data", blob
    else:
        uri = expect(_get(part, "file_data"), dict, where=where)
        _check_keys(uri, ("file_uri", "mime_type", "display_name"), where=where)
        media_type = _get(uri, "mime_type")
        kind: RemoteKind = (
            "image" if isinstance(media_type, str) and is_image_type(media_type.lower()) else "file"
        )
        found = read_url(_get(uri, "file_uri"), kind, where=where, media_type=media_type)
        key, given = "file_data", uri
    display_name = _get(given, "display_name")
    if display_name is None:
        return found
    return [found, NativeItem(NAME, PART_KEYS, {key: {"display_name": display_name}})]


_RESPONSE_KEYS = ("id", "name", "response", "parts", "will_continue", "scheduling")
"""A ``FunctionResponse``'s fields; those beyond id, name and response go to the record."""


def _function_response(raw: object, extras: JSONObject, calls: _Calls, *, where: str) -> ToolResult:
    """A ``function_response`` as a tool result: the ``response`` object as JSON text, then
    the assets of its ``parts`` (inline data, file URIs). Its other fields, and a marker
    that the assets were inside it, go to the tool turn's record (a ``message`` fence)."""
    response = expect(raw, dict, where=where)
    _check_keys(response, _RESPONSE_KEYS, where=where)
    name = expect(response.get("name"), str, where=where)
    call_id = calls.answer(name, response.get("id"), where)
    body = expect(response.get("response", {}), dict, where=f"{where}.response")
    result: list[MessagePart] = [TextPart(json.dumps(body, ensure_ascii=False))]
    record: JSONObject = {}
    record.update(extras)  # a signature beside it: put back on the function_response part
    inner = {
        _snake(as_text(key)): value
        for key, value in response.items()
        if _snake(as_text(key)) in _RESPONSE_KEYS[3:]
    }
    if "parts" in inner:
        for here, part in expect_items(inner["parts"], where=f"{where}.parts"):
            if _get(part, "inline_data") is None and _get(part, "file_data") is None:
                raise ImportFormatError(
                    "unsupported function response part with keys "
                    f"{shown_value(sorted(map(as_text, part)))}",
                    name=here,
                    hint="a function response's parts hold inline_data or file_data",
                )
            _check_keys(part, ("inline_data", "file_data", *_MEDIA_EXTRAS), where=here)
            found = _media(part, where=here)
            result.extend(found if isinstance(found, list) else [found])
            own = {key: value for key in _MEDIA_EXTRAS if (value := _get(part, key)) is not None}
            if own:  # put back onto the part, inside the function_response
                result.append(NativeItem(NAME, PART_KEYS, own))
        inner["parts"] = []  # the assets above go back inside the function_response
    if inner:
        record["function_response"] = inner
    if record:
        result.insert(0, NativeItem(NAME, MESSAGE_KEYS, record))
    return call_id, result


def _is_content(value: object) -> bool:
    return isinstance(value, dict) and ("parts" in value or "role" in value)


def _part_list(parts: object, *, strings: bool = False) -> object:
    """``parts`` as a list: one part (an object) is a list of it. With *strings* (a system
    instruction, which the SDK takes as a list of strings), a string in the list is a text
    part; a Content's own ``parts`` hold part objects only."""
    items = [parts] if isinstance(parts, dict) else parts
    if not isinstance(items, list):
        return parts  # reported by the reader
    return [{"text": item} if strings and isinstance(item, str) else item for item in items]


def canonical_contents(contents: object) -> object:
    """*contents* in any form the SDK takes, as a list of Content objects whose ``parts``
    are lists: one Content is a list of it; a list of strings and parts inside the list is
    one ``user`` Content; a string, or a run of strings and parts, one Content (``model``
    for a run of function calls, else ``user``), as the SDK groups them. Anything else is
    returned as it is, for the reader to report."""
    if isinstance(contents, (str, dict)):
        contents = [contents]
    if not isinstance(contents, list):
        return contents
    out: list[object] = []
    pending: JSONObject | None = None
    for item in contents:
        if _is_content(item):
            assert isinstance(item, dict)
            pending = None
            out.append({**item, "parts": _part_list(item.get("parts", []))})
        elif isinstance(item, list):
            pending = None
            out.append({"role": "user", "parts": _part_list(item, strings=True)})
        elif isinstance(item, (str, dict)):
            part = {"text": item} if isinstance(item, str) else item
            role = "model" if _get(part, "function_call") is not None else "user"
            if pending is None or pending["role"] != role:
                pending = {"role": role, "parts": []}
                out.append(pending)
            pending["parts"].append(part)
        else:
            pending = None
            out.append(item)
    return out


_DATA_VALUES = frozenset(
    {
        "response_schema",
        "response_json_schema",
        "parameters",
        "parameters_json_schema",
        "response",
        "args",
        "labels",
        "metadata",
    }
)
"""Settings keys whose values are data, not configuration: their own keys (a JSON Schema's
``additionalProperties``, a call's arguments) are kept as written."""


def snake_settings(value: object, *, where: str = "settings") -> object:
    """*value* with every key in the REST API's camelCase spelled in the SDK's snake_case
    (``maxOutputTokens`` -> ``max_output_tokens``), except inside :data:`_DATA_VALUES`.

    :raises ImportFormatError: when one object gives a key in both spellings.
    """
    if isinstance(value, list):
        return [snake_settings(item, where=f"{where}[{i}]") for i, item in enumerate(value)]
    if not isinstance(value, dict):
        return value
    out: JSONObject = {}
    for key, item in value.items():
        name = _snake(key) if isinstance(key, str) else key
        if name in out:
            raise ImportFormatError(
                f"{shown_value(key)} and {shown_value(name)} are one setting given twice",
                name=where,
                hint="keep one spelling",
            )
        out[name] = item if name in _DATA_VALUES else snake_settings(item, where=f"{where}.{name}")
    return out


_CONTENT_KEYS = ("role", "parts")
"""A Content's fields: any other key (a ``content`` or ``text`` written in another format's
shape) is refused, never dropped."""


def _set_fields(value: JSONObject) -> JSONObject:
    """*value* without the fields left unset (``null``, as the SDK's ``model_dump()`` writes
    every field it has)."""
    return {key: item for key, item in value.items() if item is not None}


def read_contents(contents: object, *, where: str = "contents") -> list[ChatMessage]:
    """Read Gemini ``contents`` (any form :func:`canonical_contents` takes) into turns."""
    items = expect(canonical_contents(contents), list, where=where)
    calls = _Calls(items)
    turns: list[ChatMessage] = []
    for here, content in expect_items(items, where=where):
        _check_keys(_set_fields(content), _CONTENT_KEYS, where=here)
        role = _ROLES.get(as_text(content.get("role", "user")))
        if role is None:
            raise ImportFormatError(
                f"unknown role {shown_value(content.get('role'))}",
                name=here,
                hint="use user or model",
            )
        parts = _parts(content.get("parts", []), calls, where=f"{here}.parts")
        turns.extend(turns_of_message(role, parts))
    return turns


def read(data: object) -> ChatConversation:
    """Read a ``contents`` list, or a request body with ``contents``.

    Both body shapes are read: the REST one (``systemInstruction``, ``generationConfig``)
    and the Python SDK's ``generate_content`` keywords (``config`` holding
    ``system_instruction`` and the parameters). Parameters from ``config`` or
    ``generationConfig`` are kept flat in the settings, which is where chat._outgoing's
    ``to_request`` reads them back into ``config``.

    :raises ImportFormatError: for anything outside the Gemini shapes.
    """
    contents, body = split_body(
        data,
        "contents",
        missing="a Gemini request body needs a 'contents' list",
        hint="give the contents list or a body with 'contents'",
    )
    turns = read_contents(contents)
    settings: JSONObject = {}
    system: Any = None
    for key in ("config", "generation_config", "generationConfig"):
        if key in body:
            config = dict(expect(body.pop(key), dict, where=key))
            for spelling in ("system_instruction", "systemInstruction"):
                if spelling in config:
                    system = config.pop(spelling)
            settings.update(config)
    for spelling in ("system_instruction", "systemInstruction"):
        if spelling in body:
            system = body.pop(spelling)
    settings = tools_listed(expect(snake_settings({**body, **settings}), dict, where="body"))
    if system is not None:
        if isinstance(system, str):
            system = {"parts": [{"text": system}]}
        if isinstance(system, list):
            system = {"parts": system}
        if isinstance(system, dict) and not _is_content(system):
            system = {"parts": [system]}  # one part
        instruction = expect(system, dict, where="system_instruction")
        # Its role, which the API ignores (the SDK writes "user"), is read and not kept.
        _check_keys(_set_fields(instruction), _CONTENT_KEYS, where="system_instruction")
        parts_given = instruction.get("parts", [])
        instruction = {**instruction, "parts": _part_list(parts_given, strings=True)}
        parts = _parts(instruction.get("parts", []), _Calls([]), where="system_instruction.parts")
        turns.insert(0, ChatMessage("system", without_results(parts)))
    return ChatConversation(turns, settings=settings)


# -- tools, tool choice and structured output ----------------------------------------------


_TOOL_KEYS = ("function_declarations", "functionDeclarations")
_DECLARATION_KEYS = frozenset(
    {"name", "description", "parameters", "parameters_json_schema", "parametersJsonSchema"}
)


def _read_tool(item: JSONObject, where: str) -> list[Tool] | None:
    """A tool object holding function declarations, and its other keys."""
    key = next((key for key in _TOOL_KEYS if key in item), None)
    if key is None:
        return None
    declarations = item[key]
    if not isinstance(declarations, list):
        raise settings_error(
            f"{where}: '{key}' must be a list, not {type(declarations).__name__}", f"{where}.{key}"
        )
    tools: list[Tool] = []
    for index, raw in enumerate(declarations):
        here = f"{where}.{key}[{index}]"
        declaration = json_object(raw, f"{here}: a function declaration", here)
        label = tool_label(declaration, here)
        json_schema = first(declaration, "parameters_json_schema", "parametersJsonSchema")
        openapi = declaration.get("parameters")
        if set(declaration) - _DECLARATION_KEYS or (
            json_schema is not None and openapi is not None
        ):
            tools.append(
                NativeTool(NAME, {"function_declarations": [declaration]}, f"{label} ({here})")
            )
            continue
        # An OpenAPI-style schema (upper-case types) is kept as written: Gemini gets it
        # back as its ``parameters``, every other provider as JSON Schema.
        if json_schema is not None or is_openapi(openapi):
            schema = json_schema if json_schema is not None else openapi
        else:
            schema = from_openapi(openapi)
        tools.append(
            tool_spec(
                declaration.get("name"),
                declaration.get("description"),
                schema,
                None,
                here,
                label,
                nulls(declaration) - {"strict"},
            )
        )
    rest = {k: v for k, v in item.items() if k != key}
    if rest:
        tools.append(NativeTool(NAME, rest, f"{where} ({', '.join(sorted(rest))})"))
    return tools


def _read_builtin(item: JSONObject, where: str) -> NativeTool | None:
    """A built-in tool: an object keyed by the tool (``{"google_search": {}}``)."""
    if item.get("type") is not None or not item or set(item) & PORTABLE_KEYS:
        return None
    return NativeTool(NAME, item, f"{', '.join(sorted(item))} tool ({where})")


def _write_tools(tools: Iterable[ToolSpec | NativeTool]) -> list[JSONObject]:
    """One tool object holding every function declaration, then the built-in tools."""
    out: list[JSONObject] = []
    declarations: list[JSONObject] = []
    for tool in tools:
        if isinstance(tool, NativeTool):
            if list(tool.value) == ["function_declarations"]:
                declarations.extend(tool.value["function_declarations"])
            else:
                out.append(tool.value)
            continue
        if tool.strict is not None:
            left_out(f"tool {tool.name!r}: 'strict' left out: Gemini has no strict flag")
        declaration: JSONObject = {"name": tool.name}
        if tool.description is not None or "description" in tool.nulls:
            declaration["description"] = tool.description
        if is_openapi(tool.parameters):
            declaration["parameters"] = tool.parameters  # its OpenAPI subset, as written
        else:
            declaration["parameters_json_schema"] = tool.parameters
        declarations.append(declaration)
    if declarations:
        out.insert(0, {"function_declarations": declarations})
    return out


def _read_choice(value: object) -> ToolChoice | None:
    """``tool_config.function_calling_config``, snake_case or camelCase; None for
    ``VALIDATED`` mode or ``ANY`` restricted to several names."""
    config = json_object(value, "'tool_config'", "tool_config")
    if set(config) - {"function_calling_config", "functionCallingConfig"}:
        return None
    calling = json_object(
        first(config, "function_calling_config", "functionCallingConfig") or {},
        "'tool_config.function_calling_config'",
        "tool_config.function_calling_config",
    )
    if set(calling) - {"mode", "allowed_function_names", "allowedFunctionNames"}:
        return None
    mode = str(calling.get("mode", "AUTO")).upper()
    names = first(calling, "allowed_function_names", "allowedFunctionNames")
    if mode == "AUTO" and not names:
        return ToolChoice("auto")
    if mode == "NONE" and not names:
        return ToolChoice("none")
    if mode == "ANY":
        if not names:
            return ToolChoice("required")
        if isinstance(names, list) and len(names) == 1:
            return named_choice(
                names[0], "tool_config.function_calling_config.allowed_function_names"
            )
    return None


def _write_choice(choice: ToolChoice) -> JSONObject:
    calling: JSONObject = {"mode": {"required": "ANY"}.get(choice.mode, choice.mode.upper())}
    if choice.name is not None:
        calling["allowed_function_names"] = [choice.name]
    return {"tool_config": {"function_calling_config": calling}}


_OUTPUT_KEYS = (
    "response_mime_type",
    "responseMimeType",
    "response_json_schema",
    "responseJsonSchema",
    "response_schema",
    "responseSchema",
)


def _read_output(rest: JSONObject) -> tuple[OutputSchema | None, JSONObject]:
    """``response_mime_type`` JSON with ``response_json_schema`` or ``response_schema``."""
    mime = first(rest, "response_mime_type", "responseMimeType")
    json_schema = first(rest, "response_json_schema", "responseJsonSchema")
    openapi = first(rest, "response_schema", "responseSchema")
    if mime != "application/json" or (json_schema is None) == (openapi is None):
        return None, rest
    schema = json_schema if json_schema is not None else from_openapi(openapi)
    for key in _OUTPUT_KEYS:
        rest.pop(key, None)
    return OutputSchema(json_object(schema, "'response_json_schema'", "response_json_schema")), rest


def _write_output(output: OutputSchema) -> JSONObject:
    schema = schema_only(output, "Gemini")
    return {"response_mime_type": "application/json", "response_json_schema": schema}


TOOLS = ToolFormat(
    read_tool=_read_tool,
    write_tools=_write_tools,
    write_choice=_write_choice,
    write_output=_write_output,
    read_builtin=_read_builtin,
    read_choice=_read_choice,
    choice_keys=("tool_config", "toolConfig"),
    read_output=_read_output,
    precedence=2,
)
"""Gemini's function declarations, ``tool_config`` and JSON response schema."""


# -- detected ------------------------------------------------------------------------------


def _shows_format(message: JSONMapping) -> bool:
    return "parts" in message or message.get("role") == "model"


DETECTION = Detection(
    strength=40,
    body_keys=frozenset({"contents", "system_instruction", "systemInstruction"}),
    messages_key="contents",
    message=_shows_format,
    exclusive=True,
)
"""A body's ``contents`` or system instruction, or messages with ``parts`` or the role
``model``."""


_COMPAT_KEYS = ("extra_content", "google", _SIGNATURE)
"""Where Gemini's OpenAI-compatible endpoint puts a call's thought signature in a Chat
``tool_calls`` entry (read into :attr:`~lmml_mdit.conversation.ToolCall.extra`)."""


def _adopt_call_keys(call: ToolCall) -> tuple[ToolCall, NativeItem | None]:
    """*call* without the thought signature its OpenAI-compatible form holds
    (``extra_content.google.thought_signature``), and that signature as the keys of the
    call's part, where Gemini's own API takes it; *call* as it is without one."""
    outer, google, key = _COMPAT_KEYS
    content = call.extra.get(outer)
    if not isinstance(content, dict) or not isinstance(content.get(google), dict):
        return call, None
    held = content[google]
    signature = held.get(key)
    if not isinstance(signature, str):
        return call, None
    rest = {k: v for k, v in held.items() if k != key}
    left = {k: v for k, v in content.items() if k != google}
    if rest:
        left[google] = rest
    extra = {k: left if k == outer else v for k, v in call.extra.items() if k != outer or left}
    return dataclasses.replace(call, extra=extra), NativeItem(NAME, PART_KEYS, {key: signature})


PROVIDER = Provider(
    name=NAME,
    title="Gemini",
    description="a Gemini chat",
    read=read,
    write=export,
    request=request,
    settings=SETTINGS,
    native_settings=NATIVE_SETTINGS,
    list_settings=LIST_SETTINGS,
    system_up_front=True,
    tools=TOOLS,
    adopt_call_keys=_adopt_call_keys,
    detection=DETECTION,
)
"""Gemini, as the registry lists it."""


# -- sent through the SDK ------------------------------------------------------------------


def _usage(exchange: Exchange, usage: JSONMapping | None) -> None:
    if usage:
        exchange.input_tokens = usage.get("prompt_token_count", exchange.input_tokens)
        exchange.output_tokens = usage.get("candidates_token_count", exchange.output_tokens)


def _request_id(response: Any) -> str | None:
    http = getattr(response, "sdk_http_response", None)
    headers = getattr(http, "headers", None) or {}
    found = getattr(response, "response_id", None)
    return found or headers.get("x-request-id")


class _Gathered(Gathered):
    """Responses (one, or a stream's chunks) gathered into one reply content."""

    def __init__(self, emit: Emit) -> None:
        super().__init__(emit)
        self.parts: list[JSONObject] = []
        self.calls = 0

    def add(self, response: Any, data: JSONObject | None = None) -> None:
        """Take one response (*data*, its JSON, when it was read already)."""
        self.events.append(response)
        if data is None:
            data = response.model_dump(mode="json", exclude_none=True)
        self.exchange.model = data.get("model_version") or self.exchange.model
        self.exchange.request_id = _request_id(response) or self.exchange.request_id
        self.exchange.response_id = data.get("response_id") or self.exchange.response_id
        _usage(self.exchange, data.get("usage_metadata"))
        candidates = data.get("candidates") or [{}]
        candidate = candidates[0]
        for part in (candidate.get("content") or {}).get("parts") or []:
            self._part(part)
        if candidate.get("finish_reason"):
            self.exchange.finish_reason = candidate["finish_reason"]
            self.exchange.complete = True

    def _part(self, part: JSONObject) -> None:
        text = part.get("text")
        if isinstance(text, str) and set(part) <= {"text", "thought"}:
            if not part.get("thought"):
                self.streamed(text)
            last = self.parts[-1] if self.parts else None
            if (
                last is not None
                and set(last) <= {"text", "thought"}
                and "text" in last
                and last.get("thought") == part.get("thought")
            ):
                last["text"] += text
                return
        elif isinstance(text, str):
            self.streamed(text)
        call = part.get("function_call")
        if isinstance(call, Mapping):
            self.calls += 1
            # Without an id, the importer numbers the calls of the reply the same way.
            call_id = call.get("id") or f"call_{self.calls}"
            self.emit(ToolCallEvent(call_id, call.get("name", ""), call.get("args")))
        self.parts.append(dict(part))

    def finish(self, request_id: str | None = None) -> Exchange:
        """The reply; one response's raw object as it is, a stream's as a list, and the
        request id the responses gave unless *request_id* is one."""
        self.exchange.payload = {"contents": [{"role": "model", "parts": self.parts}]}
        super().finish(request_id or self.exchange.request_id)
        self.exchange.raw = self.events[0] if len(self.events) == 1 else self.events
        return self.exchange


_REPLY_KEYS = ("candidates", "prompt_feedback")
"""What a whole response holds one of at least: the reply, or why the prompt was blocked."""


def _arguments(body: JSONMapping) -> JSONObject:
    return {key: body[key] for key in ("model", "contents", "config") if key in body}


class GeminiSender:
    """Gemini: ``api.models.generate_content`` (and ``generate_content_stream``)."""

    name = "gemini"
    key_variables = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    sdk = "google-genai"
    extra = "gemini"
    otel_name = "gcp.gemini"
    default_url = "https://generativelanguage.googleapis.com"

    def client(
        self,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout: float | None,
        asynchronous: bool,
    ) -> object:
        from google import genai
        from google.genai import types

        options = types.HttpOptions(
            base_url=base_url, timeout=None if timeout is None else int(timeout * 1000)
        )
        return genai.Client(api_key=api_key, http_options=options)

    def failure(self, error: BaseException) -> Failure | None:
        from google.genai import errors

        if isinstance(error, errors.APIError):
            response = getattr(error, "response", None)
            headers = getattr(response, "headers", None)
            return Failure(
                "status",
                status=error.code,
                message=error.message or str(error),
                retry_after=retry_after_seconds(headers),
            )
        if isinstance(error, errors.UnknownApiResponseError):  # a body that is not JSON
            return Failure("unreadable", message=str(error))
        if _refused_reply(error):
            return Failure("unreadable", message=str(error))
        names = {cls.__name__ for cls in type(error).__mro__}
        if "TimeoutException" in names:
            return Failure("timeout", message=str(error))
        if names & {"TransportError", "ConnectError", "NetworkError"}:
            return Failure("connection", message=str(error) or type(error).__name__)
        return None

    def call(self, client: object, body: JSONMapping, *, stream: bool, emit: Emit) -> Exchange:
        api: Any = client
        gathered = _Gathered(emit)
        if not stream:
            response = api.models.generate_content(**_arguments(body))
            gathered.add(response, reply_data(response, *_REPLY_KEYS))
            gathered.exchange.complete = True
            return gathered.finish()
        for chunk in api.models.generate_content_stream(**_arguments(body)):
            gathered.add(chunk, None if gathered.events else reply_data(chunk, *_REPLY_KEYS))
        return gathered.finish()

    async def acall(
        self, client: object, body: JSONMapping, *, stream: bool, emit: Emit
    ) -> Exchange:
        api: Any = client
        gathered = _Gathered(emit)
        if not stream:
            response = await api.aio.models.generate_content(**_arguments(body))
            gathered.add(response, reply_data(response, *_REPLY_KEYS))
            gathered.exchange.complete = True
            return gathered.finish()
        async for chunk in await api.aio.models.generate_content_stream(**_arguments(body)):
            gathered.add(chunk, None if gathered.events else reply_data(chunk, *_REPLY_KEYS))
        return gathered.finish()


def _refused_reply(error: BaseException) -> bool:
    """Whether *error* is the SDK's model refusing the reply it read (pydantic's
    ``ValidationError`` of a ``...Response``, such as a thought signature that is not
    base64), not the request it was given."""
    title = getattr(error, "title", None)
    names = {cls.__name__ for cls in type(error).__mro__}
    return "ValidationError" in names and isinstance(title, str) and title.endswith("Response")


SENDER = GeminiSender()


def gemini_part(part: RemotePart, target: str) -> JSONObject:
    """The Gemini ``file_data`` part for *part*.

    :raises UnsupportedContentError: for a file id (Gemini takes a URI, not an id).
    """
    remote = part.remote
    if remote.url is None:
        raise refuse_remote(part, target, "Gemini takes a file_data URI, not another provider's id")
    file_data: JSONObject = {"file_uri": remote.url}
    if remote.media_type is not None:
        file_data["mime_type"] = remote.media_type
    return {"file_data": file_data}
