"""The outline of a narrative: its turns as document symbols (role and first words), the
fences inside each as children, and folding ranges for both."""

from __future__ import annotations

from lsprotocol import types

from ..model import Turn
from ..narrative import Fence, Narrative, numbered_turns, turn_label
from ._positions import Columns

__all__ = ["FIRST_WORDS", "document_symbols", "first_words", "folding_ranges"]

FIRST_WORDS = 8
"""How many words of a turn's text its symbol shows."""

_LONGEST = 60
"""The most characters of those words a symbol shows."""


def first_words(text: str) -> str:
    """The first :data:`FIRST_WORDS` words of *text*'s first line that holds any, cut at
    :data:`_LONGEST` characters."""
    line = next((line for line in text.split("\n") if line.strip()), "")
    words = " ".join(line.split()[:FIRST_WORDS])
    return words if len(words) <= _LONGEST else words[: _LONGEST - 1].rstrip() + "…"


def _first_line(turn: Turn) -> int:
    """The turn's first 0-based line: its delimiter's, or its region's."""
    return (turn.delimiter_line if turn.delimiter_line is not None else turn.start_line) - 1


def _fence_symbol(fence: Fence, columns: Columns) -> types.DocumentSymbol:
    last = max(fence.start, fence.end - 1)
    name_at = columns.line(fence.start).find(fence.name, fence.column - 1)
    name_at = max(name_at, fence.column - 1)
    return types.DocumentSymbol(
        name=f"@@@{fence.name}",
        detail="inline fence" + ("" if fence.closed else " (unclosed)"),
        kind=types.SymbolKind.File,
        range=columns.range(fence.start, 0, last, len(columns.line(last))),
        selection_range=columns.span(fence.start, name_at, name_at + len(fence.name)),
    )


def document_symbols(narrative: Narrative, columns: Columns) -> list[types.DocumentSymbol]:
    """A symbol per turn, in order, with a child per fence opening in it."""
    symbols: list[types.DocumentSymbol] = []
    for number, turn in numbered_turns(narrative.turns):
        first = _first_line(turn)
        last = max(first, turn.end_line - 1)
        children = [
            _fence_symbol(fence, columns)
            for fence in narrative.index.fences_in(turn.start_line - 1, turn.end_line)
        ]
        label = turn_label(number, turn)
        words = first_words(turn.text)
        symbols.append(
            types.DocumentSymbol(
                name=f"{turn.role}: {words}" if words else turn.role,
                detail=turn.heading or label,
                kind=types.SymbolKind.Namespace,
                range=columns.range(first, 0, last, len(columns.line(last))),
                selection_range=columns.span(first, 0, len(columns.line(first))),
                children=children,
            )
        )
    return symbols


def folding_ranges(narrative: Narrative) -> list[types.FoldingRange]:
    """A range per turn that spans lines (its delimiter to its last line) and per fence."""
    ranges: list[types.FoldingRange] = []
    for turn in narrative.turns:
        first, last = _first_line(turn), turn.end_line - 1
        if last > first:
            ranges.append(
                types.FoldingRange(
                    start_line=first, end_line=last, kind=types.FoldingRangeKind.Region
                )
            )
    for fence in narrative.index.fences:
        if fence.end - 1 > fence.start:
            ranges.append(types.FoldingRange(start_line=fence.start, end_line=fence.end - 1))
    ranges.sort(key=lambda folding: folding.start_line)
    return ranges
