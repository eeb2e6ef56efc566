"""Source positions for references.

markdown-it gives inline tokens no positions: their ``pos`` is relative to the parent
``inline`` token's content, whose lines have had container prefixes and indentation removed.
The plugin's core pass (:mod:`.collect`) tells the reference rule which ``inline`` token
it is parsing (``env[INLINE_PARENT_KEY]``, see :mod:`.keys`); the rule records each new
reference's offset in that content (``meta["pos"]``) in ``env[NEW_REFS_KEY]``, and
:func:`place_references` then maps them to 1-based source lines and columns. Only inline
tokens that hold references pay for the mapping.

Columns count characters. A content line is found in its source line by text search (its
leading whitespace left out, since markdown-it may have rewritten it). Where the content
differs from its source line (a GFM table cell, whose ``\\|`` markdown-it turns into
``|``), each reference's own source text is searched instead, left to right; should that
fail too, columns are counted from the content line.
"""

from __future__ import annotations

from markdown_it.token import Token
from markdown_it.utils import EnvType

from .keys import LINE_CURSOR_KEY, LINE_STARTS_KEY


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


def place_references(src: str, env: EnvType, parent: Token, refs: list[Token]) -> None:
    """Set ``meta["line"]``, ``meta["column"]`` and ``map`` on each ref of *parent*.

    The refs come in content order, so one forward sweep over the content finds each ref's
    line; each source line is searched once. Work is linear in the content's length plus
    the number of refs, however many refs share a line. Memory is what the refs keep:
    refs on one line share their ``map`` list and line number.
    """
    content = parent.content
    first_line = parent.map[0] if parent.map else 0
    # How far the last source line searched has been searched, [line, offset in it], and
    # the last 1-based line number given out (the next line's map starts with that int).
    cursor: list[int] = env.setdefault(LINE_CURSOR_KEY, [-1, 0, 0])
    counted_to = 0  # content offset up to which newlines are counted
    content_line = 0  # 0-based line of the content at counted_to
    line_start = 0  # content offset where that line starts
    placed_line = -1
    offset_in_source: int | None = 0
    start = end = 0
    line_number = 0
    line_map: list[int] = []
    for ref in refs:
        pos: int = ref.meta["pos"]
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
            line_map = [previous if previous == line_number - 1 else line_number - 1, line_number]
            cursor[2] = line_number
        ref.meta["line"] = line_number
        if offset_in_source is not None:
            ref.meta["column"] = offset_in_source + (pos - line_start) + 1
        else:
            line_end = content.find("\n", pos)
            tail = content[pos : len(content) if line_end < 0 else line_end]
            column = _search_column(src, cursor, ref, tail, line_number - 1, start, end)
            ref.meta["column"] = column if column is not None else pos - line_start + 1
        ref.map = line_map  # shared by the refs of one line: a map is read, never changed


def _search_column(
    src: str, cursor: list[int], ref: Token, tail: str, source_line: int, start: int, end: int
) -> int | None:
    """The 1-based column of *ref*'s own source text (``@name``, or ``\\@`` for an escape;
    for a position marker without text of its own, *tail*, the content from it to the end of
    its line) in the source line ``src[start:end]``, searched from that line's cursor (so
    refs on one line are found left to right), or None when it is not there.

    :param cursor: the sweep's ``[line, offset searched to, last line number]``.
    """
    literal = ref.markup if ref.meta.get("lmml_escape") else ref.markup + ref.content
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
