"""Chats written the way people paste them (``tests/pasted_chats/``): what the author meant
is what is read, or ``render`` says why not.

Each file's meant turns and asset references are in ``pasted_chats/expected.json`` (see its
README). A *silent role change* is a meant delimiter the parse does not honour, or a
delimiter the author did not mean, with no ``suspicious_delimiter`` warning from ``lmml
render`` at that line. A *spurious reference* is an ``@`` mention (a handle, a decorator, a
version tag) read as a reference to an asset.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit.cli import main

CHATS = Path(__file__).resolve().parent / "pasted_chats"
EXPECTED: dict[str, dict[str, list[object]]] = json.loads(
    (CHATS / "expected.json").read_text(encoding="utf-8")
)
FILES = sorted(EXPECTED)
_WARNED = re.compile(r"^lmml: warning: .*?:(\d+):\d+: suspicious_delimiter: ", re.MULTILINE)


def test_the_corpus_and_its_expectations_agree() -> None:
    on_disk = sorted(path.name for path in CHATS.glob("*.lmml"))
    assert on_disk == FILES
    assert len(FILES) >= 15


def _meant_turns(path: Path) -> dict[int, str]:
    """The 1-based line of each delimiter the author meant, with its role: the lines are
    found in order, each the first after the last that starts with the text given."""
    lines = path.read_text(encoding="utf-8").splitlines()
    meant: dict[int, str] = {}
    at = 0
    for start, role in EXPECTED[path.name]["turns"]:
        assert isinstance(start, str) and isinstance(role, str)
        while not lines[at].startswith(start):
            at += 1
        meant[at + 1] = role
        at += 1
    return meant


def _parsed_turns(path: Path) -> dict[int, str]:
    with lmml_mdit.open(path) as bundle:
        return {
            turn.delimiter_line: turn.role
            for turn in bundle.narrative.turns
            if turn.delimiter_line is not None
        }


def _render_warned_lines(path: Path, capsys: pytest.CaptureFixture[str]) -> set[int]:
    """The lines ``lmml render PATH`` (in process, as typed) warns a suspicious delimiter
    at."""
    capsys.readouterr()
    main(["render", str(path)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return {int(line) for line in _WARNED.findall(err)}


@pytest.mark.parametrize("name", FILES)
def test_no_silent_role_change(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = CHATS / name
    meant, parsed = _meant_turns(path), _parsed_turns(path)
    warned = _render_warned_lines(path, capsys)
    silent = [
        (line, role, parsed.get(line))
        for line, role in meant.items()
        if parsed.get(line) != role and line not in warned
    ]
    silent += [
        (line, None, role)
        for line, role in parsed.items()
        if line not in meant and line not in warned
    ]
    assert silent == []


@pytest.mark.parametrize("name", FILES)
def test_every_near_miss_is_reported_by_render(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = CHATS / name
    meant, parsed = _meant_turns(path), _parsed_turns(path)
    missed = {line for line, role in meant.items() if parsed.get(line) != role}
    warned = _render_warned_lines(path, capsys)
    assert missed <= warned
    # Nothing else is called a near miss: each warning stands at a line meant as a turn.
    assert warned <= set(meant)


def test_the_corpus_holds_near_misses_and_honoured_forms() -> None:
    """The two tests above are not vacuous: the corpus has meant turns the parse does not
    honour (each must be warned), and new delimiter forms it does."""
    missed = honoured = 0
    for name in FILES:
        meant, parsed = _meant_turns(CHATS / name), _parsed_turns(CHATS / name)
        missed += sum(1 for line, role in meant.items() if parsed.get(line) != role)
        honoured += sum(1 for line, role in meant.items() if parsed.get(line) == role)
    assert missed >= 30 and honoured >= 30


def test_no_spurious_reference() -> None:
    """No handle, decorator or version tag becomes a reference or a missing asset: only the
    files the author meant are references, and each resolves."""
    spurious: list[tuple[str, str]] = []
    for name in FILES:
        meant = set(EXPECTED[name]["references"])
        with lmml_mdit.open(CHATS / name) as bundle:
            found = {e.name for e in bundle.narrative.embeds if not e.is_inline}
            missing = {i.name for i in bundle.validate() if i.kind == "missing_reference"}
        spurious += [(name, ref) for ref in sorted((found - meant) | missing)]
    assert spurious == []
