"""Tools and structured output declared once in the settings, sent to every provider.

Each body is checked strictly against the official SDK's own request type (see
``_sdk_types``): a key the type does not declare, a wrong shape or a wrong literal fails.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from _cli import run_lmml as run
from _messages_support import zip_bundle
from _sdk_types import check_strict
from anthropic.types import message_create_params
from google.genai import types as genai_types
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import completion_create_params
from openai.types.responses import response_create_params
from pydantic import TypeAdapter

from lmml_mdit import DefectWarning, UnknownSettingWarning, import_messages, to_request
from lmml_mdit.chat import (
    NativeTool,
    OutputSchema,
    ToolChoice,
    ToolSpec,
    choice_from_native,
    choice_owner,
    choice_to_native,
    from_native,
    output_from_native,
    output_to_native,
    portable_settings,
    portable_tools,
    provider_settings,
    to_native,
)
from lmml_mdit.chat.providers import PROVIDER_NAMES, PROVIDERS
from lmml_mdit.errors import ImportFormatError, InvalidSettingsError

CHAT_REQUEST = TypeAdapter(completion_create_params.CompletionCreateParamsNonStreaming)
RESPONSES_REQUEST = TypeAdapter(response_create_params.ResponseCreateParamsNonStreaming)
ANTHROPIC_REQUEST = TypeAdapter(message_create_params.MessageCreateParamsNonStreaming)

WEATHER = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "the city"},
        "unit": {"type": ["string", "null"], "enum": ["c", "f", None]},
    },
    "required": ["city"],
    "additionalProperties": False,
}
FORECAST = {
    "type": "object",
    "properties": {"high": {"type": "number"}, "low": {"type": "number"}},
    "required": ["high", "low"],
}
PORTABLE: dict[str, Any] = {
    "model": "m",
    "max_tokens": 256,
    "tools": [
        {"name": "get_weather", "description": "Weather now", "parameters": WEATHER},
        {"name": "ping"},
    ],
    "tool_choice": "get_weather",
    "response_format": {"name": "forecast", "schema": FORECAST},
}


def check_request(provider: str, body: dict[str, Any]) -> None:
    """*body* passes *provider*'s SDK request type, strictly."""
    if provider == "openai":
        check_strict(CHAT_REQUEST, body)
    elif provider == "openai-responses":
        check_strict(RESPONSES_REQUEST, body)
    elif provider == "anthropic":
        check_strict(ANTHROPIC_REQUEST, body)
    else:
        # The keyword arguments of client.models.generate_content, nothing else; the genai
        # models forbid unknown fields, and the dump must give back every field given.
        assert set(body) <= {"model", "contents", "config"}
        for content in body["contents"]:
            genai_types.Content.model_validate(content)
        config = genai_types.GenerateContentConfig.model_validate(body.get("config", {}))
        dumped = _snake(config.model_dump(exclude_none=True, mode="json"))
        for key, value in _snake(body.get("config", {})).items():
            if key != "system_instruction":
                assert dumped[key] == value, key


def _snake(value: Any) -> Any:
    """*value* with every key in snake_case: genai reads both spellings and dumps one."""
    if isinstance(value, list):
        return [_snake(item) for item in value]
    if not isinstance(value, dict):
        return value
    return {
        "".join(f"_{c.lower()}" if c.isupper() else c for c in key): _snake(item)
        for key, item in value.items()
    }


def bundle_with(settings: dict[str, Any]) -> Any:
    text = "## user\nWeather in Paris?\n"
    return zip_bundle(text, {"settings.json": json.dumps(settings).encode()})


# --- every provider's body, from the one declaration -------------------------------------


@pytest.mark.parametrize("provider", PROVIDER_NAMES)
def test_portable_declaration_passes_every_sdk(provider: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = to_request(bundle_with(PORTABLE), provider)
    check_request(provider, body)
    # only the output's name is left out, by the two providers that take no name
    expected = 1 if provider in ("anthropic", "gemini") else 0
    assert len(caught) == expected, [str(w.message) for w in caught]


def test_native_shapes_of_each_provider() -> None:
    chat = to_request(bundle_with(PORTABLE), "openai")
    assert chat["tools"][0] == {
        "type": "function",
        "function": {"name": "get_weather", "description": "Weather now", "parameters": WEATHER},
    }
    assert chat["tools"][1]["function"]["parameters"] == {"type": "object", "properties": {}}
    assert chat["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert chat["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "forecast", "schema": FORECAST},
    }
    responses = to_request(bundle_with(PORTABLE), "openai-responses")
    assert responses["tools"][0] == {
        "type": "function",
        "name": "get_weather",
        "description": "Weather now",
        "parameters": WEATHER,
        "strict": None,
    }
    assert responses["tool_choice"] == {"type": "function", "name": "get_weather"}
    assert responses["text"] == {
        "format": {"type": "json_schema", "name": "forecast", "schema": FORECAST}
    }
    with pytest.warns(UnknownSettingWarning, match="name left out"):
        anthropic = to_request(bundle_with(PORTABLE), "anthropic")
    assert anthropic["tools"][0] == {
        "name": "get_weather",
        "description": "Weather now",
        "input_schema": WEATHER,
    }
    assert anthropic["tool_choice"] == {"type": "tool", "name": "get_weather"}
    assert anthropic["output_config"] == {"format": {"type": "json_schema", "schema": FORECAST}}
    with pytest.warns(UnknownSettingWarning, match="Gemini takes the schema only"):
        gemini = to_request(bundle_with(PORTABLE), "gemini")
    config = gemini["config"]
    assert config["tools"] == [
        {
            "function_declarations": [
                {
                    "name": "get_weather",
                    "description": "Weather now",
                    "parameters_json_schema": WEATHER,
                },
                {"name": "ping", "parameters_json_schema": {"type": "object", "properties": {}}},
            ]
        }
    ]
    assert config["tool_config"] == {
        "function_calling_config": {"mode": "ANY", "allowed_function_names": ["get_weather"]}
    }
    assert config["response_mime_type"] == "application/json"
    assert config["response_json_schema"] == FORECAST


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        (
            "auto",
            {
                "openai": ("tool_choice", "auto"),
                "openai-responses": ("tool_choice", "auto"),
                "anthropic": ("tool_choice", {"type": "auto"}),
                "gemini": ("tool_config", {"function_calling_config": {"mode": "AUTO"}}),
            },
        ),
        (
            "none",
            {
                "openai": ("tool_choice", "none"),
                "openai-responses": ("tool_choice", "none"),
                "anthropic": ("tool_choice", {"type": "none"}),
                "gemini": ("tool_config", {"function_calling_config": {"mode": "NONE"}}),
            },
        ),
        (
            "required",
            {
                "openai": ("tool_choice", "required"),
                "openai-responses": ("tool_choice", "required"),
                "anthropic": ("tool_choice", {"type": "any"}),
                "gemini": ("tool_config", {"function_calling_config": {"mode": "ANY"}}),
            },
        ),
        (
            {"name": "ping"},
            {
                "openai": ("tool_choice", {"type": "function", "function": {"name": "ping"}}),
                "openai-responses": ("tool_choice", {"type": "function", "name": "ping"}),
                "anthropic": ("tool_choice", {"type": "tool", "name": "ping"}),
                "gemini": (
                    "tool_config",
                    {
                        "function_calling_config": {
                            "mode": "ANY",
                            "allowed_function_names": ["ping"],
                        }
                    },
                ),
            },
        ),
    ],
)
def test_tool_choice_maps_and_passes(choice: object, expected: dict[str, Any]) -> None:
    settings = {"max_tokens": 10, "tools": [{"name": "ping"}], "tool_choice": choice}
    for provider in PROVIDER_NAMES:
        body = to_request(bundle_with(settings), provider, model="m")
        key, value = expected[provider]
        where = body["config"] if provider == "gemini" else body
        assert where[key] == value
        check_request(provider, body)
        # and back: every provider's form reads as the same choice
        declared = {"tools": [{"name": "ping"}], key: value}  # a named choice needs its tool
        assert portable_settings(declared)["tool_choice"] == (
            choice if isinstance(choice, str) else {"name": "ping"}
        )


@pytest.mark.parametrize("provider", PROVIDER_NAMES)
def test_output_schema_alone_and_strict(provider: str) -> None:
    settings = {
        "max_tokens": 10,
        "output_schema": FORECAST,
        "tools": [{"name": "ping", "strict": True, "parameters": FORECAST}],
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = to_request(bundle_with(settings), provider, model="m")
    check_request(provider, body)
    dropped = [str(w.message) for w in caught if issubclass(w.category, UnknownSettingWarning)]
    assert dropped == (
        ["tool 'ping': 'strict' left out: Gemini has no strict flag"]
        if provider == "gemini"
        else []
    )


def test_native_text_and_output_config_are_merged() -> None:
    settings = {"output_schema": FORECAST, "text": {"verbosity": "low"}}
    body = to_request(bundle_with(settings), "openai-responses", model="m")
    assert body["text"] == {
        "verbosity": "low",
        "format": {"type": "json_schema", "name": "response", "schema": FORECAST},
    }
    check_request("openai-responses", body)
    settings = {"max_tokens": 5, "output_schema": FORECAST, "output_config": {"effort": "low"}}
    body = to_request(bundle_with(settings), "anthropic", model="m")
    assert body["output_config"] == {
        "effort": "low",
        "format": {"type": "json_schema", "schema": FORECAST},
    }
    check_request("anthropic", body)


# --- native tool lists: read, stored portable, sent anywhere -----------------------------

NATIVE_TOOLS: dict[str, dict[str, Any]] = {
    "openai": {
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Weather now",
                    "parameters": WEATHER,
                    "strict": True,
                },
            }
        ],
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "forecast", "schema": FORECAST, "strict": True},
        },
    },
    "openai-responses": {
        "tools": [
            {
                "type": "function",
                "name": "get_weather",
                "description": "Weather now",
                "parameters": WEATHER,
                "strict": True,
            }
        ],
        "tool_choice": {"type": "function", "name": "get_weather"},
        "text": {"format": {"type": "json_schema", "name": "forecast", "schema": FORECAST}},
    },
    "anthropic": {
        "max_tokens": 100,
        "tools": [{"name": "get_weather", "description": "Weather now", "input_schema": WEATHER}],
        "tool_choice": {"type": "tool", "name": "get_weather"},
        "output_config": {"format": {"type": "json_schema", "schema": FORECAST}},
    },
    "gemini": {
        "config": {
            "tools": [
                {
                    "function_declarations": [
                        {
                            "name": "get_weather",
                            "description": "Weather now",
                            "parameters_json_schema": WEATHER,
                        }
                    ]
                }
            ],
            "tool_config": {
                "function_calling_config": {
                    "mode": "ANY",
                    "allowed_function_names": ["get_weather"],
                }
            },
            "response_mime_type": "application/json",
            "response_json_schema": FORECAST,
        }
    },
}

CONVERSATION: dict[str, dict[str, Any]] = {
    "openai": {"messages": [{"role": "user", "content": "Weather in Paris?"}]},
    "openai-responses": {"input": [{"role": "user", "content": "Weather in Paris?"}]},
    "anthropic": {"messages": [{"role": "user", "content": "Weather in Paris?"}]},
    "gemini": {"contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}]},
}


def _payload(source: str) -> dict[str, Any]:
    return {"model": "m", **CONVERSATION[source], **NATIVE_TOOLS[source]}


@pytest.mark.parametrize("source", PROVIDER_NAMES)
def test_import_stores_the_portable_form(source: str) -> None:
    bundle = import_messages(_payload(source), source)
    stored = dict(bundle.settings or {})
    assert stored["tools"][0]["name"] == "get_weather"
    assert stored["tools"][0]["parameters"] == WEATHER
    assert stored["tool_choice"] == {"name": "get_weather"}
    assert stored["response_format"]["schema"] == FORECAST
    for native in ("text", "output_config", "tool_config", "response_json_schema"):
        assert native not in stored


@pytest.mark.parametrize("target", PROVIDER_NAMES)
@pytest.mark.parametrize("source", PROVIDER_NAMES)
def test_import_from_each_provider_exports_to_every_other(source: str, target: str) -> None:
    bundle = import_messages(_payload(source), source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownSettingWarning)  # strict/name Gemini drops
        body = to_request(bundle, target, settings={"max_tokens": 100})
    check_request(target, body)
    where = body.get("config", body)
    names = json.dumps(where["tools"])
    assert "get_weather" in names
    if source == target:
        # back to its own provider, the declaration is exactly what was imported
        native = NATIVE_TOOLS[source].get("config", NATIVE_TOOLS[source])
        assert {key: where[key] for key in native} == native


def test_gemini_openapi_schema_and_camel_case_are_read() -> None:
    payload = {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generationConfig": {
            "responseMimeType": "application/json",
            "responseSchema": {"type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}},
        },
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "f",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"q": {"type": "STRING", "nullable": True}},
                        },
                    }
                ]
            },
            {"googleSearch": {}},
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
    }
    stored = dict(import_messages(payload, "gemini").settings or {})
    # An OpenAPI-style schema (upper-case types) is kept as written: Gemini gets it back as
    # its parameters, every other provider as JSON Schema.
    openapi = {"type": "OBJECT", "properties": {"q": {"type": "STRING", "nullable": True}}}
    assert stored["tools"][0] == {"name": "f", "parameters": openapi}
    (spec,) = [tool for tool in portable_tools(stored["tools"]) if isinstance(tool, ToolSpec)]
    assert to_native("gemini", [spec]) == [
        {"function_declarations": [{"name": "f", "parameters": openapi}]}
    ]
    assert to_native("openai", [spec])[0]["function"]["parameters"] == {
        "type": "object",
        "properties": {"q": {"type": ["string", "null"]}},
    }
    # REST camelCase is stored in the settings' snake_case, as the SDK spells it.
    assert stored["tools"][1] == {"google_search": {}}
    assert stored["tool_choice"] == "auto"
    assert stored["response_format"] == {
        "schema": {"type": "object", "properties": {"n": {"type": "integer"}}}
    }
    body = to_request(import_messages(payload, "gemini"), "gemini", model="m")
    check_request("gemini", body)
    assert body["config"]["tools"][1] == {"google_search": {}}


def test_built_in_tools_go_to_their_provider_only() -> None:
    settings = {
        "max_tokens": 10,
        "tools": [
            {"name": "ping"},
            {"type": "web_search"},
            {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
            {"google_search": {}},
        ],
    }
    kept = {
        "openai": [],
        "openai-responses": [{"type": "web_search"}],
        "anthropic": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 2}],
        "gemini": [{"google_search": {}}],
    }
    for provider in PROVIDER_NAMES:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            body = to_request(bundle_with(settings), provider, model="m")
        check_request(provider, body)
        tools = body.get("config", body)["tools"]
        assert [tool for tool in tools if "ping" not in json.dumps(tool)] == kept[provider]
        messages = [str(w.message) for w in caught if issubclass(w.category, UnknownSettingWarning)]
        assert len(messages) == 3 - len(kept[provider])
        assert all("left out" in message for message in messages)


ANTHROPIC_WEB_SEARCH = {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "gemini"])
def test_a_body_whose_every_tool_is_left_out_sends_no_tools_and_no_choice(provider: str) -> None:
    # A Claude transcript with only a server tool: the other providers get neither an empty
    # tools list nor a choice of a tool that is not there (their APIs refuse both).
    payload = {
        "model": "m",
        "max_tokens": 10,
        "tools": [ANTHROPIC_WEB_SEARCH],
        "tool_choice": {"type": "tool", "name": "web_search"},
        "messages": [{"role": "user", "content": "Any news?"}],
    }
    bundle = import_messages(payload, "anthropic")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = to_request(bundle, provider, model="m")
    check_request(provider, body)
    sent = body.get("config", body)
    assert "tools" not in sent and "tool_choice" not in sent and "tool_config" not in sent
    messages = [str(w.message) for w in caught if issubclass(w.category, UnknownSettingWarning)]
    assert any("tool 'web_search' (tools[0]) left out" in m for m in messages), messages
    assert any("tool_choice {'name': 'web_search'} left out" in m for m in messages), messages
    # The provider that owns the tool still gets both.
    body = to_request(bundle, "anthropic", model="m")
    assert body["tools"] == [ANTHROPIC_WEB_SEARCH]
    assert body["tool_choice"] == {"type": "tool", "name": "web_search"}


def test_a_choice_of_a_tool_left_out_is_left_out_and_the_other_tools_stay() -> None:
    settings = {"tools": [{"name": "ping"}, ANTHROPIC_WEB_SEARCH], "tool_choice": "web_search"}
    with pytest.warns(UnknownSettingWarning, match="tool_choice.*'web_search' is left out"):
        body = to_request(bundle_with(settings), "openai", model="m")
    check_request("openai", body)
    assert [tool["function"]["name"] for tool in body["tools"]] == ["ping"]
    assert "tool_choice" not in body
    # A choice of a tool that is sent is kept beside the left-out one.
    settings["tool_choice"] = "ping"
    with pytest.warns(UnknownSettingWarning, match="left out: OpenAI Chat Completions does not"):
        body = to_request(bundle_with(settings), "openai", model="m")
    assert body["tool_choice"] == {"type": "function", "function": {"name": "ping"}}


CHAT_CUSTOM_TOOL = {
    "type": "custom",
    "custom": {
        "name": "run_sql",
        "description": "Runs one SQL statement",
        "format": {
            "type": "grammar",
            "grammar": {"syntax": "regex", "definition": "SELECT [a-z_, ]+ FROM [a-z_]+"},
        },
    },
}
"""A Chat Completions custom tool (free-form input, here held to a grammar)."""


def test_a_chat_custom_tool_is_chats_own_and_round_trips() -> None:
    (read,) = portable_tools([CHAT_CUSTOM_TOOL])
    assert read == NativeTool("openai", CHAT_CUSTOM_TOOL, "custom tool 'run_sql' (tools[0])")
    payload = {
        "model": "m",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "Count the users"}],
        "tools": [CHAT_CUSTOM_TOOL],
    }
    bundle = import_messages(payload, "openai")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        body = to_request(bundle, "openai", model="m")
    check_request("openai", body)
    assert body["tools"] == [CHAT_CUSTOM_TOOL]
    for provider in PROVIDER_NAMES:
        if provider in ("openai", "openai-responses"):  # Responses has its own form of it
            continue
        with pytest.warns(UnknownSettingWarning, match="custom tool.*left out.*OpenAI Chat"):
            body = to_request(bundle, provider, model="m")
        assert "run_sql" not in json.dumps(body)


RESPONSES_CUSTOM_TOOL = {
    "type": "custom",
    "name": "run_sql",
    "description": "Runs one SQL statement",
    "format": {"type": "grammar", "syntax": "regex", "definition": "SELECT [a-z_]+ FROM [a-z_]+"},
}
"""A Responses custom tool: Chat's, flat (no ``custom`` object, no ``input_schema``)."""


def test_a_responses_custom_tool_is_responses_own_and_round_trips() -> None:
    (read,) = portable_tools([RESPONSES_CUSTOM_TOOL])
    assert read == NativeTool("openai-responses", RESPONSES_CUSTOM_TOOL, "custom tool (tools[0])")
    payload = {
        "model": "m",
        "max_output_tokens": 10,
        "input": [{"role": "user", "content": "Count the users"}],
        "tools": [RESPONSES_CUSTOM_TOOL],
    }
    bundle = import_messages(payload, "openai-responses")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        body = to_request(bundle, "openai-responses", model="m")
    check_request("openai-responses", body)
    assert body["tools"] == [RESPONSES_CUSTOM_TOOL]
    for provider in PROVIDER_NAMES:
        if provider in ("openai", "openai-responses"):  # Chat has its own form of it
            continue
        with pytest.warns(UnknownSettingWarning, match="custom tool.*left out.*OpenAI Responses"):
            body = to_request(bundle, provider, model="m")
        assert "run_sql" not in json.dumps(body)


def test_a_custom_tool_goes_between_the_openai_apis_in_each_ones_form() -> None:
    chat = {"model": "m", "messages": [{"role": "user", "content": "Count"}]}
    bundle = import_messages({**chat, "tools": [CHAT_CUSTOM_TOOL]}, "openai")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        body = to_request(bundle, "openai-responses", model="m")
    check_request("openai-responses", body)
    [tool] = body["tools"]
    assert tool == {
        "type": "custom",
        "name": "run_sql",
        "description": "Runs one SQL statement",
        "format": {
            "type": "grammar",
            "syntax": "regex",
            "definition": "SELECT [a-z_, ]+ FROM [a-z_]+",
        },
    }
    back = import_messages({"input": body["input"], "tools": body["tools"]}, "openai-responses")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = to_request(back, "openai", model="m")
    check_request("openai", again)
    assert again["tools"] == [CHAT_CUSTOM_TOOL]


def test_a_custom_tool_key_the_other_api_has_no_place_for_is_named() -> None:
    tool = {**RESPONSES_CUSTOM_TOOL, "defer_loading": True, "format": {"type": "text"}}
    responses = {"model": "m", "input": "Count", "tools": [tool]}
    bundle = import_messages(responses, "openai-responses")
    with pytest.warns(UnknownSettingWarning) as caught:
        body = to_request(bundle, "openai", model="m")
    assert [str(w.message) for w in caught] == [
        "custom tool (tools[0]): key 'defer_loading' left out: OpenAI Chat Completions takes "
        "no such key"
    ]
    check_request("openai", body)
    assert body["tools"] == [
        {
            "type": "custom",
            "custom": {
                "name": "run_sql",
                "description": "Runs one SQL statement",
                "format": {"type": "text"},
            },
        }
    ]


def test_a_custom_tool_format_the_other_api_cannot_hold_leaves_it_out() -> None:
    tool = {**RESPONSES_CUSTOM_TOOL, "format": {"type": "grammar", "syntax": "regex"}}
    bundle = import_messages({"model": "m", "input": "Count", "tools": [tool]}, "openai-responses")
    with pytest.warns(UnknownSettingWarning, match="custom tool.*left out.*OpenAI Responses"):
        body = to_request(bundle, "openai", model="m")
    assert "tools" not in body


def test_provider_specific_keys_keep_a_tool_native() -> None:
    tool = {"name": "f", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}
    (read,) = portable_tools([tool])
    assert read == NativeTool("anthropic", tool, "tool 'f' (tools[0])")
    assert to_native("anthropic", [read]) == [tool]
    with pytest.warns(UnknownSettingWarning, match="tool 'f'.*left out"):
        assert to_native("openai", [read]) == []


# --- bad declarations --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tools", "message", "where"),
    [
        ("get_weather", "'tools' must be a list of tools", "tools"),
        ([3], "a tool must be a JSON object", "tools[0]"),
        ([{"description": "x"}], "'name' must be a string", "tools[0]"),
        ([{"name": "has space"}], "tool 'has space'.*'name' must be 1 to 64", "tools[0].name"),
        ([{"name": "x" * 65}], "'name' must be 1 to 64", "tools[0].name"),
        (
            [{"name": "f", "parameters": []}],
            "tool 'f'.*'parameters' must be a JSON object",
            "tools[0].parameters",
        ),
        (
            [{"name": "f", "parameters": {"type": "string"}}],
            "must describe an object",
            "tools[0].parameters",
        ),
        (
            [{"name": "f", "description": 3}],
            "tool 'f'.*'description' must be a string",
            "tools[0].description",
        ),
        ([{"name": "f", "strict": "yes"}], "'strict' must be true or false", "tools[0].strict"),
        ([{"name": "f", "schema": {}}], "tool 'f'.*unknown key 'schema'", "tools[0].schema"),
        ([{"name": "f"}, {"name": "f"}], "two tools are named 'f'", "tools[1]"),
        (
            [{"type": "function", "function": "f"}],
            "'function' must be a JSON object",
            "tools[0].function",
        ),
        (
            [{"function_declarations": {"name": "f"}}],
            "must be a list",
            "tools[0].function_declarations",
        ),
    ],
)
def test_bad_tool_specs_are_refused_clearly(tools: object, message: str, where: str) -> None:
    with pytest.raises(InvalidSettingsError, match=message) as raised:
        portable_tools(tools)
    assert raised.value.name == where
    assert raised.value.hint
    # the same error from a request, never a traceback of another kind (a shape the settings
    # schema already refuses stops the strict send first, as an invalid_setting defect)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DefectWarning)
        with pytest.raises(InvalidSettingsError, match=message):
            to_request(bundle_with({"tools": tools}), "openai", model="m", strict=False)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"tool_choice": "not a name"}, "must be auto, none, required or a tool's name"),
        ({"tool_choice": {"name": 3}}, "must name a tool"),
        ({"tool_choice": {"mode": "auto"}}, "no known shape"),
        ({"tools": [{"name": "f"}], "tool_choice": "g"}, "names 'g', which no tool"),
        ({"output_schema": FORECAST, "response_format": {"schema": FORECAST}}, "both"),
        ({"output_schema": "an object"}, "'output_schema' must be a JSON object"),
        ({"response_format": {"schema": FORECAST, "format": 1}}, "unknown key 'format'"),
        ({"response_format": {"name": "x"}}, "'response_format.schema' must be a JSON object"),
        ({"response_format": {"schema": {}, "strict": 1}}, "must be true or false"),
        (
            {"tool_choice": "auto", "tool_config": {"function_calling_config": {"mode": "ANY"}}},
            "both choose",
        ),
    ],
)
def test_bad_choice_and_output_are_refused(settings: dict[str, Any], message: str) -> None:
    for provider in PROVIDER_NAMES:
        with pytest.raises(InvalidSettingsError, match=message):
            provider_settings(settings, provider)


def test_bad_tools_in_an_imported_payload_are_an_import_error() -> None:
    payload = {**CONVERSATION["openai"], "tools": [{"type": "function", "function": {}}]}
    with pytest.raises(ImportFormatError, match="'name' must be a string") as raised:
        import_messages(payload, "openai")
    assert raised.value.name == "tools[0].function"


def test_a_named_choice_with_no_tools_in_an_imported_payload_is_an_import_error() -> None:
    # Before, it was imported and sent naming a tool the request did not have.
    choice = {"type": "function", "function": {"name": "lookup"}}
    payload = {**CONVERSATION["openai"], "tool_choice": choice}
    with pytest.raises(ImportFormatError, match="declare no 'tools'") as raised:
        import_messages(payload, "openai")
    assert raised.value.name == "tool_choice"


def test_unconvertible_native_forms_are_kept_as_given() -> None:
    allowed = {"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": []}}
    assert portable_settings({"tool_choice": allowed}) == {"tool_choice": allowed}
    several = {"function_calling_config": {"mode": "ANY", "allowed_function_names": ["a", "b"]}}
    assert choice_from_native("gemini", several) is None
    assert portable_settings({"tool_config": several}) == {"tool_config": several}
    json_mode = {"type": "json_object"}
    assert portable_settings({"response_format": json_mode}) == {"response_format": json_mode}


@pytest.mark.parametrize(
    ("choice", "owner"),
    [
        ({"type": "auto", "disable_parallel_tool_use": True}, "anthropic"),
        ({"type": "allowed_tools", "allowed_tools": {"mode": "auto", "tools": []}}, "openai"),
        ({"type": "allowed_tools", "mode": "auto", "tools": []}, "openai-responses"),
        ({"type": "file_search"}, "openai-responses"),
    ],
)
def test_native_tool_choice_goes_to_its_provider_only(choice: object, owner: str) -> None:
    assert choice_owner(choice) == owner
    settings = {"max_tokens": 5, "tools": [{"name": "ping"}], "tool_choice": choice}
    for provider in PROVIDER_NAMES:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            body = to_request(bundle_with(settings), provider, model="m")
        where = body.get("config", body)
        if provider == owner:
            assert where["tool_choice"] == choice
            assert not caught
        else:
            assert "tool_choice" not in where
            (warning,) = caught
            assert issubclass(warning.category, UnknownSettingWarning)
            assert f"in {PROVIDERS[owner].title}'s form" in str(warning.message)
        check_request(provider, body)


def test_unknown_provider_is_refused() -> None:
    with pytest.raises(InvalidSettingsError, match="unknown provider 'sharegpt'"):
        to_native("sharegpt", [])


# --- the command line --------------------------------------------------------------------


def test_cli_import_then_render_request_for_every_provider(tmp_path: Path) -> None:
    source = tmp_path / "chat.json"
    source.write_text(json.dumps(_payload("openai")), encoding="utf-8")
    bundle = tmp_path / "chat.lmml"
    result = run("import", source, "-o", bundle)
    assert result.returncode == 0, result.stderr.decode()
    for provider in PROVIDER_NAMES:
        result = run(
            "render", bundle, "--provider", provider, "--request", "--set", "max_tokens=50"
        )
        assert result.returncode == 0, result.stderr.decode()
        check_request(provider, json.loads(result.stdout))


def test_cli_render_request_refuses_a_bad_tool(tmp_path: Path) -> None:
    bundle = tmp_path / "bad.lmml"
    settings = json.dumps({"tools": [{"name": "f", "parameters": {"type": "array"}}]})
    bundle.write_text(f"@@@settings.json\n{settings}\n@@@\n\n## user\nhi\n", encoding="utf-8")
    result = run("render", bundle, "--provider", "gemini", "--request")
    assert result.returncode != 0
    error = result.stderr.decode()
    assert "tool 'f'" in error and "must describe an object" in error
    assert "Traceback" not in error


# --- portable -> native -> portable is the identity --------------------------------------

_NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,20}", fullmatch=True)
_LEAF = st.fixed_dictionaries(
    {"type": st.sampled_from(["string", "integer", "number", "boolean", "null"])},
    optional={
        "description": st.text(max_size=10),
        "enum": st.lists(st.integers(), max_size=3),
    },
)
_SCHEMA = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.fixed_dictionaries({"type": st.just("array"), "items": inner}),
        st.fixed_dictionaries(
            {"type": st.just("object"), "properties": st.dictionaries(_NAMES, inner, max_size=3)},
            optional={"additionalProperties": st.booleans()},
        ),
        st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=2)}),
    ),
    max_leaves=6,
)
_PARAMETERS = st.fixed_dictionaries(
    {"type": st.just("object"), "properties": st.dictionaries(_NAMES, _SCHEMA, max_size=4)},
    optional={"required": st.lists(_NAMES, max_size=2, unique=True)},
)


def _tools(strict: bool) -> st.SearchStrategy[list[ToolSpec]]:
    spec = st.builds(
        ToolSpec,
        name=_NAMES,
        description=st.none() | st.text(max_size=20),
        parameters=_PARAMETERS,
        strict=(st.none() | st.booleans()) if strict else st.none(),
    )
    return st.lists(spec, max_size=4, unique_by=lambda tool: tool.name)


@pytest.mark.parametrize("provider", PROVIDER_NAMES)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_portable_native_portable_is_identity(provider: str, data: st.DataObject) -> None:
    tools = data.draw(_tools(strict=provider != "gemini"))
    native = to_native(provider, list(tools))
    assert from_native(provider, native) == tools
    # the portable settings form reads back as the same tools too
    assert portable_tools([tool.portable() for tool in tools]) == tools
    if tools:
        choice = data.draw(
            st.sampled_from([ToolChoice("auto"), ToolChoice("none"), ToolChoice("required")])
            | st.sampled_from(tools).map(lambda tool: ToolChoice("required", tool.name))
        )
        ((key, value),) = choice_to_native(provider, choice).items()
        assert choice_from_native(provider, value) == choice
        assert key == ("tool_config" if provider == "gemini" else "tool_choice")


@pytest.mark.parametrize("provider", PROVIDER_NAMES)
@settings(max_examples=40, deadline=None)
@given(schema=_PARAMETERS, name=_NAMES, strict=st.none() | st.booleans())
def test_output_native_portable_is_identity(
    provider: str, schema: dict[str, Any], name: str, strict: bool | None
) -> None:
    takes_all = provider in ("openai", "openai-responses")
    output = OutputSchema(schema, name, strict) if takes_all else OutputSchema(schema)
    native = output_to_native(provider, output)
    found, rest = output_from_native(provider, native)
    assert found == output
    assert rest == {}


@pytest.mark.parametrize("provider", PROVIDER_NAMES)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_generated_tools_pass_the_sdk(provider: str, data: st.DataObject) -> None:
    tools = data.draw(_tools(strict=provider != "gemini"))
    output = data.draw(_PARAMETERS)
    settings_value = {
        "max_tokens": 10,
        "tools": [tool.portable() for tool in tools],
        "output_schema": output,
    }
    check_request(provider, to_request(bundle_with(settings_value), provider, model="m"))


@pytest.mark.parametrize(
    ("source", "choice", "target", "expected"),
    [
        (
            "openai",
            {"type": "custom", "custom": {"name": "run_sql"}},
            "openai-responses",
            {"type": "custom", "name": "run_sql"},
        ),
        (
            "openai-responses",
            {"type": "custom", "name": "run_sql"},
            "openai",
            {"type": "custom", "custom": {"name": "run_sql"}},
        ),
    ],
)
def test_a_custom_tools_choice_goes_between_the_openai_apis_in_each_ones_form(
    source: str, choice: dict[str, object], target: str, expected: dict[str, object]
) -> None:
    tool = CHAT_CUSTOM_TOOL if source == "openai" else RESPONSES_CUSTOM_TOOL
    said = {"messages": [{"role": "user", "content": "Count"}]}
    if source == "openai-responses":
        said = {"input": "Count"}
    bundle = import_messages({"model": "m", **said, "tools": [tool], "tool_choice": choice}, source)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        body = to_request(bundle, target, model="m")
    check_request(target, body)
    assert body["tool_choice"] == expected
    with pytest.warns(UnknownSettingWarning, match="tool_choice .* left out"):
        assert "tool_choice" not in to_request(bundle, "gemini", model="m")
