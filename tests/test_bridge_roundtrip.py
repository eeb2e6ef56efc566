"""Round trip: for every corpus payload x, export(import(x)) == x up to the normalisations
documented in docs/bridge.md ("Round trip"). Each normalisation below is one of those."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from lmml_mdit.bridge import export_sharegpt, import_messages
from lmml_mdit.bundle import Bundle
from lmml_mdit.errors import UnsupportedContentError
from lmml_mdit.messages import to_request

CORPUS = Path(__file__).parent / "bridge_corpus"
PROVIDER_FORMATS = ("openai", "openai-responses", "anthropic", "gemini")


def corpus(fmt: str) -> list[Path]:
    return sorted((CORPUS / fmt).glob("*.json"))


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# -- the documented normalisations --------------------------------------------------------


def text_parts(parts: list[Any], assets: set[str], key: str = "text") -> list[Any]:
    """Empty text parts dropped, adjacent text parts joined by a blank line (they are one
    block run in LMML)."""
    out: list[Any] = []
    for part in parts:
        if isinstance(part, dict) and set(part) <= {"type", key} and isinstance(part.get(key), str):
            text = part[key].strip("\n")
            if not text:
                continue
            if out and isinstance(out[-1], dict) and out[-1].get("_text") is not None:
                out[-1]["_text"] += "\n\n" + text
                continue
            out.append({"_text": text})
        else:
            out.append(part)
    return out


def parse_json_string(value: Any) -> Any:
    """Arguments strings are re-serialised: compare them parsed."""
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return value


def normalise_openai(body: Any, assets: set[str]) -> Any:
    messages = body["messages"] if isinstance(body, dict) else body
    out = []
    for message in copy.deepcopy(messages):
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if isinstance(content, list):
            for part in content:
                if part.get("type") == "file":
                    part["file"].pop("filename", None)  # file names become asset names
                if part.get("type") == "image_url":
                    part["image_url"].pop("detail", None)
            message["content"] = text_parts(content, assets) or None
        if message.get("role") == "developer":
            message["role"] = "system"
        for call in message.get("tool_calls") or []:
            call["function"]["arguments"] = parse_json_string(call["function"]["arguments"])
        out.append(message)
    return out


def normalise_responses(body: Any, assets: set[str]) -> Any:
    items = copy.deepcopy(body["input"] if isinstance(body, dict) else body)
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    if isinstance(body, dict) and body.get("instructions") is not None:
        items.insert(0, {"role": "system", "content": body["instructions"]})
    out = []
    for item in items:
        item.setdefault("type", "message")
        for key in ("id", "status"):
            item.pop(key, None)
        if item["type"] == "function_call":
            item["arguments"] = parse_json_string(item["arguments"])
        key = "content" if item["type"] == "message" else "output"
        content = item.get(key)
        if item["type"] != "function_call":
            if isinstance(content, str):
                content = [{"type": "input_text", "text": content}]
            for part in content:
                if part.get("type") in ("input_text", "output_text"):
                    part["type"] = "text"  # a replayed output_text is sent as text
                    if part.get("annotations") == []:
                        del part["annotations"]
                if part.get("type") == "input_file":
                    part.pop("filename", None)
                if part.get("type") == "input_image":
                    part.setdefault("detail", "auto")
            item[key] = text_parts(content, assets)
        out.append(item)
    return out


def normalise_anthropic(body: Any, assets: set[str]) -> Any:
    out: dict[str, Any] = {}
    if isinstance(body, dict) and body.get("system") is not None:
        system = body["system"]
        if isinstance(system, str):
            system = [{"type": "text", "text": system}]
        out["system"] = text_parts(copy.deepcopy(system), assets)
    messages = []

    def blocks(content: Any) -> list[Any]:
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content:
            if block.get("type") == "document":
                block.pop("title", None)  # export titles a document with its asset name
            if block.get("type") == "tool_result":
                block["content"] = blocks(block.get("content", []))
                if block.get("is_error") is False:
                    del block["is_error"]
        return text_parts(content, assets)

    source = body["messages"] if isinstance(body, dict) else body
    for message in copy.deepcopy(source):
        message["content"] = blocks(message["content"])
        messages.append(message)
    out["messages"] = messages
    return out


def _snake(key: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), key)


def snake_keys(value: Any) -> Any:
    """camelCase (REST) keys read as snake_case (the export's spelling); not inside the
    free-form args/response objects."""
    if isinstance(value, dict):
        return {
            _snake(k): (v if k in ("args", "response") else snake_keys(v)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [snake_keys(v) for v in value]
    return value


def normalise_gemini(body: Any, assets: set[str], *, generated_ids: bool) -> Any:
    body = snake_keys(copy.deepcopy(body))
    out: dict[str, Any] = {}
    config = dict(body.get("config") or {})
    system = body.get("system_instruction") or config.pop("system_instruction", None)
    if system is not None:
        out["system"] = text_parts(system["parts"], assets)
    out["config"] = config
    contents = []
    for content in body["contents"]:
        parts = []
        for part in content["parts"]:
            for key in ("function_call", "function_response"):
                if key in part and generated_ids:
                    part[key].pop("id", None)  # ids generated on import
            parts.append(part)
        contents.append({"role": content["role"], "parts": text_parts(parts, assets)})
    out["contents"] = contents
    return out


def exported(bundle: Bundle, fmt: str) -> Any:
    return to_request(bundle, fmt, attachment_lines="drop")


def normalise(fmt: str, body: Any, assets: set[str], *, source: Any) -> Any:
    if fmt == "openai":
        return normalise_openai(body, assets)
    if fmt == "openai-responses":
        return normalise_responses(body, assets)
    if fmt == "anthropic":
        return normalise_anthropic(body, assets)
    generated = '"id"' not in json.dumps(source)
    return normalise_gemini(body, assets, generated_ids=generated)


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
    assets = set(bundle.entries)
    body = exported(bundle, fmt)
    expected = normalise(fmt, source, assets, source=source)
    got = normalise(fmt, body, assets, source=source)
    if fmt in ("openai", "openai-responses", "gemini") and isinstance(source, dict):
        settings = {k: v for k, v in source.items() if k not in ("messages", "input", "contents")}
        settings.pop("instructions", None)
        for key in ("system_instruction", "systemInstruction", "config"):
            settings.pop(key, None)
        for key, value in settings.items():
            assert body[key] == value, key
    assert got == expected


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


def test_tricky_text_round_trips_with_documented_escapes() -> None:
    source = load(CORPUS / "escape" / "openai_tricky_text.json")
    body = exported(import_messages(source), "openai")
    text = body["messages"][0]["content"][0]["text"]
    expected = (
        source[0]["content"]
        .replace("Hi @support", "Hi \\@support")
        .replace("## user:", "\\## user:")
        .replace("<!-- assistant -->", "\\<!-- assistant -->")
        .replace("@@@notes.txt", "\\@@@notes.txt")
        .replace("system\n---", "system\n\\---")
    )
    assert text == expected
    assert body["messages"][1]["content"][0]["text"] == source[1]["content"].replace(
        "# System", "\\# System"
    )
