"""Source positions for references.

markdown-it gives inline tokens no source positions, so the reference rule records each
reference's offset in its ``inline`` token's content (or, in the fast parse, a
:class:`FoundInline`), and :func:`place_references` / :func:`place_offsets` map them to
1-based source lines and columns, in one forward sweep per token that holds references.
See docs/syntax.md, "Positions and limits".
"""

from __future__ import annotations

import array
from collections.abc import Iterable, Iterator, Sequence

from markdown_it.token import Token
from markdown_it.utils import EnvType

from ._keys import LINE_CURSOR_KEY, LINE_STARTS_KEY


def _line_start(src: str, env: EnvType, line: int) -> int:
    """Offset of 0-based *line* in *src*, stepping from the line asked for last.

    Lines are asked for in document order, so the steps add up to one pass over *src*;
    only the last line reached is kept (a table of every line start would cost more than
    the text).
    """
    reached: list[int] = env.setdefault(LINE_STARTS_KEY, [0, 0])  # [line, its offset]
    current, offset = reached
    while current > line:  # never in document order; step back rather than restart
        offset = src.rfind("\n", 0, offset - 1) + 1
        current -= 1
    while current < line:
        found = src.find("\n", offset)
        if found < 0:
            return len(src)
        current += 1
        offset = found + 1
    reached[0], reached[1] = current, offset
    return offset


class FoundInline:
    """What the plugin's inline rules found in one ``inline`` token's content when they
    record instead of making tokens (the fast parse, see :mod:`.collect`): each reference
    and LMML escape as its offset in the content, in the order the rules met them.

    Two machine words a find, where a token costs about 260 bytes.

    :ivar offsets: the offset of each find's first character (``@`` or ``\\``).
    :ivar names: each find's reference name, or None for an escape.
    """

    __slots__ = ("names", "offsets")

    def __init__(self) -> None:
        self.offsets = array.array("q")
        self.names: list[str | None] = []

    def __len__(self) -> int:
        return len(self.names)

    def add(self, offset: int, name: str | None) -> None:
        """Record a find at *offset*: a reference called *name*, or an escape (None)."""
        self.offsets.append(offset)
        self.names.append(name)

    def lengths(self) -> Iterator[int]:
        """Each find's length in the content: ``@`` and its name, or the two characters of
        an escape."""
        return (2 if name is None else len(name) + 1 for name in self.names)


def place_references(src: str, env: EnvType, parent: Token, refs: list[Token]) -> None:
    """Set ``meta["line"]``, ``meta["column"]`` and ``map`` on each ref of *parent*.

    The refs come in content order (``meta["pos"]``); see :func:`place_offsets`. Refs on one
    line share their ``map`` list and line number.
    """
    cursor = env.get(LINE_CURSOR_KEY)
    previous = cursor[2] if cursor else 0  # the line number given out last, as an int
    placed = place_offsets(
        src, env, parent, [ref.meta["pos"] for ref in refs], [_literal_length(ref) for ref in refs]
    )
    line_map: list[int] = []
    for ref, (line_number, column) in zip(refs, placed, strict=True):
        meta = ref.meta
        meta["line"] = line_number
        meta["column"] = column
        if not line_map or line_map[1] != line_number:
            line_map = [previous if previous == line_number - 1 else line_number - 1, line_number]
            previous = line_number
        ref.map = line_map  # shared by the refs of one line: a map is read, never changed


def _literal_length(ref: Token) -> int:
    """The length of *ref*'s own text in its content (``@name``, ``\\@``; 0 for a marker
    without text of its own)."""
    if ref.meta.get("lmml_escape"):
        return len(ref.markup)
    return len(ref.markup) + len(ref.content)


def place_offsets(
    src: str, env: EnvType, parent: Token, offsets: Sequence[int], lengths: Iterable[int]
) -> Iterator[tuple[int, int]]:
    """The 1-based source ``(line, column)`` of each offset in *parent*'s content.

    The offsets come in content order, so one forward sweep over the content finds each
    one's line; each source line is searched once. Work is linear in the content's length
    plus the number of offsets, however many share a line.

    :param offsets: offsets in ``parent.content``, ascending.
    :param lengths: the length of the text at each offset that is its own (``@name``, an
        escape's ``\\@``), searched in the source line when the content line is not its
        source line's text; 0 for a marker without text of its own.
    """
    content = parent.content
    first_line = parent.map[0] if parent.map else 0
    # How far the last source line searched has been searched, [line, offset in it], and
    # the last 1-based line number given out (line numbers of one line are one int).
    cursor: list[int] = env.setdefault(LINE_CURSOR_KEY, [-1, 0, 0])
    counted_to = 0  # content offset up to which newlines are counted
    content_line = 0  # 0-based line of the content at counted_to
    line_start = 0  # content offset where that line starts
    placed_line = -1
    offset_in_source: int | None = 0
    start = end = 0
    line_number = 0
    for pos, length in zip(offsets, lengths, strict=True):
        if pos < counted_to:  # never seen in practice; count again from the start
            counted_to, content_line, line_start, placed_line = 0, 0, 0, -1
        last_newline = content.rfind("\n", counted_to, pos)
        if last_newline >= 0:
            content_line += content.count("\n", counted_to, last_newline + 1)
            line_start = last_newline + 1
        counted_to = pos
        if content_line != placed_line:
            placed_line = content_line
            source_line = first_line + content_line
            start = _line_start(src, env, source_line)
            end = src.find("\n", start)
            end = len(src) if end < 0 else end
            line_end = content.find("\n", pos)
            text = content[line_start : len(content) if line_end < 0 else line_end]
            # Search without the leading whitespace: markdown-it may have rewritten it (a tab
            # partly consumed by a container becomes spaces).
            indent = len(text) - len(text.lstrip(" \t"))
            searched = cursor[1] if cursor[0] == source_line else 0
            found = src.find(text[indent:], start + searched, end)
            if found >= 0:
                offset_in_source = found - start - indent
                cursor[0], cursor[1] = source_line, found - start + len(text) - indent
            else:
                offset_in_source = None  # the content line is not its source line's text
            line_number = first_line + content_line + 1
            previous = cursor[2]
            if previous == line_number:
                line_number = previous  # the one int of this line number
            cursor[2] = line_number
        if offset_in_source is not None:
            yield line_number, offset_in_source + (pos - line_start) + 1
        else:
            line_end = content.find("\n", pos)
            tail = content[pos : len(content) if line_end < 0 else line_end]
            literal = content[pos : pos + length]
            column = _search_column(src, cursor, literal, tail, line_number - 1, start, end)
            yield line_number, column if column is not None else pos - line_start + 1


def _search_column(
    src: str, cursor: list[int], literal: str, tail: str, source_line: int, start: int, end: int
) -> int | None:
    """The 1-based column of a find's own source text, *literal* (``@name``, or ``\\@`` for
    an escape; for a position marker without text of its own, *tail*, the content from it
    to the end of its line) in the source line ``src[start:end]``, searched from that
    line's cursor (so finds on one line are found left to right), or None when it is not
    there.

    :param cursor: the sweep's ``[line, offset searched to, last line number]``.
    """
    step = len(literal)
    if not literal:
        # A cell's content holds "|" only where its source has "\|": search up to there,
        # and step past the marker's first character only (the tail may hold later ones).
        literal, step = tail.partition("|")[0], 1
    if not literal:
        return None
    searched = cursor[1] if cursor[0] == source_line else 0
    found = src.find(literal, start + searched, end)
    if found < 0:
        return None
    cursor[0], cursor[1] = source_line, found - start + step
    return found - start + 1
