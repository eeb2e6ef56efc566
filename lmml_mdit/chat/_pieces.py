"""Where a text written into a turn may be parsed in pieces, with the same answer.

The importer escapes and reads back a long message a piece at a time, cut only at a
*reset point*: a block cut, a line cut between plain paragraph lines, or a row cut in a
table (:func:`cut_offsets`). The caller proves each piece closed by parsing it followed by
a blank line and a role heading. See docs/bridge.md, "Memory".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from markdown_it.rules_block.table import escapedSplit

from ..narrative import default_parser

__all__ = ["LOCAL_LINE", "PIECE_CHARACTERS", "Cut", "Piece", "cut_offsets", "read_in_pieces"]

PIECE_CHARACTERS = 8_192
"""The size of text (in characters) parsed at once when a text is parsed in pieces: a
parse costs up to about 300 times its input (one ``@name`` per line), so a piece keeps
a parse to a few megabytes, and a conversation of ordinary size is still one piece."""

LOCAL_LINE = re.compile(r"(?![\s\-+*>#=_`~<|\[:\d])(?!@@)[^`<\[\n]*")
"""A local line (matched in full): one a line cut may precede or follow (see above)."""

_BLOCK_CUT_LINE = re.compile(r"(?![\s\-+*>\d])")
"""The start of a line a block cut may precede (matched at the line's start)."""


class Cut(NamedTuple):
    """A place a text may be cut: the line starting at *offset*. A cut inside a table
    has a *context*, the offsets of the table's header and delimiter rows, which the
    piece after the cut is parsed after (otherwise both are equal to *offset*)."""

    offset: int
    context_start: int
    context_end: int


def _row_cells(row: str) -> int:
    """How many cells the table rule reads in *row*, edge pipes left out."""
    cells = escapedSplit(row.strip())
    return len(cells) - (cells[:1] == [""]) - (len(cells) > 1 and cells[-1:] == [""])


def _table_columns(header: str) -> int | None:
    """The column count of a table whose header and delimiter rows are *header* (two
    lines), read by the parser itself; None when they start no table."""
    tokens = default_parser().parse(header)
    if not tokens or tokens[0].type != "table_open" or tokens[0].map != [0, 2]:
        return None
    return sum(1 for token in tokens if token.type == "th_open")


def cut_offsets(text: str, start: int, end: int, spacing: int = PIECE_CHARACTERS) -> list[Cut]:
    """The places in ``text[start:end]`` (a region of whole lines) where the region may
    be cut: each the start of a line, after a block cut, inside a run of local lines or
    between the rows of a table, at least *spacing* characters after the previous one
    (or *start*).

    A table run is a run whose first two lines the parser reads as a table's header and
    delimiter rows, and whose every further line is a row that starts with ``|`` and has
    at least as many cells as the header: each row is then read alone, after the header
    (the cells are parsed apart, and no row runs the table's count of filled-in cells
    up), so the piece after a cut is parsed after the header and delimiter rows.

    One pass over the lines, holding only the places it returns.

    :param text: the text, line endings as ``\n``.
    :param start: the offset of the region's first line.
    :param end: the offset just past the region's last line (its newline excluded).
    """
    cuts: list[Cut] = []
    last = start  # the last cut kept, or the region's start
    tentative: list[Cut] = []  # cuts in the current run, kept if the run keeps its kind
    kind: str | None = None  # "local", "table", "pending" (a table?) or None
    run_start = start
    columns = 0
    context = (start, start)  # a table run's header and delimiter rows
    first_local = False
    line_number = 0  # the line's number in its run
    position = start
    while position <= end:
        line_end = text.find("\n", position, end)
        if line_end < 0:
            line_end = end
        if not text[position:line_end].strip():
            if kind in ("local", "table"):
                cuts.extend(tentative)
            tentative = []
            line_number = -1
        elif line_number == 0:  # a run's first line: a block cut may precede it
            run_start = position
            first_local = LOCAL_LINE.fullmatch(text, position, line_end) is not None
            has_pipe = text.find("|", position, line_end) >= 0
            kind = "pending" if has_pipe else "local" if first_local else None
            eligible = _BLOCK_CUT_LINE.match(text, position) is not None
            if eligible and position > start and position - last >= spacing:
                cuts.append(Cut(position, position, position))
                last = position
        elif kind == "pending":  # the second line tells a table from a paragraph
            found = _table_columns(text[run_start:line_end])
            if found is not None:
                kind, columns, context = "table", found, (run_start, line_end)
            elif first_local and LOCAL_LINE.fullmatch(text, position, line_end) is not None:
                kind = "local"
                if position - last >= spacing:
                    tentative.append(Cut(position, position, position))
                    last = position
            else:
                kind = None
        elif kind == "local" and LOCAL_LINE.fullmatch(text, position, line_end) is not None:
            if position - last >= spacing:
                tentative.append(Cut(position, position, position))
                last = position
        elif (
            kind == "table"
            and text.startswith("|", position)
            and _row_cells(text[position:line_end]) >= columns
        ):
            if position - last >= spacing:
                tentative.append(Cut(position, *context))
                last = position
        elif kind is not None:  # the run is neither local nor a plain table after all
            kind = None
            tentative = []
            last = cuts[-1].offset if cuts else start
        line_number += 1
        position = line_end + 1
    if kind in ("local", "table"):
        cuts.extend(tentative)
    return cuts


class Piece(NamedTuple):
    """A piece of a region to parse alone (:func:`read_in_pieces`).

    :ivar start: the offset of its first line in the text.
    :ivar text: its lines, the newline after the last left out.
    :ivar context: a table's header and delimiter rows to parse it after (a piece cut
        between the table's rows), or "".
    :ivar final: whether it ends the region.
    """

    start: int
    text: str
    context: str
    final: bool


def read_in_pieces(
    text: str,
    start: int,
    end: int,
    read: Callable[[Piece], bool],
    spacing: int = PIECE_CHARACTERS,
) -> None:
    """Call *read* on each piece of ``text[start:end]`` (a region of whole lines, cut at
    :func:`cut_offsets`), in order.

    *read* returns False when a piece was open at its cut (the heading parsed after it
    was swallowed by a fence or HTML block): the piece is then read again with what
    follows it, at least doubled, until it reads closed. The final piece has nothing
    after it to take: *read* accepts it or raises.
    """
    bounds = [Cut(start, start, start), *cut_offsets(text, start, end, spacing)]
    bounds.append(Cut(end + 1, end + 1, end + 1))
    first, last = 0, 1  # the piece runs from bounds[first] to bounds[last]
    while first < len(bounds) - 1:
        cut = bounds[first]
        final = last == len(bounds) - 1
        piece_text = text[cut.offset : bounds[last].offset - 1]
        if read(Piece(cut.offset, piece_text, text[cut.context_start : cut.context_end], final)):
            first, last = last, last + 1
            continue
        assert not final, "the final piece is read closed or refused"
        tried = bounds[last].offset - cut.offset
        while last < len(bounds) - 1 and bounds[last].offset - cut.offset < 2 * tried:
            last += 1
