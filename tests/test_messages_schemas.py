"""Our payloads against the official clients' own request types (their schemas decide).

pydantic validates ``Iterable[...]`` fields of the SDK TypedDicts lazily and ignores keys a
TypedDict does not declare, so :func:`check` consumes every lazy iterator (which runs the
item validators) and then requires the validated value to equal the input: an unknown key,
a wrong part shape or a wrong literal all fail.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
from _messages_support import pdf, png, wav, zip_bundle
from _sdk_types import check_strict
from anthropic.types import MessageParam, TextBlockParam, message_create_params
from google.genai import types as genai_types
from openai.types.chat import ChatCompletionMessageParam, completion_create_params
from openai.types.responses import ResponseInputParam, response_create_params
from pydantic import TypeAdapter, ValidationError

from lmml_mdit import open as open_bundle
from lmml_mdit import to_request
from lmml_mdit.chat import messages

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

CHAT_MESSAGE = TypeAdapter(ChatCompletionMessageParam)
CHAT_REQUEST = TypeAdapter(completion_create_params.CompletionCreateParamsNonStreaming)
RESPONSES_INPUT = TypeAdapter(ResponseInputParam)
RESPONSES_REQUEST = TypeAdapter(response_create_params.ResponseCreateParamsNonStreaming)
ANTHROPIC_MESSAGE = TypeAdapter(MessageParam)
ANTHROPIC_REQUEST = TypeAdapter(message_create_params.MessageCreateParamsNonStreaming)
ANTHROPIC_SYSTEM = TypeAdapter(list[TextBlockParam])


def check_gemini(request: dict[str, Any]) -> None:
    # The keyword arguments of client.models.generate_content, nothing else.
    assert set(request) <= {"model", "contents", "config"}
    for content in request["contents"]:
        genai_types.Content.model_validate(content, strict=False)
    if "config" in request:
        genai_types.GenerateContentConfig.model_validate(request["config"])


def _bundles() -> list[Any]:
    tools = (
        "Be precise.\n\n## user\nplot it @a.png and read @r.pdf, table @t.csv\n\n"
        "## assistant\nOn it.\n\n"
        '@@@call_1.tool_call.json\n{"id": "call_1", "name": "plot", "arguments": {"n": 2}}\n@@@\n\n'
        "## tool\n@call_1.tool_call.json\n\nDone: @chart.png\n\n## assistant\nHere it is.\n"
    )
    assets = {"a.png": png(seed=1), "r.pdf": pdf(), "t.csv": b"a,b\n1,2\n", "chart.png": png(2, 2)}
    bundles = [
        open_bundle(EXAMPLES / "sales-review.lmmlz"),
        open_bundle(EXAMPLES / "weather-tools.lmml"),
        zip_bundle(tools, assets, "tools"),
    ]
    return bundles


@pytest.mark.parametrize("index", [0, 1, 2])
def test_openai_chat_payload_validates(index: int) -> None:
    bundle = _bundles()[index]
    request = to_request(bundle, "openai", model="gpt-4o")
    for message in request["messages"]:
        check_strict(CHAT_MESSAGE, message)
    check_strict(CHAT_REQUEST, request)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_openai_responses_payload_validates(index: int) -> None:
    bundle = _bundles()[index]
    request = to_request(bundle, "openai-responses", model="gpt-4o")
    check_strict(RESPONSES_INPUT, request["input"])
    check_strict(RESPONSES_REQUEST, request)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_anthropic_payload_validates(index: int) -> None:
    bundle = _bundles()[index]
    with warnings.catch_warnings(record=True):
        request = to_request(
            bundle,
            "anthropic",
            model="claude",
            settings={"max_tokens": 99},  # the default (anthropic 2.15 has no temperature)
        )
    for message in request["messages"]:
        check_strict(ANTHROPIC_MESSAGE, message)
    check_strict(ANTHROPIC_REQUEST, request)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_gemini_payload_validates(index: int) -> None:
    request = to_request(_bundles()[index], "gemini", model="gemini-2.5-flash")
    check_gemini(request)


def test_gemini_inline_data_decodes_to_the_asset_bytes() -> None:
    image = png(3, 3)
    request = to_request(zip_bundle("## user\n@a.png\n", {"a.png": image}), "gemini", model="g")
    content = genai_types.Content.model_validate(request["contents"][0])
    # "@a.png" alone is an attachment line: the image part takes its place.
    assert content.parts is not None and content.parts[0].inline_data is not None
    assert content.parts[0].inline_data.data == image


def test_audio_validates_where_taken() -> None:
    bundle = zip_bundle("## user\nlisten @s.wav\n", {"s.wav": wav()})
    for message in messages(bundle, "openai"):
        check_strict(CHAT_MESSAGE, message)
    check_gemini(to_request(bundle, "gemini", model="g"))


def test_text_documents_validate() -> None:
    bundle = zip_bundle("## user\n@t.csv\n", {"t.csv": b"a,b\n"})
    for message in messages(bundle, "anthropic"):
        check_strict(ANTHROPIC_MESSAGE, message)
    check_strict(RESPONSES_INPUT, messages(bundle, "openai-responses", text_embeds="document"))
    check_gemini(to_request(bundle, "gemini", model="g", text_embeds="document"))


@pytest.mark.parametrize("index", [0, 1, 2])
def test_messages_lists_and_their_system_validate(index: int) -> None:
    # messages() alone, default options: the list and what travels beside it.
    bundle = _bundles()[index]
    for message in messages(bundle, "openai"):
        check_strict(CHAT_MESSAGE, message)
    check_strict(RESPONSES_INPUT, messages(bundle, "openai-responses"))
    anthropic = messages(bundle, "anthropic", system="separate")
    for message in anthropic:
        check_strict(ANTHROPIC_MESSAGE, message)
    check_strict(ANTHROPIC_SYSTEM, anthropic.system)
    gemini = messages(bundle, "gemini", system="separate")
    for content in gemini:
        genai_types.Content.model_validate(content)
    genai_types.Content.model_validate(gemini.system)
    for provider in ("anthropic", "gemini"):
        for message in messages(bundle, provider, system="user"):
            if provider == "anthropic":
                check_strict(ANTHROPIC_MESSAGE, message)
            else:
                genai_types.Content.model_validate(message)


# --- the checks must be able to fail ---------------------------------------------------------

WRONG_CHAT = [
    # Responses-style image part in Chat Completions.
    {"role": "user", "content": [{"type": "input_image", "image_url": "data:image/png;base64,AA"}]},
    # image_url must be an object, not a string.
    {"role": "user", "content": [{"type": "image_url", "image_url": "data:image/png;base64,AA"}]},
    # a key Chat Completions does not know.
    {"role": "user", "content": [{"type": "text", "text": "x", "cache_control": {}}]},
    # tool message without its call id.
    {"role": "tool", "content": "x"},
    # tool arguments must be a JSON string.
    {
        "role": "assistant",
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": {}}}],
    },
]

WRONG_ANTHROPIC = [
    # SVG is outside the closed image media-type enum.
    {
        "role": "user",
        "content": [
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/svg+xml", "data": "AA"},
            }
        ],
    },
    # the OpenAI part shape in an Anthropic message.
    {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:,"}}]},
    # tool_use input must be an object.
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": "{}"}]},
]

WRONG_RESPONSES = [
    # Chat-style image object in Responses.
    [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_image", "image_url": {"url": "x"}}],
        }
    ],
    # function_call_output without call_id.
    [{"type": "function_call_output", "output": "x", "call": "c"}],
]


@pytest.mark.parametrize("payload", WRONG_CHAT)
def test_wrong_chat_payload_fails(payload: Any) -> None:
    with pytest.raises((ValidationError, AssertionError)):
        check_strict(CHAT_MESSAGE, payload)


@pytest.mark.parametrize("payload", WRONG_ANTHROPIC)
def test_wrong_anthropic_payload_fails(payload: Any) -> None:
    with pytest.raises((ValidationError, AssertionError)):
        check_strict(ANTHROPIC_MESSAGE, payload)


@pytest.mark.parametrize("payload", WRONG_RESPONSES)
def test_wrong_responses_payload_fails(payload: Any) -> None:
    with pytest.raises((ValidationError, AssertionError)):
        check_strict(RESPONSES_INPUT, payload)


@pytest.mark.parametrize(
    "content",
    [
        {
            "role": "user",
            "parts": [{"inline_data": {"mime_type": "image/png", "data": "AA"}, "x": 1}],
        },
        {"role": "user", "parts": [{"type": "text", "text": "hi"}]},
        {"role": "user", "parts": [{"function_call": {"name": "f", "args": "not an object"}}]},
    ],
)
def test_wrong_gemini_payload_fails(content: Any) -> None:
    with pytest.raises(ValidationError):
        check_gemini({"contents": [content]})


def test_passed_through_unknown_setting_fails_the_sdk_type() -> None:
    bundle = zip_bundle("## user\nhi\n", {"settings.yaml": b"max_tokens: 5\ntemperature: 1\n"})
    request = to_request(bundle, "anthropic", model="claude", unknown_settings="pass")
    assert request["temperature"] == 1
    with pytest.raises(AssertionError, match="dropped or changed"):
        check_strict(ANTHROPIC_REQUEST, request)
