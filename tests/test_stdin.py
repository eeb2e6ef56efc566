"""A path of ``-`` reads standard input, in every reader alike: the values file, the cases
file, a chat payload and the command line's bundles. Standard input is left open, and
a process started without it gets one clear error. Run in-process."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit.chat import import_path
from lmml_mdit.cli import main
from lmml_mdit.errors import InputError, StdinClosedError
from lmml_mdit.templates import (
    CaseValues,
    InputDeclarations,
    UnreadCase,
    declared_inputs,
    read_cases_file,
    read_values_file,
)

TEMPLATE = """\
---
inputs:
  who: string
---
## user

I am {{ who }}.
"""

CLOSED = "standard input is closed"
CLI_CLOSED = f"lmml: error: <stdin>: {CLOSED} (give a file instead of -)"


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> io.TextIOWrapper:
    stream = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stream)
    return stream


@pytest.fixture(params=["missing", "closed"])
def closed_stdin(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process started without standard input (``None``), or with it closed."""
    if request.param == "missing":
        monkeypatch.setattr(sys, "stdin", None)
    else:
        _stdin(monkeypatch, b"").close()


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def declarations(folder: Path) -> InputDeclarations:
    return declared_inputs(lmml_mdit.open(folder / "t.lmml"))


def test_the_values_file_dash_reads_standard_input_and_leaves_it_open(
    monkeypatch: pytest.MonkeyPatch, declarations: InputDeclarations
) -> None:
    stream = _stdin(monkeypatch, "\ufeff".encode() + json.dumps({"who": "Ada"}).encode())
    assert read_values_file("-", declarations) == {"who": "Ada"}
    assert not stream.closed


def test_the_cases_file_dash_reads_standard_input_and_leaves_it_open(
    monkeypatch: pytest.MonkeyPatch, declarations: InputDeclarations
) -> None:
    stream = _stdin(monkeypatch, b'{"who": "Ada"}\n[1]\n')
    cases = list(read_cases_file("-", declarations))
    assert [case.values for case in cases if isinstance(case, CaseValues)] == [{"who": "Ada"}]
    assert [case.number for case in cases if isinstance(case, UnreadCase)] == [2]
    assert not stream.closed


@pytest.mark.usefixtures("closed_stdin")
def test_each_reader_refuses_a_closed_standard_input_with_one_error(
    declarations: InputDeclarations, tmp_path: Path
) -> None:
    readers = [
        lambda: read_values_file("-", declarations),
        lambda: read_cases_file("-", declarations),  # at once, before a case is asked for
        lambda: import_path("-", tmp_path / "out.lmmlz"),
    ]
    for read in readers:
        with pytest.raises(StdinClosedError) as raised:
            read()
        assert isinstance(raised.value, InputError)  # what the templates' readers raise
        assert str(raised.value) == f"<stdin>: {CLOSED} (give a file instead of -)"
    assert not (tmp_path / "out.lmmlz").exists()


def test_a_chat_payload_dash_reads_standard_input(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _stdin(monkeypatch, json.dumps([{"role": "user", "content": "Hello"}]).encode())
    [written] = import_path("-", tmp_path / "out.lmmlz")
    [message] = lmml_mdit.open(written).messages()
    assert message["content"] == [{"type": "text", "text": "Hello"}]


def test_the_command_line_reads_dash_from_standard_input(
    monkeypatch: pytest.MonkeyPatch, folder: Path
) -> None:
    _stdin(monkeypatch, b'{"who": "Ada"}\n{"who": "Bo"}\n')
    argv = ["render", "t.lmml", "--cases", "-", "--workers", "1", "-o", "out.jsonl", "-q"]
    assert main(argv) == 0
    records = [json.loads(line) for line in (folder / "out.jsonl").read_text().splitlines()]
    assert [record["case"] for record in records] == [1, 2]
    _stdin(monkeypatch, json.dumps({"who": "Ada"}).encode())
    assert main(["render", "t.lmml", "--inputs", "-", "-o", "out.json", "-q"]) == 0
    assert "I am Ada." in (folder / "out.json").read_text()
    _stdin(monkeypatch, TEMPLATE.encode())
    assert main(["inputs", "-", "--json"]) == 0


@pytest.mark.usefixtures("closed_stdin")
@pytest.mark.parametrize(
    "argv",
    [
        ["render", "t.lmml", "--cases", "-", "-o", "out.jsonl"],
        ["render", "t.lmml", "--inputs", "-", "-o", "out.json"],
        ["turns", "-"],
        ["import", "-", "-o", "out.lmmlz"],
    ],
)
def test_the_command_line_refuses_a_closed_standard_input_in_one_line(
    folder: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main(argv) == 2
    assert capsys.readouterr().err == CLI_CLOSED + "\n"
    assert sorted(path.name for path in folder.iterdir()) == ["t.lmml"]


def test_a_text_only_stand_in_for_standard_input_is_read_too(
    monkeypatch: pytest.MonkeyPatch, declarations: InputDeclarations
) -> None:
    """An IDE's or a notebook's ``sys.stdin`` may be a text stream without ``buffer``."""
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"who": "Zoë"}\n'))
    assert read_values_file("-", declarations) == {"who": "Zoë"}

    class Bare:  # neither ``buffer`` nor ``closed``
        def read(self) -> str:
            return "not json\n"

    monkeypatch.setattr(sys, "stdin", Bare())
    [case] = read_cases_file("-")
    assert isinstance(case, UnreadCase) and case.number == 1


def test_a_chat_payload_from_standard_input_is_named_stdin(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Into a folder it was written as "-.lmmlz" (a name other tools read as an option),
    # and its errors named it "-", where every other reader says "<stdin>".
    _stdin(monkeypatch, json.dumps([{"role": "user", "content": "Hello"}]).encode())
    [written] = import_path("-", tmp_path)
    assert written == tmp_path / "stdin.lmmlz"
    assert lmml_mdit.open(written).narrative_name == "stdin.lmml"
    _stdin(monkeypatch, b'{"messages": [\n')
    with pytest.raises(lmml_mdit.ImportFormatError) as raised:
        import_path("-", tmp_path / "out.lmmlz")
    assert str(raised.value).startswith("<stdin>:2: chat data is not valid JSON"), raised.value
    _stdin(monkeypatch, b'{"messages": [\n')
    assert main(["import", "-", "-o", str(tmp_path / "out.lmmlz")]) == 2
    assert capsys.readouterr().err.startswith("lmml: error: <stdin>:2: chat data is not valid")
