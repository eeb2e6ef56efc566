from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmml_mdit import parse
from lmml_mdit.text import (
    as_turn_text,
    blank_edges,
    line_starts,
    normalize_newlines,
    trim_blank_lines,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\r\nb", "a\nb"),
        ("a\rb", "a\nb"),
        ("a\r\r\nb", "a\n\nb"),
        ("a\n\rb", "a\n\nb"),
        ("nul\x00here", "nul\ufffdhere"),
        ("plain\n", "plain\n"),
    ],
)
def test_normalize_newlines(text: str, expected: str) -> None:
    assert normalize_newlines(text) == expected


@given(st.text())
def test_normalize_newlines_matches_the_parser(text: str) -> None:
    result = normalize_newlines(text)
    assert "\r" not in result and "\x00" not in result
    assert parse(text).source == result


@pytest.mark.parametrize(
    ("lines", "start", "end", "expected"),
    [
        ([], 0, None, (0, 0)),
        (["", " ", "\t"], 0, None, (3, 3)),
        (["", "a", "  ", "b", " "], 0, None, (1, 4)),
        (["a", "", "b"], 0, None, (0, 3)),
        (["x", "", "a", "", "y"], 1, 4, (2, 3)),
        (["x", "", "", "y"], 1, 3, (3, 3)),
        (["\u3000", "a", "\u2028"], 0, None, (1, 2)),  # Unicode whitespace is blank too
    ],
)
def test_blank_edges(
    lines: list[str], start: int, end: int | None, expected: tuple[int, int]
) -> None:
    assert blank_edges(lines, start, end) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ""),
        ("\n \n\t\n", ""),
        ("\n\n  a\n\n b \n\n", "  a\n\n b "),
        ("a", "a"),
    ],
)
def test_trim_blank_lines(text: str, expected: str) -> None:
    assert trim_blank_lines(text) == expected


@given(st.text(alphabet=" \t\nab"))
def test_trim_blank_lines_is_idempotent_and_keeps_the_middle(text: str) -> None:
    trimmed = trim_blank_lines(text)
    assert trim_blank_lines(trimmed) == trimmed
    assert trimmed.strip() == text.strip()
    assert trimmed in text


def test_as_turn_text_is_what_a_turn_reads_back() -> None:
    assert as_turn_text("\r\n\n  a\r\n\x00b  \r\n\n") == "  a\n\ufffdb  "
    assert as_turn_text("  \n \n") == ""


@given(st.text(alphabet="ab\r\n\x00", max_size=60))
def test_line_starts_are_where_the_parse_counts_lines(text: str) -> None:
    lines = normalize_newlines(text).split("\n")
    starts = line_starts(text)
    assert len(starts) == len(lines)
    ends = [*starts[1:], len(text)]
    for start, end, line in zip(starts, ends, lines, strict=True):
        assert normalize_newlines(text[start:end]).rstrip("\n") == line
