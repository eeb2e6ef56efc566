"""Hostile input parses to sensible results (speed is measured by benchmarks/bench_parse.py)."""

from __future__ import annotations

import pytest

from lmml_mdit import LmmlSyntaxError, parse


def test_ten_thousand_unclosed_fences() -> None:
    text = "".join(f"@@@name{i}\n" for i in range(10_000))
    (embed,) = parse(text).embeds  # the first swallows the rest, verbatim
    assert embed.name == "name0" and not embed.closed
    assert embed.content is not None and embed.content.count(b"\n") == 9_999


def test_ten_thousand_bare_fence_lines() -> None:
    narrative = parse("@@@\n" * 10_000)
    assert narrative.embeds == ()
    assert len(narrative.turns) == 1


def test_hundred_thousand_at_signs() -> None:
    assert parse(("x " + "@" * 100 + " ") * 1_000).embeds == ()
    assert parse("x " + "@" * 100_000).embeds == ()
    # A line starting with "@@@" opens a fence named by the rest of the line, "@" signs too.
    (fence,) = parse("@" * 100_000).embeds
    assert fence.name == "@" * 99_997 and fence.content == b"" and not fence.closed


def test_hundred_thousand_references_in_one_paragraph() -> None:
    narrative = parse("@a @b\n" * 50_000, known_names={"a", "b"})
    assert len(narrative.embeds) == 100_000
    assert narrative.embed_names == ("a", "b")
    last = narrative.embeds[-1]
    assert (last.line, last.column) == (50_000, 4)


def test_ten_thousand_references_on_one_line() -> None:
    narrative = parse(" @r" * 10_000, known_names={"r"})
    assert [e.column for e in narrative.embeds[:3]] == [2, 5, 8]
    assert narrative.embeds[-1].column == 3 * 10_000 - 1


def test_deeply_nested_quotes_and_lists() -> None:
    narrative = parse(">" * 20_000 + " # user @a\n\n" + "> " * 5_000 + "x\n# user\nhi\n")
    assert [t.role for t in narrative.turns] == ["context", "user"]
    lists = "".join("  " * i + "- @x\n" for i in range(2_000))
    assert parse(lists, known_names={"x"}).embeds[0].name == "x"


def test_hundred_thousand_mentions_are_no_references() -> None:
    assert parse("cc @alice-dev @types/node https://x.io/@bob " * 25_000).embeds == ()


def test_huge_single_line() -> None:
    narrative = parse("word " * 200_000 + "@end.png")
    assert narrative.embeds[0].column == 5 * 200_000 + 1


@pytest.mark.parametrize("data", [b"\xff" * 100_000, b"ok " * 1000 + b"\xed\xa0\x80"])
def test_invalid_utf8(data: bytes) -> None:
    with pytest.raises(LmmlSyntaxError):
        parse(data)
