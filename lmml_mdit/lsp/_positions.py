"""Positions in a document as the client counts them.

The library counts columns in code points (:class:`~lmml_mdit.model.Embed`'s are 1-based);
an LSP client counts them in the position encoding agreed at initialisation: UTF-16 code
units unless the client offers UTF-8 or UTF-32. Lines are the narrative's own
(:attr:`Narrative.lines <lmml_mdit.narrative.Narrative.lines>`), split at ``\\n``,
``\\r\\n`` and ``\\r`` as LSP splits them.
"""

from __future__ import annotations

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


class Columns:
    """Converts between 0-based (line, code point) pairs and client positions.

    :param lines: the document's lines, without line endings.
    :param encoding: the agreed position encoding.
    """

    def __init__(self, lines: Sequence[str], encoding: str) -> None:
        self.lines = lines
        self.encoding = encoding

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
        return types.Position(line=max(line, 0), character=units(text[:column], self.encoding))

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
        if self.encoding == types.PositionEncodingKind.Utf32 or text.isascii():
            return max(0, min(position.character, len(text)))
        counted = 0
        for at, char in enumerate(text):
            if counted >= position.character:
                return at
            counted += units(char, self.encoding)
        return len(text)


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
