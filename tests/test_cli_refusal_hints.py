"""A command that refuses to write, or cannot find its input, says what to do instead, on
its one error line."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmml_mdit.cli import main


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    try:
        status: object = main(list(argv))
    except SystemExit as done:
        status = done.code
    err = capsys.readouterr().err
    assert status == 2, err
    [line] = err.splitlines()
    assert line.startswith("lmml: error: "), line
    return line


@pytest.mark.parametrize(
    ("command", "name", "refusal", "advice"),
    [
        ("new", "chat.lmml", "refusing to overwrite an existing file", "give another PATH"),
        (
            "preview",
            "chat.html",
            "refusing to write the preview over the source",
            "give -o OUT.html",
        ),
    ],
)
def test_a_refused_output_says_what_to_do(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    name: str,
    refusal: str,
    advice: str,
) -> None:
    """``new`` over an existing file, and ``preview`` over its own source (a narrative
    named ``.html``), are refused saying what to give instead; the file is left alone."""
    path = tmp_path / name
    path.write_text("## user\n\nmine\n", encoding="utf-8")
    line = _error(capsys, command, str(path))
    assert refusal in line and advice in line
    assert path.read_text(encoding="utf-8") == "## user\n\nmine\n"


def test_import_to_a_dash_is_refused_not_a_file_named_dash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-`` means standard output to every command; import writes files only, so it
    refuses rather than writing a file named ``-`` and saying ``Imported ... -> -``."""
    chat = tmp_path / "chat.json"
    chat.write_text('{"messages": [{"role": "user", "content": "hi"}]}', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    line = _error(capsys, "import", str(chat), "-o", "-")
    assert "not standard output" in line
    assert "-o chat.lmmlz" in line
    assert not (tmp_path / "-").exists()


def test_export_parquet_to_a_dash_is_refused_not_a_file_named_dash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.lmml").write_text("## user\n\nhi\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    line = _error(capsys, "export", "runs", "--parquet", "-")
    assert "not standard output" in line
    assert "rows.parquet" in line
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(
    "argv", [("import", "nope.json", "-o", "x.lmmlz"), ("convert", "nope.prompty", "x.lmml")]
)
def test_a_missing_input_file_says_what_to_check(
    argv: tuple[str, ...],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As every command that opens a bundle says it."""
    monkeypatch.chdir(tmp_path)
    line = _error(capsys, *argv)
    assert line.startswith(f"lmml: error: {argv[1]}: "), line
    assert line.endswith("(check the path and the current folder)"), line
