"""A JSON array of ShareGPT records (the layout of many ShareGPT dataset files) is named as
such, with the way to import it, instead of being read as one conversation whose entries
hold an unknown key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lmml_mdit import ImportFormatError, import_messages
from lmml_mdit import open as open_bundle
from lmml_mdit.cli import main

RECORD = {
    "conversations": [
        {"from": "human", "value": "hi"},
        {"from": "gpt", "value": "hello"},
    ]
}


def test_the_api_names_a_record_array() -> None:
    with pytest.raises(ImportFormatError) as caught:
        import_messages([RECORD, RECORD], "sharegpt")
    said = str(caught.value)
    assert "a JSON array of 2 ShareGPT record(s), not one conversation" in said
    assert ".jsonl" in said
    assert "unsupported key" not in said


def test_the_cli_names_a_record_array_and_its_jsonl_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    array = tmp_path / "data.json"
    array.write_text(json.dumps([RECORD]), encoding="utf-8")
    assert main(["import", str(array), "--format", "sharegpt", "-o", str(tmp_path / "x")]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"lmml: error: {array}: [0]: this is a JSON array of 1 ShareGPT")
    assert "import that; each record becomes a bundle" in line
    assert not (tmp_path / "x").exists()
    # What the hint says works.
    lines = tmp_path / "data.jsonl"
    lines.write_text(json.dumps(RECORD) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["import", str(lines), "-o", str(out), "-q"]) == 0
    [bundle] = sorted(out.iterdir())
    assert [m["role"] for m in open_bundle(bundle).messages()] == ["user", "assistant"]


def test_a_bare_conversations_list_still_imports() -> None:
    bundle = import_messages(RECORD["conversations"], "sharegpt")
    assert [m["role"] for m in bundle.messages()] == ["user", "assistant"]
