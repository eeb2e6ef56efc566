"""A provider brings its own tool codec: a toy provider registered beside the built-in
ones gets tools, tool choice and structured output in its own shape, both ways, through
the public API; one without a codec refuses them clearly."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

import lmml_mdit.chat
from lmml_mdit import Bundle, TextPart, import_messages
from lmml_mdit.chat import NativeTool, OutputSchema, ToolChoice, ToolSpec
from lmml_mdit.chat.providers import FORMATS, PROVIDERS, Payload, Provider, ToolFormat
from lmml_mdit.conversation import ChatTurn, ImportedConversation, Text
from lmml_mdit.errors import InvalidSettingsError

WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
FORECAST = {"type": "object", "properties": {"high": {"type": "number"}}}
PORTABLE: dict[str, Any] = {
    "tools": [{"name": "get_weather", "description": "Weather now", "parameters": WEATHER}],
    "tool_choice": "get_weather",
    "response_format": {"schema": FORECAST},
}
TOY_SETTINGS: dict[str, Any] = {
    "tools": [{"toy_fn": "get_weather", "about": "Weather now", "args": WEATHER}],
    "toy_choice": {"call": "get_weather"},
    "toy_schema": FORECAST,
}
"""The same declaration, in the toy provider's own shape."""


def _write(conversation: Any, options: Any) -> Payload:
    lines: list[dict[str, Any]] = []
    for message in conversation.messages:
        said = "".join(item.text for item in message.items if isinstance(item, TextPart))
        lines.append({"who": message.role, "say": said})
    return Payload("toy", lines)


def _request(payload: Payload, model: str | None, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"model": model, "lines": payload.messages, **parameters}


def _read(data: object) -> ImportedConversation:
    assert isinstance(data, dict)
    turns = [ChatTurn(line["who"], [Text(line["say"])]) for line in data["lines"]]
    settings = {key: value for key, value in data.items() if key != "lines"}
    return ImportedConversation(turns, settings=settings)


def _read_tool(item: dict[str, Any], where: str) -> list[ToolSpec | NativeTool] | None:
    if "toy_fn" not in item:
        return None
    return [ToolSpec(item["toy_fn"], item.get("about"), item.get("args", {"type": "object"}))]


def _write_tools(tools: Iterable[ToolSpec | NativeTool]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for tool in tools:
        if isinstance(tool, NativeTool):
            out.append(tool.value)
        else:
            out.append({"toy_fn": tool.name, "about": tool.description, "args": tool.parameters})
    return out


def _read_choice(value: object) -> ToolChoice | None:
    assert isinstance(value, dict)
    return ToolChoice("required", value["call"])


def _read_output(rest: dict[str, Any]) -> tuple[OutputSchema | None, dict[str, Any]]:
    if "toy_schema" not in rest:
        return None, rest
    return OutputSchema(rest.pop("toy_schema")), rest


CODEC = ToolFormat(
    read_tool=_read_tool,
    write_tools=_write_tools,
    write_choice=lambda choice: {"toy_choice": {"call": choice.name or choice.mode}},
    write_output=lambda output: {"toy_schema": output.schema},
    read_choice=_read_choice,
    choice_keys=("toy_choice",),
    read_output=_read_output,
)


def _toy(tools: ToolFormat | None) -> Provider:
    return Provider(
        name="toy",
        title="Toy Lines",
        description="a toy chat",
        read=_read,
        write=_write,
        request=_request,
        settings={"temperature": "temperature"},
        native_settings=frozenset({"tools", "toy_choice", "toy_schema"}),
        tools=tools,
    )


def _register(monkeypatch: pytest.MonkeyPatch, provider: Provider) -> None:
    monkeypatch.setitem(PROVIDERS, provider.name, provider)
    monkeypatch.setitem(FORMATS, provider.name, provider)


def _bundle(settings: dict[str, Any]) -> Bundle:
    return Bundle.from_zip(
        "t", "## user\nWeather in Paris?\n", {"settings.json": json.dumps(settings).encode()}
    )


def test_a_providers_codec_writes_the_portable_declaration_in_its_shape(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _register(monkeypatch, _toy(CODEC))
    body = _bundle(PORTABLE).to_request("toy", model="m")
    assert body == {
        "model": "m",
        "lines": [{"who": "user", "say": "Weather in Paris?"}],
        **TOY_SETTINGS,
    }
    # A built-in provider writes the same bundle in its own shape.
    chat = _bundle(PORTABLE).to_request("openai", model="m")
    assert chat["tools"][0]["function"]["parameters"] == WEATHER


def test_a_providers_codec_reads_its_shape_on_import_into_the_portable_form(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _register(monkeypatch, _toy(CODEC))
    payload = {"lines": [{"who": "user", "say": "Weather in Paris?"}], **TOY_SETTINGS}
    bundle = import_messages(payload, format="toy")
    assert bundle.settings == {
        "tools": [{"name": "get_weather", "description": "Weather now", "parameters": WEATHER}],
        "tool_choice": {"name": "get_weather"},
        "response_format": {"schema": FORECAST},
    }
    # ... and every provider sends what the toy payload declared.
    gemini = bundle.to_request("gemini", model="m")
    assert gemini["config"]["tool_config"] == {
        "function_calling_config": {"mode": "ANY", "allowed_function_names": ["get_weather"]}
    }


def test_a_provider_without_a_codec_refuses_tools_by_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _register(monkeypatch, _toy(None))
    with pytest.raises(InvalidSettingsError, match="Toy Lines takes no tools, tool_choice"):
        _bundle(PORTABLE).to_request("toy", model="m")
    body = _bundle({"temperature": 0.5}).to_request("toy", model="m")
    assert body["temperature"] == 0.5


def test_the_portable_modules_reach_a_provider_only_through_the_registry() -> None:
    """``chat._tools`` and ``chat._tool_model`` import no provider module: every provider's
    shapes are its codec's, found in ``PROVIDERS``."""
    chat = Path(lmml_mdit.chat.__file__).parent
    allowed = {"providers", "providers.base"}
    for name in ("_tools.py", "_tool_model.py"):
        tree = ast.parse((chat / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                module = node.module or ""
                if module.startswith("providers"):
                    assert module in allowed, f"{name} imports .{module}"
                    if module == "providers":
                        assert {alias.name for alias in node.names} <= {"PROVIDERS"}, name
