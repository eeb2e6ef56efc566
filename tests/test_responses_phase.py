"""An assistant message's ``phase`` without the output message's ``id`` and ``status`` (the
input form the Responses API reference shows for replaying a phase) comes back as that
input form, which the SDK's request type accepts: text as a string, ``phase`` beside it.
With ``id`` and ``status`` it stays the replayed output message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_sdk_acceptance import accepted_by_the_sdk

from lmml_mdit import import_messages, to_request
from lmml_mdit import open as open_bundle

EASY = {
    "model": "gpt-5.4",
    "input": [
        {"role": "user", "content": "Say hello."},
        {"role": "assistant", "content": "Hello!", "phase": "final_answer"},
        {"role": "user", "content": "Again, in French."},
    ],
}

REPLAYED = {
    "type": "message",
    "id": "msg_1",
    "status": "completed",
    "role": "assistant",
    "content": [{"type": "output_text", "text": "Hello!", "annotations": []}],
    "phase": "commentary",
}


def _reopened(source: Any, tmp_path: Path) -> Any:
    path = tmp_path / "chat.lmmlz"
    import_messages(source, "openai-responses").save(path)
    return open_bundle(path)


def test_a_phase_alone_comes_back_on_the_input_message(tmp_path: Path) -> None:
    body = to_request(_reopened(EASY, tmp_path), "openai-responses")
    assert body["input"][1] == {
        "type": "message",
        "role": "assistant",
        "content": "Hello!",
        "phase": "final_answer",
    }
    accepted_by_the_sdk("openai-responses", body)


@pytest.mark.parametrize("phase", ["commentary", "final_answer"])
def test_a_replayed_output_message_keeps_its_parts(tmp_path: Path, phase: str) -> None:
    source = {
        "model": "gpt-5.4",
        "input": [{"role": "user", "content": "hi"}, {**REPLAYED, "phase": phase}],
    }
    body = to_request(_reopened(source, tmp_path), "openai-responses")
    assert body["input"][1] == {**REPLAYED, "phase": phase}
    accepted_by_the_sdk("openai-responses", body)
