"""Templates and cases (issue 26): every case accounted for on its own output line, the
``integer`` input type, and a front matter that does not parse reported as itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit import cli
from lmml_mdit.templates import MAX_INTEGER

TEMPLATE = """\
---
inputs:
  who: string
  n: {type: integer, default: 1}
---
## user

I am {{ who }}, n={{ n }}.
"""
BROKEN = "---\ninputs:\n  who: {type: string\n---\n## user\n\nI am {{ who }}.\n"


def _write(tmp_path: Path, text: str = TEMPLATE) -> Path:
    path = tmp_path / "t.lmml"
    path.write_text(text, encoding="utf-8")
    return path


CASES = [
    {"who": "a"},
    {"who": "b", "n": 2.5},
    "{not json",
    {"who": "c", "n": MAX_INTEGER + 1},
    {"who": "d", "n": 4.0},
    {"n": 5},
    {"who": "e", "n": True},
    {"who": "f", "n": -MAX_INTEGER},
]


def test_render_cases_writes_line_n_for_case_n(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path)
    cases = tmp_path / "cases.jsonl"
    lines = [case if isinstance(case, str) else json.dumps(case) for case in CASES]
    cases.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    assert cli.main(["render", str(path), "--cases", str(cases), "-o", str(out)]) == 1
    _, err = capsys.readouterr()
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [record["case"] for record in records] == list(range(1, len(CASES) + 1))
    kinds = [record.get("kind") for record in records]
    assert kinds == [None, "invalid_input", "unread_case", "invalid_input", None,
                     "missing_input", "invalid_input", None]  # fmt: skip
    for record in records:
        assert ("messages" in record) == (record.get("kind") is None)
        if "error" in record:
            assert f"lmml: error: {cases}:{record['case']}: {record['error']}" in err
    texts = [r["messages"][0]["content"][0]["text"] for r in records if "messages" in r]
    assert texts == ["I am a, n=1.", "I am d, n=4.", f"I am f, n={-MAX_INTEGER}."]
    assert "5 of 8 cases failed" in err


def test_render_cases_yields_the_same_records() -> None:
    bundle = lmml_mdit.Bundle.from_text("t", TEMPLATE)
    values = [case for case in CASES if not isinstance(case, str)]
    results = list(lmml_mdit.render_cases(bundle, values, request=False))
    records = [result.record() for result in results]
    assert [record["case"] for record in records] == list(range(1, len(values) + 1))
    assert [("error" in record) for record in records] == [
        False, True, True, False, True, True, False]  # fmt: skip
    assert records[1]["error"].startswith("t.lmml:4:6: invalid_input:")
    request = next(lmml_mdit.render_cases(bundle, values[:1], model="m")).record()
    assert set(request) == {"case", "request"} and request["request"]["model"] == "m"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (3, None),
        (3.0, None),
        (-MAX_INTEGER, None),
        (MAX_INTEGER + 1, "out of range"),
        (2.5, "not an integer"),
        (float("inf"), "not an integer"),
        (True, "not an integer"),
        ("3", "not an integer"),
    ],
)
def test_integer_values(value: object, problem: str | None) -> None:
    bundle = lmml_mdit.Bundle.from_text("t", TEMPLATE)
    found = [i for i in bundle.validate(inputs={"who": "x", "n": value}) if i.kind != "no_turns"]
    if problem is None:
        assert found == []
    else:
        [issue] = found
        assert issue.kind == "invalid_input" and problem in issue.message


def test_an_integer_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path)
    assert cli.main(["render", str(path), "--input", "who=x", "--input", "n=7"]) == 0
    out, _ = capsys.readouterr()
    assert json.loads(out)[0]["content"][0]["text"] == "I am x, n=7."
    assert cli.main(["render", str(path), "--input", "who=x", "--input", "n=7.5"]) == 2
    _, err = capsys.readouterr()
    assert "is 7.5, not an integer" in err


@pytest.mark.parametrize(
    "command",
    [
        ["validate"],
        ["render"],
        ["render", "--input", "who=x"],
        ["inputs"],
        ["render", "--cases", "CASES"],
        ["info"],
        ["eval", "--cases", "CASES", "--target", "openai:m@http://127.0.0.1:9"],
    ],
)
def test_a_front_matter_that_does_not_parse_is_reported_as_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    path = _write(tmp_path, BROKEN)
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"who": "x"}\n')
    argv = [command[0], str(path), *(str(cases) if a == "CASES" else a for a in command[1:])]
    # info shows the bundle all the same and warns, as turns and preview do.
    assert (cli.main(argv) == 0) == (command[0] == "info")
    out, err = capsys.readouterr()
    where = path.name if command[0] == "eval" else path  # eval names the bundle by its name
    assert f"{where}:3:21: invalid_front_matter:" in out + err
    assert "no input of that name" not in out + err


def test_render_cases_words_a_missing_setting_as_the_command_line_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Anthropic's max_tokens took its default: the hint names the flag, as plain render's does.
    path = _write(tmp_path)
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"who": "a"}) + "\n")
    argv = ["render", str(path), "--cases", str(cases), "-p", "anthropic", "--request"]
    assert cli.main([*argv, "--model", "m", "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["request"]["max_tokens"] == 4096
    assert "--set max_tokens=N" in err
    assert "settings={" not in err
    (result,) = lmml_mdit.render_cases(
        lmml_mdit.open(path), [{"who": "a"}], provider="anthropic", model="m"
    )
    assert any("settings={" in text for text in result.warnings)  # the API's own wording
