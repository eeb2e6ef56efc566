"""Which lines of a narrative belong to each transcript message.

The preamble's leading inline fences are attachments, not context text; a turn's closing
asset fences (those its record entry lists) are cut off its text; the embeds inside a
turn's content are found by bisection over the turns' start lines, so that placing every
embed stays linear overall.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from ..model import Embed, Turn
from ..narrative import Narrative
from ..text import as_turn_text

__all__ = ["fence_owners", "message_turns", "reference_owners", "turn_text"]


def message_turns(narrative: Narrative) -> tuple[list[Turn], int]:
    """The narrative's turns with the preamble's attachment fences cut off, and how many
    preamble lines those fences (and the blank lines after them) take."""
    turns = list(narrative.turns)
    skip = 0
    if turns and turns[0].role == "context":
        skip = _attachment_lines(narrative, turns[0].end_line)
        lines = narrative.lines[skip : turns[0].end_line]
        if not any(line.strip() for line in lines):
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


def turn_text(
    narrative: Narrative,
    turn: Turn,
    skip: int,
    attachments: Sequence[str] = (),
    embed_lines: Sequence[int] | None = None,
) -> str:
    """The turn's text without the preamble's leading fences (*skip* lines) and without the
    asset fences closing it (the first inline fence named in *attachments*).

    :param embed_lines: each embed's line, in document order (to find the turn's embeds by
        bisection); computed when not given.
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
    if start == turn.start_line - 1 and end == turn.end_line:
        return turn.text
    return as_turn_text("\n".join(narrative.lines[start:end]))


def _turn_at(turns: Sequence[Turn], starts: Sequence[int], line: int) -> int | None:
    """The position of the turn holding *line* (*starts*: the turns' start lines), by
    bisection so that placing every embed stays linear overall."""
    position = bisect.bisect_right(starts, line) - 1
    if position < 0:
        return None
    turn = turns[position]
    return position if line <= max(turn.end_line, turn.start_line) else None


def fence_owners(
    narrative: Narrative,
    turns: Sequence[Turn],
    skip: int,
    attachments: Sequence[Sequence[str]] = (),
) -> dict[int, list[Embed]]:
    """Every inline fence occurrence inside a message turn's content, by turn position
    (the preamble's leading fences and each turn's closing asset fences excluded)."""
    owners: dict[int, list[Embed]] = {}
    starts = [turn.start_line for turn in turns]
    for embed in narrative.embeds:
        if not embed.is_inline or embed.line <= skip:
            continue
        position = _turn_at(turns, starts, embed.line)
        if position is None:
            continue
        closing = attachments[position] if position < len(attachments) else ()
        if embed.name not in closing:
            owners.setdefault(position, []).append(embed)
    return owners


def reference_owners(
    narrative: Narrative, turns: Sequence[Turn], skip: int
) -> dict[int, list[Embed]]:
    """The references (not fences) inside each message turn, by position."""
    owners: dict[int, list[Embed]] = {}
    starts = [turn.start_line for turn in turns]
    for embed in narrative.embeds:
        if embed.is_inline or embed.line <= skip:
            continue
        position = _turn_at(turns, starts, embed.line)
        if position is not None:
            owners.setdefault(position, []).append(embed)
    return owners
