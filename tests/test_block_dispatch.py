"""The block parser of ``lmml_mdit.parse``'s own parser gives markdown-it's tokens.

:class:`~lmml_mdit.syntax.DispatchingBlockParser` skips only the rule calls that
cannot succeed; here the same parser is run with markdown-it's own block loop and with the
dispatching one, on every CommonMark example and on generated documents made of the
constructs chats are made of, and the token streams compared.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.parser_block import ParserBlock
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from lmml_mdit import parse
from lmml_mdit.narrative import default_parser
from lmml_mdit.syntax import STARTS, DispatchingBlockParser

SPEC = Path(__file__).parent / "data" / "commonmark-spec.json"
EXAMPLES: list[dict[str, Any]] = json.loads(SPEC.read_text(encoding="utf-8"))


def _loop_parser() -> MarkdownIt:
    """The default parser with markdown-it's own block loop (the same ruler)."""
    fast = default_parser()
    assert isinstance(fast.block, DispatchingBlockParser)
    plain = default_parser.__wrapped__()  # type: ignore[attr-defined]
    loop = ParserBlock()
    loop.ruler = plain.block.ruler
    plain.block = loop
    return plain


LOOP = _loop_parser()
FAST = default_parser()
COMMONMARK = MarkdownIt("commonmark")


def _same(text: str) -> None:
    fast: list[Token] = FAST.parse(text, {})
    loop: list[Token] = LOOP.parse(text, {})
    assert fast == loop


@pytest.mark.parametrize("example", EXAMPLES, ids=[str(e["example"]) for e in EXAMPLES])
def test_commonmark_examples_parse_the_same(example: dict[str, Any]) -> None:
    _same(example["markdown"])


def test_the_commonmark_preset_dispatched_renders_every_example() -> None:
    md = MarkdownIt("commonmark")
    md.block = DispatchingBlockParser(md.block)
    for example in EXAMPLES:
        html = COMMONMARK.render(example["markdown"])
        assert md.render(example["markdown"]) == html, example["example"]


def test_each_skipped_rule_fails_on_another_first_character() -> None:
    """Every rule in STARTS, tried alone at a line starting with any other character
    (at indentations 0 to 3, in and out of a list and a quote), matches nothing."""
    for rule, starts in STARTS.items():
        for char in "a1.`~>*-_+[<#=|\\ !\t:" + "x":
            if char in starts:
                continue
            for prefix in ("", " ", "   ", "- ", "> ", "1. "):
                md = MarkdownIt("commonmark")
                state_text = f"{prefix}{char}{char}{char} x\n{char}{char}{char}\n"
                state = StateBlock(state_text, md, {}, [])
                if state.bMarks[0] + state.tShift[0] >= state.eMarks[0]:
                    continue
                if state.src[state.bMarks[0] + state.tShift[0]] in starts:
                    continue
                assert not rule(state, 0, state.lineMax, False), (rule, char, prefix)


_lines = st.sampled_from(
    [
        "",
        "",
        "plain text line",
        "more *text* with `code`",
        "## Turn 1 -- user",
        "## assistant",
        "# Title",
        "#not a heading",
        "- item",
        "- item two",
        "* star",
        "+ plus",
        "1. one",
        "2) two",
        "10. ten",
        "   - indented item",
        "    code line",
        "> quote",
        "> - quoted item",
        ">",
        "```",
        "```python",
        "~~~",
        "---",
        "***",
        "___",
        "===",
        "- - -",
        "Setext",
        "--",
        "<div>",
        "</div>",
        "<!-- user -->",
        "<!-- comment",
        "-->",
        "[ref]: https://example.com",
        "[ref]",
        "| a | b |",
        "|---|---|",
        "a | b",
        "--- | ---",
        "@@@notes.txt",
        "@@@",
        "@a.png",
        "\\## user",
        "  continued",
        "\t- tab item",
        "  > quote in list",
        "1.",
        "-",
        "#",
        "<",
        "[",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_lines, max_size=14))
def test_generated_documents_parse_the_same(lines: list[str]) -> None:
    _same("\n".join(lines) + "\n")


def test_lmml_parse_uses_the_dispatching_parser() -> None:
    text = "## user\n\nHi *there*\n---\n\n- a\n- b\n\n```\ncode\n```\n"
    assert parse(text).tokens == parse(text, md=LOOP).tokens


class _CountingList(list[int]):
    """A line table that counts its reads."""

    reads = 0

    def __getitem__(self, index: Any) -> Any:
        _CountingList.reads += 1
        return super().__getitem__(index)


@pytest.mark.parametrize("unit", ["## user\nx\n", "<!-- user -->\nx\n", "x\n```\ny\n```\n"])
def test_paragraphs_cut_without_a_blank_line_are_scanned_once(unit: str) -> None:
    """Paragraphs ended by a heading, comment or fence with no blank line between
    (a chat pasted without blank lines) cost the block loop a bounded number of line-table
    reads each: the search for a setext underline is not repeated to the end of the text
    from every paragraph."""
    counts = []
    for copies in (500, 1000):
        text = unit * copies
        state = StateBlock(text, FAST, {}, [])
        state.eMarks = _CountingList(state.eMarks)
        _CountingList.reads = 0
        FAST.block.tokenize(state, 0, state.lineMax)
        counts.append(_CountingList.reads)
        plain = StateBlock(text, LOOP, {}, [])
        LOOP.block.tokenize(plain, 0, plain.lineMax)
        assert state.tokens == plain.tokens
    assert counts[1] <= 2.2 * counts[0]
