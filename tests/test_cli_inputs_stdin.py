"""``lmml render --inputs -`` reads the values (a JSON object) from standard input, as
``--cases -`` reads the cases; where standard input is taken already (``--cases -``, a
bundle read from ``-``) it is a usage error. Run in-process."""

from __future__ import annotations

import base64
import io
import json
import sys
from pathlib import Path

import pytest

from lmml_mdit.cli import main

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

TEMPLATE = """\
---
inputs:
  who: string
  n: {type: number, default: 1}
  shot: {type: image, required: false}
---
## user

I am {{ who }}, n={{ n }}.
{{ shot }}
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working directory: ``t.lmml``, ``shot.png`` and a values file named ``-``."""
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    (tmp_path / "shot.png").write_bytes(PNG)
    (tmp_path / "-").write_text(json.dumps({"who": "the file named -"}), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def _messages(path: Path) -> list[dict[str, object]]:
    found: list[dict[str, object]] = json.loads(path.read_text(encoding="utf-8"))
    return found


def test_inputs_dash_reads_the_values_from_standard_input(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stdin(monkeypatch, "\ufeff".encode() + json.dumps({"who": "Ada", "n": 3}).encode())
    assert main(["render", "t.lmml", "--inputs", "-", "-o", "out.json", "-q"]) == 0
    [message] = _messages(folder / "out.json")
    assert message["content"] == [{"type": "text", "text": "I am Ada, n=3."}]  # not the file -
    # --input flags win; a path in the values names a file in the working directory
    _stdin(monkeypatch, json.dumps({"inputs": {"who": "Ada", "shot": "shot.png"}}).encode())
    argv = ["render", "t.lmml", "--inputs", "-", "--input", "n=2", "-o", "out.json", "-q"]
    assert main(argv) == 0
    [message] = _messages(folder / "out.json")
    assert isinstance(message["content"], list)
    assert message["content"][0] == {"type": "text", "text": "I am Ada, n=2."}
    assert message["content"][1]["type"] == "image_url"


def test_inputs_dash_reports_what_standard_input_held(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _stdin(monkeypatch, b"[1, 2]")
    assert main(["render", "t.lmml", "--inputs", "-"]) == 2
    assert "--inputs -: not a JSON object of input values" in capsys.readouterr().err
    _stdin(monkeypatch, json.dumps({"who": "Ada", "shot": "../shot.png"}).encode())
    assert main(["render", "t.lmml", "--inputs", "-"]) == 2
    assert "<stdin>" in (said := capsys.readouterr().err) and "'../shot.png'" in said
    monkeypatch.setattr(sys, "stdin", None)
    assert main(["render", "t.lmml", "--inputs", "-"]) == 2
    assert "standard input is closed" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "taken"),
    [
        (["render", "t.lmml", "--cases", "-", "--inputs", "-"], "--cases -"),
        (["render", "-", "--inputs", "-"], "PATH -"),
        (["preview", "-", "--inputs", "-", "-o", "out.html"], "PATH -"),
    ],
)
def test_inputs_dash_is_refused_where_standard_input_is_taken(
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    taken: str,
) -> None:
    _stdin(monkeypatch, TEMPLATE.encode())
    assert main(argv) == 2
    said = capsys.readouterr().err
    assert f"--inputs - and {taken} cannot both read standard input" in said
    assert not (folder / "out.html").exists()
