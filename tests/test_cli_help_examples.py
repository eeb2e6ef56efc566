"""Every example the command line's help gives on a shipped example bundle runs, and
succeeds: ``lmml --help`` and each command's ``--help`` show a user what to type first."""

from __future__ import annotations

import glob
import shlex
import shutil
from pathlib import Path

import pytest
from _cli import help_text

from lmml_mdit.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parent.parent
HELPS = (("--help",), *((name, "--help") for name in COMMANDS))


def _examples(text: str) -> list[str]:
    """The example command lines of a help text (after its ``example:`` or ``examples:``)."""
    tail = text.split("\nexample:\n", 1)[-1] if "\nexample:\n" in text else ""
    tail = text.split("\nexamples:\n", 1)[-1] if "\nexamples:\n" in text else tail
    lines = [line.strip() for line in tail.splitlines()]
    return [line for line in lines if line.startswith("lmml ")]


def _argv(line: str, where: Path) -> list[str] | None:
    """The arguments of *line* run in *where* (a copy of ``examples/``), or None for an
    example that names files the repository does not ship."""
    words = shlex.split(line.split("#", 1)[0])[1:]
    if ">" in words:  # a shell redirect of standard output: the output is captured anyway
        words = words[: words.index(">")]
    if not any(word.startswith("examples/") for word in words):
        return None
    argv: list[str] = []
    for word in words:
        if word.startswith("/tmp/"):
            word = str(where / "out" / word.removeprefix("/tmp/"))
        if word.startswith("examples/") and "*" in word:
            found = glob.glob(str(where / word))
            argv.extend(sorted(str(Path(path).relative_to(where)) for path in found))
        else:
            argv.append(word)
    return argv


@pytest.mark.parametrize("help_argv", HELPS, ids=" ".join)
def test_the_help_examples_on_the_shipped_bundles_succeed(
    help_argv: tuple[str, ...],
    capsysbinary: pytest.CaptureFixture[bytes],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one example on one line
    lines = _examples(help_text(capsysbinary, *help_argv))
    assert lines, help_argv
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    for line in lines:
        argv = _argv(line, tmp_path)
        if argv is None:
            continue
        try:
            status: object = main(argv)
        except SystemExit as done:
            status = done.code
        err = capsysbinary.readouterr().err.decode("utf-8")
        assert status == 0, (line, err)
        assert "lmml: error:" not in err, (line, err)
