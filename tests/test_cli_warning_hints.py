"""A warning printed by the command line names the flag that changes it, never a Python
argument; the same warning from the API names the argument."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit.cli import main

_UNKNOWN = """@@@settings.yaml
model: m
max_tokens: 10
safety_settings: []
@@@

## user

hi
"""

_MIDWAY = """## user

hi

## assistant

hello

## system

Answer in French from now on.

## user

bye
"""


def _warnings(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    assert main(list(argv)) == 0
    return [
        line for line in capsys.readouterr().err.splitlines() if line.startswith("lmml: warning:")
    ]


def test_a_left_out_setting_names_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = tmp_path / "chat.lmml"
    chat.write_text(_UNKNOWN, encoding="utf-8")
    [line] = _warnings(capsys, "render", str(chat), "-p", "anthropic", "--request")
    assert "setting 'safety_settings' left out" in line
    assert "(--unknown-settings pass, on lmml render and export, would send it as is)" in line
    assert "unknown_settings=" not in line


def test_a_left_out_setting_names_the_argument_in_the_api(tmp_path: Path) -> None:
    chat = tmp_path / "chat.lmml"
    chat.write_text(_UNKNOWN, encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lmml_mdit.open(chat).to_request("anthropic")
    [said] = [str(w.message) for w in caught if w.category is lmml_mdit.UnknownSettingWarning]
    assert said.endswith("(unknown_settings='pass' would send it as is)")


@pytest.mark.parametrize("policy", ["user", "hoist", "drop"])
def test_a_midway_system_turn_names_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], policy: str
) -> None:
    chat = tmp_path / "chat.lmml"
    chat.write_text(_MIDWAY, encoding="utf-8")
    argv = ["render", str(chat), "-p", "anthropic", "--request", "--model", "m"]
    argv += ["--set", "max_tokens=10", "--midway-system", policy]
    [line] = _warnings(capsys, *argv)
    assert "chat.lmml:9:1: turn 3 (system) comes after the conversation has started" in line
    assert line.endswith(f"(--midway-system {policy}, on lmml render)")
    assert "midway_system=" not in line


def test_a_midway_system_turn_names_the_argument_in_the_api(tmp_path: Path) -> None:
    chat = tmp_path / "chat.lmml"
    chat.write_text(_MIDWAY, encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lmml_mdit.open(chat).to_request("gemini", model="m")
    [said] = [str(w.message) for w in caught if w.category is lmml_mdit.SystemContentWarning]
    assert said.endswith("(midway_system='user')")


def test_a_missing_model_names_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chat = tmp_path / "chat.lmml"
    chat.write_text("## user\n\nhi\n", encoding="utf-8")
    [line] = _warnings(capsys, "render", str(chat), "-p", "openai-responses", "--request")
    assert "no model given" in line
    assert line.endswith("add --model NAME, or 'model: NAME' to the settings embed")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lmml_mdit.open(chat).to_request("openai-responses")
    [said] = [str(w.message) for w in caught if w.category is lmml_mdit.MissingSettingWarning]
    assert "pass model='NAME'" in said
