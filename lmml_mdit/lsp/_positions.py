"""Positions in a document as the client counts them.

The library counts columns in code points (:class:`~lmml_mdit.model.Embed`'s are 1-based);
an LSP client counts them in the position encoding agreed at initialisation: UTF-16 code
units unless the client offers UTF-8 or UTF-32. Lines are the narrative's own
(:attr:`Narrative.lines <lmml_mdit.narrative.Narrative.lines>`), split at ``\\n``,
``\\r\\n`` and ``\\r`` as LSP splits them.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from typing import overload

from lsprotocol import types

__all__ = ["Columns", "units"]


def units(text: str, encoding: str) -> int:
    """How many code units *text* takes in the position *encoding* (``utf-8``, ``utf-16``
    or ``utf-32``)."""
    if encoding == types.PositionEncodingKind.Utf32 or text.isascii():
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


_WIDE: dict[str, re.Pattern[str]] = {
    types.PositionEncodingKind.Utf8: re.compile("[^\x00-\x7f]"),
    types.PositionEncodingKind.Utf16: re.compile("[\U00010000-\U0010ffff]"),
}
"""The code points that take more than one code unit, per position encoding."""


class _Wide:
    """Where one line's wide code points stand, and the code units they add: each
    conversion on the line is a binary search, not a count from the line's start."""

    def __init__(self, text: str, encoding: str) -> None:
        self.starts: list[int] = []
        self.added: list[int] = []
        """How many code units the wide code points up to each one add, all told."""
        pattern = _WIDE.get(encoding)
        total = 0
        for found in pattern.finditer(text) if pattern is not None else ():
            total += units(found.group(), encoding) - 1
            self.starts.append(found.start())
            self.added.append(total)

    def units_before(self, column: int) -> int:
        """The code units of the line's first *column* code points."""
        wide = bisect_left(self.starts, column)
        return column + (self.added[wide - 1] if wide else 0)


class Columns:
    """Converts between 0-based (line, code point) pairs and client positions.

    :param lines: the document's lines, without line endings.
    :param encoding: the agreed position encoding.
    """

    def __init__(self, lines: Sequence[str], encoding: str) -> None:
        self.lines = lines
        self.encoding = encoding
        self._wide: dict[int, _Wide | None] = {}

    def _wide_of(self, line: int, text: str) -> _Wide | None:
        """The wide code points of the 0-based *line* (*text*), or None when it has none."""
        if line not in self._wide:
            wide = None
            if not text.isascii() and self.encoding in _WIDE:
                wide = _Wide(text, self.encoding)
            self._wide[line] = wide if wide is not None and wide.starts else None
        return self._wide[line]

    @classmethod
    def of_line(cls, line: int, text: str, encoding: str) -> Columns:
        """Columns that know only the 0-based *line*, whose text is *text* (what a request
        about the line being typed needs, before the document is analysed again)."""
        return cls(_OneLine(line, text), encoding)

    def line(self, line: int) -> str:
        """The 0-based *line*'s text, or ``""`` past the end."""
        return self.lines[line] if 0 <= line < len(self.lines) else ""

    def position(self, line: int, column: int) -> types.Position:
        """The client position of the 0-based code point *column* of the 0-based *line*."""
        text = self.line(line)
        column = max(0, min(column, len(text)))
        wide = self._wide_of(line, text)
        character = wide.units_before(column) if wide is not None else column
        return types.Position(line=max(line, 0), character=character)

    def range(self, line: int, start: int, end_line: int, end: int) -> types.Range:
        """The client range from (*line*, *start*) to (*end_line*, *end*), code points."""
        return types.Range(start=self.position(line, start), end=self.position(end_line, end))

    def span(self, line: int, start: int, end: int) -> types.Range:
        """The client range of the code points ``[start, end)`` of one 0-based *line*."""
        return self.range(line, start, line, end)

    def end_of(self, line: int) -> types.Position:
        """The client position at the end of the 0-based *line*."""
        return self.position(line, len(self.line(line)))

    def column(self, position: types.Position) -> int:
        """The 0-based code point column of a client *position* (clamped to its line)."""
        text = self.line(position.line)
        wide = self._wide_of(position.line, text)
        if wide is None:
            return max(0, min(position.character, len(text)))
        # The first code point at or past the position (a position inside a surrogate pair
        # or a UTF-8 sequence moves on to the next code point).
        at = bisect_left(range(len(text) + 1), position.character, key=wide.units_before)
        return min(at, len(text))


class _OneLine(Sequence[str]):
    """A document's lines of which only one is known; the others read as empty."""

    def __init__(self, line: int, text: str) -> None:
        self._line = line
        self._text = text

    def __len__(self) -> int:
        return self._line + 1

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[at] for at in range(len(self))[index]]
        return self._text if index in (self._line, self._line - len(self)) else ""
