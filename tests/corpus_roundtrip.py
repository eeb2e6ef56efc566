"""The realistic corpus, run through the bridge: every body imported, saved as ``.lmmlz``,
reopened and exported again, to its own provider and to every other one.

``tests/bridge_corpus/realistic/<format>/*.json`` holds request bodies written the way the
providers' public API references show them. For each body :func:`round_trip` classifies
the same-provider round trip as

- ``exact``: the exported body equals the source body;
- ``normalised``: they differ, but only by the normalisations docs/bridge.md lists (each
  one a function below, named by its number there);
- ``refused``: the import or the export raised an :class:`~lmml_mdit.errors.LmmlError`,
  whose message is kept;
- ``lossy``: anything else (a difference no documented normalisation explains).

:func:`cross_export` exports the reopened bundle to another provider and checks the body
against that provider's SDK request type: ``passed``, ``refused`` (an
:class:`~lmml_mdit.errors.UnsupportedContentError` naming the content) or ``failed``.

``python tests/corpus_roundtrip.py`` prints the counts (see :func:`main`).
"""

from __future__ import annotations

import base64
import copy
import json
import re
import sys
import tempfile
import typing
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: the tests folder is where _sdk_types lives
    sys.path.insert(0, str(Path(__file__).parent))

from _sdk_types import adapter, check_strict
from anthropic.types import message_create_params
from google.genai import types as genai_types
from openai.types.chat import completion_create_params
from openai.types.responses import response_create_params
from pydantic import ValidationError

import lmml_mdit
from lmml_mdit import Bundle, export_sharegpt, import_messages, to_request
from lmml_mdit.chat.providers import EXPORT_PROVIDERS
from lmml_mdit.chat.providers.anthropic import DEFAULT_MAX_TOKENS
from lmml_mdit.errors import LmmlError, UnsupportedContentError
from lmml_mdit.formats import ARCHIVE_SUFFIX

CORPUS = Path(__file__).parent / "bridge_corpus" / "realistic"
NATIVE_CORPUS = Path(__file__).parent / "bridge_corpus" / "native"
REMOTE_CORPUS = Path(__file__).parent / "bridge_corpus" / "remote"
#: The model passed where a body names none (every SDK but Responses requires one).
MODEL = "m"
OPENAI, RESPONSES, ANTHROPIC, GEMINI, SHAREGPT = EXPORT_PROVIDERS

#: Bodies whose round trip is refused on purpose, with the reason. Empty: the corpus holds
#: only what the bridge takes (a refused body would prove nothing about the round trip).
EXPECTED_REFUSALS: dict[str, str] = {}


def corpus() -> list[tuple[str, Path]]:
    """Every corpus body as ``(format, path)``, formats in registry order, paths sorted: the
    realistic bodies, then those of the provider-specific items (``native/FORMAT--CASE.json``)
    and of the remote assets (``remote/FORMAT/CASE.json``), which their own tests also read."""
    found: list[tuple[str, Path]] = []
    for fmt in EXPORT_PROVIDERS:
        found += [(fmt, path) for path in sorted((CORPUS / fmt).glob("*.json"))]
        found += [(fmt, path) for path in sorted(NATIVE_CORPUS.glob(f"{fmt}--*.json"))]
        found += [(fmt, path) for path in sorted((REMOTE_CORPUS / fmt).glob("*.json"))]
    return found


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def reopened(source: Any, fmt: str) -> Bundle:
    """*source* imported as *fmt*, saved as an archive in a temporary folder, opened again."""
    bundle = import_messages(source, fmt)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"conversation{ARCHIVE_SUFFIX}"
        bundle.save(path)
        return lmml_mdit.open(path)


def export(bundle: Bundle, provider: str, **options: Any) -> Any:
    """The body sent to *provider*: ``export_sharegpt``, or ``to_request`` with the text's
    ``@asset`` lines left out (as ``lmml export`` sends) and ``model="m"`` when the bundle's
    settings name none. Warnings (settings left out, defaults taken) are not failures."""
    if provider == SHAREGPT:
        return export_sharegpt(bundle)
    model = None if (bundle.settings or {}).get("model") else MODEL
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return to_request(bundle, provider, model=model, attachment_lines="drop", **options)


# -- the documented normalisations (docs/bridge.md, "Round trip") ------------------------------
# Each is applied to both sides, so a body compares equal only when the two differ by these
# kinds and no other. Key order (1) needs no code: dicts compare without it.


def plain_text(text: str) -> str:
    """(4) Text as LMML holds it: line endings ``\n``, NUL as U+FFFD, and no leading or
    trailing blank line (a line of nothing but whitespace), the last line break included."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


def merged_text(parts: list[Any]) -> list[Any]:
    """(3) Adjacent text parts come back as one, joined by a blank line, each (4) as plain
    text; empty ones go. A caching breakpoint (Anthropic ``cache_control``) on the last of
    them stays on the joined part, which caches the same prefix."""
    out: list[Any] = []
    for part in parts:
        keys = set(part) - {"cache_control"} if isinstance(part, dict) else set()
        is_text = keys == {"text"} or (keys == {"type", "text"} and part["type"] in _TEXT_TYPES)
        if is_text:
            part = {**part, "text": plain_text(part["text"])}
            if not part["text"] and "cache_control" not in part:
                continue
            previous = out[-1] if out else None
            if (
                isinstance(previous, dict)
                and set(previous) == keys
                and previous.get("type") == part.get("type")
            ):
                out[-1] = {**part, "text": previous["text"] + "\n\n" + part["text"]}
                continue
        out.append(part)
    return out


_TEXT_TYPES = ("text", "input_text")


def parsed_arguments(value: Any) -> Any:
    """(7) Argument strings are re-serialised from the parsed JSON: compare them parsed."""
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return value


def as_body(body: Any, key: str) -> dict[str, Any]:
    """A bare list (or string) is the body's conversation key, with no settings."""
    return copy.deepcopy(body) if isinstance(body, dict) else {key: copy.deepcopy(body)}


EMPTY_SCHEMA = {"type": "object", "properties": {}}


def _default_model(body: dict[str, Any], source: dict[str, Any]) -> None:
    """The model ``export`` passed where the source named none is not part of the trip."""
    if "model" not in source and body.get("model") == MODEL:
        del body["model"]


def _standard_base64(text: str) -> str:
    """(10) URL-safe base64, padding optional, comes back in the standard alphabet."""
    if not any(char in text for char in "-_") and len(text) % 4 == 0:
        return text
    padded = text + "=" * (-len(text) % 4)
    return base64.b64encode(base64.urlsafe_b64decode(padded)).decode("ascii")


def _data_uri(text: str) -> str:
    head, comma, data = text.partition(",")
    if text.startswith("data:") and head.endswith(";base64") and comma:
        return f"{head},{_standard_base64(data)}"
    return text


_BLOB_KEYS = ("inline_data", "inlineData", "input_audio")


def accepted_forms(value: Any) -> Any:
    """(10) The accepted forms of docs/bridge.md come back canonical: base64 in the standard
    alphabet wherever it appears (a ``base64`` source, a blob, audio, a data URI)."""
    if isinstance(value, str):
        return _data_uri(value)
    if isinstance(value, list):
        return [accepted_forms(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: accepted_forms(item) for key, item in value.items()}
    if out.get("type") == "base64" and isinstance(out.get("data"), str):
        out["data"] = _standard_base64(out["data"])
    for key in _BLOB_KEYS:
        blob = out.get(key)
        if isinstance(blob, dict) and isinstance(blob.get("data"), str):
            out[key] = {**blob, "data": _standard_base64(blob["data"])}
    return out


def _tools_list(settings: dict[str, Any]) -> None:
    """(10) ``tools`` given as one object is a list of it."""
    if isinstance(settings.get("tools"), dict):
        settings["tools"] = [settings["tools"]]


_LEFT_OUT = object()
"""Marks a message (3) leaves out: one left with nothing to send."""

#: (5) The fields of a Chat message that carry nothing when null or empty, and go.
_CHAT_EMPTY_FIELDS = ("refusal", "audio", "function_call", "annotations", "tool_calls", "name")


def _hash_named(name: object) -> bool:
    """Whether *name* is an asset's content-hash name, which the export gives a file or
    document that had no name of its own (5); a name given is kept."""
    return isinstance(name, str) and re.fullmatch(r"[0-9a-f]{16}(-[0-9]+)?\.\w+", name) is not None


def normalise_openai(body: Any, source: Any) -> dict[str, Any]:
    body = accepted_forms(as_body(body, "messages"))
    _default_model(body, as_body(source, "messages"))
    _tools_list(body)
    if "max_tokens" in body:  # (9) sent under the current parameter name
        body["max_completion_tokens"] = body.pop("max_tokens")
    for message in body["messages"]:
        for key in _CHAT_EMPTY_FIELDS:
            if key in message and not message[key]:
                del message[key]  # (5)
        content = message.get("content")
        if isinstance(content, str):  # (2) a string is one text part
            content = [{"type": "text", "text": content}]
        if isinstance(content, list):
            for part in content:
                if part["type"] == "file" and _hash_named(part["file"].get("filename")):
                    del part["file"]["filename"]  # (5) none given: named by its content hash
            message["content"] = merged_text(content) or None
        if message["role"] == "developer":
            message["role"] = "system"  # (6)
        nothing = not message.get("content") and set(message) <= {"role", "content"}
        if nothing and message["role"] != "tool":
            message["content"] = _LEFT_OUT  # (3) a message left with nothing is left out
        for call in message.get("tool_calls") or []:
            call.pop("index", None)  # (7) a stream's index: the call's place in the list
            if "function" in call:  # a custom call's input text comes back verbatim
                call["function"]["arguments"] = parsed_arguments(call["function"]["arguments"])
    body["messages"] = [m for m in body["messages"] if m.get("content") is not _LEFT_OUT]
    for tool in body.get("tools") or []:
        if "function" in tool:  # a custom tool is Chat's own, sent as it is
            tool["function"].setdefault("parameters", EMPTY_SCHEMA)  # (8)
            if tool["function"].get("description", "") is None:
                del tool["function"]["description"]  # (8) Chat's SDK type takes a string
    return body


_TOOL_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def normalise_responses(body: Any, source: Any) -> dict[str, Any]:
    body = accepted_forms(as_body(body, "input"))
    _default_model(body, as_body(source, "input"))
    _tools_list(body)
    items = body["input"]
    if isinstance(items, str):  # (2) a string input is one user message
        items = [{"role": "user", "content": items}]
    instructions = body.pop("instructions", None)
    if instructions is not None:  # (6) instructions come back as a leading system item
        items.insert(0, {"role": "system", "content": instructions})
    for item in items:
        item.setdefault("type", "message")
        if item["type"] == "function_call":
            item["arguments"] = parsed_arguments(item["arguments"])
            continue
        if item["type"] not in ("message", *_TOOL_OUTPUTS):
            continue  # a custom call (input verbatim) or a provider-specific item, whole
        if item.get("role") == "developer":
            item["role"] = "system"  # (6)
        key = "content" if item["type"] == "message" else "output"
        content = item[key]
        if isinstance(content, str):  # (2)
            content = [{"type": "input_text", "text": content}]
        for part in content:
            if part["type"] == "output_text":  # (2) replayed assistant text is sent as text
                part["type"] = "input_text"
                for empty in ("annotations", "logprobs"):
                    if part.get(empty) == []:
                        del part[empty]
            if part["type"] == "input_file" and _hash_named(part.get("filename")):
                del part["filename"]  # (5) none given: named by its content hash
            if part["type"] == "input_image":
                part.setdefault("detail", "auto")  # (5) export sends the required "auto"
        item[key] = merged_text(content)
    # (3) a message left with nothing is left out
    body["input"] = [item for item in items if item["type"] != "message" or item["content"]]
    for tool in body.get("tools") or []:
        if tool.get("type") == "function":
            tool.setdefault("strict", None)  # (8)
            tool.setdefault("parameters", EMPTY_SCHEMA)
    return body


def normalise_anthropic(body: Any, source: Any) -> dict[str, Any]:
    body = accepted_forms(as_body(body, "messages"))
    origin = as_body(source, "messages")
    _default_model(body, origin)
    _tools_list(body)
    if "max_tokens" not in origin and body.get("max_tokens") == DEFAULT_MAX_TOKENS:
        del body["max_tokens"]  # (9) a live request takes the documented default

    def blocks(content: Any) -> list[Any]:
        if isinstance(content, str):  # (2)
            content = [{"type": "text", "text": content}]
        for block in content:
            if block["type"] == "document" and _hash_named(block.get("title")):
                del block["title"]  # (5) none given: titled with its asset name
            if block["type"] == "tool_result":
                if "content" in block:
                    block["content"] = blocks(block["content"])
                if block.get("is_error") is False:
                    del block["is_error"]  # (5) the default
        return merged_text(content)

    if "system" in body:
        body["system"] = blocks(body["system"])
    merged: list[dict[str, Any]] = []
    for message in body["messages"]:
        content = blocks(message["content"])
        if not content:
            continue  # (3) a message left with nothing is left out
        if merged and merged[-1]["role"] == message["role"]:  # (6) same-role runs merged
            merged[-1]["content"] = merged_text(merged[-1]["content"] + content)
        else:
            merged.append({"role": message["role"], "content": content})
    body["messages"] = merged
    for tool in body.get("tools") or []:
        tool.setdefault("input_schema", EMPTY_SCHEMA)  # (8)
    return body


#: Gemini values that are data, not configuration: their keys are kept as written (6).
_GEMINI_DATA_KEYS = frozenset(
    {"args", "response", "parameters", "response_schema", "response_json_schema"}
    | {"parameters_json_schema", "labels", "metadata"}
)
#: A REST body's keys that the SDK takes inside ``config`` (6).
_GEMINI_CONFIG_KEYS = ("system_instruction", "tools", "tool_config", "safety_settings")


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", lambda match: "_" + match.group(1).lower(), key)


def snake_keys(value: Any) -> Any:
    """(6) REST camelCase keys come back snake_case, except inside data values."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name = _snake(key)
            out[name] = item if name in _GEMINI_DATA_KEYS else snake_keys(item)
        return out
    if isinstance(value, list):
        return [snake_keys(item) for item in value]
    return value


def _gemini_parts(parts: Any) -> list[Any]:
    """The accepted forms of ``parts`` (a list or one part; a string is one text part), and
    (5) a part's fields left at their default (``null``, ``thought: false``) dropped."""
    if not isinstance(parts, list):
        parts = [parts]
    return [{"text": part} if isinstance(part, str) else _set_fields(part) for part in parts]


def _set_fields(part: Any) -> Any:
    if not isinstance(part, dict):
        return part
    return {
        key: value
        for key, value in part.items()
        if value is not None and not (key == "thought" and value is False)
    }


def _gemini_contents(contents: Any) -> list[Any]:
    """(10) ``contents`` as a list of Content objects: one Content or a string is a list of
    it, a list inside the list is one user Content, and a run of strings and parts is one
    user Content (as the SDK groups them)."""
    if not isinstance(contents, list):
        return [contents]
    out: list[Any] = []
    run: list[Any] = []
    for item in contents:
        if isinstance(item, list) or (isinstance(item, dict) and "parts" in item):
            if run:
                out.append({"role": "user", "parts": run})
                run = []
            out.append({"role": "user", "parts": item} if isinstance(item, list) else item)
        else:
            run.append(item)
    if run:
        out.append({"role": "user", "parts": run})
    return out


def _gemini_content(content: Any) -> dict[str, Any]:
    if isinstance(content, str):
        return {"role": "user", "parts": [{"text": content}]}
    content = dict(content)
    content.setdefault("role", "user")  # the API reads a Content without a role as user
    content["parts"] = merged_text(_gemini_parts(content["parts"]))
    return content


def normalise_gemini(body: Any, source: Any) -> dict[str, Any]:
    body = accepted_forms(snake_keys(as_body(body, "contents")))
    _default_model(body, snake_keys(as_body(source, "contents")))
    config = body.setdefault("config", {})
    config.update(body.pop("generation_config", {}))  # (6) parameters kept flat in config
    for key in _GEMINI_CONFIG_KEYS:
        if key in body:
            config[key] = body.pop(key)
    _tools_list(config)
    contents: list[Any] = []
    for content in _gemini_contents(body["contents"]):
        content = _gemini_content(content)
        if not content["parts"]:
            continue  # (3) a content left with nothing is left out
        if contents and contents[-1]["role"] == content["role"]:  # (6) one role's run merged
            merged = contents[-1]["parts"] + content["parts"]
            contents[-1] = {**contents[-1], "parts": merged_text(merged)}
        else:
            contents.append(content)
    body["contents"] = contents
    if "system_instruction" in config:  # (10) a string, parts, one part or a Content
        system = config["system_instruction"]
        parts = system["parts"] if isinstance(system, dict) and "parts" in system else system
        config["system_instruction"] = {"parts": merged_text(_gemini_parts(parts))}
    for schema_key, json_key in (("response_schema", "response_json_schema"),):
        if schema_key in config:  # (8) sent as JSON Schema
            config[json_key] = _json_schema(config.pop(schema_key))
    if config.get("tools"):
        config["tools"] = _gemini_tools(config["tools"])
    if not config:
        del body["config"]
    generated_ids = not _gemini_call_ids(snake_keys(as_body(source, "contents"))["contents"])
    for content in body["contents"]:
        for part in content["parts"]:
            for key in ("function_call", "function_response"):
                if key in part and generated_ids:
                    part[key].pop("id", None)  # (7) ids generated on import
    return body


def _gemini_tools(tools: list[Any]) -> list[Any]:
    """(8) Every function declaration in one tool object, first; each built-in tool after
    it in its own object, in the order written."""
    declarations: list[Any] = []
    builtins: list[Any] = []
    for tool in tools:
        for key, value in tool.items():
            if key == "function_declarations":
                declarations += value
            else:
                builtins.append({key: value})
    for declaration in declarations:
        parameters = declaration.get("parameters")
        upper = isinstance(parameters, dict) and str(parameters.get("type", "")).isupper()
        if "parameters" in declaration and not upper:  # (8); OpenAPI-style types kept
            declaration["parameters_json_schema"] = _json_schema(declaration.pop("parameters"))
        if "parameters" not in declaration:
            declaration.setdefault("parameters_json_schema", EMPTY_SCHEMA)
    return ([{"function_declarations": declarations}] if declarations else []) + builtins


def _gemini_call_ids(contents: Any) -> bool:
    """Whether a call or a result in *contents* carries its own ``id`` (else (7) the ids
    the export shows were generated on import); call arguments are not looked into."""
    for content in contents if isinstance(contents, list) else [contents]:
        parts = content.get("parts", []) if isinstance(content, dict) else content
        for part in parts if isinstance(parts, list) else [parts]:
            for key in ("function_call", "function_response"):
                if isinstance(part, dict) and isinstance(part.get(key), dict) and "id" in part[key]:
                    return True
    return False


def _json_schema(schema: Any) -> Any:
    """(8) A Gemini (OpenAPI-style) schema as the JSON Schema it is exported as: the type
    names (``OBJECT``, ``STRING``) lower case, every other keyword as written."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key == "type" and isinstance(value, str):
                out[key] = value.lower()
            elif key == "properties" and isinstance(value, dict):
                out[key] = {name: _json_schema(item) for name, item in value.items()}
            else:
                out[key] = _json_schema(value)
        return out
    if isinstance(schema, list):
        return [_json_schema(item) for item in schema]
    return schema


#: (7) The ``from`` values ShareGPT export writes, for each spelling docs/bridge.md reads.
SHAREGPT_FROM = {
    **dict.fromkeys(("system",), "system"),
    **dict.fromkeys(("human", "user"), "human"),
    **dict.fromkeys(("gpt", "assistant", "model", "chatgpt"), "gpt"),
    **dict.fromkeys(("function_call", "tool_call"), "function_call"),
    **dict.fromkeys(
        ("observation", "tool", "function_response", "function", "tool_response"), "observation"
    ),
}


def normalise_sharegpt(record: Any, source: Any) -> dict[str, Any]:
    record = as_body(record, "conversations")
    entries = record.pop("conversations")
    system = record.pop("system", None)
    if system is not None:  # (7) a top-level system string is the first system entry
        entries = [{"from": "system", "value": system}, *entries]
    canonical: list[tuple[str, Any]] = []
    for entry in entries:
        role = SHAREGPT_FROM.get(entry["from"], entry["from"])
        if role != "function_call":
            canonical.append((role, entry["value"]))
            continue
        calls = entry["value"]
        calls = parsed_arguments(calls) if isinstance(calls, str) else calls
        for call in calls if isinstance(calls, list) else [calls]:  # (7) one entry per call
            arguments = call.get("arguments") if isinstance(call, dict) else None
            if isinstance(arguments, str):
                call = {**call, "arguments": parsed_arguments(arguments)}
            canonical.append((role, call))
    record["conversations"] = canonical
    return record


NORMALISERS: dict[str, Callable[[Any, Any], dict[str, Any]]] = {
    OPENAI: normalise_openai,
    RESPONSES: normalise_responses,
    ANTHROPIC: normalise_anthropic,
    GEMINI: normalise_gemini,
    SHAREGPT: normalise_sharegpt,
}


def _strip_default_model(body: Any, source: Any) -> Any:
    if (
        isinstance(body, dict)
        and body.get("model") == MODEL
        and not (isinstance(source, dict) and "model" in source)
    ):
        return {key: value for key, value in body.items() if key != "model"}
    return body


# -- the SDK request types --------------------------------------------------------------------

REQUEST_TYPES: dict[str, Any] = {
    OPENAI: completion_create_params.CompletionCreateParamsNonStreaming,
    RESPONSES: response_create_params.ResponseCreateParamsNonStreaming,
    ANTHROPIC: message_create_params.MessageCreateParamsNonStreaming,
}


def sdk_check(provider: str, body: dict[str, Any]) -> None:
    """*body* as the keyword arguments of *provider*'s create call, checked against the
    official SDK's types: strictly, no field dropped or coerced, no key the call lacks.

    :raises AssertionError: or pydantic's ``ValidationError`` when it does not fit.
    """
    if provider == SHAREGPT:
        assert set(body) >= {"conversations"}
        for entry in body["conversations"]:
            assert set(entry) == {"from", "value"} and isinstance(entry["value"], str), entry
        return
    if provider == GEMINI:
        assert set(body) <= {"model", "contents", "config"}, sorted(body)
        assert isinstance(body["model"], str)
        for content in body["contents"]:
            genai_types.Content.model_validate(content, strict=False)
        genai_types.GenerateContentConfig.model_validate(body.get("config", {}))
        return
    request_type = REQUEST_TYPES[provider]
    undeclared = set(body) - set(typing.get_type_hints(request_type))
    assert not undeclared, f"not parameters of the create call: {sorted(undeclared)}"
    check_strict(adapter(request_type), body)


# -- the runs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one run gave: its ``kind`` and, for anything but a clean pass, why."""

    kind: str
    detail: str = ""


def round_trip(fmt: str, path: Path) -> Outcome:
    """Import -> save -> reopen -> export to *fmt* itself, classified (module docstring)."""
    source = load(path)
    try:
        body = export(reopened(source, fmt), fmt, unknown_settings="pass")
    except LmmlError as error:
        return Outcome("refused", f"{type(error).__name__}: {error}")
    body = _strip_default_model(body, source)
    if body == source:
        return Outcome("exact")
    normalise = NORMALISERS[fmt]
    got, want = normalise(body, source), normalise(source, source)
    if got == want:
        return Outcome("normalised")
    return Outcome("lossy", _first_difference(got, want))


def _first_difference(got: Any, want: Any, where: str = "") -> str:
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want)):
            if got.get(key, "<absent>") != want.get(key, "<absent>"):
                return _first_difference(
                    got.get(key, "<absent>"), want.get(key, "<absent>"), f"{where}.{key}"
                )
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        for index, (left, right) in enumerate(zip(got, want, strict=True)):
            if left != right:
                return _first_difference(left, right, f"{where}[{index}]")
    return f"{where or 'body'}: exported {json.dumps(got)[:200]}, source {json.dumps(want)[:200]}"


def cross_export(bundle: Bundle, provider: str) -> Outcome:
    """*bundle* exported to *provider* with the defaults a user gets (settings the provider
    has no parameter for left out), checked against its SDK type."""
    try:
        body = export(bundle, provider)
    except UnsupportedContentError as error:
        return Outcome("refused", str(error))
    except LmmlError as error:
        return Outcome("failed", f"{type(error).__name__}: {error}")
    try:
        sdk_check(provider, body)
    except (AssertionError, ValidationError) as error:
        return Outcome("failed", str(error).splitlines()[0] if str(error) else repr(error))
    return Outcome("passed")


@dataclass(frozen=True)
class CorpusRun:
    """The whole corpus run: same-provider trips, and every import-export pair."""

    trips: dict[tuple[str, str], Outcome]
    """``(format, body name)`` to the round trip's outcome."""
    pairs: dict[tuple[str, str, str], Outcome]
    """``(source format, body name, target provider)`` to the cross export's outcome."""


def run_corpus(targets: tuple[str, ...] = EXPORT_PROVIDERS) -> CorpusRun:
    trips: dict[tuple[str, str], Outcome] = {}
    pairs: dict[tuple[str, str, str], Outcome] = {}
    for fmt, path in corpus():
        trips[fmt, path.stem] = round_trip(fmt, path)
        try:
            bundle = reopened(load(path), fmt)
        except LmmlError as error:
            for target in targets:
                pairs[fmt, path.stem, target] = Outcome("failed", f"import: {error}")
            continue
        for target in targets:
            if target != fmt:
                pairs[fmt, path.stem, target] = cross_export(bundle, target)
    return CorpusRun(trips, pairs)


TRIP_KINDS = ("exact", "normalised", "refused", "lossy")
PAIR_KINDS = ("passed", "refused", "failed")


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def report(run: CorpusRun) -> str:
    """The counts as plain-text tables: round trips per format, then the pair matrix (each
    cell: passed / tried, and how many of those tried were refused)."""
    lines = ["Round trips (import -> save .lmmlz -> reopen -> export to the same format)", ""]
    lines.append(f"{'format':18}" + "".join(f"{kind:>12}" for kind in TRIP_KINDS) + "  bodies")
    rows = [*EXPORT_PROVIDERS, "all"]
    for row in rows:
        counts = Counter(o.kind for (fmt, _), o in run.trips.items() if row in (fmt, "all"))
        cells = "".join(f"{counts[kind]:>12}" for kind in TRIP_KINDS)
        lines.append(f"{row:18}{cells}{sum(counts.values()):>8}")
    for (fmt, name), outcome in sorted(run.trips.items()):
        if outcome.detail:
            lines.append(f"  {outcome.kind}: {fmt}/{name}: {outcome.detail}")

    targets = [t for t in EXPORT_PROVIDERS if any(to == t for _, _, to in run.pairs)]
    lines += ["", "Cross-provider exports: passed the target's SDK type / tried (refused)", ""]
    lines.append(f"{'source -> target':18}" + "".join(f"{target:>18}" for target in targets))
    for fmt in EXPORT_PROVIDERS:
        cells = []
        for target in targets:
            kinds = [
                o.kind for (source, _, to), o in run.pairs.items() if (source, to) == (fmt, target)
            ]
            cell = (
                f"{kinds.count('passed')}/{len(kinds)} ({kinds.count('refused')})" if kinds else "-"
            )
            cells.append(f"{cell:>18}")
        lines.append(f"{fmt:18}" + "".join(cells))
    totals = Counter(o.kind for o in run.pairs.values())
    tried, passed, refused, failed = (sum(totals.values()), *(totals[k] for k in PAIR_KINDS))
    lines += [
        "",
        f"pairs tried: {tried}; passed: {passed} ({_percent(passed, tried)}); "
        f"refused with UnsupportedContentError: {refused}; failed: {failed}",
        f"pass rate of the exports not refused: {_percent(passed, passed + failed)}",
    ]
    reasons = Counter(o.detail for o in run.pairs.values() if o.kind == "refused")
    if reasons:
        lines += ["", "Refusals (count x reason):"]
        lines += [f"  {count:3} x {reason}" for reason, count in reasons.most_common()]
    failures = sorted((key, o) for key, o in run.pairs.items() if o.kind == "failed")
    if failures:
        lines += ["", "Failures:"]
        lines += [f"  {fmt}/{name} -> {to}: {o.detail}" for (fmt, name, to), o in failures]
    return "\n".join(lines)


def main() -> int:
    """Print the counts; exit 1 when a round trip is lossy or a cross export failed."""
    run = run_corpus()
    print(report(run))
    bad = [o for o in run.trips.values() if o.kind == "lossy"] + [
        o for o in run.pairs.values() if o.kind == "failed"
    ]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
