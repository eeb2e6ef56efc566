"""Round trip: for every corpus payload x, export(import(x)) == x up to the normalisations
documented in docs/bridge.md ("Round trip"). Each normalisation below is one of those."""

from __future__ import annotations

import copy
import json
import re
import typing
from pathlib import Path
from typing import Any

import pytest
from _sdk_types import check_strict
from anthropic.types import message_create_params
from google.genai import types as genai_types
from openai.types.chat import completion_create_params
from openai.types.responses import response_create_params
from pydantic import TypeAdapter

from lmml_mdit.bundle.bundle import Bundle
from lmml_mdit.chat.export import export_bundle
from lmml_mdit.chat.importer import import_messages
from lmml_mdit.chat.outgoing import to_request
from lmml_mdit.chat.providers.sharegpt import export_sharegpt
from lmml_mdit.errors import InvalidToolCallError, UnsupportedContentError

CORPUS = Path(__file__).parent / "bridge_corpus"
PROVIDER_FORMATS = ("openai", "openai-responses", "anthropic", "gemini")


def corpus(fmt: str) -> list[Path]:
    return sorted((CORPUS / fmt).glob("*.json"))


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# -- the documented normalisations --------------------------------------------------------
# Each function returns the whole body (settings included), so nothing escapes comparison.
# The numbers are those of docs/bridge.md, "Round trip"; key order (1) needs no code.


def text_parts(parts: list[Any], key: str = "text") -> list[Any]:
    """(3) Adjacent text parts are one run of blocks in LMML, joined by a blank line; empty
    text parts are dropped."""
    out: list[Any] = []
    for part in parts:
        if set(part) == {"type", key} and part["type"] in ("text", "input_text"):
            if not part[key]:
                continue
            if out and set(out[-1]) == {"type", key} and out[-1]["type"] == part["type"]:
                out[-1] = {**out[-1], key: out[-1][key] + "\n\n" + part[key]}
                continue
        out.append(part)
    return out


def parse_json_string(value: Any) -> Any:
    """(7) Argument strings are re-serialised from the parsed JSON: compare them parsed."""
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return value


def as_body(body: Any, key: str) -> dict[str, Any]:
    """A bare list is the body's conversation key, with no settings."""
    return copy.deepcopy(body) if isinstance(body, dict) else {key: copy.deepcopy(body)}


def normalise_openai(body: Any) -> Any:
    body = as_body(body, "messages")
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, str):  # (2) a string is one text part
            content = [{"type": "text", "text": content}]
        if isinstance(content, list):
            for part in content:
                if part["type"] == "file":
                    part["file"].pop("filename", None)  # (5) the asset's name is sent
                if part["type"] == "image_url":
                    part["image_url"].pop("detail", None)  # (5) detail is not kept
            message["content"] = text_parts(content) or None
        if message["role"] == "developer":
            message["role"] = "system"  # (6)
        for call in message.get("tool_calls") or []:
            call["function"]["arguments"] = parse_json_string(call["function"]["arguments"])
    return body


def normalise_responses(body: Any) -> Any:
    body = as_body(body, "input")
    items = body["input"]
    if isinstance(items, str):  # (2) a string input is one user message
        items = [{"role": "user", "content": items}]
    instructions = body.pop("instructions", None)
    if instructions is not None:  # (6) instructions come back as a system message item
        items.insert(0, {"role": "system", "content": instructions})
    for item in items:
        item.setdefault("type", "message")
        if item["type"] == "function_call":
            item["arguments"] = parse_json_string(item["arguments"])
            continue
        key = "content" if item["type"] == "message" else "output"
        content = item[key]
        if isinstance(content, str):  # (2)
            content = [{"type": "input_text", "text": content}]
        for part in content:
            if part["type"] == "output_text":  # (2) replayed assistant text is sent as text
                part["type"] = "input_text"
                if part.get("annotations") == []:
                    del part["annotations"]
            if part["type"] == "input_file":
                part.pop("filename", None)  # (5)
        item[key] = text_parts(content)
    body["input"] = items
    return body


def normalise_anthropic(body: Any) -> Any:
    body = as_body(body, "messages")

    def blocks(content: Any) -> list[Any]:
        if isinstance(content, str):  # (2)
            content = [{"type": "text", "text": content}]
        for block in content:
            if block["type"] == "document":
                block.pop("title", None)  # (5) titled with its asset name
            if block["type"] == "tool_result":
                if "content" in block:
                    block["content"] = blocks(block["content"])
                if block.get("is_error") is False:
                    del block["is_error"]  # (5) the default
        return text_parts(content)

    if "system" in body:
        body["system"] = blocks(body["system"])
    merged: list[dict[str, Any]] = []
    for message in body["messages"]:
        content = blocks(message["content"])
        if merged and merged[-1]["role"] == message["role"]:  # (6) same-role runs merged
            merged[-1]["content"] = text_parts(merged[-1]["content"] + content)
        else:
            merged.append({"role": message["role"], "content": content})
    body["messages"] = merged
    return body


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def snake_keys(value: Any) -> Any:
    """(6) camelCase (REST) keys come back snake_case; not inside the free-form args and
    response objects."""
    if isinstance(value, dict):
        return {
            _snake(k): (v if k in ("args", "response") else snake_keys(v)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [snake_keys(v) for v in value]
    return value


def normalise_gemini(body: Any, *, generated_ids: bool) -> Any:
    body = snake_keys(as_body(body, "contents"))
    system = body.pop("system_instruction", None)
    if system is not None:  # (6) the system instruction comes back in config
        body.setdefault("config", {})["system_instruction"] = system
    config = body.get("config", {})
    if "system_instruction" in config:
        config["system_instruction"] = {"parts": text_parts(config["system_instruction"]["parts"])}
    for content in body["contents"]:
        for part in content["parts"]:
            for key in ("function_call", "function_response"):
                if key in part and generated_ids:
                    part[key].pop("id", None)  # (7) ids generated on import
        content["parts"] = text_parts(content["parts"])
    return body


PLACEHOLDER_MODEL = "placeholder-model"


def exported(bundle: Bundle, fmt: str, **options: Any) -> Any:
    """``to_request`` of *bundle* keeping every setting (``unknown_settings="pass"``, as a
    dataset export does: a round trip loses nothing, even a parameter the installed SDK
    does not declare). A corpus body without a model gets a placeholder (the providers'
    create calls require one), taken out again for the comparison."""
    given = (bundle.settings or {}).get("model")
    model = None if given else PLACEHOLDER_MODEL
    options.setdefault("unknown_settings", "pass")
    body = to_request(bundle, fmt, model=model, attachment_lines="drop", **options)
    if model is not None:
        assert body.pop("model") == PLACEHOLDER_MODEL
    return body


def normalise(fmt: str, body: Any, *, source: Any) -> Any:
    if fmt == "openai":
        return normalise_openai(body)
    if fmt == "openai-responses":
        return normalise_responses(body)
    if fmt == "anthropic":
        return normalise_anthropic(body)
    generated = '"id"' not in json.dumps(source)
    return normalise_gemini(body, generated_ids=generated)


# -- the SDK types ------------------------------------------------------------------------

REQUEST_TYPES: dict[str, Any] = {
    "openai": completion_create_params.CompletionCreateParamsNonStreaming,
    "openai-responses": response_create_params.ResponseCreateParamsNonStreaming,
    "anthropic": message_create_params.MessageCreateParamsNonStreaming,
}


def validate_with_sdk(provider: str, body: dict[str, Any], settings: Any = None) -> None:
    """The whole exported body (messages and parameters) against the official SDK's request
    types. A dataset line may lack the model (and Anthropic's max_tokens), so those get a
    placeholder; a setting the SDK does not declare (anthropic 2.14 has no temperature) is
    passed as given by design, so it is left out of the check."""
    if provider == "gemini":
        assert set(body) <= {"model", "contents", "config"}
        for content in body["contents"]:
            genai_types.Content.model_validate(content)
        genai_types.GenerateContentConfig.model_validate(body.get("config", {}))
        return
    declared = typing.get_type_hints(REQUEST_TYPES[provider])  # the TypedDict's keys
    given = set(settings or {})
    request = {"model": "any-model", **body}
    for key in set(request) - set(declared):
        if key in given:
            del request[key]
    if provider == "anthropic":
        request.setdefault("max_tokens", 1)
    check_strict(TypeAdapter(REQUEST_TYPES[provider]), request)


# -- the round trips ----------------------------------------------------------------------

ROUND_TRIPS = [
    pytest.param(fmt, path, id=f"{fmt}/{path.name}")
    for fmt in PROVIDER_FORMATS
    for path in corpus(fmt)
]


def test_corpus_covers_every_format() -> None:
    for fmt in (*PROVIDER_FORMATS, "sharegpt"):
        assert corpus(fmt), fmt


@pytest.mark.parametrize(("fmt", "path"), ROUND_TRIPS)
def test_round_trip(fmt: str, path: Path) -> None:
    source = load(path)
    bundle = import_messages(source, fmt)
    body = exported(bundle, fmt)
    validate_with_sdk(fmt, body, bundle.settings)
    assert normalise(fmt, body, source=source) == normalise(fmt, source, source=source)


def test_export_bundle_gives_the_round_trip_body() -> None:
    # export_bundle (lmml export) is to_request with attachment_lines="drop", and an
    # Anthropic body without max_tokens is still a dataset line.
    source = load(CORPUS / "anthropic" / "tool_result_image.json")
    bundle = import_messages(source)
    assert export_bundle(bundle, "anthropic") == exported(bundle, "anthropic")
    del source["max_tokens"]
    assert "max_tokens" not in export_bundle(import_messages(source), "anthropic")


CROSS = [
    pytest.param(fmt, path, provider, id=f"{fmt}/{path.name}->{provider}")
    for fmt in (*PROVIDER_FORMATS, "sharegpt")
    for path in corpus(fmt)
    for provider in PROVIDER_FORMATS
]


@pytest.mark.parametrize(("fmt", "path", "provider"), CROSS)
def test_every_export_fits_the_sdk_types_or_is_refused(fmt: str, path: Path, provider: str) -> None:
    # Tool calls and results in all four native forms, tool-result images included; what a
    # provider cannot take is refused with a named error, never sent half.
    bundle = import_messages(load(path), fmt)
    try:
        body = export_bundle(bundle, provider)
    except (UnsupportedContentError, InvalidToolCallError) as error:
        assert error.name and error.hint
        return
    validate_with_sdk(provider, body, bundle.settings)


def test_tool_result_image_policy_per_provider() -> None:
    bundle = import_messages(load(CORPUS / "anthropic" / "tool_result_image.json"))
    chat = exported(bundle, "openai")["messages"]
    tool = next(m for m in chat if m["role"] == "tool")
    assert tool == {
        "role": "tool",
        "tool_call_id": "toolu_01A",
        "content": [{"type": "text", "text": "Screenshot taken."}],
    }
    follow_up = chat[chat.index(tool) + 1]
    assert follow_up["role"] == "user"
    assert [part["type"] for part in follow_up["content"]] == ["text", "image_url"]
    with pytest.raises(UnsupportedContentError, match="tool message") as caught:
        exported(bundle, "openai", tool_result_images="error")
    assert caught.value.name == "fce481932ea5d07a.png"
    output = next(
        item
        for item in exported(bundle, "openai-responses")["input"]
        if item["type"] == "function_call_output"
    )
    assert [part["type"] for part in output["output"]] == ["input_text", "input_image"]


@pytest.mark.parametrize("path", corpus("sharegpt"), ids=lambda p: p.name)
def test_round_trip_sharegpt(path: Path) -> None:
    source = load(path)
    record = export_sharegpt(import_messages(source, "sharegpt"))

    def canonical(entries: list[dict[str, Any]]) -> list[Any]:
        return [
            (
                e["from"],
                parse_json_string(e["value"]) if e["from"] == "function_call" else e["value"],
            )
            for e in entries
        ]

    assert canonical(record["conversations"]) == canonical(source["conversations"])
    assert {k: v for k, v in record.items() if k != "conversations"} == {
        k: v for k, v in source.items() if k != "conversations"
    }


def test_responses_audio_imports_but_its_export_is_refused() -> None:
    # The messages module refuses audio for openai-responses (the SDK's input content union
    # has no input_audio member), so this payload cannot round-trip: import keeps the audio,
    # export says why it cannot send it.
    source = load(CORPUS / "export_refused" / "openai_responses_audio.json")
    bundle = import_messages(source, "openai-responses")
    (name,) = bundle.entries[:1]
    assert name.endswith(".wav")
    assert bundle.read(name).startswith(b"RIFF")
    with pytest.raises(UnsupportedContentError, match="audio"):
        exported(bundle, "openai-responses")
    assert exported(bundle, "openai")["messages"][0]["content"][1]["type"] == "input_audio"


def test_round_trip_keeps_asset_bytes_exact() -> None:
    source = load(CORPUS / "anthropic" / "tool_result_image.json")
    body = exported(import_messages(source), "anthropic")
    original = source["messages"][2]["content"][0]["content"][1]["source"]["data"]
    result = body["messages"][2]["content"][0]["content"][1]["source"]["data"]
    assert result == original


def test_tricky_text_round_trips_exactly() -> None:
    """The escapes the import writes are LMML escapes: the export leaves them out."""
    source = load(CORPUS / "escape" / "openai_tricky_text.json")
    bundle = import_messages(source)
    assert "\\<!-- assistant -->" in bundle.narrative.text
    assert "\\@@@notes.txt" in bundle.narrative.text
    assert "\\# System" in bundle.narrative.text
    body = exported(bundle, "openai")
    assert body["messages"][0]["content"][0]["text"] == source[0]["content"]
    assert body["messages"][1]["content"][0]["text"] == source[1]["content"]
