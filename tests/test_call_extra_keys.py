"""A tool call's other keys (Gemini's ``extra_content`` in an OpenAI Chat ``tool_calls``
entry, holding the thought signature the next turn must send back): kept in the call
fence by ``lmml import``, sent back by the OpenAI Chat export, and left out of every other
format with a warning (docs/bridge.md, "Tool call keys")."""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from _wire_server import Json, Sse, WireServer, base_url
from test_bridge_roundtrip import validate_with_sdk

import lmml_mdit
from lmml_mdit import Bundle, NativeItemDroppedWarning, export_sharegpt, import_messages
from lmml_mdit.chat.providers import PROVIDERS
from lmml_mdit.cli import main
from lmml_mdit.narrative import tool_calls

EXTRA = {"google": {"thought_signature": "abc"}}
CALL = {
    "index": 0,
    "id": "c",
    "type": "function",
    "function": {"name": "f", "arguments": "{}"},
    "extra_content": EXTRA,
}
BODY = {
    "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
    ]
}
SENT = {
    "id": "c",
    "type": "function",
    "function": {"name": "f", "arguments": "{}"},
    "extra_content": EXTRA,
}
"""The call as the OpenAI Chat export sends it back: the stream's ``index`` left out."""


def reopened(bundle: Bundle, tmp_path: Path) -> Bundle:
    path = tmp_path / "chat.lmmlz"
    bundle.save(path)
    return lmml_mdit.open(path)


def dropped(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if w.category is NativeItemDroppedWarning]


def test_the_call_fence_keeps_the_entrys_other_keys() -> None:
    [call] = tool_calls(import_messages(BODY, format="openai").narrative)
    assert (call.id, call.name, call.arguments, call.extra) == (
        "c",
        "f",
        {},
        {"extra_content": EXTRA},
    )


def test_the_openai_chat_export_sends_them_back(tmp_path: Path) -> None:
    bundle = reopened(import_messages(BODY, format="openai"), tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = bundle.to_request("openai", model="m")
    assert body["messages"][1]["tool_calls"] == [SENT]
    assert dropped(caught) == []


def test_the_functions_other_keys_come_back_inside_it(tmp_path: Path) -> None:
    source = copy.deepcopy(BODY)
    source["messages"][1]["tool_calls"][0]["function"]["hint"] = {"kept": True}
    bundle = reopened(import_messages(source, format="openai"), tmp_path)
    [call] = tool_calls(bundle.narrative)
    assert call.extra == {"extra_content": EXTRA, "function": {"hint": {"kept": True}}}
    [sent] = bundle.to_request("openai", model="m")["messages"][1]["tool_calls"]
    assert sent["function"] == {"name": "f", "arguments": "{}", "hint": {"kept": True}}


def test_lmml_import_writes_them_in_the_call_fence(tmp_path: Path) -> None:
    source = tmp_path / "body.json"
    source.write_text(json.dumps(BODY), encoding="utf-8")
    out = tmp_path / "chat.lmml"
    assert main(["import", "-q", str(source), "-o", str(out)]) == 0
    assert '"extra_content": {"google": {"thought_signature": "abc"}}' in out.read_text("utf-8")
    assert lmml_mdit.open(out).to_request("openai", model="m")["messages"][1]["tool_calls"] == [
        SENT
    ]


@pytest.mark.parametrize("target", ["openai-responses", "anthropic"])
def test_other_providers_send_the_call_without_them_with_one_warning(
    target: str, tmp_path: Path
) -> None:
    bundle = reopened(import_messages(BODY, format="openai"), tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = bundle.to_request(target, model="m")
    assert dropped(caught) == [
        f"chat.lmmlz:7:1: key 'extra_content' of tool call 'f' (c.tool_call.json) left out: "
        f"{PROVIDERS[target].target} cannot take them"
    ]
    text = json.dumps(body)
    assert "thought_signature" not in text and '"f"' in text


def test_gemini_puts_the_signature_on_the_calls_part(tmp_path: Path) -> None:
    bundle = reopened(import_messages(BODY, format="openai"), tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = bundle.to_request("gemini", model="m")
    assert dropped(caught) == []
    validate_with_sdk("gemini", body)
    assert body["contents"][1] == {
        "role": "model",
        "parts": [
            {"function_call": {"id": "c", "name": "f", "args": {}}, "thought_signature": "abc"}
        ],
    }
    again = reopened(import_messages(body, format="gemini"), tmp_path)
    assert again.to_request("gemini", model="m")["contents"] == body["contents"]


def test_gemini_names_the_keys_beside_the_signature_it_leaves_out(tmp_path: Path) -> None:
    source = copy.deepcopy(BODY)
    call = source["messages"][1]["tool_calls"][0]
    call["extra_content"] = {"google": {"thought_signature": "abc", "hint": 1}, "other": 2}
    call["more"] = True
    bundle = reopened(import_messages(source, format="openai"), tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = bundle.to_request("gemini", model="m")
    assert dropped(caught) == [
        "chat.lmmlz:7:1: keys 'extra_content', 'more' of tool call 'f' (c.tool_call.json) "
        "left out: Gemini (gemini) cannot take them"
    ]
    assert body["contents"][1]["parts"][0]["thought_signature"] == "abc"
    assert "hint" not in json.dumps(body)


def test_a_call_without_other_keys_warns_nowhere(tmp_path: Path) -> None:
    source: Any = copy.deepcopy(BODY)
    del source["messages"][1]["tool_calls"][0]["extra_content"]
    bundle = reopened(import_messages(source, format="openai"), tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for target in ("openai-responses", "anthropic", "gemini"):
            bundle.to_request(target, model="m")
        export_sharegpt(bundle)
    assert dropped(caught) == []


def test_sharegpt_writes_the_call_without_them_with_one_warning(tmp_path: Path) -> None:
    bundle = reopened(import_messages(BODY, format="openai"), tmp_path)
    with pytest.warns(NativeItemDroppedWarning) as caught:
        record = export_sharegpt(bundle)
    assert [str(w.message) for w in caught] == [
        "chat.lmmlz:7:1: key 'extra_content' of tool call 'f' (c.tool_call.json) left out: "
        "ShareGPT (sharegpt) cannot take them"
    ]
    assert record["conversations"][1] == {
        "from": "function_call",
        "value": '{"name": "f", "arguments": {}}',
    }


# -- a reply holding them (Gemini's OpenAI-compatible endpoint) ----------------------------

SENT_CHAT = "@@@settings.yaml\nmodel: m1\n@@@\n\n## Turn 1 -- user\n\nWeather in Paris?\n"


def _reply_events() -> list[tuple[str | None, Any]]:
    """A stream whose call delta holds ``extra_content`` beside its first piece."""
    chunk = {"id": "c1", "created": 1, "model": "m1", "object": "chat.completion.chunk"}

    def delta(value: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**chunk, "choices": [{"index": 0, "delta": value, "finish_reason": finish}]}

    head = {"index": 0, "id": "c", "type": "function", "extra_content": EXTRA}
    return [
        (None, delta({"role": "assistant", "tool_calls": [{**head, "function": {"name": "f"}}]})),
        (None, delta({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]})),
        (None, delta({}, "tool_calls")),
    ]


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_replys_call_keeps_them_and_sends_them_back(
    tmp_path: Path, server: WireServer, stream: bool
) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text(SENT_CHAT, encoding="utf-8")
    if stream:
        server.script(Sse(_reply_events()))
    else:
        message = {"role": "assistant", "content": None, "tool_calls": [CALL]}
        server.script(
            Json(
                {
                    "id": "c1",
                    "created": 1,
                    "model": "m1",
                    "object": "chat.completion",
                    "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
                }
            )
        )
    reply = lmml_mdit.open(path).send("openai", stream=stream, base_url=base_url(server, "openai"))
    assert [(c.id, c.name, c.extra) for c in reply.tool_calls] == [
        ("c", "f", {"extra_content": EXTRA})
    ]
    assert '"extra_content": {"google": {"thought_signature": "abc"}}' in reply.lmml


def test_a_replys_custom_call_stays_a_custom_call(tmp_path: Path, server: WireServer) -> None:
    # The reply's calls take fresh ids; the rest of each call (here its custom type) stays.
    path = tmp_path / "chat.lmml"
    path.write_text(SENT_CHAT, encoding="utf-8")
    custom = {"id": "c", "type": "custom", "custom": {"name": "code_exec", "input": "print(1)"}}
    message = {"role": "assistant", "content": None, "tool_calls": [custom]}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    body = {"id": "c1", "created": 1, "model": "m1", "object": "chat.completion"}
    server.script(Json({**body, "choices": [choice]}))
    reply = lmml_mdit.open(path).send("openai", stream=False, base_url=base_url(server, "openai"))
    [call] = reply.tool_calls
    assert (call.name, call.arguments, call.is_custom) == ("code_exec", "print(1)", True)
