"""A Responses call or output item's own fields (``namespace``, ``caller``, ``async``,
``id``, ``status``, ...): kept beside the call or on its tool turn by the import, sent
back to Responses unchanged and left out of every other format with a warning naming
them; a field no item takes is refused, never dropped (docs/bridge.md, "What each format
keeps")."""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from test_bridge_roundtrip import exported, validate_with_sdk

import lmml_mdit
from lmml_mdit import Bundle, NativeItemDroppedWarning, import_messages
from lmml_mdit.cli import main
from lmml_mdit.errors import ImportFormatError
from lmml_mdit.narrative import tool_calls

CALL = {
    "type": "function_call",
    "id": "fc_1",
    "call_id": "call_1",
    "name": "get_weather",
    "arguments": '{"city": "Paris"}',
    "namespace": "weather",
    "caller": {"type": "program", "caller_id": "call_0"},
    "async": False,
    "status": "completed",
}
OUTPUT = {
    "type": "function_call_output",
    "call_id": "call_1",
    "output": "Sunny",
    "name": "get_weather",
    "namespace": "weather",
    "caller": {"type": "direct"},
}
ITEMS: list[Any] = [
    {"type": "message", "role": "user", "content": "Weather in Paris?"},
    CALL,
    OUTPUT,
    {"type": "message", "role": "assistant", "content": "Sunny."},
]


def reopened(bundle: Bundle, tmp_path: Path) -> Bundle:
    path = tmp_path / "chat.lmmlz"
    bundle.save(path)
    return lmml_mdit.open(path)


def test_a_function_calls_namespace_and_caller_come_back_to_responses_unchanged(
    tmp_path: Path,
) -> None:
    bundle = reopened(import_messages({"input": ITEMS}, format="openai-responses"), tmp_path)
    [call] = tool_calls(bundle.narrative)
    assert (call.id, call.name, call.arguments) == ("call_1", "get_weather", {"city": "Paris"})
    assert '"namespace": "weather"' in bundle.narrative.text
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is left out
        body = exported(bundle, "openai-responses")
    validate_with_sdk("openai-responses", body)
    assert body["input"][1] == CALL
    assert body["input"][2] == OUTPUT


def test_lmml_import_keeps_them(tmp_path: Path) -> None:
    source = tmp_path / "body.json"
    source.write_text(json.dumps({"input": ITEMS}), encoding="utf-8")
    out = tmp_path / "chat.lmml"
    assert main(["import", "-q", str(source), "-o", str(out)]) == 0
    body = lmml_mdit.open(out).to_request("openai-responses", model="m")
    assert body["input"][1] == CALL


def test_another_format_sends_the_call_without_them_and_names_them(tmp_path: Path) -> None:
    bundle = reopened(import_messages({"input": ITEMS}, format="openai-responses"), tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = bundle.to_request("openai", model="m")
    dropped = [str(w.message) for w in caught if w.category is NativeItemDroppedWarning]
    assert len(dropped) == 2
    assert "'namespace'" in dropped[0] and "'caller'" in dropped[0] and "'async'" in dropped[0]
    assert "'namespace'" in dropped[1] and "'name'" in dropped[1]
    validate_with_sdk("openai", body)
    assert body["messages"][1]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert "namespace" not in json.dumps(body)


def test_a_message_key_no_message_takes_is_refused_never_dropped() -> None:
    items = copy.deepcopy(ITEMS)
    items[0]["name"] = "bob"
    with pytest.raises(ImportFormatError, match="unsupported key 'name'") as info:
        import_messages({"input": items}, format="openai-responses")
    assert info.value.name == "input[0]"


def test_any_other_field_of_a_call_or_output_item_is_kept_for_responses(
    tmp_path: Path,
) -> None:
    # Every field beside the item's own is its record: nothing is dropped silently.
    items = copy.deepcopy(ITEMS)
    items[1]["content"] = "kept"
    items[2]["role"] = "kept too"
    bundle = reopened(import_messages({"input": items}, format="openai-responses"), tmp_path)
    body = bundle.to_request("openai-responses", model="m")
    assert body["input"][1]["content"] == "kept"
    assert body["input"][2]["role"] == "kept too"
