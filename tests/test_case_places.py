"""Where a case's failure lies, carried as data: an ``UnreadCase``'s ``file`` and
``number`` beside its reason, a ``CaseResult``'s ``place`` and ``problem`` beside its
error, an ``LmmlError``'s ``place()`` beside ``format(place=False)``; and
``lmml render --cases`` saying a case's own place once."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit import cli, render_cases
from lmml_mdit.errors import InputError
from lmml_mdit.templates import (
    CaseValues,
    UnreadCase,
    declared_inputs,
    read_case_rows,
    read_cases_file,
)

TEMPLATE = """\
---
inputs:
  city: string
  doc: {type: file, required: false}
---
## user

Sights of {{ city }}.

{{ doc }}
"""


def _template(tmp_path: Path) -> Path:
    path = tmp_path / "t.lmml"
    path.write_text(TEMPLATE, encoding="utf-8")
    return path


def test_an_unread_case_names_its_file_and_line_beside_its_reason(tmp_path: Path) -> None:
    cases = tmp_path / "c.jsonl"
    cases.write_text('{"city": "Rome"}\n\n[1]\n', encoding="utf-8")
    read = list(read_cases_file(cases))
    assert isinstance(read[0], CaseValues) and read[0].file == str(cases)
    blank, listed = read[1], read[2]
    assert isinstance(blank, UnreadCase) and isinstance(listed, UnreadCase)
    assert (blank.reason, blank.number, blank.file) == (
        "the line is blank; give a JSON object of input values",
        2,
        str(cases),
    )
    assert (listed.reason, listed.number, listed.file) == (
        "not a JSON object of input values",
        3,
        str(cases),
    )
    rows = tmp_path / "c.csv"
    rows.write_text("city\nRome,extra\n", encoding="utf-8")
    [row] = read_cases_file(rows)
    assert isinstance(row, UnreadCase)
    assert (row.reason, row.number, row.file) == ("more cells than the header names", 2, str(rows))
    [dataset] = read_case_rows([{"city": b"x"}], file="hf:data")
    assert isinstance(dataset, UnreadCase) and (dataset.number, dataset.file) == (1, "hf:data")
    # The file is not compared: an unread case equals one built from its reason and line.
    assert UnreadCase(dataset.reason, 1) == dataset and UnreadCase("x").file == ""


def test_standard_input_is_named_as_errors_name_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Stdin:
        buffer = io.BytesIO(b"not json\n")

    monkeypatch.setattr(sys, "stdin", Stdin())
    [case] = read_cases_file("-")
    assert isinstance(case, UnreadCase) and (case.number, case.file) == (1, "<stdin>")
    assert case.reason.startswith("not JSON: ")


def test_a_failed_case_gives_its_place_and_its_problem_apart(tmp_path: Path) -> None:
    bundle = lmml_mdit.open(_template(tmp_path))
    cases = tmp_path / "c.jsonl"
    lines = ["{not json", json.dumps({"city": "Rome", "doc": "../x.txt"}), json.dumps({})]
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    declarations = declared_inputs(bundle)
    given = [
        case if isinstance(case, UnreadCase) else case.held(declarations)
        for case in read_cases_file(cases, declarations)
    ]
    unread, refused, missing = render_cases(bundle, given, request=False)
    file = str(cases)
    # An unread case: its reason, said at its line of the cases file.
    assert unread.place == (file, 1, None) and unread.lies_at(file, 1)
    assert unread.problem == unread.error and unread.problem.startswith("not JSON: ")
    # A path refused in its values: the cases file and line, said once.
    assert refused.place == (file, 2, None) and refused.lies_at(file, 2)
    assert refused.kind == "invalid_input" and refused.problem is not None
    assert refused.problem.startswith("invalid_input: the 'doc' path '../x.txt' is refused")
    assert refused.error == f"{file}:2: {refused.problem}"
    # A missing input lies in the template, not at the case's place.
    assert missing.place == ("t.lmml", 3, 9) and not missing.lies_at(file, 3)
    assert missing.problem is not None and missing.error == f"t.lmml:3:9: {missing.problem}"
    assert [result.place for result in render_cases(bundle, [{"city": "Oslo"}], request=False)] == [
        None
    ]


def test_an_error_gives_its_place_and_formats_without_it() -> None:
    error = InputError("no", name="city", file="t.lmml", line=3, column=8, hint="fix it")
    assert error.place() == ("t.lmml", 3, 8)
    assert error.format() == "t.lmml:3:8: no (fix it)"
    assert error.format(place=False) == "no (fix it)"
    assert error.format(place=False, hint=False) == "no"
    assert InputError("no", line=2).place() == ("", 2, None)
    assert InputError("no", line=2).format() == "line 2: no"
    assert InputError("no", line=2).format(place=False) == "no"


def test_render_cases_says_a_refused_paths_place_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _template(tmp_path)
    cases = tmp_path / "c.jsonl"
    cases.write_text(json.dumps({"city": "Rome", "doc": "../x.txt"}) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert cli.main(["render", str(path), "--cases", str(cases), "-o", str(out)]) == 1
    reason = (
        "invalid_input: the 'doc' path '../x.txt' is refused: the name has a '..' segment; "
        f"a path in a values file names a file inside '{tmp_path}' (write it relative to the "
        "values file's folder (or --base-dir), or give the file itself with --input "
        "NAME=@PATH)"
    )
    assert f"lmml: error: {cases}:1: {reason}\n" in capsys.readouterr().err
    [record] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert record == {"case": 1, "error": reason, "kind": "invalid_input"}


def test_an_undeclared_input_names_no_file_as_its_place(tmp_path: Path) -> None:
    """An undeclared input has no line in the template; its name is no file, so the
    result has no place (it was ``("nope", None, None)``) and the error is said whole."""
    bundle = lmml_mdit.open(str(_template(tmp_path)))
    [result] = render_cases(bundle, [{"city": "Rome", "nope": 1}], model="m")
    assert result.kind == "undeclared_input"
    assert result.place is None
    assert not result.lies_at("nope", None)
    assert result.error is not None and "no input 'nope' is declared" in result.error
