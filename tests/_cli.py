"""The ``lmml`` command run as a user runs it: a fresh interpreter on this tree, standard
input empty, output captured."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _command(args: tuple[object, ...]) -> list[str]:
    return [sys.executable, "-m", "lmml_mdit", *(str(arg) for arg in args)]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")


def run_lmml(
    *args: object, cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[bytes]:
    """``python -m lmml_mdit ARGS...``, its output as bytes."""
    return subprocess.run(
        _command(args), input=b"", capture_output=True, cwd=cwd, env=_env(), timeout=timeout
    )


def run_lmml_text(
    *args: object, cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``python -m lmml_mdit ARGS...``, its output as text."""
    return subprocess.run(
        _command(args),
        input="",
        capture_output=True,
        text=True,
        cwd=cwd,
        env=_env(),
        timeout=timeout,
    )


def help_text(capsys: pytest.CaptureFixture[str] | pytest.CaptureFixture[bytes], *argv: str) -> str:
    """What ``lmml ARGV`` (a ``--help``) prints, run in-process; it must exit 0 and say
    something."""
    from lmml_mdit.cli import main

    try:
        status: object = main(list(argv))
    except SystemExit as done:
        status = done.code
    out = capsys.readouterr().out
    text = out.decode("utf-8") if isinstance(out, bytes) else out
    assert status == 0 and text, argv
    return text
