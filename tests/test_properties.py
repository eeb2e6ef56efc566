"""Property tests: any input parses or fails with an LmmlError, and turns tile the document.

The tiling property: walking the turns in order, each turn's delimiter lines (if any) and
then its region lines, gives every line of the normalized document exactly once, in order.
The one exception is a preamble made only of whitespace: it yields no ``context`` turn, so
its lines (all blank) are the only ones no turn or delimiter covers.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lmml_mdit import LmmlError, Narrative, parse

# Line pieces that exercise every LMML rule and the containers around them.
_PIECES = [
    "@@@",
    "@@@a.txt",
    "@@@ b/c.md ",
    "   @@@",
    "x@@@",
    "@a.png",
    "see @a.png.",
    "bob@example.com",
    "a@@b",
    "\\@x",
    "`@code`",
    "```",
    "~~~",
    "    indented @x",
    "# user",
    "## Turn 1 -- assistant",
    "### System notes",
    "#### tool @t.json",
    "Assistant",
    "===",
    "---",
    "<!-- user -->",
    "<!-- TOOL -->",
    "<!-- ask the user -->",
    "<div>",
    "> ",
    ">> ",
    "> # user",
    "- ",
    "-\t",
    ">\t",
    "1. ",
    "  ",
    "* <!-- system -->",
    "[l](@x)",
    "![@alt](u)",
    "<https://x/@y>",
    "| @a | b |",
    "\t",
    "\ufeff",
    "\0",
    "",
]
_NEWLINES = ["\n", "\n", "\n", "\r\n", "\r"]

lmml_like = st.lists(
    st.tuples(
        st.lists(st.sampled_from(_PIECES), min_size=0, max_size=3).map("".join),
        st.sampled_from(_NEWLINES),
    ),
    max_size=30,
).map(lambda lines: "".join(text + newline for text, newline in lines))

# Any characters, or lone surrogates (what a str decoded with errors="surrogateescape" holds).
any_code_points = st.one_of(
    st.text(max_size=40), st.text(st.characters(categories=["Cs"]), min_size=1, max_size=3)
)

texts = st.one_of(
    st.text(),
    lmml_like,
    st.text(alphabet="@#<!->`\n\r \tux.", max_size=60),
    st.tuples(lmml_like, any_code_points, lmml_like).map("".join),
)


def _check_tiling(narrative: Narrative) -> None:
    lines = narrative.lines
    covered: list[int] = []
    for turn in narrative.turns:
        if turn.delimiter_line is not None:
            covered.extend(range(turn.delimiter_line, turn.start_line))
        covered.extend(range(turn.start_line, turn.end_line + 1))
    first = covered[0] if covered else len(lines) + 1
    # A leading front matter block is metadata: its lines belong to no turn.
    front = narrative.tokens[0].map if narrative.front_matter is not None else None
    metadata = list(range(1, front[1] + 1)) if front else []
    uncovered_preamble = [number for number in range(1, first) if number not in metadata]
    # Only a whitespace-only preamble, which makes no context turn, may be left out.
    assert all(not lines[number - 1].strip() for number in uncovered_preamble)
    if narrative.turns and narrative.turns[0].role == "context":
        assert not uncovered_preamble
    assert sorted(metadata + uncovered_preamble + covered) == list(range(1, len(lines) + 1))


def _check_embeds(narrative: Narrative) -> None:
    bound = [embed for turn in narrative.turns for embed in turn.embeds]
    assert [embed.name for embed in bound] == list(narrative.embed_names)
    for embed in narrative.embeds:
        # Each occurrence points at its own marker in the normalized source.
        line = narrative.lines[embed.line - 1]
        marker = "@@@" if embed.kind == "inline" else "@" + embed.name
        assert line.startswith(marker, embed.column - 1), (embed, line)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_any_text(text: str) -> None:
    try:
        narrative = parse(text)
    except LmmlError:
        return
    _check_tiling(narrative)
    _check_embeds(narrative)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(), lmml_like.map(lambda text: text.encode("utf-8", "surrogatepass"))))
def test_any_bytes(data: bytes) -> None:
    try:
        narrative = parse(data)
    except LmmlError:
        return
    _check_tiling(narrative)
