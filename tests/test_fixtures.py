"""The ``spec_fixtures/`` cases: HTML for the syntax, JSON for embeds and turns.

Fixture files are text read with universal newlines, so characters that a text file cannot
carry faithfully are written as visible stand-ins: ``␍`` for a carriage return, ``→`` for a
tab and ``␀`` for NUL. An input whose last stand-in is a final ``␍`` ends there: the file's
own newline after it is not part of the input (so CR-only documents stay CR-only).

``syntax.md`` is rendered by the ``commonmark`` preset with the plugin. The same cases also
run through a ``gfm-like`` parser and a parser with ``html`` off, where the expected
results are derived from the commonmark ones by the rules stated in each test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.utils import read_fixture_file

from lmml_mdit import Embed, Turn, lmml_plugin, parse
from lmml_mdit.syntax import DELIMITERS_KEY, EMBEDS_KEY

FIXTURES = Path(__file__).resolve().parent.parent / "spec_fixtures"

_STAND_INS = {"␍": "\r", "→": "\t", "␀": "\0"}


def fixture_input(raw: str) -> str:
    """The real input a fixture's input section stands for."""
    if raw.endswith("␍\n"):
        raw = raw[:-1]
    for stand_in, char in _STAND_INS.items():
        raw = raw.replace(stand_in, char)
    return raw


def load(name: str) -> list[tuple[str, str, str]]:
    """``(id, input, expected)`` for each case of ``spec_fixtures/<name>``."""
    cases = read_fixture_file(FIXTURES / name)
    return [
        (f"{line}: {title}", fixture_input(text), expected) for line, title, text, expected in cases
    ]


SYNTAX = load("syntax.md")
EMBEDS = load("embeds.md")
TURNS = load("turns.md")

COMMONMARK = MarkdownIt("commonmark").use(lmml_plugin)
PLAIN = MarkdownIt("commonmark")
HTML_OFF = MarkdownIt("commonmark", {"html": False}).use(lmml_plugin)
GFM = MarkdownIt("gfm-like").use(lmml_plugin)

# What gfm-like adds over commonmark: tables (|), strikethrough (~) and linkify, which
# turns bare URLs, www. hosts and e-mail addresses into links.
_GFM_SYNTAX = re.compile(r"[|~]|https?:|www\.|\w@\w")


def _ids(cases: list[tuple[str, str, str]]) -> list[str]:
    return [case[0] for case in cases]


def _results(md: MarkdownIt, text: str) -> tuple[list[Embed], list[tuple[str, int]]]:
    env: dict[str, Any] = {}
    md.parse(text, env)
    delimiters = [(d.meta["lmml_role"], d.map[0] if d.map else -1) for d in env[DELIMITERS_KEY]]
    return env[EMBEDS_KEY], delimiters


def test_enough_syntax_cases() -> None:
    assert len(SYNTAX) >= 60


@pytest.mark.parametrize(("case_id", "text", "expected"), SYNTAX, ids=_ids(SYNTAX))
def test_syntax_html(case_id: str, text: str, expected: str) -> None:
    assert COMMONMARK.render(text) == expected


PLAIN_CASES = [case for case in SYNTAX if "(no LMML)" in case[0]]


@pytest.mark.parametrize(("case_id", "text", "expected"), PLAIN_CASES, ids=_ids(PLAIN_CASES))
def test_syntax_without_lmml_is_plain_markdown(case_id: str, text: str, expected: str) -> None:
    """Cases titled "(no LMML)" render exactly as without the plugin."""
    assert expected == PLAIN.render(text)


@pytest.mark.parametrize(("case_id", "text", "expected"), SYNTAX, ids=_ids(SYNTAX))
def test_syntax_html_off(case_id: str, text: str, expected: str) -> None:
    """With ``html`` off the delimiters are the same; without any ``<`` so is everything."""
    assert _results(HTML_OFF, text)[1] == _results(COMMONMARK, text)[1]
    if "<" not in text:
        assert HTML_OFF.render(text) == expected
        assert _results(HTML_OFF, text) == _results(COMMONMARK, text)


@pytest.mark.parametrize(("case_id", "text", "expected"), SYNTAX, ids=_ids(SYNTAX))
def test_syntax_gfm_like(case_id: str, text: str, expected: str) -> None:
    """On ``gfm-like`` the results match unless the text holds gfm-only syntax."""
    if _GFM_SYNTAX.search(text):
        GFM.render(text)  # still parses
        return
    assert GFM.render(text) == expected
    assert _results(GFM, text) == _results(COMMONMARK, text)


def _embed_json(embed: Embed) -> dict[str, object]:
    return {
        "name": embed.name,
        "kind": embed.kind,
        "content": None if embed.content is None else embed.content.decode("utf-8"),
        "line": embed.line,
        "column": embed.column,
        "closed": embed.closed,
    }


def _turn_json(turn: Turn) -> dict[str, object]:
    return {
        "role": turn.role,
        "text": turn.text,
        "embeds": [embed.name for embed in turn.embeds],
        "start_line": turn.start_line,
        "end_line": turn.end_line,
        "delimiter_line": turn.delimiter_line,
        "heading": turn.heading,
    }


@pytest.mark.parametrize(("case_id", "text", "expected"), EMBEDS, ids=_ids(EMBEDS))
def test_embeds(case_id: str, text: str, expected: str) -> None:
    assert [_embed_json(embed) for embed in parse(text).embeds] == json.loads(expected)


@pytest.mark.parametrize(("case_id", "text", "expected"), TURNS, ids=_ids(TURNS))
def test_turns(case_id: str, text: str, expected: str) -> None:
    assert [_turn_json(turn) for turn in parse(text).turns] == json.loads(expected)


@pytest.mark.parametrize(("case_id", "text", "expected"), TURNS, ids=_ids(TURNS))
def test_turns_from_bytes(case_id: str, text: str, expected: str) -> None:
    """UTF-8 bytes parse to the same turns as the text."""
    assert [_turn_json(turn) for turn in parse(text.encode("utf-8")).turns] == json.loads(expected)
