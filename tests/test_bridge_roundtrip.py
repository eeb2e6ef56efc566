"""Round trip: for every corpus payload x, export(import(x)) == x up to the normalisations
documented in docs/bridge.md ("Round trip"). Each normalisation below is one of those."""

from __future__ import annotations

import json
import typing
from pathlib import Path
from typing import Any

import pytest
from _sdk_types import adapter, check_strict
from anthropic.types import message_create_params
from corpus_roundtrip import NORMALISERS
from google.genai import types as genai_types
from openai.types.chat import completion_create_params
from openai.types.responses import response_create_params

from lmml_mdit import Bundle, export_sharegpt, import_messages, to_request
from lmml_mdit.chat import export_bundle
from lmml_mdit.errors import DefectError, InvalidToolCallError, UnsupportedContentError

CORPUS = Path(__file__).parent / "bridge_corpus"
PROVIDER_FORMATS = ("openai", "openai-responses", "anthropic", "gemini")


def corpus(fmt: str) -> list[Path]:
    return sorted((CORPUS / fmt).glob("*.json"))


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# The documented normalisations are the corpus harness's (tests/corpus_roundtrip.py).


def parse_json_string(value: Any) -> Any:
    """(7) Argument strings are re-serialised from the parsed JSON: compare them parsed."""
    try:
        return json.loads(value)
    except (TypeError, ValueError):
        return value


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
    """*body* with the documented normalisations applied (the corpus harness's, one
    function per kind of docs/bridge.md)."""
    return NORMALISERS[fmt](body, source)


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
    check_strict(adapter(REQUEST_TYPES[provider]), request)


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
    except (UnsupportedContentError, InvalidToolCallError, DefectError) as error:
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
