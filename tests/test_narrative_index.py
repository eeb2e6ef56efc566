"""The structure index: each field on hand-written narratives, and agreement with a direct
walk of the tokens over generated ones."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.token import Token

from lmml_mdit import Embed, Narrative, parse
from lmml_mdit.narrative import (
    AttachmentParagraph,
    Block,
    Delimiter,
    Fence,
    Records,
    StructureIndex,
)

SAMPLE = (
    "---\n"  # 0  front matter
    "title: t\n"  # 1
    "---\n"  # 2
    "Preamble @ctx.md\n"  # 3  paragraph (context turn)
    "\n"  # 4
    "## Turn 1 -- user\n"  # 5  heading delimiter
    "@a.png\n"  # 6  attachment paragraph (two lines)
    "@b.png @c.png\n"  # 7
    "\n"  # 8
    "See @a.png here.\n"  # 9  paragraph with text: no attachment
    "\n"  # 10
    "> @@@q.txt\n"  # 11 quote holding a fence
    "> quoted\n"  # 12
    "> @@@\n"  # 13
    "\n"  # 14
    "<!-- assistant -->\n"  # 15 comment delimiter
    "@@@notes.md\n"  # 16 top-level fence
    "first\n"  # 17
    "@@@\n"  # 18
    "\n"  # 19
    "    code @e.png\n"  # 20 code block: no reference
    "\n"  # 21
    "- @d.png\n"  # 22 list: its paragraph is no top-level paragraph
    "\n"  # 23
    "System\n"  # 24 setext heading delimiter
    "======\n"  # 25
    "@f.png\n"  # 26 attachment paragraph
    "\n"  # 27
    "@@@notes.md\n"  # 28 a second fence of the same name
    "first\n"  # 29
    "@@@\n"  # 30
)


def _sample() -> Narrative:
    return parse(SAMPLE)


def test_the_index_is_read_on_first_use_and_kept() -> None:
    narrative = _sample()
    assert "index" not in vars(narrative)  # a parse that nobody asks about pays nothing
    index = narrative.index
    assert isinstance(index, StructureIndex)
    assert narrative.index is index


def test_blocks_are_the_top_level_blocks_with_their_turns() -> None:
    narrative = _sample()
    assert [turn.role for turn in narrative.turns] == ["context", "user", "assistant", "system"]
    blocks = narrative.index.blocks
    assert [(block.kind, block.start, block.end, block.turn) for block in blocks] == [
        ("front_matter", 0, 3, None),
        ("paragraph", 3, 4, 0),
        ("heading", 5, 6, None),
        ("paragraph", 6, 8, 1),
        ("paragraph", 9, 10, 1),
        ("blockquote", 11, 14, 1),
        ("lmml_role", 15, 16, None),
        ("lmml_embed", 16, 19, 2),
        ("code_block", 20, 21, 2),
        ("bullet_list", 22, 24, 2),  # a list's span takes the blank line after it
        ("heading", 24, 26, None),
        ("paragraph", 26, 27, 3),
        ("lmml_embed", 28, 31, 3),
    ]
    for block in blocks:
        token = narrative.tokens[block.token]
        assert token.level == 0 and token.map == [block.start, block.end]


def test_block_at_finds_the_block_holding_a_line() -> None:
    index = _sample().index
    assert index.block_at(0) == index.blocks[0]
    assert index.block_at(7) == Block("paragraph", 6, 8, 7, 1)
    assert index.block_at(12) is not None and index.block_at(12).kind == "blockquote"
    assert index.block_at(4) is None  # a blank line
    assert index.block_at(21) is None
    assert index.block_at(23) is not None and index.block_at(23).kind == "bullet_list"
    assert index.block_at(1000) is None
    assert index.block_at(-1) is None


def test_fences_at_any_depth() -> None:
    narrative = _sample()
    fences = narrative.index.fences
    assert [(f.name, f.start, f.end, f.column, f.content, f.closed, f.level) for f in fences] == [
        ("q.txt", 11, 14, 3, "quoted\n", True, 1),
        ("notes.md", 16, 19, 1, "first\n", True, 0),
        ("notes.md", 28, 31, 1, "first\n", True, 0),
    ]
    for fence in fences:
        assert narrative.tokens[fence.token].type == "lmml_embed"
    assert narrative.index.first_fences == {"q.txt": fences[0], "notes.md": fences[1]}
    assert list(narrative.index.fences_in(12, 29)) == [fences[1], fences[2]]
    assert list(narrative.index.fences_in(11, 12)) == [fences[0]]
    assert list(narrative.index.fences_in(17, 28)) == []


def test_an_unclosed_fence_is_indexed_to_the_end() -> None:
    (fence,) = parse("@@@a.txt\nno end\n").index.fences
    assert (fence.start, fence.end, fence.closed, fence.content) == (0, 2, False, "no end\n")


def test_delimiters_with_the_turns_they_open() -> None:
    narrative = _sample()
    delimiters = narrative.index.delimiters
    assert list(delimiters) == [
        Delimiter("user", "heading", "Turn 1 -- user", 5, 6, 4, 1),
        Delimiter("assistant", "comment", None, 15, 16, delimiters[1].token, 2),
        Delimiter("system", "heading", "System", 24, 26, delimiters[2].token, 3),
    ]
    assert narrative.tokens[delimiters[1].token].type == "lmml_role"
    assert narrative.tokens[delimiters[2].token].type == "heading_open"
    for delimiter in delimiters:
        turn = narrative.turns[delimiter.turn]
        assert turn.delimiter_line == delimiter.start + 1
        assert turn.start_line == delimiter.end + 1
        assert turn.role == delimiter.role and turn.heading == delimiter.heading


def test_delimiters_without_a_context_turn_open_turns_from_the_first() -> None:
    narrative = parse("<!-- user -->\nhi\n\n## assistant\nyes\n")
    assert [delimiter.turn for delimiter in narrative.index.delimiters] == [0, 1]


def test_attachment_paragraphs_are_top_level_paragraphs_of_references_only() -> None:
    narrative = _sample()
    assert narrative.index.attachments == (
        AttachmentParagraph(6, 8, ("a.png", "b.png", "c.png"), 1),
        AttachmentParagraph(26, 27, ("f.png",), 3),
    )
    assert list(narrative.index.attachments_in(0, 26)) == [narrative.index.attachments[0]]
    assert list(narrative.index.attachments_in(7, 26)) == []
    assert parse("@a.png @a.png\n").index.attachments[0].names == ("a.png", "a.png")


def test_references_are_the_external_embeds_in_order() -> None:
    narrative = _sample()
    references = narrative.index.references
    assert [(embed.name, embed.line, embed.column) for embed in references] == [
        ("ctx.md", 4, 10),
        ("a.png", 7, 1),
        ("b.png", 8, 1),
        ("c.png", 8, 8),
        ("a.png", 10, 5),
        ("d.png", 23, 3),
        ("f.png", 27, 1),
    ]
    assert all(isinstance(embed, Embed) and not embed.is_inline for embed in references)


def test_an_empty_narrative_has_an_empty_index() -> None:
    index = parse("").index
    assert index == StructureIndex(Records(Block), Records(Fence), Records(Delimiter), (), ())
    assert list(index.blocks) == [] and list(index.references) == []
    assert index.block_at(0) is None
    assert list(index.fences_in(0, 10)) == []


def test_an_index_can_be_read_from_tokens_directly() -> None:
    narrative = _sample()
    again = StructureIndex.from_tokens(narrative.tokens, narrative.turns, narrative.embeds)
    assert again == narrative.index
    assert again is not narrative.index


# --- agreement with a direct walk over generated narratives ------------------------------

_LINES = [
    "@@@a.txt",
    "@@@ b.md",
    "@@@",
    "body text",
    "@a.png",
    "@a.png @b.png",
    "see @a.png.",
    "@a.txt",
    "> ",
    "> @@@a.txt",
    "> @b.png",
    "- ",
    "- @a.png",
    "1. @@@c.txt",
    "  ",
    "## user",
    "## Turn 2 -- assistant",
    "# tool",
    "System",
    "===",
    "---",
    "<!-- user -->",
    "<!-- assistant -->",
    "```",
    "    code @a.png",
    "| @a.png | b |",
    "|---|---|",
    "<div>",
    "\\@a.png",
    "",
]

_FENCES = [
    "@@@a.txt\nx @a.png\n@@@",
    "> @@@b.md\n> y\n> @@@",
    "- item\n\n  @@@c.txt\n  z\n  @@@",
    "@@@a.txt\nlast@@@",
]
_line = st.sampled_from(_LINES)
_chunk = st.one_of(_line, _line, st.tuples(_line, _line).map(" ".join), st.sampled_from(_FENCES))
# Runs of lines, each run ended by a blank line or not.
narratives = st.lists(
    st.tuples(st.lists(_chunk, min_size=1, max_size=3), st.sampled_from(["", "\n"])),
    max_size=15,
).map(lambda runs: "".join("\n".join(run) + "\n" + gap for run, gap in runs))


def _walked_attachments(tokens: Sequence[Token]) -> list[tuple[int, int, tuple[str, ...]]]:
    """Top-level paragraphs of references only, read as the messages once read them: the
    inline token after a top-level ``paragraph_open``, every child a reference, a soft
    break or white space."""
    found = []
    previous: Token | None = None
    for token in tokens:
        if token.map is None:
            continue
        if (
            token.type == "inline"
            and previous is not None
            and previous.type == "paragraph_open"
            and previous.level == 0
            and token.meta.get("lmml_refs")
        ):
            names: list[str] = []
            for child in token.children or ():
                if child.type == "lmml_ref":
                    names.append(child.content)
                elif child.type != "softbreak" and not (
                    child.type == "text" and not child.content.strip()
                ):
                    break
            else:
                found.append((token.map[0], token.map[1], tuple(names)))
        previous = token
    return found


def _turn_holding(narrative: Narrative, line: int) -> int | None:
    for position, turn in enumerate(narrative.turns):
        if turn.start_line - 1 <= line < turn.end_line:
            return position
    return None


@settings(max_examples=300, deadline=None)
@given(narratives)
def test_the_index_agrees_with_a_direct_token_walk(text: str) -> None:
    narrative = parse(text)
    tokens = narrative.tokens
    index = narrative.index

    top = [
        (position, token)
        for position, token in enumerate(tokens)
        if token.level == 0 and token.nesting != -1 and token.map is not None
    ]
    assert [(b.token, b.start, b.end) for b in index.blocks] == [
        (position, token.map[0], token.map[1]) for position, token in top if token.map
    ]
    assert [b.kind for b in index.blocks] == [token.type.removesuffix("_open") for _, token in top]
    for block in index.blocks:
        holder = _turn_holding(narrative, block.start)
        assert block.turn == holder
    for before, after in zip(index.blocks, index.blocks[1:], strict=False):
        assert before.end <= after.start  # ascending, never overlapping
    for line in range(len(narrative.lines) + 1):
        holding = [b for b in index.blocks if b.start <= line < b.end]
        assert index.block_at(line) == (holding[0] if holding else None)

    fences = [
        Fence(
            token.meta["name"],
            token.map[0],
            token.map[1],
            token.meta["column"],
            token.content,
            token.meta["closed"],
            token.level,
            position,
        )
        for position, token in enumerate(tokens)
        if token.type == "lmml_embed" and token.map
    ]
    assert list(index.fences) == fences
    inline_fences = [embed for embed in narrative.embeds if embed.is_inline]
    assert [(f.name, f.start + 1, f.column) for f in fences] == [
        (e.name, e.line, e.column) for e in inline_fences
    ]

    delimiters = [
        (position, token)
        for position, token in top
        if token.type == "lmml_role" or (token.type == "heading_open" and "lmml_role" in token.meta)
    ]
    assert [d.token for d in index.delimiters] == [position for position, _ in delimiters]
    assert [(d.start, d.end, d.role) for d in index.delimiters] == [
        (token.map[0], token.map[1], token.meta["lmml_role"])
        for _, token in delimiters
        if token.map
    ]
    for delimiter in index.delimiters:
        turn = narrative.turns[delimiter.turn]
        assert (turn.delimiter_line, turn.role, turn.heading) == (
            delimiter.start + 1,
            delimiter.role,
            delimiter.heading,
        )

    assert [(a.start, a.end, a.names) for a in index.attachments] == _walked_attachments(tokens)
    for paragraph in index.attachments:
        assert paragraph.turn == _turn_holding(narrative, paragraph.start)

    assert list(index.references) == [embed for embed in narrative.embeds if not embed.is_inline]
    assert list(index.blocks) == [index.blocks[at] for at in range(len(index.blocks))]
    assert index.blocks[1:] == list(index.blocks)[1:]


def test_blocks_read_as_a_sequence() -> None:
    blocks = _sample().index.blocks
    assert len(blocks) == 13
    assert blocks[-1] == Block("lmml_embed", 28, 31, blocks[-1].token, 3)
    assert blocks[-1] == blocks[len(blocks) - 1]
    assert blocks[:2] == [blocks[0], blocks[1]]
    assert blocks[::-3] == list(blocks)[::-3] and blocks[-2:] == list(blocks)[-2:]
    assert next(reversed(blocks)) == blocks[-1]
    assert blocks[2] in blocks and blocks.index(blocks[2]) == 2
    for wrong in (13, -14):
        with pytest.raises(IndexError):
            blocks[wrong]
    assert blocks != list(blocks)  # equal only to other records of the same kind
    assert Records(Fence) != Records(Block)
    assert blocks == _sample().index.blocks
    assert repr(blocks).startswith("Records([Block(kind='front_matter', start=0, end=3")
