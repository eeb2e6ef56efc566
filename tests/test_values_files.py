"""Values files and cases files, read by the one reader in ``lmml_mdit.templates``
(``read_values_file``, ``read_cases_file``) that ``--inputs``, ``render --cases`` and
``lmml eval`` share."""

from __future__ import annotations

import asyncio
import codecs
import io
import json
import sys
from pathlib import Path

import pytest
from _cli import run_lmml_text as run
from _wire_server import WireServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lmml_mdit
from lmml_mdit.errors import InputError, LmmlError
from lmml_mdit.eval import Target, aevaluate, iter_cases
from lmml_mdit.templates import (
    CaseValues,
    InputDeclarations,
    UnreadCase,
    ValuesPath,
    cases_format,
    declared_inputs,
    read_case_rows,
    read_cases_file,
    read_values_file,
)

TEMPLATE = """\
---
inputs:
  city: string
  count: {type: integer, default: 2}
  doc: {type: file, required: false}
---
## user

Name {{ count }} sights of {{ city }}.

{{ doc }}
"""


@pytest.fixture
def declarations(tmp_path: Path) -> InputDeclarations:
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    return declared_inputs(lmml_mdit.open(tmp_path / "t.lmml"))


def _cases(path: Path, declarations: InputDeclarations | None = None) -> list[object]:
    """Each case read: (number, values, fields), or (number, reason)."""
    return [
        (case.number, case.values, case.fields)
        if isinstance(case, CaseValues)
        else (case.number, case.reason)
        for case in read_cases_file(path, declarations)
    ]


# -- values files ---------------------------------------------------------------------


def test_a_values_file_is_an_object_of_values_or_one_wrapping_them(
    tmp_path: Path, declarations: InputDeclarations
) -> None:
    path = tmp_path / "v.json"
    path.write_text('\ufeff{"city": "Rome", "count": 3}', encoding="utf-8")
    assert read_values_file(path, declarations) == {"city": "Rome", "count": 3}
    path.write_text('{"inputs": {"city": "Oslo"}}', encoding="utf-8")
    assert read_values_file(path, declarations) == {"city": "Oslo"}


def test_an_input_named_inputs_is_not_taken_for_the_wrapper(tmp_path: Path) -> None:
    (tmp_path / "w.lmml").write_text(
        "---\ninputs:\n  inputs: {type: object}\n---\n## user\n\n{{ inputs }}\n", encoding="utf-8"
    )
    declarations = declared_inputs(lmml_mdit.open(tmp_path / "w.lmml"))
    (tmp_path / "v.json").write_text('{"inputs": {"a": 1}}', encoding="utf-8")
    (tmp_path / "c.jsonl").write_text('{"inputs": {"a": 1}}\n', encoding="utf-8")
    assert read_values_file(tmp_path / "v.json", declarations) == {"inputs": {"a": 1}}
    assert _cases(tmp_path / "c.jsonl", declarations) == [(1, {"inputs": {"a": 1}}, {})]


@pytest.mark.parametrize(
    ("data", "message", "line", "column"),
    [
        (b'{"city": "Rome",\n  "count": }', "not JSON: Expecting value", 2, 12),
        (b'{"city": "a", "city": "b"}', "not JSON: the key 'city' appears twice", 1, 15),
        (b'["Rome"]', "not a JSON object of input values", 1, None),
        (b'{"city": "\xff"}', "cannot read: not UTF-8", None, None),
    ],
)
def test_a_values_file_that_does_not_read_names_its_file_line_and_column(
    tmp_path: Path,
    declarations: InputDeclarations,
    data: bytes,
    message: str,
    line: int | None,
    column: int | None,
) -> None:
    path = tmp_path / "v.json"
    path.write_bytes(data)
    with pytest.raises(InputError) as raised:
        read_values_file(path, declarations)
    assert isinstance(raised.value, LmmlError)
    assert raised.value.message.startswith(message)
    assert (raised.value.name, raised.value.line, raised.value.column) == (str(path), line, column)
    assert str(raised.value).startswith(str(path) + ":")


def test_a_missing_values_file_says_it_cannot_be_read(
    tmp_path: Path, declarations: InputDeclarations
) -> None:
    with pytest.raises(InputError, match="cannot read: No such file"):
        read_values_file(tmp_path / "none.json", declarations)


def test_a_path_in_a_values_file_is_held_beside_it_with_its_line_and_column(
    tmp_path: Path, declarations: InputDeclarations
) -> None:
    (tmp_path / "v.json").write_text('{"city": "Rome",\n "doc": "../x.txt"}', encoding="utf-8")
    values = read_values_file(tmp_path / "v.json", declarations)
    assert values["doc"] == ValuesPath("../x.txt", str(tmp_path), str(tmp_path / "v.json"), 2, 9)
    values = read_values_file(tmp_path / "v.json", declarations, base_dir="elsewhere")
    assert isinstance(values["doc"], ValuesPath) and values["doc"].folder == "elsewhere"


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=60))
def test_any_bytes_give_values_or_an_input_error_naming_the_file(
    tmp_path: Path, declarations: InputDeclarations, data: bytes
) -> None:
    path = tmp_path / "any.json"
    path.write_bytes(data)
    try:
        values = read_values_file(path, declarations)
    except InputError as error:
        assert error.name == str(path)
    else:
        assert isinstance(values, dict)


# -- cases files ----------------------------------------------------------------------


def test_jsonl_cases_keep_their_line_numbers_and_say_why_a_line_does_not_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(
        b'{"city": "Rome"}\n\n[1]\n{bad\n\xff\n'
        b'{"inputs": {"city": "Oslo"}, "expect": [{"contains": "x"}]}\n{"a": NaN}\n'
    )
    assert _cases(path) == [
        (1, {"city": "Rome"}, {}),
        (2, "the line is blank; give a JSON object of input values"),
        (3, "not a JSON object of input values"),
        (
            4,
            "not JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        (5, "the line is not UTF-8"),
        (6, {"city": "Oslo"}, {"expect": [{"contains": "x"}]}),
        (7, "not JSON: NaN is not a JSON number: line 1 column 7 (char 6)"),
    ]


def test_a_jsonl_line_may_start_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    lines = [b'{"city": "Rome"}', b'{"city": "Oslo"}', b"", b"\xff", codecs.BOM_UTF8 + b"{}"]
    path.write_bytes(b"".join(codecs.BOM_UTF8 + line + b"\n" for line in lines))
    assert _cases(path) == [
        (1, {"city": "Rome"}, {}),
        (2, {"city": "Oslo"}, {}),
        (3, "the line is blank; give a JSON object of input values"),
        (4, "the line is not UTF-8"),
        (5, "not JSON: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"),
    ]


def test_standard_input_is_read_as_jsonl_beside_the_working_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"city": "Rome"}\n')))
    [case] = read_cases_file("-")
    assert isinstance(case, CaseValues)
    assert (case.number, case.values, case.file, case.folder) == (
        1,
        {"city": "Rome"},
        "<stdin>",
        "",
    )


def test_csv_cells_are_typed_as_declared_and_rows_numbered_by_their_line(
    tmp_path: Path, declarations: InputDeclarations
) -> None:
    path = tmp_path / "c.csv"
    path.write_text('city,count,note\n"Ro\nme",3,x\nOslo,,y\nLima,three,z\nA,1,b,extra\n')
    assert _cases(path, declarations) == [
        (3, {"city": "Ro\nme", "count": 3, "note": "x"}, {}),
        (4, {"city": "Oslo", "note": "y"}, {}),
        (
            5,
            "column 'count': 'three' is not a JSON integer (write 3, true or {\"key\": \"value\"})",
        ),
        (6, "more cells than the header names"),
    ]
    assert _cases(path)[1] == (4, {"city": "Oslo", "count": "", "note": "y"}, {})


def test_a_csv_quoting_error_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text('city\nRome\n"' + "x" * 200_000 + '"\n', encoding="utf-8")
    with pytest.raises(InputError, match="cannot read this CSV file: field larger") as raised:
        list(read_cases_file(path))
    assert raised.value.name == str(path) and raised.value.line == 3


def test_a_missing_cases_file_is_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such cases file"):
        read_cases_file(tmp_path / "none.jsonl")


def test_parquet_cases_are_rows_and_a_value_that_is_not_json_is_unread(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import datetime

    table = pa.table({"city": ["Rome", "Oslo"], "when": [None, datetime.date(2024, 1, 2)]})
    pq.write_table(table, tmp_path / "c.parquet")
    assert _cases(tmp_path / "c.parquet") == [
        (1, {"city": "Rome", "when": None}, {}),
        (2, "column 'when' holds a date, not a JSON value"),
    ]


def test_rows_already_read_are_cases_numbered_from_one() -> None:
    rows = [{"city": "Rome"}, {"city": b"bytes"}]
    read = list(read_case_rows(rows, file="hf:x", folder="data"))
    assert read == [
        CaseValues(1, {"city": "Rome"}, {}, "hf:x", "data"),
        UnreadCase("column 'city' holds a bytes, not a JSON value", 2),
    ]


@pytest.mark.parametrize(
    ("name", "found"),
    [
        ("a.csv", "csv"),
        ("A.CSV", "csv"),
        ("b.parquet", "parquet"),
        ("c.jsonl", "jsonl"),
        ("-", "jsonl"),
    ],
)
def test_a_cases_file_is_read_by_its_suffix(name: str, found: str) -> None:
    assert cases_format(name) == found


def test_a_case_holds_its_paths_beside_its_file_naming_its_line(
    tmp_path: Path, declarations: InputDeclarations
) -> None:
    (tmp_path / "c.jsonl").write_text('{"city": "Rome"}\n{"city": "x", "doc": "/etc/passwd"}\n')
    case = list(read_cases_file(tmp_path / "c.jsonl", declarations))[1]
    assert isinstance(case, CaseValues)
    held = case.held(declarations)
    assert held["doc"] == ValuesPath("/etc/passwd", str(tmp_path), str(tmp_path / "c.jsonl"), 2)
    bundle = lmml_mdit.open(tmp_path / "t.lmml")
    with pytest.raises(InputError, match="absolute path") as raised:
        bundle.messages("openai", inputs=held)
    assert (raised.value.file, raised.value.line) == (str(tmp_path / "c.jsonl"), 2)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cases=st.lists(
        st.dictionaries(
            st.text(max_size=6).filter(lambda key: key != "inputs"), JSON_VALUES, max_size=4
        ),
        max_size=5,
    )
)
def test_jsonl_objects_read_back_as_written(tmp_path: Path, cases: list[dict[str, object]]) -> None:
    path = tmp_path / "round.jsonl"
    path.write_text("".join(json.dumps(case) + "\n" for case in cases), encoding="utf-8")
    assert _cases(path) == [(number, case, {}) for number, case in enumerate(cases, 1)]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(st.binary(max_size=20).map(lambda raw: raw.replace(b"\n", b"")), max_size=6))
def test_any_line_is_one_case_and_reading_never_fails(tmp_path: Path, lines: list[bytes]) -> None:
    path = tmp_path / "any.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    read = list(read_cases_file(path))
    assert [case.number for case in read] == list(range(1, len(lines) + 1))


# -- the callers agree ------------------------------------------------------------------


def test_eval_reads_a_wrapped_case_and_its_expect_as_render_does(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text(
        '{"inputs": {"city": "Oslo"}, "expect": [{"contains": "x"}], "id": 9}\n\n'
        '{"city": "Rome", "expect": [{"contains": "y"}]}\n'
    )
    assert list(iter_cases(path)) == [
        (1, {"city": "Oslo", "expect": [{"contains": "x"}]}),
        (2, "the line is blank; give a JSON object of input values"),
        (3, {"city": "Rome", "expect": [{"contains": "y"}]}),
    ]


def test_an_eval_case_cannot_send_a_file_from_outside_its_folder(
    tmp_path: Path, server: WireServer
) -> None:
    cases = tmp_path / "cases"
    cases.mkdir()
    (tmp_path / "secret.txt").write_text("TOP-SECRET", encoding="utf-8")
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    (cases / "c.jsonl").write_text(
        json.dumps({"city": "x", "doc": "../secret.txt"})
        + "\n"
        + json.dumps({"city": "y", "doc": str(tmp_path / "secret.txt")})
        + "\n"
    )
    summary = asyncio.run(
        aevaluate(
            lmml_mdit.open(tmp_path / "t.lmml"),
            cases / "c.jsonl",
            [Target("openai", "m", server.url + "/v1")],
            tmp_path / "out.jsonl",
            retries=0,
        )
    )
    assert server.requests == [] and summary.rows == 0
    assert len(summary.errors) == 2
    assert "'..' segment" in summary.errors[0] and f"{cases / 'c.jsonl'}:1:" in summary.errors[0]
    assert "absolute path" in summary.errors[1] and f"{cases / 'c.jsonl'}:2:" in summary.errors[1]


def test_render_cases_reads_a_csv_file_as_eval_does(tmp_path: Path) -> None:
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    (tmp_path / "c.csv").write_text("city,count\nRome,3\nOslo,three\n", encoding="utf-8")
    result = run("render", tmp_path / "t.lmml", "--cases", tmp_path / "c.csv")
    assert result.returncode == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert "Name 3 sights of Rome." in json.dumps(lines[0]["messages"])
    assert (lines[1]["case"], lines[1]["kind"]) == (2, "unread_case")
    assert f"{tmp_path / 'c.csv'}:3: column 'count': 'three'" in result.stderr
