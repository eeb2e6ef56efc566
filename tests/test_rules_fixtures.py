"""The ``spec_fixtures/rules.md`` cases: what a narrative means, read as a whole.

Each case's expected output is a JSON object; only the keys it names are compared:

- ``delimiters``: ``[role, line]`` of each turn a delimiter opens;
- ``references``: the names of the external references, in order;
- ``escapes``: the ``[line, column]`` of each LMML escape backslash;
- ``issues``: ``[kind, name, line, column]`` of each ``validate()`` issue of a text bundle,
  except ``no_turns`` (most cases are snippets without a delimiter; it has tests of its own);
- ``sent``: per turn, ``[role, [text segments]]`` as the messages would carry them
  (references need no asset: only the text is read);
- ``markdown``: what :func:`lmml_mdit.to_markdown` exports;
- ``front_matter``: the decoded front matter, or ``null``.

Options go in the title in braces: ``{delimiters=loose}``, ``{references=any}``,
``{known=Dockerfile,Makefile}`` (known asset names), ``{attachment_lines=keep}``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from test_fixtures import load

from lmml_mdit import Bundle, parse, to_markdown
from lmml_mdit.chat import TextSegment, turn_segments
from lmml_mdit.errors import LmmlError

FIXTURES = Path(__file__).resolve().parent.parent / "spec_fixtures"
RULES = load("rules.md")
_OPTION = re.compile(r"\{(\w+)=([^}]*)\}")


def _options(title: str) -> dict[str, str]:
    return dict(_OPTION.findall(title))


def _result(title: str, text: str, wanted: set[str]) -> dict[str, Any]:
    options = _options(title)
    syntax: dict[str, Any] = {
        "delimiters": options.get("delimiters", "strict"),
        "references": options.get("references", "assets"),
    }
    known = options.get("known")
    if known is not None:
        syntax["known_names"] = frozenset(known.split(","))
    narrative = parse(text, **syntax)
    result: dict[str, Any] = {
        "delimiters": [[t.role, t.delimiter_line] for t in narrative.turns if t.delimiter_line],
        "references": [e.name for e in narrative.embeds if not e.is_inline],
        "escapes": [list(position) for position in narrative.escapes],
    }
    drop = options.get("attachment_lines", "drop") == "drop"
    result["sent"] = [
        [
            turn.role,
            [
                segment.text
                for segment in turn_segments(narrative, turn, drop_attachment_lines=drop)
                if isinstance(segment, TextSegment)
            ],
        ]
        for turn in narrative.turns
    ]
    result["markdown"] = to_markdown(narrative)
    bundle = (
        Bundle(kind="text", name="t", narrative_name="t.lmml", narrative=narrative)
        if wanted & {"issues", "front_matter"}
        else None
    )
    if bundle is not None:
        result["issues"] = [
            [i.kind, i.name, i.line, i.column] for i in bundle.validate() if i.kind != "no_turns"
        ]
        try:
            result["front_matter"] = bundle.front_matter
        except LmmlError as error:
            result["front_matter"] = {"error": error.line}
    return result


def test_enough_rule_cases() -> None:
    assert len(RULES) >= 40


@pytest.mark.parametrize(("case_id", "text", "expected"), RULES, ids=[c[0] for c in RULES])
def test_rules(case_id: str, text: str, expected: str) -> None:
    wanted = json.loads(expected)
    actual = _result(case_id, text, set(wanted))
    assert {key: actual[key] for key in wanted} == wanted
