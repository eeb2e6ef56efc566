"""Custom tool calls (OpenAI's free-form tools): imported from OpenAI Chat and Responses as
tool calls whose fence has ``"type": "custom"``, sent back in each OpenAI API's own form,
and left out, with their results, for every other format (docs/bridge.md, "Custom tool
calls")."""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from test_bridge_roundtrip import exported, validate_with_sdk

import lmml_mdit
from lmml_mdit import (
    Bundle,
    NativeItemDroppedWarning,
    detect_format,
    export_sharegpt,
    import_messages,
    render_turns,
)
from lmml_mdit.errors import ImportFormatError, InvalidToolCallError
from lmml_mdit.narrative import tool_calls, tool_result_call

CORPUS = Path(__file__).parent / "bridge_corpus" / "realistic"

CHAT_CALL = {"id": "call_1", "type": "custom", "custom": {"name": "code_exec", "input": "{}"}}
CHAT = {
    "model": "gpt-5",
    "tools": [{"type": "custom", "custom": {"name": "code_exec"}}],
    "messages": [
        {"role": "user", "content": "Print an empty dict."},
        {"role": "assistant", "content": None, "tool_calls": [CHAT_CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{}"},
        {"role": "assistant", "content": "It printed {}."},
    ],
}
"""A custom call whose input looks like JSON: it must come back as the same text."""


def load(relative: str) -> Any:
    return json.loads((CORPUS / relative).read_text(encoding="utf-8"))


def reopened(bundle: Bundle, tmp_path: Path) -> Bundle:
    path = tmp_path / "chat.lmmlz"
    bundle.save(path)
    return lmml_mdit.open(path)


def test_a_chat_custom_call_is_a_call_fence_answered_by_its_tool_turn() -> None:
    bundle = import_messages(CHAT)
    [call] = tool_calls(bundle.narrative)
    assert (call.id, call.name, call.arguments, call.extra) == (
        "call_1",
        "code_exec",
        "{}",
        {"type": "custom"},
    )
    assert call.is_custom
    tool_turn = bundle.narrative.turns[2]
    assert tool_turn.role == "tool"
    answered = tool_result_call(tool_turn, bundle.narrative)
    assert answered is not None and answered.is_custom
    assert bundle.validate() == []


def test_a_chat_custom_call_comes_back_to_chat_as_it_was(tmp_path: Path) -> None:
    body = exported(reopened(import_messages(CHAT), tmp_path), "openai")
    validate_with_sdk("openai", body)
    assert body["messages"][1] == {"role": "assistant", "content": None, "tool_calls": [CHAT_CALL]}
    assert body["messages"][2]["tool_call_id"] == "call_1"
    assert body["tools"] == CHAT["tools"]


def test_a_custom_call_goes_between_the_openai_apis_in_each_ones_form(tmp_path: Path) -> None:
    bundle = reopened(import_messages(CHAT), tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the custom tool's declaration goes along too
        responses = exported(bundle, "openai-responses")
    validate_with_sdk("openai-responses", responses)
    assert responses["tools"] == [{"type": "custom", "name": "code_exec"}]
    call, output = responses["input"][1:3]
    assert call == {
        "type": "custom_tool_call",
        "call_id": "call_1",
        "name": "code_exec",
        "input": "{}",
    }
    assert output == {"type": "custom_tool_call_output", "call_id": "call_1", "output": "{}"}
    again = reopened(import_messages(responses, "openai-responses"), tmp_path)
    assert exported(again, "openai")["messages"][1]["tool_calls"] == [CHAT_CALL]


def test_responses_custom_items_are_a_call_and_a_tool_turn_with_their_records(
    tmp_path: Path,
) -> None:
    source = load("openai-responses/custom_tool_call.json")
    bundle = import_messages(source)
    assert [turn.role for turn in bundle.narrative.turns] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "tool",
    ]
    first, second = tool_calls(bundle.narrative)
    assert first.is_custom and second.is_custom
    assert (first.id, first.arguments) == ("call_aB3", 'print("hello world")')
    # the call item's own id is its record, put back on it
    assert '{"id": "ctc_68a2"}' in bundle.narrative.text
    body = exported(reopened(bundle, tmp_path), "openai-responses")
    validate_with_sdk("openai-responses", body)
    assert body["input"][2] == source["input"][2]
    assert body["input"][3] == {
        "type": "custom_tool_call_output",
        "call_id": "call_aB3",
        "output": "hello world",
    }


@pytest.mark.parametrize("target", ["anthropic", "gemini"])
def test_other_providers_leave_the_call_and_its_result_out_with_a_warning(
    target: str, tmp_path: Path
) -> None:
    bundle = reopened(import_messages(CHAT), tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = bundle.to_request(target, model="m")
    dropped = [str(w.message) for w in caught if w.category is NativeItemDroppedWarning]
    assert dropped == [
        f"chat.lmmlz:7:1: custom tool call 'code_exec' (call_1.tool_call.json) left out: "
        f"{lmml_mdit.chat.providers.PROVIDERS[target].target} takes no custom tools",
        f"chat.lmmlz:11:1: the result of custom tool call 'code_exec' (call_1.tool_call.json) "
        f"left out: {lmml_mdit.chat.providers.PROVIDERS[target].target} takes no custom tools",
    ]
    validate_with_sdk(target, body)
    assert "call_1" not in json.dumps(body)
    assert "It printed {}." in json.dumps(body)


def test_sharegpt_leaves_the_call_and_its_result_out_with_a_warning(tmp_path: Path) -> None:
    bundle = reopened(import_messages(CHAT), tmp_path)
    with pytest.warns(NativeItemDroppedWarning) as caught:
        record = export_sharegpt(bundle)
    assert [str(w.message) for w in caught] == [
        "chat.lmmlz:7:1: custom tool call 'code_exec' (call_1.tool_call.json) left out: "
        "ShareGPT (sharegpt) takes no custom tools",
        "chat.lmmlz:11:1: the result of custom tool call 'code_exec' (call_1.tool_call.json) "
        "left out: ShareGPT (sharegpt) takes no custom tools",
    ]
    assert record["conversations"] == [
        {"from": "human", "value": "Print an empty dict."},
        {"from": "gpt", "value": "It printed {}."},
    ]


def test_render_turns_writes_a_custom_call_in_chats_form() -> None:
    turns = render_turns(import_messages(CHAT))
    assert turns[1]["tool_calls"] == [CHAT_CALL]


def test_a_custom_call_entrys_other_keys_are_kept_as_a_function_calls_are(
    tmp_path: Path,
) -> None:
    body = copy.deepcopy(CHAT)
    entry = body["messages"][1]["tool_calls"][0]
    entry["index"] = 0  # a stream's index: not kept, as for a function call
    entry["extra_content"] = {"google": {"thought_signature": "abc"}}
    entry["custom"]["hint"] = "kept"
    bundle = reopened(import_messages(body), tmp_path)
    [call] = tool_calls(bundle.narrative)
    assert call.is_custom
    assert call.extra == {
        "type": "custom",
        "extra_content": {"google": {"thought_signature": "abc"}},
        "custom": {"hint": "kept"},
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing is left out
        sent = exported(bundle, "openai")
    expected = {key: value for key, value in entry.items() if key != "index"}
    assert sent["messages"][1]["tool_calls"] == [expected]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        responses = exported(bundle, "openai-responses")
    assert [str(w.message) for w in caught if w.category is NativeItemDroppedWarning] == [
        "chat.lmmlz:7:1: keys 'extra_content', 'custom' of tool call 'code_exec' "
        "(call_1.tool_call.json) left out: OpenAI Responses (openai-responses) cannot take them"
    ]
    assert responses["input"][1] == {
        "type": "custom_tool_call",
        "call_id": "call_1",
        "name": "code_exec",
        "input": "{}",
    }


def test_a_tool_call_of_an_unknown_type_is_refused() -> None:
    body = copy.deepcopy(CHAT)
    body["messages"][1]["tool_calls"][0] = {"id": "c", "type": "mcp", "mcp": {}}
    with pytest.raises(ImportFormatError, match="unsupported tool call type 'mcp'"):
        import_messages(body)


def test_a_custom_output_must_answer_a_custom_call() -> None:
    items: list[Any] = [
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "custom_tool_call_output", "call_id": "c", "output": "ok"},
    ]
    with pytest.raises(ImportFormatError, match="custom_tool_call_output answers call 'c'") as info:
        import_messages({"input": items})
    assert info.value.name == "input[1]"
    items[0] = {"type": "custom_tool_call", "call_id": "c", "name": "f", "input": "x"}
    items[1] = {"type": "function_call_output", "call_id": "c", "output": "ok"}
    with pytest.raises(ImportFormatError, match="a custom_tool_call"):
        import_messages({"input": items})


@pytest.mark.parametrize("provider", ["openai", "openai-responses"])
def test_a_custom_call_whose_arguments_are_no_text_is_refused_on_export(provider: str) -> None:
    narrative = (
        "## user\n\nRun it.\n\n## assistant\n\n@@@c.tool_call.json\n"
        '{"id": "c", "name": "code_exec", "arguments": {"code": "1"}, "type": "custom"}\n'
        "@@@\n\n## tool\n\n@c.tool_call.json\n\n1\n"
    )
    bundle = Bundle.from_text("chat.lmml", narrative)
    with pytest.raises(InvalidToolCallError, match="needs its input as text") as info:
        bundle.to_request(provider, model="m")
    assert (info.value.name, info.value.line) == ("c.tool_call.json", 7)


def test_a_list_of_custom_items_is_taken_for_responses() -> None:
    items = [
        {"role": "user", "content": "Run it."},
        {"type": "custom_tool_call", "call_id": "c", "name": "code_exec", "input": "1"},
        {"type": "custom_tool_call_output", "call_id": "c", "output": "1"},
    ]
    assert detect_format(items) == "openai-responses"
