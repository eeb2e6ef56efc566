"""A bundle ShareGPT cannot carry is refused at the asset's place in the narrative, from
the API and from ``lmml export --provider sharegpt``, as a provider export names it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit.cli import main
from lmml_mdit.errors import UnsupportedContentError

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a0a3a1a30000000049454e44ae426082"
)
CHAT = """## Turn 1 -- user

Plot it.

## Turn 2 -- assistant

@@@call_1.tool_call.json
{"id": "call_1", "name": "plot", "arguments": {}}
@@@

## Turn 3 -- tool

@call_1.tool_call.json

Here: @chart.png
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "chat.lmml").write_text(CHAT, encoding="utf-8")
    (runs / "chart.png").write_bytes(PNG)
    return runs


def test_the_refusal_names_the_asset_line_and_column(folder: Path) -> None:
    with pytest.raises(UnsupportedContentError) as info:
        lmml_mdit.export_sharegpt(lmml_mdit.open(folder / "chat.lmml"))
    assert (info.value.line, info.value.column) == (15, 7)
    assert str(info.value).startswith("chat.lmml:15:7: ShareGPT cannot carry")


def test_lmml_export_prints_the_place(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["export", str(folder), "-p", "sharegpt", "--jsonl", str(tmp_path / "o.jsonl")])
    assert status == 1
    err = capsys.readouterr().err
    assert f"lmml: error: {folder / 'chat.lmml'}:15:7: ShareGPT cannot carry" in err, err


def _parallel(between: str = "") -> str:
    return f"""## Turn 1 -- user

Weather in Paris and Rome?

## Turn 2 -- assistant

@@@call_p.tool_call.json
{{"id": "call_p", "name": "get_weather", "arguments": {{"city": "Paris"}}}}
@@@

@@@call_r.tool_call.json
{{"id": "call_r", "name": "get_weather", "arguments": {{"city": "Rome"}}}}
@@@

## Turn 3 -- tool

@call_r.tool_call.json

Rome: 30 C
{between}
## Turn 4 -- tool

@call_p.tool_call.json

Paris: 20 C

## Turn 5 -- assistant

Rome is warmer.
"""


def _pairs(record: object) -> list[tuple[object, str]]:
    """Each call's arguments with the result that answers it, as an import reads them."""
    bundle = lmml_mdit.import_messages(record, "sharegpt")
    messages = bundle.messages("openai")
    calls = {
        call["id"]: json.loads(call["function"]["arguments"])
        for message in messages
        for call in message.get("tool_calls", [])
    }
    return [
        (calls[message["tool_call_id"]], message["content"][0]["text"])
        for message in messages
        if message["role"] == "tool"
    ]


def test_parallel_results_answered_out_of_order_keep_their_calls(tmp_path: Path) -> None:
    # ShareGPT pairs an observation with the earliest unanswered function_call: written
    # in the LMML order, Rome's result came back as Paris's.
    (tmp_path / "chat.lmml").write_text(_parallel(), encoding="utf-8")
    record = lmml_mdit.export_sharegpt(lmml_mdit.open(tmp_path / "chat.lmml"))
    assert sorted(_pairs(record), key=str) == [
        ({"city": "Paris"}, "Paris: 20 C"),
        ({"city": "Rome"}, "Rome: 30 C"),
    ]


def test_a_result_sharegpt_cannot_pair_is_refused_at_its_turn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _parallel("\n## Turn 4 -- assistant\n\nAnd Paris?\n")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "chat.lmml").write_text(text, encoding="utf-8")
    bundle = lmml_mdit.open(tmp_path / "runs" / "chat.lmml")
    assert bundle.validate() == []
    with pytest.raises(UnsupportedContentError, match="earliest unanswered") as info:
        lmml_mdit.export_sharegpt(bundle)
    assert (info.value.line, info.value.column) == (15, 1)
    out = tmp_path / "o.jsonl"
    assert main(["export", str(tmp_path / "runs"), "-p", "sharegpt", "--jsonl", str(out)]) == 1
    assert "chat.lmml:15:1: ShareGPT" in capsys.readouterr().err


TEMPLATE = """---
inputs:
  who:
    type: string
    default: Bob
---

## user

Hi {{ who }}
"""


def test_a_template_is_refused_not_written_unfilled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A provider export fills the placeholder ("Hi Bob"); the ShareGPT record held the
    # placeholder itself, "Hi {{ who }}", as a dataset line.
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "greet.lmml").write_text(TEMPLATE, encoding="utf-8")
    bundle = lmml_mdit.open(runs / "greet.lmml")
    assert bundle.messages("openai")[0]["content"][0]["text"] == "Hi Bob"
    with pytest.raises(UnsupportedContentError, match="placeholder") as info:
        lmml_mdit.export_sharegpt(bundle)
    assert (info.value.line, info.value.column) == (10, 4)
    out = tmp_path / "o.jsonl"
    assert main(["export", str(runs), "-p", "sharegpt", "--jsonl", str(out)]) == 1
    assert "greet.lmml:10:4: ShareGPT" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == ""


def test_braces_in_a_chat_that_is_no_template_are_text() -> None:
    record = {"conversations": [{"from": "human", "value": "Use {{ name }} in Jinja"}]}
    assert lmml_mdit.export_sharegpt(lmml_mdit.import_messages(record)) == record


def test_export_sharegpt_refuses_a_defective_bundle_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Called directly, export_sharegpt wrote a bundle with a missing reference as a record;
    # lmml export refused it. Both refuse now, and both write it with strict=False / --force,
    # the reference as the text it is (ShareGPT said it cannot carry the asset, which is
    # not there).
    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "chat.lmml"
    path.write_text("## user\nsee @gone.png\n\n## assistant\nok\n", encoding="utf-8")
    with lmml_mdit.open(path) as bundle:
        with pytest.raises(lmml_mdit.DefectError) as refused:
            lmml_mdit.export_sharegpt(bundle)
        assert refused.value.kind == "missing_reference"
        with pytest.warns(lmml_mdit.DefectWarning):
            record = lmml_mdit.export_sharegpt(bundle, strict=False)
    assert record["conversations"][0] == {"from": "human", "value": "see @gone.png"}
    out = tmp_path / "out.jsonl"
    assert main(["export", str(folder), "-p", "sharegpt", "--jsonl", str(out)]) == 1
    assert ": missing_reference: " in capsys.readouterr().err
    assert main(["export", str(folder), "-p", "sharegpt", "--jsonl", str(out), "--force"]) == 0
    assert json.loads(out.read_text(encoding="utf-8")) == record
