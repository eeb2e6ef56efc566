"""How a transcript message's author and content are spelled in LMML, and read back.

An author is a heading ``## Turn 3 -- assistant`` or ``## alice -- assistant`` (the name
escaped so the role is still found); a content is written in one of three
:data:`ENCODINGS` (verbatim, with LMML escapes, or fenced with :data:`CONTENT_FENCE_INFO`),
the one the read-back check (:mod:`lmml_mdit.transcript._readback`) needs. Files written
by earlier versions may hold :data:`LEGACY_ESCAPED` contents, still read as they were written. See
docs/transcript.md, "To and from LMML".
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection, Sequence
from typing import Literal

from ..model import MESSAGE_ROLES
from ..syntax import CONTENT_FENCE_INFO, code_fence

__all__ = [
    "CONTENT_FENCE_INFO",
    "ENCODINGS",
    "LEGACY_ESCAPED",
    "RECORD_ENCODINGS",
    "Encoding",
    "_unescape",
    "_unfence",
    "base_column",
    "decode_author",
    "decode_content",
    "digest",
    "encode_author",
    "escape_content",
    "fence_content",
    "insert_backslashes",
]


_ROLE_WORD = re.compile(r"[^\W\d_]+")
_TURN_LABEL = re.compile(r"turn\s+\d+", re.IGNORECASE)
# label, the last spaced dash (``--``, en or em dash, as the parser reads it), the role
_LABELLED = re.compile(r"(.*\S)[ \t]+(--|\u2013|\u2014)[ \t]+([^\W\d_]+)", re.DOTALL)
_ESCAPED = re.compile(r"\\(.)", re.DOTALL)

_LINE_START = re.compile(r" {0,3}")
_RISKY_START = re.compile(r"#{1,6}(?:[ \t]|$)|<|@@@|```|~~~|\\")
_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*$")

Encoding = Literal["verbatim", "lmml-escaped", "fenced"]
ENCODINGS: tuple[Encoding, ...] = ("verbatim", "lmml-escaped", "fenced")
"""The content encodings, from the plainest to the safest: the content as it is; the
content with LMML escapes (a backslash before an ``@`` or a line that would be a role
delimiter, which the text sent to a model leaves out); the content in a code fence."""

LEGACY_ESCAPED = "escaped"
"""The encoding earlier versions wrote instead of ``lmml-escaped``: a backslash before
every line start that could open a block (:func:`escape_content`), kept in the turn sent.
Still read (:func:`decode_content`), never written."""

RECORD_ENCODINGS: tuple[str, ...] = (*ENCODINGS, LEGACY_ESCAPED)
"""The encodings a transcript record may name."""


# --- authors in headings -------------------------------------------------------------------


def encode_author(author: str) -> str | None:
    """The heading label for *author*, or None when it cannot sit on a heading line."""
    if not author or author != author.strip() or not author.isprintable():
        return None
    label = author.replace("\\", "\\\\").replace("@", "\\@")

    def break_role(match: re.Match[str]) -> str:
        word = match.group()
        return word[0] + "\\" + word[1:] if word.lower() in MESSAGE_ROLES else word

    label = _ROLE_WORD.sub(break_role, label)
    if _TURN_LABEL.fullmatch(label):
        label = label[0] + "\\" + label[1:]
    return label


def decode_author(heading: str | None, role: str) -> str | None:
    """The author a heading names (``alice -- assistant``, ``alice — assistant``), or None
    when it names none."""
    if heading is None:
        return None
    match = _LABELLED.fullmatch(heading.strip())
    if match is None or match.group(3).lower() != role:
        return None
    label = match.group(1)
    if _TURN_LABEL.fullmatch(label):
        return None
    return _ESCAPED.sub(r"\1", label)


def label_dash(heading: str) -> str | None:
    """The dash of an author heading (``--``, an en or an em dash), or None for another
    heading."""
    match = _LABELLED.fullmatch(heading.strip())
    if match is None or _TURN_LABEL.fullmatch(match.group(1)):
        return None
    return match.group(2)


# --- content -------------------------------------------------------------------------------


def escape_content(content: str) -> str:
    """The :data:`LEGACY_ESCAPED` encoding: a backslash before each line start that could
    open a heading, an HTML block, an embed fence, a code fence or a setext underline, and
    before each line start that already is a backslash (undone by :func:`_unescape`).

    Only to check a record entry of a file written so (the model is sent those
    backslashes, so nothing writes it any more)."""
    lines = content.split("\n")
    escaped: list[str] = []
    previous = ""
    for line in lines:
        indent = _LINE_START.match(line)
        assert indent is not None
        cut = indent.end()
        rest = line[cut:]
        if _RISKY_START.match(rest) or (previous.strip() and _UNDERLINE.match(rest)):
            line = line[:cut] + "\\" + rest
        escaped.append(line)
        previous = line
    return "\n".join(escaped)


def insert_backslashes(text: str, positions: Collection[tuple[int, int]]) -> str:
    """*text* with a backslash before each ``(line, column)`` (0-based line, 1-based
    column): the LMML escape of the ``@`` or the delimiter line there."""
    if not positions:
        return text
    lines = text.split("\n")
    for line, column in sorted(positions, reverse=True):
        row = lines[line]
        lines[line] = row[: column - 1] + "\\" + row[column - 1 :]
    return "\n".join(lines)


def base_column(inserted: Sequence[int], column: int) -> int:
    """The column, before the backslashes were inserted at *inserted* (sorted base
    columns), of what now stands at *column*."""
    shift = 0
    for index, base in enumerate(inserted):
        if base + index < column:
            shift += 1
        else:
            break
    return column - shift


def _unescape(text: str) -> str:
    """Undo :func:`escape_content`: drop one backslash at each line start that has one."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        indent = _LINE_START.match(line)
        assert indent is not None
        cut = indent.end()
        if line.startswith("\\", cut):
            lines[index] = line[:cut] + line[cut + 1 :]
    return "\n".join(lines)


def fence_content(content: str) -> str:
    """*content* in a code fence of :data:`CONTENT_FENCE_INFO`, longer than any backtick
    run inside."""
    return code_fence(content, CONTENT_FENCE_INFO)


def _unfence(text: str) -> str | None:
    """What :func:`fence_content` wrapped, or None when *text* is no such fence."""
    lines = text.split("\n")
    if len(lines) < 2:
        return None
    opening, closing = lines[0], lines[-1]
    marks = closing.strip()
    if not marks or set(marks) != {"`"} or opening != marks + CONTENT_FENCE_INFO:
        return None
    return "\n".join(lines[1:-1])


def decode_content(text: str, encoding: str) -> str:
    """The content a turn text written in *encoding* holds.

    :param text: the turn text; for ``lmml-escaped``, as it is sent (its LMML escapes
        left out), which is the content."""
    if encoding == LEGACY_ESCAPED:
        return _unescape(text)
    if encoding == "fenced":
        inner = _unfence(text)
        if inner is not None:
            return inner
    return text


def digest(text: str) -> str:
    """The SHA-256 of *text* (UTF-8), in hex: what the record stores per turn."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
