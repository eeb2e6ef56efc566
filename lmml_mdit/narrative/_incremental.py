"""Parse a narrative again after an edit, re-parsing only the top-level blocks around it.

:func:`parse_tracked` parses a text completely and keeps what :func:`reparse` needs;
:func:`reparse` parses a window of blocks around the edit and keeps the old tokens past it.
The result equals a full parse of the new text, and is one wherever that is not certain.
See docs/editors.md (the language server's incremental parse).
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import Literal

from markdown_it.token import Token

from ..model import Embed
from ..syntax import DELIMITERS_KEY, FRONT_MATTER_TOKEN, KNOWN_NAMES_KEY
from ..text import line_starts
from ._narrative import (
    Narrative,
    _body_start,
    _check_encodable,
    _front_matter,
    _SourceLines,
    default_parser,
    parse_in,
    segment,
)

__all__ = ["Tracked", "parse_tracked", "reparse"]

_BLOCKS_BEFORE = 3
"""How many top-level blocks before the one holding the first changed line the window
starts: an edit can join a block to the one before it, and a block's end is decided by
looking at most one line past it (a table's delimiter row)."""

_LOOKAHEAD = 2
"""Lines a block start must have inside the window before it counts as a place to stop."""


@dataclass(frozen=True)
class Tracked:
    """A narrative parsed completely, with what re-parsing it after an edit needs.

    :ivar narrative: the narrative (every inline token parsed, nothing deferred).
    :ivar starts: the 0-based first line of each top-level block, ascending.
    :ivar positions: the index in the token stream of each of those blocks' first token.
    :ivar delimiters: the top-level role delimiter tokens, in order.
    :ivar definitions: whether the text defines link references (``[x]: /url``).
    :ivar fences: the names of the ``@@@`` fences.
    :ivar incremental: whether this came from a partial re-parse.
    """

    narrative: Narrative
    starts: list[int]
    positions: list[int]
    delimiters: list[Token]
    definitions: bool
    fences: frozenset[str]
    line_starts: list[int]
    known_names: Container[str] | None
    incremental: bool = False
    answers: dict[str, bool] = dataclasses.field(default_factory=dict)
    """Each name the parse asked *known_names* about, and the answer (a folder's files can
    change between two edits: a changed answer means a full parse)."""


class _Asked:
    """Known names that remember each answer they gave (see :attr:`Tracked.answers`)."""

    def __init__(self, base: Container[str] | None) -> None:
        self._base = base
        self.answers: dict[str, bool] = {}

    def __contains__(self, name: object) -> bool:
        if self._base is None or not isinstance(name, str):
            return False
        found = self.answers.get(name)
        if found is None:
            found = self.answers[name] = name in self._base
        return found


class _Known:
    """Known names: a folder's files and the document's fence names."""

    def __init__(self, base: _Asked, fences: frozenset[str]) -> None:
        self._base = base
        self._fences = fences

    def __contains__(self, name: object) -> bool:
        return name in self._fences or name in self._base


def _answers_hold(previous: Tracked) -> bool:
    """Whether the folder still answers every name the last parse asked about as it did."""
    known = previous.known_names
    return known is None or all(
        (name in known) == answer for name, answer in previous.answers.items()
    )


def _block_starts(tokens: Sequence[Token]) -> tuple[list[int], list[int]]:
    starts: list[int] = []
    positions: list[int] = []
    for position, token in enumerate(tokens):
        if token.level == 0 and token.nesting >= 0 and token.map is not None:
            starts.append(token.map[0])
            positions.append(position)
    return starts, positions


def _fence_names(embeds: Sequence[Embed]) -> frozenset[str]:
    return frozenset(embed.name for embed in embeds if embed.kind == "inline")


def _run(
    text: str, known: Container[str] | None, name: str | None
) -> tuple[Narrative, dict[str, object]]:
    env: dict[str, object] = {}
    if known is not None:
        env[KNOWN_NAMES_KEY] = known
    return parse_in(default_parser(), text, env, name), env


def parse_tracked(
    text: str, *, known_names: Container[str] | None = None, name: str | None = None
) -> Tracked:
    """Parse *text* completely with the default parser and keep what :func:`reparse` needs.

    :raises LmmlSyntaxError: for a ``str`` holding a lone surrogate.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    _check_encodable(text, name)
    asked = _Asked(known_names)
    narrative, env = _run(text, asked if known_names is not None else None, name)
    starts, positions = _block_starts(narrative.parsed_tokens)
    return Tracked(
        narrative,
        starts,
        positions,
        list(env[DELIMITERS_KEY]),  # type: ignore[call-overload]
        bool(env.get("references")),
        _fence_names(narrative.embeds),
        line_starts(narrative.source),
        known_names,
        answers=asked.answers,
    )


def _common_prefix(old: str, new: str) -> int:
    low, high = 0, min(len(old), len(new))
    while low < high:
        middle = (low + high + 1) // 2
        if old[:middle] == new[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(old: str, new: str, limit: int) -> int:
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if old[len(old) - middle :] == new[len(new) - middle :]:
            low = middle
        else:
            high = middle - 1
    return low


def reparse(previous: Tracked, text: str, *, name: str | None = None) -> Tracked:
    """The parse of *text*, an edit of *previous*'s text: the blocks around the edit parsed
    again and the rest kept, or a full parse where that would not be exactly equal.

    :raises LmmlSyntaxError: for a ``str`` holding a lone surrogate.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    _check_encodable(text, name)
    known = previous.known_names
    if previous.definitions or "\r" in text or "\0" in text or not _answers_hold(previous):
        return parse_tracked(text, known_names=known, name=name)
    found = _splice(previous, text, name)
    return found if found is not None else parse_tracked(text, known_names=known, name=name)


def _splice(previous: Tracked, new: str, name: str | None) -> Tracked | None:
    old_narrative = previous.narrative
    old = old_narrative.source
    if old == new:
        return dataclasses.replace(previous, incremental=True)
    prefix = _common_prefix(old, new)
    suffix = _common_suffix(old, new, min(len(old), len(new)) - prefix)
    old_lines = previous.line_starts
    first = bisect.bisect_right(old_lines, prefix) - 1  # first changed line (0-based)
    # The first line wholly inside the common tail, in the old text.
    tail_at = old.find("\n", len(old) - suffix)
    old_after = len(old_lines) if tail_at < 0 else bisect.bisect_left(old_lines, tail_at + 1)
    line_delta = new.count("\n") - old.count("\n")
    char_delta = len(new) - len(old)
    starts = previous.starts
    holding = bisect.bisect_right(starts, first) - 1
    if holding - _BLOCKS_BEFORE < 1:
        return None  # the window would reach the first block (front matter): parse it all
    begin = starts[holding - _BLOCKS_BEFORE]
    old_index = {line: index for index, line in enumerate(starts)}
    after = bisect.bisect_left(starts, old_after)
    span = 4
    while True:
        end_index = after + span
        whole = end_index >= len(starts)
        end_old = new.count("\n") - line_delta + 1 if whole else starts[end_index]
        end_line = end_old + line_delta  # the window's end in new lines (exclusive)
        window_from = old_lines[begin]
        window_to = len(new) if whole else old_lines[end_old] + char_delta
        tracked = _try_window(
            previous, new, name, begin, end_line, whole, window_from, window_to, old_index,
            old_after + line_delta, line_delta, char_delta, first, old_after,
        )  # fmt: skip
        if tracked is not None or whole:
            return tracked if tracked is not False else None
        span *= 4
        if span > len(starts) // 2:
            return None


def _try_window(
    previous: Tracked,
    new: str,
    name: str | None,
    begin: int,
    end_line: int,
    whole: bool,
    window_from: int,
    window_to: int,
    old_index: dict[int, int],
    new_after: int,
    line_delta: int,
    char_delta: int,
    first: int,
    old_after: int,
) -> Tracked | Literal[False] | None:
    """The spliced parse, None to try a larger window, False to parse it all."""
    window = new[window_from:window_to]
    asked = _Asked(previous.known_names)
    part, env = _run(window, _Known(asked, previous.fences), name)
    if env.get("references"):
        return False
    tokens = part.parsed_tokens
    if tokens and tokens[0].type == FRONT_MATTER_TOKEN:
        return False
    part_starts, part_positions = _block_starts(tokens)
    stop: int | None = None  # index into part_starts where the old blocks take over
    for index, start in enumerate(part_starts):
        line = start + begin
        if line < new_after or (not whole and line + _LOOKAHEAD > end_line):
            continue
        if line - line_delta in old_index:
            stop = index
            break
    if stop is None and not whole:
        return None
    old = previous.narrative
    old_tokens = old.parsed_tokens
    keep_before = old_index[begin]
    head = old_tokens[: previous.positions[keep_before]]
    if stop is None:
        new_part = tokens
        stop_line = end_line
        tail: list[Token] = []
        tail_index = len(previous.starts)
    else:
        new_part = tokens[: part_positions[stop]]
        stop_line = part_starts[stop] + begin
        tail_index = old_index[stop_line - line_delta]
        tail = old_tokens[previous.positions[tail_index] :]
    old_stop = stop_line - line_delta
    # Fence names are known names everywhere: a changed set changes other blocks.
    old_embeds = old.embeds
    embeds_before = [e for e in old_embeds if e.line - 1 < begin]
    embeds_after = [e for e in old_embeds if e.line - 1 >= old_stop]
    window_embeds = [
        dataclasses.replace(e, line=e.line + begin)
        for e in part.embeds
        if e.line - 1 + begin < stop_line
    ]
    fences = _fence_names(embeds_before) | _fence_names(window_embeds) | _fence_names(embeds_after)
    if fences != previous.fences:
        return False
    delimiters_before = [d for d in previous.delimiters if d.map is not None and d.map[0] < begin]
    delimiters_after = [
        d for d in previous.delimiters if d.map is not None and d.map[0] >= old_stop
    ]
    window_delimiters = [
        d
        for d in env[DELIMITERS_KEY]  # type: ignore[attr-defined]
        if d.map is not None and d.map[0] + begin < stop_line
    ]
    for token in new_part:
        _shift(token, begin)
    if line_delta:
        for token in tail:
            _shift(token, line_delta)
        embeds_after = [dataclasses.replace(e, line=e.line + line_delta) for e in embeds_after]
    embeds = (*embeds_before, *window_embeds, *embeds_after)
    escapes = (
        *(e for e in old.escapes if e[0] - 1 < begin),
        *((line + begin, column) for line, column in part.escapes if line - 1 + begin < stop_line),
        *((line + line_delta, column) for line, column in old.escapes if line - 1 >= old_stop),
    )
    delimiters = [
        *delimiters_before,
        *window_delimiters,
        *delimiters_after,
    ]
    all_tokens = [*head, *new_part, *tail]
    turns = segment(_SourceLines(new), delimiters, embeds, start=_body_start(all_tokens))
    narrative = Narrative(
        text=new,
        parsed_tokens=all_tokens,
        embeds=embeds,
        turns=tuple(turns),
        source=new,
        front_matter=_front_matter(all_tokens),
        escapes=escapes,
    )
    part_kept = part_starts[:stop] if stop is not None else part_starts
    starts = [
        *previous.starts[:keep_before],
        *(start + begin for start in part_kept),
        *(start + line_delta for start in previous.starts[tail_index:]),
    ]
    head_count = len(head)
    middle_count = len(new_part)
    moved = head_count + middle_count - previous.positions[tail_index] if tail else 0
    kept_positions = part_positions[:stop] if stop is not None else part_positions
    positions = [
        *previous.positions[:keep_before],
        *(position + head_count for position in kept_positions),
        *(position + moved for position in previous.positions[tail_index:]),
    ]
    return Tracked(
        narrative,
        starts,
        positions,
        delimiters,
        False,
        fences,
        line_starts(new),
        previous.known_names,
        incremental=True,
        answers={**previous.answers, **asked.answers},
    )


def _shift(token: Token, lines: int) -> None:
    if token.map is not None:
        token.map = [token.map[0] + lines, token.map[1] + lines]
    for child in token.children or ():
        _shift(child, lines)
    line = token.meta.get("line") if token.meta else None
    if isinstance(line, int):
        token.meta["line"] = line + lines
