"""A reply's custom tool call (OpenAI's free-form tools), streamed through the openai SDK
from the loopback server: reported by a ``ToolCallEvent`` as a function call is, its input
text as the arguments, and kept a custom call in the reply (docs/run.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _wire_server import Sse, WireServer, base_url

import lmml_mdit
from lmml_mdit.run import ToolCallEvent

CHAT = "@@@settings.yaml\nmodel: m1\n@@@\n\n## Turn 1 -- user\n\nPrint one.\n"
INPUT = '{"a": 1}'
"""The custom call's input: text that reads as JSON, which must stay text."""


def _chat_events() -> list[tuple[str | None, Any]]:
    """A Chat Completions stream whose call is a custom tool's, its input in two pieces."""
    chunk = {"id": "c1", "created": 1, "model": "m1", "object": "chat.completion.chunk"}

    def delta(value: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**chunk, "choices": [{"index": 0, "delta": value, "finish_reason": finish}]}

    head = {"index": 0, "id": "call_1", "type": "custom"}
    return [
        (None, delta({"role": "assistant", "content": ""})),
        (None, delta({"tool_calls": [{**head, "custom": {"name": "code_exec", "input": ""}}]})),
        (None, delta({"tool_calls": [{"index": 0, "custom": {"input": INPUT[:4]}}]})),
        (None, delta({"tool_calls": [{"index": 0, "custom": {"input": INPUT[4:]}}]})),
        (None, delta({}, "tool_calls")),
    ]


def _responses_events() -> list[tuple[str | None, Any]]:
    """A Responses stream whose one output item is a ``custom_tool_call``."""
    item = {
        "type": "custom_tool_call",
        "id": "ctc_1",
        "call_id": "call_1",
        "name": "code_exec",
        "input": INPUT,
        "status": "completed",
    }
    whole = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "m1",
        "status": "completed",
        "output": [item],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 3,
            "output_tokens": 2,
            "total_tokens": 5,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }
    started = {**whole, "status": "in_progress", "output": [], "usage": None}
    added = {**item, "input": "", "status": "in_progress"}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": started},
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        {
            "type": "response.custom_tool_call_input.delta",
            "item_id": "ctc_1",
            "output_index": 0,
            "delta": INPUT,
        },
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": whole},
    ]
    return [
        (event["type"], {**event, "sequence_number": number}) for number, event in enumerate(events)
    ]


@pytest.mark.parametrize(
    ("provider", "events"),
    [("openai", _chat_events), ("openai-responses", _responses_events)],
)
def test_a_streamed_custom_call_is_reported_as_a_function_call_is(
    tmp_path: Path, server: WireServer, provider: str, events: Any
) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text(CHAT, encoding="utf-8")
    server.script(Sse(events(), done_marker=provider == "openai"))
    seen: list[object] = []
    reply = lmml_mdit.open(path).send(
        provider, stream=True, base_url=base_url(server, provider), on_event=seen.append
    )
    assert [e for e in seen if isinstance(e, ToolCallEvent)] == [
        ToolCallEvent("call_1", "code_exec", INPUT, custom=True)
    ]
    [call] = reply.tool_calls
    assert (call.name, call.arguments, call.is_custom) == ("code_exec", INPUT, True)
    assert [e for e in reply if isinstance(e, ToolCallEvent)] == [
        ToolCallEvent("call_1", "code_exec", INPUT, custom=True)
    ]


def test_a_replys_custom_call_item_goes_back_without_its_item_id(
    tmp_path: Path, server: WireServer
) -> None:
    """As a ``function_call`` item's: the reply's ``ctc_`` id names an item the server
    stored, which a request sent with ``store`` false cannot refer to."""
    path = tmp_path / "chat.lmml"
    path.write_text(CHAT, encoding="utf-8")
    server.script(Sse(_responses_events()))
    url = base_url(server, "openai-responses")
    reply = lmml_mdit.open(path).send("openai-responses", stream=True, base_url=url)
    assert "ctc_1" not in reply.lmml
    [call] = reply.message.parts
    assert (call.id, call.name, call.arguments) == ("call_1", "code_exec", INPUT)
