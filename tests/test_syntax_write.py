"""The writers of LMML syntax (:mod:`lmml_mdit.syntax`) read back through the parser."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from lmml_mdit import parse
from lmml_mdit.errors import NotInlinableError
from lmml_mdit.media import FILE_EXTENSIONS
from lmml_mdit.syntax import (
    ESCAPE,
    check_fenceable,
    code_fence,
    code_fence_marker,
    embed_fence,
    escape_at,
    reference,
    writes_as_reference,
)

HINT = "do something else"

names = st.builds(
    str.__add__,
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,12}", fullmatch=True),
    st.sampled_from(sorted(FILE_EXTENSIONS)),
)
"""Embed names as the writers produce them (also valid reference names: a known extension)."""


def _fenceable(name: str, content: str) -> bool:
    try:
        check_fenceable(name, content, hint=HINT)
    except NotInlinableError:
        return False
    return True


def _inline_embeds(source: str) -> list[tuple[str, bytes | None]]:
    return [(embed.name, embed.content) for embed in parse(source).embeds if embed.is_inline]


# --- embed fences ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "written"),
    [
        ("", "@@@a.txt\n@@@"),
        ("x\n", "@@@a.txt\nx\n@@@"),
        ("x", "@@@a.txt\nx@@@"),
        ("x\n\n", "@@@a.txt\nx\n\n@@@"),
    ],
)
def test_embed_fence_closes_on_its_own_line_after_a_newline(content: str, written: str) -> None:
    assert embed_fence("a.txt", content) == written
    assert _inline_embeds(written) == [("a.txt", content.encode())]


@given(names, st.text())
@example("a.txt", "x\n   ")
@example("a.txt", "ends @@@\nthen more\n")
@example("a.txt", "a\r\nb")
@example("a.txt", "nul\x00")
@example("a.txt", "\ufeffbom\n")
@example("a.txt", "    indented\n\ttab\n")
def test_a_written_fence_parses_back_to_its_name_and_bytes(name: str, content: str) -> None:
    if _fenceable(name, content):
        for after in ("", "\n", "\n\nMore text.\n"):
            source = embed_fence(name, content) + after
            assert _inline_embeds(source) == [(name, content.encode("utf-8"))]


@given(names, st.text(alphabet="a @\r\x00\n \t"))
def test_content_a_fence_cannot_hold_is_refused(name: str, content: str) -> None:
    """The refusal is not over-eager for what it checks: content the parser would not give
    back is refused, and every refusal names one of the documented reasons."""
    source = embed_fence(name, content)
    if _inline_embeds(source) != [(name, content.encode())]:
        with pytest.raises(NotInlinableError):
            check_fenceable(name, content, hint=HINT)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("a\x00b", "NUL"),
        ("line\r\n", "carriage"),
        ("x\n@@@\ny\n", "line 2 .* @@@"),
        ("x\nends with @@@\ny\n", "line 2 .* @@@"),
        ("x\n  ", "blank line"),
    ],
)
def test_check_fenceable_names_the_reason(content: str, reason: str) -> None:
    with pytest.raises(NotInlinableError, match=reason) as caught:
        check_fenceable("a.txt", content, hint=HINT)
    assert caught.value.name == "a.txt"
    assert HINT in str(caught.value.hint)


# --- code fences -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "```"),
        ("a `b` c ``d``", "```"),
        ("```py\nx\n```", "````"),
        ("`````", "``````"),
        ("```` and ```", "`````"),
    ],
)
def test_code_fence_marker(text: str, expected: str) -> None:
    assert code_fence_marker(text) == expected


@given(st.text(alphabet="`a\n"))
def test_code_fence_marker_outruns_every_run(text: str) -> None:
    fence = code_fence_marker(text)
    assert len(fence) >= 3 and set(fence) == {"`"}
    assert fence not in text


def test_tilde_fence_counts_tildes_only() -> None:
    assert code_fence_marker("~~~~ and ```", "~") == "~~~~~"
    assert code_fence("x", "py", char="~") == "~~~py\nx\n~~~"


@given(st.text(alphabet="`~ax \n"), st.sampled_from(["`", "~"]), st.sampled_from(["", "py"]))
def test_a_code_fence_holds_its_content(content: str, char: str, info: str) -> None:
    assert char in ("`", "~")
    written = code_fence(content, info, char=char)  # type: ignore[arg-type]
    fences = [token for token in parse(written).tokens if token.type == "fence"]
    assert len(fences) == 1
    assert fences[0].info == info
    assert fences[0].content == content + "\n"


# --- references and escapes ------------------------------------------------------------------


@given(names)
def test_a_written_reference_reads_back(name: str) -> None:
    assert writes_as_reference(name)
    narrative = parse(f"See {reference(name)} here.\n")
    assert [(embed.kind, embed.name) for embed in narrative.embeds] == [("external", name)]


def test_escape_at_keeps_the_reference_text() -> None:
    line = "See @chart.png."
    escaped = escape_at(line, line.index("@") + 1)
    assert escaped == "See " + ESCAPE + "@chart.png."
    assert parse(escaped + "\n").embeds == ()
