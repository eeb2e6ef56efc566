"""Paths in values files (``--inputs``, ``--cases``, ``render_cases``) stay inside their
folder under the rules of a bundle's references; a path on the command line may point
anywhere but must name a regular file."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
from _cli import run_lmml_text as run

import lmml_mdit
from lmml_mdit.errors import InputError

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

TEMPLATE = """\
---
inputs:
  doc: {type: file}
---
## user

Read this:
{{ doc }}
"""

SECRET = "TOP-SECRET-TOKEN"


def _project(tmp_path: Path) -> tuple[Path, Path]:
    """A template in project/, cases in project/cases/, a secret beside the project."""
    project = tmp_path / "project"
    cases = project / "cases"
    cases.mkdir(parents=True)
    (project / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    (cases / "ok.txt").write_text("fine text", encoding="utf-8")
    (tmp_path / "secret.txt").write_text(SECRET, encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", cases / "link.txt")
    return project, cases


ESCAPES = [
    ("../../secret.txt", "'..' segment"),
    ("link.txt", "symbolic link"),
]


@pytest.mark.parametrize(("value", "rule"), ESCAPES)
def test_a_cases_line_cannot_reach_outside_its_folder(
    tmp_path: Path, value: str, rule: str
) -> None:
    project, cases = _project(tmp_path)
    lines = [{"doc": "ok.txt"}, {"doc": value}, {"doc": str(tmp_path / "secret.txt")}]
    (cases / "all.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run("render", project / "t.lmml", "--cases", cases / "all.jsonl")
    assert SECRET not in result.stdout
    assert "fine text" in result.stdout
    errors = result.stderr.splitlines()
    assert any("all.jsonl:2: invalid_input" in line and rule in line for line in errors), errors
    assert any("all.jsonl:3: invalid_input" in line and "absolute path" in line for line in errors)
    assert result.returncode == 1


def test_an_inputs_file_names_its_line_and_the_rule(tmp_path: Path) -> None:
    project, cases = _project(tmp_path)
    (cases / "one.json").write_text('{\n  "doc": "/etc/passwd"\n}\n')
    result = run("render", project / "t.lmml", "--inputs", cases / "one.json")
    assert result.returncode != 0
    assert "root:" not in result.stdout
    assert f"{cases / 'one.json'}:2:10: invalid_input" in result.stderr
    assert "absolute path" in result.stderr


def test_base_dir_is_the_folder_values_resolve_in(tmp_path: Path) -> None:
    project, cases = _project(tmp_path)
    (project / "top.txt").write_text("from the base dir", encoding="utf-8")
    (cases / "one.json").write_text('{"doc": "top.txt"}')
    result = run(
        "render", project / "t.lmml", "--inputs", cases / "one.json", "--base-dir", project
    )
    assert result.returncode == 0, result.stderr
    assert "from the base dir" in result.stdout


def test_a_command_line_path_may_point_anywhere_but_must_be_a_regular_file(
    tmp_path: Path,
) -> None:
    project, _ = _project(tmp_path)
    anywhere = run("render", project / "t.lmml", "--input", f"doc=@{tmp_path / 'secret.txt'}")
    assert anywhere.returncode == 0, anywhere.stderr
    assert SECRET in anywhere.stdout
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for target in (fifo, tmp_path):
        refused = run("render", project / "t.lmml", "--input", f"doc=@{target}", timeout=30)
        assert refused.returncode != 0
        assert "not a regular file" in refused.stderr


def test_render_cases_holds_paths_inside_the_bundle_folder(tmp_path: Path) -> None:
    project, cases = _project(tmp_path)
    (project / "here.png").write_bytes(PNG)
    bundle = lmml_mdit.open(project / "t.lmml")
    cases_given = [
        {"doc": "cases/ok.txt"},
        {"doc": "/etc/passwd"},
        {"doc": "../secret.txt"},
        {"doc": Path("cases/link.txt")},
        {"doc": b"bytes as they are"},
    ]
    results = list(lmml_mdit.render_cases(bundle, cases_given, request=False))
    assert [result.ok for result in results] == [True, False, False, False, True]
    assert all(result.kind == "invalid_input" for result in results[1:4])
    assert SECRET not in json.dumps([result.value for result in results])
    inside = list(
        lmml_mdit.render_cases(bundle, [{"doc": "ok.txt"}], request=False, base_dir=cases)
    )
    assert inside[0].ok, inside[0].error


def test_a_fifo_input_does_not_hang_the_api(tmp_path: Path) -> None:
    project, _ = _project(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    bundle = lmml_mdit.open(project / "t.lmml")
    with pytest.raises(InputError, match="not a regular file"):
        bundle.messages("openai", inputs={"doc": str(fifo)})


def test_an_inputs_file_naming_a_file_over_the_size_limit_names_its_line_unread(
    tmp_path: Path,
) -> None:
    project, cases = _project(tmp_path)
    with open(cases / "huge.txt", "wb") as huge:  # sparse: past max_entry_size, never read
        huge.truncate(600 * 1024 * 1024)
    (cases / "one.json").write_text('{\n  "doc": "huge.txt"\n}\n')
    result = run("render", project / "t.lmml", "--inputs", cases / "one.json")
    assert result.returncode == 2
    assert f"{cases / 'one.json'}:2:10: invalid_input" in result.stderr
    assert "more than max_entry_size" in result.stderr
