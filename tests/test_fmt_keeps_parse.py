"""``lmml fmt`` never changes the parse: turns, roles, embeds, references, escapes,
placeholders and the text each turn sends are the same after formatting (checked by the
formatter before it writes, and here over generated narratives), and formatting is
idempotent."""

from __future__ import annotations

from pathlib import Path

import mdformat
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lmml_mdit import FormatError, parse
from lmml_mdit.cli import main
from lmml_mdit.toolchain import format_text, outline

TEMPLATE = "---\ninputs: {name: string}\n---\n## user\n\n"


def test_a_brace_escape_stays_so_no_placeholder_appears() -> None:
    text = TEMPLATE + "Write \\{{ name }} for {{ name }}.\n"
    formatted = format_text(text)
    assert "\\{{ name }}" in formatted
    before, after = parse(text).placeholders, parse(formatted).placeholders
    assert len(after.found) == len(before.found) == 1
    assert len(after.escapes) == len(before.escapes) == 1


def test_a_link_definition_stays_in_its_turn() -> None:
    text = (
        "## user\n\nsee [the docs][d]\n\n[d]: https://example.com/docs\n\n## assistant\n\nnoted\n"
    )
    formatted = format_text(text)
    turns = parse(formatted).turns
    assert "https://example.com/docs" in turns[0].text
    assert "example.com" not in turns[1].text
    assert outline(parse(formatted)) == outline(parse(text))


def test_wrapping_never_splits_a_placeholder() -> None:
    text = TEMPLATE + "some words {{ name }} more words {{ name }} and then some\n"
    formatted = format_text(text, options={"wrap": 12})
    assert formatted.count("{{ name }}") == 2
    assert len(parse(formatted).placeholders.found) == 2


@pytest.mark.parametrize(
    "text",
    ["a \\_\na\n===\n", "x \\_\ny \\*\n---\n\nmore\n", "## user\n\nt \\_\nu\n===\n"],
)
def test_formatting_is_idempotent(text: str) -> None:
    formatted = format_text(text)
    assert format_text(formatted) == formatted


def test_the_formatter_refuses_what_would_change_a_turns_text(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Whatever mdformat writes, the formatter compares before it returns or writes.
    text = "## user\n\nsee [d]\n\n[d]: https://a.example\n\n## assistant\n\nok\n"
    moved = "## user\n\nsee [d]\n\n## assistant\n\nok\n\n[d]: https://a.example\n"
    monkeypatch.setattr(mdformat, "text", lambda *args, **kwargs: moved)
    with pytest.raises(FormatError, match=r"turn 1 .*text sent"):
        format_text(text)
    path = tmp_path / "chat.lmml"
    path.write_text(text, encoding="utf-8")
    assert main(["fmt", str(path)]) == 2
    assert path.read_text(encoding="utf-8") == text
    assert "text sent would read differently" in capsys.readouterr().err


def test_a_formatter_that_never_settles_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = iter(range(100))
    monkeypatch.setattr(mdformat, "text", lambda text, **kwargs: f"{text}x{next(calls)}\n")
    with pytest.raises(FormatError, match="does not settle"):
        format_text("plain\n")


# --------------------------------------------------------------------------- generated

_word = st.sampled_from(
    [
        "word",
        "the",
        "*em*",
        "_u_",
        "a_b",
        "\\_",
        "\\*",
        "\\#",
        "\\[x\\]",
        "\\\\",
        "\\{{ name }}",
        "{{ name }}",
        "{{name}}",
        "{{ order.id }}",
        "`{{ name }}`",
        "[docs][d]",
        "[d]",
        "![pic][d]",
        "@chart.png",
        "\\@alice",
        "&amp;",
        "<b>",
        "#tag",
        "2.",
        "--",
    ]
)
_line = st.lists(_word, min_size=1, max_size=7).map(" ".join)
_paragraph = st.lists(_line, min_size=1, max_size=3).map("\n".join)
_block = st.one_of(
    _paragraph,
    _paragraph.map(lambda text: text + "\n" + "==="),
    _paragraph.map(lambda text: text + "\n" + "---"),
    _paragraph.map(lambda text: "> " + text.replace("\n", "\n> ")),
    _paragraph.map(lambda text: "- " + text.replace("\n", "\n  ")),
    st.just('[d]: https://example.com/d "title"'),
    st.just("@@@notes.txt\n{{ name }} \\{{ kept }}\n@@@"),
    st.just("```\n{{ name }} \\{{\n```"),
)
_delimiter = st.sampled_from(["## user", "## assistant", "<!-- system -->", "# Turn 2 -- user"])


@st.composite
def narratives(draw: st.DrawFn) -> str:
    turns = draw(st.lists(st.tuples(_delimiter, st.lists(_block, max_size=4)), max_size=4))
    parts = [TEMPLATE.rstrip("\n")]
    for delimiter, blocks in turns:
        parts.append(delimiter)
        parts.extend(blocks)
    return "\n\n".join(parts) + "\n"


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(narratives(), st.sampled_from([{}, {"wrap": 30}, {"wrap": "no"}]))
@example(TEMPLATE + "<b> [docs][d] @chart.png\n\n[d]: https://example.com/d\n", {"wrap": 30})
@example(TEMPLATE + "## user\n\n- 2. --\n  2.\n", {})
def test_formatting_keeps_the_parse_of_generated_narratives(
    text: str, options: dict[str, object]
) -> None:
    try:
        formatted = format_text(text, options=options)
    except FormatError as refused:
        # Refused only where a turn uses a link definition another turn holds: its text,
        # sent alone, would gain a link.
        texts = [turn.text for turn in parse(text).turns]
        defines = ["[d]: " in turn for turn in texts]
        uses = [turn.replace("[d]: ", "").count("[d]") > 0 for turn in texts]
        assert "text sent" in str(refused), refused
        assert any(defines) and any(u and not d for u, d in zip(uses, defines, strict=True))
        return
    before, after = parse(text), parse(formatted)
    assert outline(after) == outline(before)
    assert [(t.role, t.heading) for t in after.turns] == [(t.role, t.heading) for t in before.turns]
    assert [p.path for p in after.placeholders.found] == [p.path for p in before.placeholders.found]
    assert len(after.placeholders.escapes) == len(before.placeholders.escapes)
    assert format_text(formatted, options=options) == formatted


def test_wrapping_keeps_an_escaped_placeholder_on_one_line() -> None:
    # Found by the property test: the spaces inside ``\{{ name }}`` were wrap points (its
    # text starts at the second brace), and the check refused the file.
    text = (
        "---\ninputs: {name: string}\n---\n## user\n\n## user\n\nword word word word \\{{ name }}\n"
    )
    formatted = format_text(text, options={"wrap": 30})
    assert "\\{{ name }}" in formatted
    assert formatted.endswith("word word word word\n\\{{ name }}\n")
    two = text.replace("word word word word \\{{ name }}", "word word \\{{ name }} \\{{ name }}")
    assert format_text(two, options={"wrap": 30}).endswith("word word \\{{ name }}\n\\{{ name }}\n")


def test_wrapping_never_leaves_an_html_tag_alone_on_a_paragraphs_first_line() -> None:
    # Found by the property test: wrapping broke the line after ``<b>`` (the inlined link
    # is long), and a first line that is a tag alone opens an HTML block, which swallowed
    # the paragraph and its reference; the check refused the file.
    text = '## user\n\n<b> [docs][d] @chart.png\n\n[d]: https://example.com/d "title"\n'
    formatted = format_text(text, options={"wrap": 30})
    assert formatted == '## user\n\n<b> [docs](https://example.com/d "title")\n@chart.png\n'
    assert [embed.name for embed in parse(formatted).embeds] == ["chart.png"]
    tags = "## user\n\n<b> </b> <i> words that wrap @chart.png\n"
    formatted = format_text(tags, options={"wrap": 3})
    assert formatted.startswith("## user\n\n<b> </b>\n<i>\nwords\n")
    assert [embed.name for embed in parse(formatted).embeds] == ["chart.png"]


def test_an_escaped_dash_in_a_nested_list_is_no_front_matter() -> None:
    # Found by the property test: mdformat writes ``- 2. --`` as ``- 2. \--``, and the
    # turn's text, read alone, took that first line for front matter (the front matter
    # rule ran inside the nested list), so the check refused the file.
    text = TEMPLATE + "## user\n\n- 2. --\n  2.\n"
    formatted = format_text(text)
    assert formatted.endswith("## user\n\n- 2. \\--\n  1.\n")
    assert outline(parse(formatted)) == outline(parse(text))
