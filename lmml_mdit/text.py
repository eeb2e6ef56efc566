"""Plain-text helpers shared by the readers and writers: newlines and blank edge lines.

These are pure functions on ``str`` with no dependency on the rest of the package, so any
module may use them. "Blank" means empty or whitespace only (``str.strip`` leaves nothing),
the same rule the segmenter uses when it cuts a turn's text out of the narrative.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "as_turn_text",
    "blank_edges",
    "clipped",
    "first_line_ending",
    "is_unicode",
    "line_starts",
    "normalize_newlines",
    "place_after",
    "trim_blank_lines",
]


def is_unicode(text: str) -> bool:
    """False when *text* holds a lone surrogate, which no UTF-8 file can hold (``json``
    reads the escape ``"\\udcff"`` as one; so does a ``surrogateescape`` decode).

    :param text: any text.
    """
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def first_line_ending(text: str) -> str:
    """The line ending of *text*'s first line (``\\r\\n``, ``\\r`` or ``\\n``; ``\\n``
    when it has none), the one a rewrite of its lines writes.

    :param text: any text.
    """
    cr, lf = text.find("\r"), text.find("\n")
    if cr < 0 or 0 <= lf < cr:
        return "\n"
    return "\r\n" if lf == cr + 1 else "\r"


def normalize_newlines(text: str) -> str:
    """*text* as markdown-it reads it: ``\\r\\n`` and lone ``\\r`` become ``\\n``, and NUL
    becomes U+FFFD (the replacement character).

    :param text: any text.
    """
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")


def line_starts(text: str) -> list[int]:
    """The offset where each line of *text* starts, its lines ended as markdown-it ends them
    (``\n``, ``\r\n`` or a lone ``\r``; see :func:`normalize_newlines`), so that the
    parse's line *n* starts at ``line_starts(text)[n - 1]``.

    :param text: any text.
    """
    starts = [0]
    if "\r" not in text:
        found = text.find("\n")
        while found >= 0:
            starts.append(found + 1)
            found = text.find("\n", found + 1)
        return starts
    at = 0
    while True:
        newline = text.find("\n", at)
        carriage = text.find("\r", at, newline if newline >= 0 else len(text))
        if carriage >= 0:
            at = carriage + 2 if text.startswith("\r\n", carriage) else carriage + 1
        elif newline >= 0:
            at = newline + 1
        else:
            return starts
        starts.append(at)


def place_after(before: str) -> tuple[int, int]:
    """The 1-based ``(line, column)`` of the character that follows *before*, lines counted
    as markdown-it counts them (:func:`normalize_newlines`) and columns in code points: where
    an error about that character (a bad byte, a lone surrogate) points.

    :param before: the text in front of that character, from the start of the narrative.
    """
    normal = normalize_newlines(before)
    return normal.count("\n") + 1, len(normal) - normal.rfind("\n")


def blank_edges(lines: Sequence[str], start: int = 0, end: int | None = None) -> tuple[int, int]:
    """The bounds of ``lines[start:end]`` without its leading and trailing blank lines.

    :param lines: lines without line endings.
    :param start: the first index to consider.
    :param end: one past the last index to consider; ``None`` for ``len(lines)``.
    :returns: ``(first, last)`` with ``start <= first <= last <= end``; ``first == last``
        when every line in the range is blank.
    """
    if end is None:
        end = len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return start, end


def trim_blank_lines(text: str) -> str:
    """*text* without its leading and trailing blank lines; inner lines are kept verbatim.

    *text* should already be normalised (:func:`normalize_newlines`): only ``\\n`` separates
    lines here.

    :param text: text with ``\\n`` line endings.
    """
    lines = text.split("\n")
    first, last = blank_edges(lines)
    return "\n".join(lines[first:last])


def as_turn_text(text: str) -> str:
    """*text* as a turn reads it back after writing: line endings as ``\\n``, NUL as
    U+FFFD, leading and trailing blank lines removed."""
    return trim_blank_lines(normalize_newlines(text))


def clipped(text: str, limit: int) -> str:
    """*text* cut to its first *limit* characters, with ``...`` after a cut (what an error
    message quotes of a long text)."""
    return text if len(text) <= limit else text[:limit] + "..."
