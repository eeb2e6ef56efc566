"""The README stays true: its two set-up commands are marked for CI and name shipped files
(its Python tour runs in tests/test_docs.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("marker", ["main-command", "test-command"])
def test_setup_commands_are_marked(marker: str) -> None:
    section = re.search(rf"<!-- {marker} -->\n```bash\n(.+?)\n```\n<!-- /{marker} -->", README)
    assert section is not None
    assert section.group(1).startswith("python3 -m venv .venv && .venv/bin/pip install")


def test_main_command_names_a_shipped_example() -> None:
    section = re.search(r"<!-- main-command -->\n```bash\n(.+?)\n```", README)
    assert section is not None
    paths = re.findall(r"examples/\S+", section.group(1))
    assert paths and all((ROOT / path).is_file() for path in paths)


def test_the_command_line_section_lists_every_command() -> None:
    from lmml_mdit.cli import COMMANDS

    section = re.search(r"## The command line\n\n```text\n(.+?)\n```", README, flags=re.S)
    assert section is not None
    listed = set(re.findall(r"(?:^|/ )lmml ([a-z][\w-]*)", section.group(1), flags=re.M))
    assert sorted(set(COMMANDS) - listed) == []
