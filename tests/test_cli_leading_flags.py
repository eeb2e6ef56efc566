"""A flag given before the command that ``lmml`` does not take is named in the error.

``lmml --verison`` said that a COMMAND is required, and ``lmml --bogus validate x.lmml``
blamed ``validate`` for a flag typed before it: neither named the flag as typed, where
it was typed.
"""

from __future__ import annotations

import pytest

from lmml_mdit.cli import main


def _status(*argv: str) -> object:
    """``main``'s status, or the code of the ``SystemExit`` help and version end with."""
    try:
        return main(list(argv))
    except SystemExit as done:
        return done.code


def _failure(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status = main(list(argv))
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (("--verison",), "--verison"),
        (("-v",), "-v"),
        (("--bogus", "validate", "x.lmml"), "--bogus"),
        (("--help-me", "turns"), "--help-me"),
        (("--quiet", "--bogus", "ls", "x.lmml"), "--quiet --bogus"),
    ],
)
def test_an_unknown_flag_before_the_command_is_named(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], flag: str
) -> None:
    assert _failure(capsys, *argv) == (
        f"lmml: error: unrecognized arguments: {flag} (see 'lmml --help')"
    )


def test_a_missing_command_alone_still_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert _failure(capsys) == (
        "lmml: error: the following arguments are required: COMMAND (see 'lmml --help')"
    )


@pytest.mark.parametrize("argv", [("--version",), ("--vers",), ("--bogus", "--version")])
def test_the_version_flag_and_its_abbreviation_still_work(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    assert _status(*argv) == 0
    assert capsys.readouterr().out.startswith("lmml ")


def test_help_before_an_unknown_flag_still_prints_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _status("--bogus", "-h") == 0
    assert "usage: lmml" in capsys.readouterr().out


def test_a_flag_after_the_command_is_still_the_command_s(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _failure(capsys, "turns", "x.lmml", "--bogus") == (
        "lmml: error: turns: unrecognized arguments: --bogus (see 'lmml turns --help')"
    )
