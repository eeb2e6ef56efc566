"""Which lines of a narrative belong to each transcript message.

The preamble's leading inline fences are attachments, not context text, and its reserved
blocks (the bundle's own ``manifest.json`` and settings, as fences or reference lines) are
the bundle's, not context text either; a turn's closing asset fences (those its record
entry lists) are cut off its text; the embeds inside a turn's content are found by
bisection over the turns' start lines, so that placing every embed stays linear overall.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from ..bundle.reserved_embeds import RESERVED_NAMES
from ..chat import without_escapes
from ..model import Embed, Turn
from ..narrative import Narrative
from ..text import as_turn_text

__all__ = [
    "embed_owners",
    "fence_owners",
    "message_turns",
    "reference_owners",
    "reserved_blocks",
    "turn_text",
]


def message_turns(narrative: Narrative) -> tuple[list[Turn], int]:
    """The narrative's turns with the preamble's attachment fences cut off, and how many
    preamble lines those fences (and the blank lines after them) take. A preamble left
    with no text (only fences, reserved blocks and blank lines) is no message."""
    turns = list(narrative.turns)
    skip = 0
    if turns and turns[0].role == "context":
        skip = _attachment_lines(narrative, turns[0].end_line)
        lines = narrative.lines[skip : turns[0].end_line]
        reserved = reserved_blocks(narrative, turns[0], skip)
        if not _without_spans(lines, skip, reserved).strip():
            turns.pop(0)
    return turns, skip


def _attachment_lines(narrative: Narrative, region_end: int) -> int:
    """How many leading lines of the preamble are inline fences (and blank lines)."""
    position = 0
    lines = narrative.lines
    for block in narrative.index.blocks:
        if block.start >= region_end:
            break
        if any(line.strip() for line in lines[position : block.start]):
            break
        if block.kind != "lmml_embed":
            break
        position = block.end
    while position < region_end and not lines[position].strip():
        position += 1
    return position


def reserved_blocks(narrative: Narrative, turn: Turn, skip: int) -> list[tuple[int, int]]:
    """The 0-based line spans ``[start, end)`` of *turn*'s reserved blocks: each top-level
    ``@@@`` fence named like a reserved embed (``manifest.json``, the settings) and each
    top-level paragraph of references to such names only. They are the bundle's settings
    and manifest (:meth:`Bundle.messages` never sends them), so they are no part of the
    turn's text. The preamble's leading fences (*skip* lines) are not counted, being cut
    off already."""
    start, end = turn.start_line - 1, turn.end_line
    if turn.role == "context":
        start = max(start, skip)
    structure = narrative.index
    spans = [
        (fence.start, fence.end)
        for fence in structure.fences_in(start, end)
        if fence.level == 0 and fence.name in RESERVED_NAMES and fence.end <= end
    ]
    spans.extend(
        (paragraph.start, paragraph.end)
        for paragraph in structure.attachments_in(start, end)
        if all(name in RESERVED_NAMES for name in paragraph.names)
    )
    return sorted(spans)


def _without_spans(lines: Sequence[str], offset: int, spans: Sequence[tuple[int, int]]) -> str:
    """*lines* (the first at 0-based line *offset*) without the lines of *spans*, each
    taken with the blank lines after it, joined."""
    kept: list[str] = []
    cuts = iter(spans)
    cut = next(cuts, None)
    position = 0
    while position < len(lines):
        line = offset + position
        while cut is not None and cut[1] <= line:
            cut = next(cuts, None)
        if cut is not None and cut[0] <= line:
            position = cut[1] - offset
            while position < len(lines) and not lines[position].strip():
                position += 1
            continue
        kept.append(lines[position])
        position += 1
    return "\n".join(kept)


def turn_text(
    narrative: Narrative,
    turn: Turn,
    skip: int,
    attachments: Sequence[str] = (),
    embed_lines: Sequence[int] | None = None,
    *,
    unescape: bool = False,
) -> str:
    """The turn's text without the preamble's leading fences (*skip* lines) and reserved
    blocks (:func:`reserved_blocks`), and without the asset fences closing it (the first
    inline fence named in *attachments*).

    :param embed_lines: each embed's line, in document order (to find the turn's embeds by
        bisection); computed when not given.
    :param unescape: leave out the LMML escapes (the backslashes
        :attr:`~lmml_mdit.narrative.Narrative.escape_columns` records), as the text sent
        to a model does.
    """
    start = turn.start_line - 1
    if turn.role == "context":
        start = max(start, skip)
    end = turn.end_line
    if attachments:
        if embed_lines is None:
            embed_lines = [embed.line for embed in narrative.embeds]
        first = bisect.bisect_left(embed_lines, start + 1)
        last = bisect.bisect_right(embed_lines, end)
        for embed in narrative.embeds[first:last]:
            if embed.is_inline and embed.name in attachments:
                end = embed.line - 1
                break
    reserved = [span for span in reserved_blocks(narrative, turn, skip) if span[0] < end]
    lines: Sequence[str] = narrative.lines[start:end]
    if unescape:
        escapes = narrative.escape_columns
        lines = [
            without_escapes(line, escapes[number]) if number in escapes else line
            for number, line in enumerate(lines, start)
        ]
    elif not reserved and start == turn.start_line - 1 and end == turn.end_line:
        return turn.text
    if reserved:
        return as_turn_text(_without_spans(lines, start, reserved))
    return as_turn_text("\n".join(lines))


def _turn_at(turns: Sequence[Turn], starts: Sequence[int], line: int) -> int | None:
    """The position of the turn holding *line* (*starts*: the turns' start lines), by
    bisection so that placing every embed stays linear overall."""
    position = bisect.bisect_right(starts, line) - 1
    if position < 0:
        return None
    turn = turns[position]
    return position if line <= max(turn.end_line, turn.start_line) else None


def _reserved_lines(
    narrative: Narrative, turns: Sequence[Turn], skip: int
) -> list[tuple[int, int]]:
    """Every turn's reserved blocks (:func:`reserved_blocks`), in order."""
    return [span for turn in turns for span in reserved_blocks(narrative, turn, skip)]


def _within(spans: Sequence[tuple[int, int]], line: int) -> bool:
    """Whether the 0-based *line* lies in one of *spans* (in order, never overlapping:
    found by bisection, so asking for every embed stays linear in the spans)."""
    found = bisect.bisect_right(spans, (line, _PAST_ANY_END)) - 1
    return found >= 0 and spans[found][0] <= line < spans[found][1]


_PAST_ANY_END = 1 << 62
"""An end no span reaches: ``(line, _PAST_ANY_END)`` sorts after every span starting at
*line*."""


def embed_owners(
    narrative: Narrative,
    turns: Sequence[Turn],
    skip: int,
    attachments: Sequence[Sequence[str]] = (),
) -> tuple[dict[int, list[Embed]], dict[int, list[Embed]]]:
    """The inline fences and the references inside each message turn's content, by turn
    position, in one pass (the preamble's leading fences, the turns' reserved blocks and
    each turn's closing asset fences in *attachments* excluded)."""
    fences: dict[int, list[Embed]] = {}
    references: dict[int, list[Embed]] = {}
    starts = [turn.start_line for turn in turns]
    reserved = _reserved_lines(narrative, turns, skip)
    for embed in narrative.embeds:
        if embed.line <= skip or _within(reserved, embed.line - 1):
            continue
        position = _turn_at(turns, starts, embed.line)
        if position is None:
            continue
        if not embed.is_inline:
            references.setdefault(position, []).append(embed)
            continue
        closing = attachments[position] if position < len(attachments) else ()
        if embed.name not in closing:
            fences.setdefault(position, []).append(embed)
    return fences, references


def fence_owners(
    narrative: Narrative,
    turns: Sequence[Turn],
    skip: int,
    attachments: Sequence[Sequence[str]] = (),
) -> dict[int, list[Embed]]:
    """The inline fences of :func:`embed_owners` alone."""
    return embed_owners(narrative, turns, skip, attachments)[0]


def reference_owners(
    narrative: Narrative, turns: Sequence[Turn], skip: int
) -> dict[int, list[Embed]]:
    """The references of :func:`embed_owners` alone."""
    return embed_owners(narrative, turns, skip)[1]
