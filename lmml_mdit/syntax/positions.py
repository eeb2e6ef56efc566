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

from typing import Any

from markdown_it.token import Token

from .keys import LINE_CURSOR_KEY, LINE_STARTS_KEY


def _line_start(src: str, env: Any, line: int) -> int:
    """Offset of 0-based *line* in *src*, extending a cached table lazily (linear overall)."""
    starts: list[int] = env.setdefault(LINE_STARTS_KEY, [0])
    while len(starts) <= line:
        found = src.find("\n", starts[-1])
        if found < 0:
            return len(src)
        starts.append(found + 1)
    return starts[line]


def place_references(src: str, env: Any, parent: Token, refs: list[Token]) -> None:
    """Set ``meta["line"]``, ``meta["column"]`` and ``map`` on each ref of *parent*.

    The refs come in content order, so one forward sweep over the content finds each ref's
    line; each source line is searched once. Work is linear in the content's length plus
    the number of refs, however many refs share a line.
    """
    content = parent.content
    first_line = parent.map[0] if parent.map else 0
    cursors: dict[int, int] = env.setdefault(LINE_CURSOR_KEY, {})
    counted_to = 0  # content offset up to which newlines are counted
    content_line = 0  # 0-based line of the content at counted_to
    line_start = 0  # content offset where that line starts
    placed_line = -1
    offset_in_source: int | None = 0
    start = end = 0
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
            found = src.find(text[indent:], start + cursors.get(source_line, 0), end)
            if found >= 0:
                offset_in_source = found - start - indent
                cursors[source_line] = found - start + len(text) - indent
            else:
                offset_in_source = None  # the content line is not its source line's text
        line_number = first_line + content_line + 1
        ref.meta["line"] = line_number
        if offset_in_source is not None:
            ref.meta["column"] = offset_in_source + (pos - line_start) + 1
        else:
            line_end = content.find("\n", pos)
            tail = content[pos : len(content) if line_end < 0 else line_end]
            ref.meta["column"] = _search_column(src, env, ref, tail, line_number - 1, start, end)
            if ref.meta["column"] is None:
                ref.meta["column"] = pos - line_start + 1
        ref.map = [line_number - 1, line_number]


def _search_column(
    src: str, env: Any, ref: Token, tail: str, source_line: int, start: int, end: int
) -> int | None:
    """The 1-based column of *ref*'s own source text (``@name``, or ``\\@`` for an escape;
    for a position marker without text of its own, *tail*, the content from it to the end of
    its line) in the source line ``src[start:end]``, searched from that line's cursor (so
    refs on one line are found left to right), or None when it is not there."""
    literal = ref.markup if ref.meta.get("lmml_escape") else ref.markup + ref.content
    step = len(literal)
    if not literal:
        # A cell's content holds "|" only where its source has "\|": search up to there,
        # and step past the marker's first character only (the tail may hold later ones).
        literal, step = tail.partition("|")[0], 1
    if not literal:
        return None
    cursors: dict[int, int] = env[LINE_CURSOR_KEY]
    found = src.find(literal, start + cursors.get(source_line, 0), end)
    if found < 0:
        return None
    cursors[source_line] = found - start + step
    return found - start + 1
