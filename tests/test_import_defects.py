"""``lmml import`` and ``import_messages`` say each defect of what they wrote that a send
refuses (a call left unanswered before a user message), at its line, in the file written:
the import is faithful to the payload, and nothing it writes is refused without a word."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit import import_messages
from lmml_mdit.bundle import DefectWarning
from lmml_mdit.cli import main

CALL = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
INTERLEAVED = [
    {"role": "user", "content": "weather?"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "user", "content": "hurry"},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
]
ANSWERED = [INTERLEAVED[0], INTERLEAVED[1], INTERLEAVED[3], INTERLEAVED[2]]
SAID = "7:1: unanswered_tool_call: tool call c1 has no tool turn answering it"


def test_the_api_warns_each_defect_a_send_refuses() -> None:
    with pytest.warns(DefectWarning) as caught:
        bundle = import_messages(INTERLEAVED, name="chat")
    (warning,) = [w for w in caught if w.category is DefectWarning]
    assert str(warning.message).startswith(f"chat.lmmlz:{SAID}")
    assert [issue.kind for issue in bundle.validate()] == ["unanswered_tool_call"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DefectWarning)
        import_messages(ANSWERED, name="chat")  # answered in order: nothing to say


@pytest.mark.parametrize("out", ["chat.lmml", "chat.lmmlz"])
def test_import_names_the_file_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], out: str
) -> None:
    source = tmp_path / "body.json"
    source.write_text(json.dumps({"model": "m", "messages": INTERLEAVED}), encoding="utf-8")
    target = tmp_path / "out" / out
    assert main(["import", str(source), "-o", str(target)]) == 0
    err = capsys.readouterr().err
    assert f"lmml: warning: {target}:{SAID}" in err
    assert [i.kind for i in lmml_mdit.open(target).validate()] == ["unanswered_tool_call"]
    source.write_text(json.dumps({"model": "m", "messages": ANSWERED}), encoding="utf-8")
    assert main(["import", str(source), "-o", str(target)]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_jsonl_import_names_each_bundle(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "chats.jsonl"
    lines = [json.dumps({"messages": m}) for m in (ANSWERED, INTERLEAVED, ANSWERED)]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["import", str(source), "-o", str(tmp_path / "out")]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warned == [
        f"lmml: warning: {tmp_path / 'out' / '000002.lmmlz'}:{SAID} before the user turn"
        " at line 11 (add a tool turn starting with @c1.tool_call.json right after its"
        " assistant turn)"
    ]
