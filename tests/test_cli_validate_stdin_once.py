"""``lmml validate``: standard input is read once, and a file that cannot be read is an
``lmml: error:`` line with ``--json`` too (commands run in-process through
``lmml_mdit.cli.main``)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from lmml_mdit.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _feed(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def test_standard_input_given_twice_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lmml validate - -`` read the narrative once and then an empty second "file",
    reporting ``<stdin>: OK`` for text it never saw."""
    _feed(monkeypatch, b"see @nothing.png\n")
    status = main(["validate", "-", "-"])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    [line] = captured.err.splitlines()
    assert line.startswith("lmml: error: - (standard input) can be given once"), line


def test_standard_input_once_beside_files_is_checked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _feed(monkeypatch, b"see @nothing.png\n")
    status = main(["validate", "-", str(EXAMPLES / "sales-review.lmml")])
    lines = capsys.readouterr().out.splitlines()
    assert status == 1
    assert lines[0].startswith("<stdin>:1:5: missing_reference: ")
    assert lines[-1] == f"{EXAMPLES / 'sales-review.lmml'}: OK"


@pytest.mark.parametrize("flag", [[], ["--json"]])
def test_an_unreadable_file_is_an_error_line_with_or_without_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    """With ``--json`` the unreadable file was only a field of the report: nothing on
    standard error said why the status was 2."""
    gone = tmp_path / "gone.lmml"
    status = main(["validate", *flag, str(gone), str(EXAMPLES / "sales-review.lmml")])
    captured = capsys.readouterr()
    assert status == 2
    [line] = captured.err.splitlines()
    assert line.startswith(f"lmml: error: {gone}: cannot read the file"), line
    if flag:
        report = json.loads(captured.out)  # standard output holds the JSON alone
        assert report[0]["error"] == line.removeprefix("lmml: error: ")
        assert report[1] == {
            "path": str(EXAMPLES / "sales-review.lmml"),
            "error": None,
            "issues": [],
        }
