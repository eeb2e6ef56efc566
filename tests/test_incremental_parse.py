"""The language server's re-parse after an edit equals a full parse of the edited text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmml_mdit.lsp import analyse
from lmml_mdit.narrative import parse_tracked, reparse

PIECES = [
    "## Turn 1 -- user\n",
    "## Turn 2 -- assistant\n",
    "<!-- assistant -->\n",
    "<!-- user -->\n",
    "Some words with @chart.png and *emphasis*.\n",
    "A line naming @snippet.json, a fence name.\n",
    "\n",
    "\n\n",
    "- item one\n- item two @notes.txt\n",
    "  continued item\n",
    "```python\nprint(1)\n",
    "```\n",
    "> quoted @chart.png\n",
    "[x]: /url\n",
    "see [x] here\n",
    '@@@snippet.json\n{"a": 1}\n@@@\n',
    "@@@other.txt\n",
    "@@@\n",
    "---\n",
    "title: t\n",
    "| a | b |\n|---|---|\n| 1 | 2 |\n",
    "\\## not a delimiter\n",
    "Setext\n===\n",
    "    indented code\n",
    "<div>\nhtml\n</div>\n",
]
EDITS = [
    "",
    "\n",
    "\n\n",
    "```\n",
    "## ",
    "# ",
    "@@@",
    "@@@\n",
    "x",
    "- ",
    "> ",
    "<!-- user -->\n",
    "---\n",
    "[y]: /u\n",
    "|---|\n",
]


def _document(parts: list[str]) -> str:
    return "".join(parts)


@st.composite
def _edited(draw: st.DrawFn, min_size: int = 1) -> tuple[str, str]:
    text = _document(draw(st.lists(st.sampled_from(PIECES), min_size=min_size, max_size=40)))
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + draw(st.integers(0, 12)))))
    insert = draw(st.sampled_from(EDITS))
    return text, text[:start] + insert + text[end:]


def _same(one: object, other: object) -> None:
    assert one == other


@settings(max_examples=400, deadline=None)
@given(_edited())
def test_reparse_equals_a_full_parse(case: tuple[str, str]) -> None:
    before, after = case
    previous = parse_tracked(before)
    again = reparse(previous, after)
    full = parse_tracked(after)
    got, want = again.narrative, full.narrative
    assert [t.as_dict() for t in got.tokens] == [t.as_dict() for t in want.tokens]
    assert got.embeds == want.embeds
    assert got.turns == want.turns
    assert got.escapes == want.escapes
    assert got.front_matter == want.front_matter
    assert got.source == want.source
    assert again.starts == full.starts
    assert again.positions == full.positions
    assert again.fences == full.fences
    assert again.line_starts == full.line_starts
    assert [d.map for d in again.delimiters] == [d.map for d in full.delimiters]


def test_an_edit_in_a_long_document_is_parsed_in_part() -> None:
    text = "".join(f"## Turn {n} -- user\nWords @chart.png {n}.\n\n" for n in range(1, 60))
    previous = parse_tracked(text)
    edited = text.replace("Words @chart.png 30.", "Words @chart.png 30!\n\nMore.")
    again = reparse(previous, edited)
    assert again.incremental
    full = parse_tracked(edited)
    assert [t.as_dict() for t in again.narrative.tokens] == [
        t.as_dict() for t in full.narrative.tokens
    ]
    assert again.narrative.turns == full.narrative.turns


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=20, max_size=60), st.data())
def test_reparse_of_longer_documents_equals_a_full_parse(
    parts: list[str], data: st.DataObject
) -> None:
    text = "".join(parts)
    start = data.draw(st.integers(len(text) // 2, len(text)))
    end = data.draw(st.integers(start, min(len(text), start + 10)))
    after = text[:start] + data.draw(st.sampled_from(EDITS)) + text[end:]
    test_reparse_equals_a_full_parse.hypothesis.inner_test((text, after))  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("incremental")
    (root / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(16))
    (root / "notes.txt").write_text("notes\n", encoding="utf-8")
    return root


@settings(max_examples=150, deadline=None)
@given(case=_edited(min_size=15))
def test_the_server_analysis_after_an_edit_equals_a_fresh_one(
    folder: Path, case: tuple[str, str]
) -> None:
    before, after = case
    uri = (folder / "doc.lmml").as_uri()
    first = analyse(uri, before, 1)
    second = analyse(uri, after, 2, first)
    third = analyse(uri, after + "More @notes.txt and @gone.png.\n", 3, second)
    for got, text in ((second, after), (third, after + "More @notes.txt and @gone.png.\n")):
        fresh = analyse(uri, text, 9)
        assert got.issues == fresh.issues
        assert repr(got.failure) == repr(fresh.failure)
        if fresh.narrative is not None:
            assert got.narrative is not None
            assert got.narrative.turns == fresh.narrative.turns
            assert got.narrative.embeds == fresh.narrative.embeds


def test_a_file_appearing_beside_the_document_is_seen_by_the_next_edit(tmp_path: Path) -> None:
    """A name without an extension is an asset only when a file of that name is beside the
    document: the blocks kept from the last parse were read when it was not there, so the
    next edit parses everything again (the server is told of no file changes)."""
    text = "".join(f"## Turn {n} -- user\n\nRead @notes for {n}.\n\n" for n in range(1, 40))
    uri = (tmp_path / "doc.lmml").as_uri()
    opened = analyse(uri, text, 1)
    text = text.replace("Read @notes for 10.", "Read @notes for ten.")
    first = analyse(uri, text, 2, opened)  # the first edit parses in full, keeping the parse
    assert first.narrative is not None and first.narrative.embeds == ()
    (tmp_path / "notes").write_text("the notes\n", encoding="utf-8")
    edited = text.replace("Read @notes for 30.", "Read @notes for thirty.")
    second = analyse(uri, edited, 3, first)
    fresh = analyse(uri, edited, 9)
    assert second.narrative is not None and fresh.narrative is not None
    assert second.narrative.embeds == fresh.narrative.embeds != ()
    assert second.issues == fresh.issues
    # and with the folder unchanged, the edit after it is parsed in part again
    tracked = parse_tracked(edited, known_names=None)
    assert reparse(tracked, edited.replace("thirty", "30")).incremental
