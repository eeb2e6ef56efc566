"""A transcript to and from LMML, losslessly.

**Headings.** Each message becomes one turn opened by an ATX heading the segmenter reads
back:

- ``## Turn 3 -- assistant`` when the author is the role itself (``assistant``);
- ``## alice -- assistant`` when the author is a name. The label before the last ``" -- "``
  is the author, escaped so that the role-word rule still finds the turn's role: every
  backslash is doubled, every role word in the name (``user``, ``assistant``, ``system``,
  ``tool``, any case, as a whole word) gets a backslash after its first letter
  (``u\\ser``), an ``@`` becomes ``\\@`` (no reference), and a name that reads
  ``Turn <n>`` gets ``T\\urn``. Reading drops each escaping backslash. A name that cannot
  sit on one heading line (empty, surrounded by spaces, control characters) gets the
  ``Turn <n>`` form and is kept only in the manifest.

The role of a turn is ``metadata["role"]`` when set, else the author when it is a role
word, else the pov's role when ``pov`` is given, else ``user``. A first message authored
``context`` becomes the preamble (no heading); a later or blank one becomes
``## context -- system``.

**Content.** A message's Markdown is written verbatim when the result parses back to the
same turn: same text, no forged delimiter, no inline fence but those of carried assets with
the same bytes. Otherwise it is *escaped*: a backslash goes before every line start (after
up to three spaces) that could open a heading, an HTML block or comment, an ``@@@`` fence, a
code fence or a setext underline, and before every line start that already is a backslash;
reading removes one backslash at each such line start. References to carried assets stay
references; a reference to a name the transcript does not carry (``ping @bob``) gets a
backslash before its ``@``, so no ``@`` sign forges an embed (the manifest keeps the exact
content). When
even that does not read back (a fence in a list item, an unclosed construct the escapes do
not reach), the content is wrapped in a code fence with the info string ``lmml-content``
and a backtick run longer than any in the content; references inside it are then plain
text. Each step is checked by parsing the result: the whole narrative is parsed once, every
turn that does not read back is made safer (a forged reference is escaped at the position
that parse found), and the text is parsed again only then; an open-ended last block (a code
fence, HTML block or ``@@@`` fence) is probed on its own with a turn after it, so a turn
written later cannot be swallowed. The bundle gets that one parse.

**Manifest.** ``manifest.json`` holds, under ``"transcript"``, one entry per message:
its author, metadata, heading, encoding, the SHA-256 of the turn text as written, and the
exact content when the turn text does not give it back (blank lines at the edges, carriage
returns). Reading trusts an entry only as far as the narrative agrees with it: the author
when the heading is unchanged; the stored content when the turn text's digest is unchanged
and writing that content gives this very turn text (what is sent and shown decides); a
recorded ``metadata["role"]`` contradicting the heading gives way to it. An edited turn is
read from the narrative. Without a manifest (a hand-written document) the heading gives
author and role (``metadata["role"]`` for a named author) and the turn text is the content.

**A file read back.** :func:`transcript_from_bundle` keeps a :class:`SourceNarrative` on the
transcript: the narrative's lines, each message's lines (its delimiter line, its text, and
what follows up to the next turn) and the bundle's other parts. Writing the same kind again,
an unedited message (author, content and metadata as read) is written as those lines, byte
for byte; an edited or new one is rendered in the file's own style (:class:`_Style`: the
last delimiter's form, level, dash, case and spacing, and the file's line ending). The
record is written where the file had one, or where the narrative alone would not give a
message back; ``manifest.json`` keeps its other keys, and every other entry stays as it was.

**Assets.** A ``.lmmlz`` stores each asset as an entry. A ``.lmml`` holds each asset as an
inline fence closing the turn that first references it (so the asset binds to that turn, as
with an entry), the manifest and unreferenced assets as inline fences before the first
turn; the record lists each turn's closing fences (``"attachments"``) so reading cuts them
off. An asset that is not UTF-8 text a fence can hold exactly raises
:class:`~lmml_mdit.errors.NotInlinableError`. A preamble's leading inline fences are read as
attachments, not as context text. Asset fences already inside a content (a tool call) stay
there and are not repeated.
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
import hashlib
import itertools
import os
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..bundle.reserved import MANIFEST_NAME
from ..errors import (
    LmmlError,
    MissingEntryError,
    NotInlinableError,
    TranscriptError,
    TranscriptFormatError,
    UnresolvableReferenceError,
)
from ..model import MESSAGE_ROLES, Embed, Turn
from ..narrative.narrative import Narrative, parse
from ..text import as_turn_text, backtick_fence, normalize_newlines
from .transcript import Message, Pov, Transcript, _pov_roles, check_saveable, pinned_role

if TYPE_CHECKING:
    from ..bundle.bundle import Bundle

__all__ = [
    "CONTENT_FENCE_INFO",
    "MANIFEST_KEY",
    "TRANSCRIPT_LMML_VERSION",
    "SourceNarrative",
    "decode_author",
    "encode_author",
    "load_lmml",
    "narrative_text",
    "save_lmml",
    "transcript_from_bundle",
    "transcript_to_bundle",
]

MANIFEST_KEY = "transcript"
"""The ``manifest.json`` key the transcript's own record lives under."""

TRANSCRIPT_LMML_VERSION = 1
"""The version of that record."""

CONTENT_FENCE_INFO = "lmml-content"
"""The info string of the code fence that wraps content unsafe to write verbatim."""

_ROLE_WORD = re.compile(r"[^\W\d_]+")
_TURN_LABEL = re.compile(r"turn\s+\d+", re.IGNORECASE)
_LABELLED = re.compile(r"(.*\S) -- ([^\W\d_]+)", re.DOTALL)
_ESCAPED = re.compile(r"\\(.)", re.DOTALL)
_SENTINEL_HEADING = "Turn 0 -- user"
_SENTINEL = f"## {_SENTINEL_HEADING}\n"
_LINE_START = re.compile(r" {0,3}")
_RISKY_START = re.compile(r"#{1,6}(?:[ \t]|$)|<|@@@|```|~~~|\\")
_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*$")

Encoding = Literal["verbatim", "escaped", "fenced"]
ENCODINGS: tuple[Encoding, ...] = ("verbatim", "escaped", "fenced")


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
    """The author a heading names (``alice -- assistant``), or None when it names none."""
    if heading is None:
        return None
    match = _LABELLED.fullmatch(heading.strip())
    if match is None or match.group(2).lower() != role:
        return None
    label = match.group(1)
    if _TURN_LABEL.fullmatch(label):
        return None
    return _ESCAPED.sub(r"\1", label)


# --- content -------------------------------------------------------------------------------


def _escape(content: str) -> str:
    """Put a backslash before each line start that could open a heading, an HTML block, an
    embed fence, a code fence or a setext underline, and before each line start that
    already is a backslash (so that :func:`_unescape` is exact).

    Not :func:`lmml_mdit.chat.escape.escape_text`, which is one-way (its backslashes stay
    in the turn): this must be undone by :func:`_unescape`, so it escapes by a fixed
    line-start rule rather than by what the parser happens to misread."""
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


def _insert_backslashes(text: str, positions: Collection[tuple[int, int]]) -> str:
    """*text* with a backslash before each ``(line, column)`` (0-based line, 1-based
    column), so that the ``@`` there starts no reference."""
    if not positions:
        return text
    lines = text.split("\n")
    for line, column in sorted(positions, reverse=True):
        row = lines[line]
        lines[line] = row[: column - 1] + "\\" + row[column - 1 :]
    return "\n".join(lines)


def _base_column(inserted: Sequence[int], column: int) -> int:
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
    lines = text.split("\n")
    for index, line in enumerate(lines):
        indent = _LINE_START.match(line)
        assert indent is not None
        cut = indent.end()
        if line.startswith("\\", cut):
            lines[index] = line[:cut] + line[cut + 1 :]
    return "\n".join(lines)


def _fence(content: str) -> str:
    marks = backtick_fence(content)
    return f"{marks}{CONTENT_FENCE_INFO}\n{content}\n{marks}"


def _unfence(text: str) -> str | None:
    lines = text.split("\n")
    if len(lines) < 2:
        return None
    opening, closing = lines[0], lines[-1]
    marks = closing.strip()
    if not marks or set(marks) != {"`"} or opening != marks + CONTENT_FENCE_INFO:
        return None
    return "\n".join(lines[1:-1])


def _decode(text: str, encoding: str) -> str:
    if encoding == "escaped":
        return _unescape(text)
    if encoding == "fenced":
        inner = _unfence(text)
        if inner is not None:
            return inner
    return text


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- the file a transcript was read from ---------------------------------------------------

_NUMBERED = re.compile(r"turn\s+(\d+)\s*(--|\u2013|\u2014)\s*[^\W\d_]+", re.IGNORECASE)


@dataclass(frozen=True)
class _Style:
    """How a narrative writes its delimiters, so that a turn written into it looks like
    its neighbours. The defaults are the form a new transcript is written in."""

    newline: str = "\n"
    marker: str = "##"  # "#" to "######" for an ATX heading; "=" or "-" for a setext one
    comment: bool = False  # role turns open with <!-- role -->
    bare: bool = False  # role turns are headed by the role alone ("# Assistant")
    case: Literal["lower", "title", "upper"] = "lower"  # how a bare role is spelled
    dash: str = "--"  # between "Turn N" and the role
    gap: bool = True  # a blank line after each delimiter
    sep: bool = True  # a blank line before each delimiter


_FRESH = _Style()


@dataclass(frozen=True)
class _Origin:
    """An unedited message's place in the file it was read from."""

    author: str
    content: str
    metadata: dict[str, Any]
    role: str  # "context" for the preamble
    heading: str | None
    delimiter: str | None  # the delimiter's own lines, None for the preamble
    raw: str  # the turn's lines as written: delimiter, text, what follows up to the next turn
    text: str  # the turn text as read (closing attachment fences cut off)
    fences: frozenset[str]  # names of the inline fences in ``raw``
    attachments: tuple[str, ...]  # the closing fences the record lists
    entry: dict[str, Any] | None  # the record entry it was read with

    def matches(self, message: Message) -> bool:
        return (
            message.author == self.author
            and message.content == self.content
            and message.metadata == self.metadata
        )


@dataclass
class SourceNarrative:
    """What :meth:`Transcript.to_bundle` needs to write a transcript read from a bundle back
    as it was: the narrative's lines, each message's place in them, and the other parts.

    Unedited messages (author, content and metadata as read) are written as their original
    lines; edited and new ones are rendered in the file's own delimiter style.
    """

    kind: Literal["zip", "text"]
    name: str
    base_dir: str | None
    head: str  # the lines before the first message (front matter, leading fences)
    head_manifest: tuple[int, int] | None  # where the manifest fence sits in ``head``
    head_fences: frozenset[str]
    origins: dict[int, _Origin]  # by id() of the message read
    messages: tuple[Message, ...]  # keeps those ids alive
    entries: tuple[str, ...]  # a zip's entry names, in archive order
    assets: dict[str, bytes]
    folder: frozenset[str]  # assets a text bundle resolved from its folder
    manifest: dict[str, Any] | None
    manifest_bytes: bytes | None
    recorded: bool  # the messages were read with a transcript record
    style: _Style

    def origin(self, message: Message) -> _Origin | None:
        """The origin of *message* when it is one of those read and unedited."""
        origin = self.origins.get(id(message))
        if origin is None or not origin.matches(message):
            return None
        return origin

    def renamed(self, old: Sequence[Message], new: Sequence[Message]) -> SourceNarrative:
        """This source for copies *new* of the messages *old* (same positions)."""
        origins = {
            id(copied): self.origins[id(message)]
            for message, copied in zip(old, new, strict=True)
            if id(message) in self.origins
        }
        return dataclasses.replace(self, origins=origins, messages=tuple(new))


def _raw_lines(text: str) -> list[str]:
    """*text* cut into lines as markdown-it counts them (at ``\\r\\n``, ``\\r`` or ``\\n``),
    each with its own line ending."""
    lines: list[str] = []
    if "\r" not in text:
        pieces = text.split("\n")
        lines = [piece + "\n" for piece in pieces[:-1]]
        if pieces[-1]:
            lines.append(pieces[-1])
        return lines
    start = 0
    length = len(text)
    while start < length:
        cr, lf = text.find("\r", start), text.find("\n", start)
        ends = [position for position in (cr, lf) if position >= 0]
        if not ends:
            lines.append(text[start:])
            break
        end = min(ends)
        stop = end + 2 if text.startswith("\r\n", end) else end + 1
        lines.append(text[start:stop])
        start = stop
    return lines


def _newline(lines: Sequence[str]) -> str:
    for line in lines:
        if line.endswith("\r\n"):
            return "\r\n"
        if line.endswith(("\n", "\r")):
            return line[-1]
    return "\n"


def _case(text: str) -> Literal["lower", "title", "upper"]:
    if text.isupper():
        return "upper"
    return "title" if text[:1].isupper() else "lower"


def _style_of(narrative: Narrative, raw: Sequence[str]) -> _Style:
    """The delimiter style of *narrative*: its last delimiter's form and spacing."""
    lines = narrative.lines
    delimited = [turn for turn in narrative.turns if turn.delimiter_line is not None]
    style = dataclasses.replace(_FRESH, newline=_newline(raw))
    if not delimited:
        return style
    last = delimited[-1]
    changes: dict[str, Any] = {"comment": last.heading is None}
    headed = [turn for turn in delimited if turn.heading is not None]
    if headed:
        turn = headed[-1]
        assert turn.delimiter_line is not None
        line = lines[turn.delimiter_line - 1].lstrip()
        if line.startswith("#"):
            changes["marker"] = line[: len(line) - len(line.lstrip("#"))]
        else:  # setext: the underline is the line before the turn's text
            changes["marker"] = lines[turn.start_line - 2].strip()[:1] or "="
    for turn in reversed(headed):
        heading = (turn.heading or "").strip()
        numbered = _NUMBERED.fullmatch(heading)
        if numbered is not None:
            changes.update(bare=False, dash=numbered.group(2))
            break
        if heading.lower() == turn.role:
            changes.update(bare=True, case=_case(heading))
            break
    assert last.delimiter_line is not None
    after = last.start_line - 1
    if after < len(lines):
        changes["gap"] = not lines[after].strip()
    for turn in reversed(delimited):
        assert turn.delimiter_line is not None
        if turn.delimiter_line >= 2:
            changes["sep"] = not lines[turn.delimiter_line - 2].strip()
            break
    return dataclasses.replace(style, **changes)


def _fence_span(narrative: Narrative, name: str, start: int, end: int) -> tuple[int, int] | None:
    """The 0-based line span of the first top-level inline fence *name* in lines
    ``[start, end)``."""
    for fence in narrative.index.fences_in(start, end):
        if fence.level == 0 and fence.name == name:
            return fence.start, fence.end
    return None


# --- writing -------------------------------------------------------------------------------


_Resolves = Callable[[str], bool]
"""Whether a reference to a name resolves (to a carried asset, or a file beside the text)."""


@dataclass
class _Plan:
    message: Message
    role: str  # "context" for the preamble
    heading: str | None  # as the turn reads back: None for the preamble or a comment
    delimiter: str | None  # the delimiter lines as written ("\n"-joined), None: preamble
    resolves: _Resolves  # whether a reference to a name resolves
    kept: _Origin | None = None  # written as the lines it was read from
    encoding: Encoding = "verbatim"
    plain: bool = False  # the heading is already the plain "Turn N -- role"
    attachments: tuple[str, ...] = ()  # .lmml: asset fences closing the turn
    # Escaped: where a backslash goes before an "@" (0-based line, 1-based column of the
    # line-escaped content), found by parsing the written text.
    escapes: frozenset[tuple[int, int]] = frozenset()
    _body: tuple[Encoding, frozenset[tuple[int, int]], str] | None = None
    _expected: tuple[str, str] | None = None

    @property
    def body(self) -> str:
        """The turn text as written (cached)."""
        if self._body is None or self._body[:2] != (self.encoding, self.escapes):
            content = self.message.content
            if self.encoding == "escaped":
                body = _insert_backslashes(normalize_newlines(_escape(content)), self.escapes)
            elif self.encoding == "fenced":
                body = _fence(content)
            else:
                body = content
            self._body = (self.encoding, self.escapes, body)
        return self._body[2]

    @property
    def expected(self) -> str:
        """The turn text the written narrative must read back."""
        if self.kept is not None:
            return self.kept.text
        body = self.body
        if self._expected is None or self._expected[0] is not body:
            self._expected = (body, as_turn_text(body))
        return self._expected[1]

    def escape_references(self, spots: Collection[tuple[int, int]], position: int) -> None:
        """Escape the ``@`` of the references at *spots* (positions in the body as written:
        0-based line, 1-based column), which name nothing that resolves. A position that
        holds no ``@`` is ignored; without any progress the content is fenced instead."""
        content = self.message.content
        base = normalize_newlines(_escape(content)).split("\n")
        if self.encoding == "verbatim":
            plain = normalize_newlines(content).split("\n")
            shift = {line: len(base[line]) - len(plain[line]) for line, _ in spots}
            found = {(line, column + shift[line]) for line, column in spots}
            self.encoding = "escaped"
            self.escapes = frozenset()
        elif self.encoding == "escaped":
            by_line: dict[int, list[int]] = {}
            for line, column in self.escapes:
                by_line.setdefault(line, []).append(column)
            for columns in by_line.values():
                columns.sort()
            found = {(line, _base_column(by_line.get(line, []), col)) for line, col in spots}
        else:
            _escalate(self, "turn", position)
            return
        valid = {
            (line, column)
            for line, column in found
            if 0 <= line < len(base) and base[line][column - 1 : column] == "@"
        }
        if spots and valid <= self.escapes:
            _escalate(self, "turn", position)  # no progress: fence the content instead
        else:
            self.escapes = self.escapes | valid

    def unkeep(self) -> None:
        """Render the message instead of copying its lines (they no longer read back)."""
        assert self.kept is not None
        self.kept = None
        self.encoding = "verbatim"
        self.escapes = frozenset()


def _role(message: Message, pov: tuple[str, str, str] | None) -> str:
    role = message.metadata.get("role")
    if isinstance(role, str) and role in MESSAGE_ROLES:
        return role
    if message.author in MESSAGE_ROLES:
        return message.author
    if pov is not None:
        name, self_role, others_role = pov
        pinned = pinned_role(message)
        chosen = pinned or (self_role if message.author == name else others_role)
        if chosen in MESSAGE_ROLES:
            return chosen
    return "system" if message.author == "context" else "user"


def _delimiter_text(heading: str, style: _Style) -> str:
    if style.marker.startswith("#"):
        return f"{style.marker} {heading}"
    return f"{heading}\n{style.marker * max(3, len(heading))}"


def _plain(number: int, role: str) -> tuple[str, str]:
    heading = f"Turn {number} -- {role}"
    return heading, f"## {heading}"


def _styled_delimiter(
    message: Message, role: str, number: int, style: _Style
) -> tuple[str | None, str]:
    """The heading (None for a comment) and the delimiter lines for a rendered turn."""
    label = None if message.author == role else encode_author(message.author)
    if label is not None:
        heading = f"{label} -- {role}"
    elif style.comment and message.author == role:
        return None, f"<!-- {role} -->"
    elif style.bare:
        heading = {"lower": role, "title": role.title(), "upper": role.upper()}[style.case]
    else:
        heading = f"Turn {number} {style.dash} {role}"
    return heading, _delimiter_text(heading, style)


def _plans(
    transcript: Transcript,
    pov: tuple[str, str, str] | None,
    source: SourceNarrative | None,
    resolves: _Resolves,
) -> list[_Plan]:
    plans: list[_Plan] = []
    style = source.style if source is not None else _FRESH
    numbered: tuple[int, int] | None = None  # (position, number) of the last "Turn N"
    for position, message in enumerate(transcript):
        check_saveable(message, position)  # fields may have been changed in place
        origin = source.origin(message) if source is not None else None
        if origin is not None:
            plan = _Plan(message, origin.role, origin.heading, origin.delimiter, resolves, origin)
            plan.attachments = origin.attachments
            plans.append(plan)
            found = _NUMBERED.fullmatch((origin.heading or "").strip())
            if found is not None:
                numbered = (position, int(found.group(1)))
            continue
        is_preamble = (
            position == 0
            and message.author == "context"
            and "role" not in message.metadata
            and as_turn_text(message.content) != ""
        )
        if is_preamble:
            plans.append(_Plan(message, "context", None, None, resolves))
            continue
        role = _role(message, pov)
        edited = source.origins.get(id(message)) if source is not None else None
        if (
            edited is not None
            and edited.delimiter is not None
            and (edited.author, edited.role) == (message.author, role)
        ):
            # Edited content, same author and role: the turn keeps its delimiter line.
            plans.append(_Plan(message, role, edited.heading, edited.delimiter, resolves))
            found = _NUMBERED.fullmatch((edited.heading or "").strip())
            if found is not None:
                numbered = (position, int(found.group(1)))
            continue
        number = numbered[1] + position - numbered[0] if numbered else position + 1
        heading, delimiter = _styled_delimiter(message, role, number, style)
        if heading is not None and _NUMBERED.fullmatch(heading):
            numbered = (position, number)
        plans.append(_Plan(message, role, heading, delimiter, resolves))
    return plans


@dataclass
class _Layout:
    """Where a plan's lines went: 0-based line numbers in the written text."""

    delimiter: int | None  # the delimiter's first line; None for the preamble
    start: int  # the first line of the turn's region (after the delimiter)
    end: int = 0  # one past the region's last line
    body: int = 0  # the body's first line (a rendered plan)


class _Lines:
    """The text being written, counting lines as markdown-it does."""

    def __init__(self, newline: str) -> None:
        self.newline = newline
        self.parts: list[str] = []
        self.complete = 0  # lines ended so far
        self.open = False  # the last line has no line ending yet
        self.blank = True  # the last ended line is blank (or nothing was written)

    def raw(self, text: str) -> None:
        """Add lines as they were read (their own line endings)."""
        if not text:
            return
        self.terminate()
        self.parts.append(text)
        self.complete += text.count("\n") + text.count("\r") - text.count("\r\n")
        self.open = text[-1] not in "\r\n"
        if self.open:
            return
        body = text[:-2] if text.endswith("\r\n") else text[:-1]
        last = body[max(body.rfind("\n"), body.rfind("\r")) + 1 :]
        self.blank = not last.strip()

    def lines(self, text: str) -> None:
        """Add ``\\n``-separated lines, each ended with the file's line ending."""
        self.terminate()
        if self.newline != "\n":
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            self.parts.append(text.replace("\n", self.newline) + self.newline)
        else:
            self.parts.append(text + "\n")
        # A content's own carriage returns end lines too.
        self.complete += text.count("\n") + text.count("\r") - text.count("\r\n") + 1
        self.blank = not text[max(text.rfind("\n"), text.rfind("\r")) + 1 :].strip()

    def terminate(self) -> None:
        if self.open:
            self.parts.append(self.newline)
            self.complete += 1
            self.open = False
            self.blank = False

    @property
    def total(self) -> int:
        return self.complete + (1 if self.open else 0)


def _render(
    plans: Sequence[_Plan],
    style: _Style,
    head: str = "",
    fences: Mapping[str, str] | None = None,
) -> tuple[str, list[_Layout]]:
    """The narrative for *plans* after *head*, and where each plan went."""
    out = _Lines(style.newline)
    out.raw(head)
    layouts: list[_Layout] = []
    for plan in plans:
        kept = plan.kept
        if kept is not None:
            out.terminate()
            first = out.complete
            out.raw(kept.raw)
            if kept.delimiter is None:
                layouts.append(_Layout(None, first))
            else:
                layouts.append(_Layout(first, first + kept.delimiter.count("\n") + 1))
        else:
            out.terminate()
            if plan.delimiter is not None:
                if style.sep and not out.blank:
                    out.lines("")
                first = out.complete
                out.lines(plan.delimiter)
                layouts.append(_Layout(first, out.complete))
                if style.gap:
                    out.lines("")
            else:
                layouts.append(_Layout(None, out.complete))
            body = plan.body
            layouts[-1].body = out.complete
            if body:
                out.lines(body)
                if style.sep:
                    out.lines("")
        if fences is not None:
            written = kept.fences if kept is not None else frozenset()
            for asset in plan.attachments:
                if asset not in written:
                    if not out.blank:
                        out.lines("")
                    out.raw(fences[asset])
                    out.lines("")
    for layout, following in itertools.pairwise(layouts):
        layout.end = following.delimiter if following.delimiter is not None else following.start
    if layouts:
        layouts[-1].end = out.total
    return "".join(out.parts), layouts


def _message_turns(narrative: Narrative) -> tuple[list[Turn], int]:
    """The narrative's turns with the preamble's attachment fences cut off, and how many
    preamble lines those fences (and the blank lines after them) take."""
    turns = list(narrative.turns)
    skip = 0
    if turns and turns[0].role == "context":
        skip = _attachment_lines(narrative, turns[0].end_line)
        lines = narrative.lines[skip : turns[0].end_line]
        if not any(line.strip() for line in lines):
            turns.pop(0)
    return turns, skip


def _attachment_lines(narrative: Narrative, region_end: int) -> int:
    """How many leading lines of the preamble are inline fences (and blank lines)."""
    position = 0
    lines = narrative.lines
    for block in narrative.index.blocks:
        if block.start >= region_end:
            break
        if any(line.strip() for line in lines[position : block.start]):
            break
        if block.kind != "lmml_embed":
            break
        position = block.end
    while position < region_end and not lines[position].strip():
        position += 1
    return position


def _turn_text(
    narrative: Narrative,
    turn: Turn,
    skip: int,
    attachments: Sequence[str] = (),
    embed_lines: Sequence[int] | None = None,
) -> str:
    """The turn's text without the preamble's leading fences (*skip* lines) and without the
    asset fences closing it (the first inline fence named in *attachments*).

    :param embed_lines: each embed's line, in document order (to find the turn's embeds by
        bisection); computed when not given.
    """
    start = turn.start_line - 1
    if turn.role == "context":
        start = max(start, skip)
    end = turn.end_line
    if attachments:
        if embed_lines is None:
            embed_lines = [embed.line for embed in narrative.embeds]
        first = bisect.bisect_left(embed_lines, start + 1)
        last = bisect.bisect_right(embed_lines, end)
        for embed in narrative.embeds[first:last]:
            if embed.is_inline and embed.name in attachments:
                end = embed.line - 1
                break
    if start == turn.start_line - 1 and end == turn.end_line:
        return turn.text
    return as_turn_text("\n".join(narrative.lines[start:end]))


def _turn_at(turns: Sequence[Turn], starts: Sequence[int], line: int) -> int | None:
    """The position of the turn holding *line* (*starts*: the turns' start lines), by
    bisection so that placing every embed stays linear overall."""
    position = bisect.bisect_right(starts, line) - 1
    if position < 0:
        return None
    turn = turns[position]
    return position if line <= max(turn.end_line, turn.start_line) else None


def _fence_owners(
    narrative: Narrative,
    turns: Sequence[Turn],
    skip: int,
    attachments: Sequence[Sequence[str]] = (),
) -> dict[int, list[Embed]]:
    """Every inline fence occurrence inside a message turn's content, by turn position
    (the preamble's leading fences and each turn's closing asset fences excluded)."""
    owners: dict[int, list[Embed]] = {}
    starts = [turn.start_line for turn in turns]
    for embed in narrative.embeds:
        if not embed.is_inline or embed.line <= skip:
            continue
        position = _turn_at(turns, starts, embed.line)
        if position is None:
            continue
        closing = attachments[position] if position < len(attachments) else ()
        if embed.name not in closing:
            owners.setdefault(position, []).append(embed)
    return owners


def _reference_owners(
    narrative: Narrative, turns: Sequence[Turn], skip: int
) -> dict[int, list[Embed]]:
    """The references (not fences) inside each message turn, by position."""
    owners: dict[int, list[Embed]] = {}
    starts = [turn.start_line for turn in turns]
    for embed in narrative.embeds:
        if embed.is_inline or embed.line <= skip:
            continue
        position = _turn_at(turns, starts, embed.line)
        if position is not None:
            owners.setdefault(position, []).append(embed)
    return owners


Fault = Literal["heading", "turn"]


@dataclass
class _Findings:
    """What :func:`_check` found wrong with a written narrative."""

    faults: dict[int, Fault] = dataclasses.field(default_factory=dict)
    # Plans whose delimiter is not read as one: an earlier content swallowed them, so they
    # are unchecked.
    hidden: set[int] = dataclasses.field(default_factory=set)
    # Rendered plans otherwise read back, with references to names nothing resolves:
    # their positions in the body (0-based line, 1-based column).
    forged: dict[int, set[tuple[int, int]]] = dataclasses.field(default_factory=dict)
    # The same for plans at fault: the references that stood in their body's lines.
    hints: dict[int, set[tuple[int, int]]] = dataclasses.field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.faults or self.forged)


def _check(
    narrative: Narrative,
    plans: Sequence[_Plan],
    layouts: Sequence[_Layout],
    assets: Mapping[str, bytes],
) -> _Findings:
    """The plans the written *narrative* does not give back (and whether the heading or
    the content is at fault)."""
    turns, skip = _message_turns(narrative)
    by_line = {
        turn.delimiter_line - 1: index
        for index, turn in enumerate(turns)
        if turn.delimiter_line is not None
    }
    faults: dict[int, Fault] = {}
    hidden: set[int] = set()
    forged: dict[int, set[tuple[int, int]]] = {}
    matched: dict[int, int] = {}
    previous: int | None = None
    for position, layout in enumerate(layouts):
        if layout.delimiter is None:
            found = 0 if turns and turns[0].role == "context" else None
        else:
            found = by_line.get(layout.delimiter)
        if found is None:
            hidden.add(position)
            # Swallowed by the content before it, or (the first) not a delimiter at all.
            if previous is None:
                faults[position] = "heading"
            else:
                faults.setdefault(previous, "turn")
            continue
        previous = position
        matched[position] = found
    closing: list[Sequence[str]] = [()] * len(turns)
    for position, found in matched.items():
        closing[found] = plans[position].attachments
    fence_turn = _fence_owners(narrative, turns, skip, closing)
    reference_turn = _reference_owners(narrative, turns, skip)
    embed_lines = [embed.line for embed in narrative.embeds]
    for position, found in matched.items():
        plan, layout, turn = plans[position], layouts[position], turns[found]
        expected_role = "context" if layout.delimiter is None else plan.role
        if turn.role != expected_role or turn.heading != plan.heading:
            faults.setdefault(position, "heading")
            continue
        region = turn.start_line - 1 == layout.start or layout.delimiter is None
        text = _turn_text(narrative, turn, skip, plan.attachments, embed_lines)
        if not region or turn.end_line != layout.end or text != plan.expected:
            faults.setdefault(position, "turn")
            continue
        for embed in fence_turn.get(found, ()):
            carried = embed.name in assets
            if (carried or plan.kept is None) and assets.get(embed.name) != embed.content:
                faults.setdefault(position, "turn")
        if plan.kept is None and position not in faults:
            spots = {
                (embed.line - 1 - layout.body, embed.column)
                for embed in reference_turn.get(found, ())
                if not plan.resolves(embed.name)
            }
            if spots:
                forged[position] = spots
    if len(turns) != len(matched) and plans and not faults:
        # A turn no plan wrote, and no region shows it: it comes before the first plan.
        faults[0] = "turn"
    return _Findings(faults, hidden, forged, _hints(narrative, plans, layouts, faults))


def _hints(
    narrative: Narrative,
    plans: Sequence[_Plan],
    layouts: Sequence[_Layout],
    faults: Mapping[int, Fault],
) -> dict[int, set[tuple[int, int]]]:
    """For each verbatim plan at fault, the unresolved references on its body's lines."""
    wanted = [
        position
        for position in faults
        if plans[position].kept is None and plans[position].encoding == "verbatim"
    ]
    if not wanted:
        return {}
    bodies = sorted((layouts[position].body, position) for position in wanted)
    starts = [body for body, _ in bodies]
    hints: dict[int, set[tuple[int, int]]] = {}
    for embed in narrative.embeds:
        index = bisect.bisect_right(starts, embed.line - 1) - 1
        if embed.is_inline or index < 0:
            continue
        body, position = bodies[index]
        layout, plan = layouts[position], plans[position]
        if embed.line - 1 < layout.end and not plan.resolves(embed.name):
            hints.setdefault(position, set()).add((embed.line - 1 - body, embed.column))
    return hints


_OPEN_ENDED = frozenset({"fence", "html_block", "lmml_embed"})
"""The top-level blocks (:attr:`~lmml_mdit.narrative.index.Block.kind`) that run to the end
of the document when left unclosed."""


def _tail_is_open(narrative: Narrative) -> bool:
    """Whether the narrative's last block would swallow a turn written after it (an
    unclosed code fence, HTML block or ``@@@`` fence). Only such a block is parsed again,
    from its first line, with a turn after it; any other block (a paragraph, a list, a
    quote) ends at the blank line before a top-level heading, and is not parsed again."""
    blocks = narrative.index.blocks
    if not blocks or blocks[-1].kind not in _OPEN_ENDED:
        return False
    start = blocks[-1].start
    tail = narrative.lines[start:]
    probe = parse("\n".join(tail) + "\n\n" + _SENTINEL)
    line = len(tail) + 2
    return not any(
        turn.delimiter_line == line and turn.heading == _SENTINEL_HEADING for turn in probe.turns
    )


def _escalate(plan: _Plan, fault: Fault, position: int) -> None:
    """Make *plan* safer: its lines rendered, then a plain heading, then escaping, then
    a code fence."""
    if plan.kept is not None:
        plan.unkeep()
    elif fault == "heading" and plan.delimiter is not None and not plan.plain:
        plan.heading, plan.delimiter = _plain(position + 1, plan.role)
        plan.plain = True
    elif plan.encoding != "fenced":
        plan.encoding = ENCODINGS[ENCODINGS.index(plan.encoding) + 1]
    else:
        raise TranscriptError(
            "cannot write the transcript as LMML that reads back the same",
            name=f"message {position}",
            hint="please report this as a bug in lmml_mdit, with the transcript",
        )


def _sentinel_plan(resolves: _Resolves) -> _Plan:
    return _Plan(
        Message("user", ""), "user", _SENTINEL_HEADING, f"## {_SENTINEL_HEADING}", resolves
    )


def _settle_alone(plan: _Plan, position: int, style: _Style, assets: Mapping[str, bytes]) -> None:
    """Escalate *plan* until, written alone with a turn after it, it reads back."""
    while True:
        pair = [plan, _sentinel_plan(plan.resolves)]
        text, layouts = _render(pair, style)
        findings = _check(_parse(text, assets), pair, layouts, assets)
        fault = findings.faults.get(0) or findings.faults.get(1)
        if fault is not None:
            _escalate(plan, fault, position)
        elif 0 in findings.forged:
            plan.escape_references(findings.forged[0], position)
        else:
            return


def _settle(
    plans: list[_Plan],
    assets: Mapping[str, bytes],
    style: _Style,
    head: str | Callable[[], str] = "",
    fences: Mapping[str, str] | None = None,
) -> tuple[str, Narrative]:
    """Write *plans* after *head* (or what it returns: the head may depend on the plans,
    like a manifest fence recording their encodings), making those at fault safer until
    the text reads back as planned; return the text and its parse (the one parse of the
    text, when nothing is at fault).

    Each round parses the whole text once and fixes every plan at fault in it, so a risky
    content costs a parse or two more, not one per turn. A plan hidden by an earlier one
    (an unclosed block swallowed its delimiter) is first settled alone (a small parse), so
    a run of such contents does not take a round each."""
    hidden: set[int] = set()
    for _ in range(4 * len(plans) + 4):
        for position in sorted(hidden):
            _settle_alone(plans[position], position, style, assets)
        text, layouts = _render(plans, style, head() if callable(head) else head, fences)
        narrative = _parse(text, assets)
        findings = _check(narrative, plans, layouts, assets)
        if not findings and plans and plans[-1].kept is None and _tail_is_open(narrative):
            findings.faults[len(plans) - 1] = "turn"
        if not findings:
            return text, narrative
        for position, fault in findings.faults.items():
            plan = plans[position]
            if fault == "turn" and plan.kept is None and plan.encoding == "verbatim":
                # Escaped next; the references the parse found in it are escaped at once.
                plan.escape_references(findings.hints.get(position, set()), position)
            else:
                _escalate(plan, fault, position)
        for position, spots in findings.forged.items():
            plans[position].escape_references(spots, position)
        hidden = findings.hidden
    raise TranscriptError(
        "cannot write the transcript as LMML that reads back the same",
        hint="please report this as a bug in lmml_mdit, with the transcript",
    )


def _parse(text: str, assets: Mapping[str, bytes]) -> Narrative:
    """Parse written text as a bundle holding *assets* will."""
    return parse(text, known_names=assets)


# --- the transcript record -----------------------------------------------------------------


def _entry(plan: _Plan) -> dict[str, Any]:
    kept = plan.kept
    if kept is not None and kept.entry is not None:
        recorded = copy.deepcopy(kept.entry)
        recorded.pop("attachments", None)
        if plan.attachments:
            recorded["attachments"] = list(plan.attachments)
        return recorded
    message = plan.message
    expected = plan.expected
    encoding: Encoding = plan.encoding if kept is None else "verbatim"
    entry: dict[str, Any] = {
        "author": message.author,
        "metadata": copy.deepcopy(message.metadata),
        "heading": plan.heading,
        "sha256": _digest(expected),
    }
    if encoding != "verbatim":
        entry["encoding"] = encoding
    if plan.attachments:
        entry["attachments"] = list(plan.attachments)
    if _decode(expected, encoding) != message.content:
        entry["content"] = message.content
    return entry


def _reads_back_alone(plan: _Plan) -> bool:
    """Whether the narrative alone (no record) gives back *plan*'s message."""
    message = plan.message
    if plan.kept is not None:
        return plan.kept.entry is None
    if plan.encoding != "verbatim" or plan.expected != message.content:
        return False
    if plan.delimiter is None:
        return message.author == "context" and message.metadata == {}
    named = decode_author(plan.heading, plan.role)
    author = named if named is not None else plan.role
    metadata = {"role": plan.role} if named is not None else {}
    return message.author == author and message.metadata == metadata


def _record(plans: Sequence[_Plan], source: SourceNarrative | None) -> dict[str, Any] | None:
    """The transcript record, or None when a hand-written file needs none."""
    if source is not None and not source.recorded and all(map(_reads_back_alone, plans)):
        return None
    return {"version": TRANSCRIPT_LMML_VERSION, "messages": [_entry(plan) for plan in plans]}


def _manifest_data(record: dict[str, Any] | None, source: SourceNarrative | None) -> bytes | None:
    """The ``manifest.json`` bytes to write: the source's as they were when the record is
    unchanged, else its other keys with the new record."""
    from ..bundle.bundle import dump_manifest

    if source is None:
        return dump_manifest({MANIFEST_KEY: record})
    old = source.manifest
    if record is None or (old is not None and old.get(MANIFEST_KEY) == record):
        return source.manifest_bytes
    manifest = copy.deepcopy(old) if old is not None else {}
    manifest[MANIFEST_KEY] = record
    return dump_manifest(manifest)


def _inline_fence(name: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotInlinableError(
            "the asset is not UTF-8 text, so a .lmml fence cannot hold it",
            name=name,
            hint="save the transcript as .lmmlz",
        ) from None
    # One shape serves all: after a final newline "@@@" is a closing line; otherwise it
    # closes the fence at the end of the last content line.
    return f"@@@{name}\n{text}@@@\n"


def _fenced_in_content(narrative: Narrative, plans: Sequence[_Plan]) -> set[str]:
    """The names of the inline fences the written contents hold (not closing fences)."""
    turns, skip = _message_turns(narrative)
    owners = _fence_owners(narrative, turns, skip, [plan.attachments for plan in plans])
    return {embed.name for embeds in owners.values() for embed in embeds}


def _attach(narrative: Narrative, plans: Sequence[_Plan], names: Sequence[str]) -> list[str]:
    """Give each asset in *names* to the turn that first references it (its fence will
    close that turn, so the asset binds there); return the names no turn references.
    A kept turn keeps the closing fences it was read with."""
    turns, _ = _message_turns(narrative)
    left = list(names)
    for plan, turn in zip(plans, turns, strict=True):
        plan.attachments = plan.kept.attachments if plan.kept is not None else ()
        mine = [embed.name for embed in turn.embeds if embed.name in left and not embed.is_inline]
        if mine:
            plan.attachments = (*plan.attachments, *mine)
            left = [name for name in left if name not in mine]
    return left


def narrative_text(transcript: Transcript, *, pov: str | Pov | None = None) -> str:
    """The LMML narrative of *transcript*'s turns (no manifest, no asset fences)."""
    roles = _pov_roles(pov) if pov is not None else None
    assets = transcript.assets
    plans = _plans(transcript, roles, None, assets.__contains__)
    text, _ = _settle(plans, assets, _FRESH)
    return text


def _folder_probe(base_dir: str | None) -> _Resolves:
    """Whether a text bundle in *base_dir* resolves a name to a file there (the bundle's
    own rules: no absolute paths, no ``..``, no links leading outside)."""
    if base_dir is None:
        return lambda name: False
    from ..bundle.bundle import Bundle

    probe = Bundle.from_text("probe", "", base_dir=base_dir)
    return probe.has_asset


def _same_folder(first: str | None, second: str | None) -> bool:
    if first is None or second is None:
        return first is second
    return os.path.realpath(first) == os.path.realpath(second)


_SOURCE_FOLDER = object()


def transcript_to_bundle(
    transcript: Transcript,
    name: str | None = None,
    *,
    kind: Literal["zip", "text"] | None = None,
    pov: str | Pov | None = None,
    base_dir: object = _SOURCE_FOLDER,
) -> Bundle:
    """Write *transcript* as a bundle that :func:`transcript_from_bundle` reads back equal.

    A transcript read from a bundle of the same kind is written back as it was read:
    unedited messages keep their lines byte for byte (and the manifest, settings and other
    entries stay as they were); edited and new messages are rendered in the file's own
    delimiter style.

    :param name: the bundle name (``session``; a ``.lmml``/``.lmmlz`` suffix is stripped);
        defaults to the name of the bundle the transcript was read from.
    :param kind: ``"zip"`` (assets as entries) or ``"text"`` (assets as inline fences);
        defaults to the kind of that bundle, else ``"zip"``.
    :param pov: gives named authors without ``metadata["role"]`` their heading role.
    :param base_dir: (text) the folder the narrative will live in; references to files a
        text bundle read from that same folder stay references. Defaults to that folder.
    :raises TranscriptFormatError: for metadata JSON cannot hold losslessly.
    :raises NotInlinableError: (text) for an asset a fence cannot hold exactly.
    """
    from ..bundle.bundle import Bundle

    source: SourceNarrative | None = transcript._source
    if kind is None:
        kind = source.kind if source is not None else "zip"
    if kind not in ("zip", "text"):
        raise TranscriptError(f"kind must be 'zip' or 'text', not {kind!r}")
    if source is not None and source.kind != kind:
        source = None  # another kind: written afresh
    if name is None:
        name = source.name if source is not None else ""
    roles = _pov_roles(pov) if pov is not None else None
    assets = transcript.assets
    if kind == "zip":
        plans = _plans(transcript, roles, source, assets.__contains__)
        return _zip_bundle(name, plans, assets, source)
    folder = source.base_dir if source is not None else None
    if base_dir is not _SOURCE_FOLDER:
        target = os.fspath(base_dir) if isinstance(base_dir, (str, os.PathLike)) else None
        folder = folder if _same_folder(folder, target) else None
    in_folder = _folder_probe(folder)
    kept_files = frozenset(
        asset
        for asset in (source.folder if source is not None and folder is not None else ())
        if asset in assets and assets[asset] == source.assets.get(asset)  # type: ignore[union-attr]
    )

    def resolves(asset: str) -> bool:
        return asset in assets or in_folder(asset)

    plans = _plans(transcript, roles, source, resolves)
    text, narrative, fenced = _text_narrative(plans, assets, source, kept_files)
    bundle = Bundle.from_text(name, text, narrative=narrative, base_dir=folder)
    for asset, data in fenced.items():
        if not _resolves_to(bundle, asset, data):
            raise NotInlinableError(
                "a .lmml fence cannot hold this asset exactly (carriage returns, or a "
                "line before the last that is or ends with @@@)",
                name=asset,
                hint="save the transcript as .lmmlz",
            )
    return bundle


def _zip_bundle(
    name: str, plans: list[_Plan], assets: Mapping[str, bytes], source: SourceNarrative | None
) -> Bundle:
    from ..bundle.bundle import Bundle

    style = source.style if source is not None else _FRESH
    head = source.head if source is not None else ""
    text, narrative = _settle(plans, assets, style, head)
    manifest = _manifest_data(_record(plans, source), source)
    entries: dict[str, bytes] = {}
    if source is not None:
        if manifest is not None and MANIFEST_NAME not in source.entries:
            entries[MANIFEST_NAME] = manifest
        for entry in source.entries:
            if entry == MANIFEST_NAME:
                if manifest is not None:
                    entries[entry] = manifest
            elif entry in assets:
                entries[entry] = assets[entry]
        inline = _fenced_in_content(narrative, plans) | source.head_fences
    else:
        assert manifest is not None
        entries[MANIFEST_NAME] = manifest
        inline = _fenced_in_content(narrative, plans)
    entries.update((asset, data) for asset, data in assets.items() if asset not in inline)
    return Bundle.from_zip(name, text, entries, narrative=narrative)


def _text_head(
    source: SourceNarrative | None,
    manifest: bytes | None,
    orphans: Sequence[str],
    fences: Mapping[str, str],
) -> str:
    """The lines before the first turn: the manifest fence and the fences of assets no
    turn references (a source's own head kept, its manifest fence replaced in place)."""
    added = [fences[orphan] for orphan in orphans]
    if source is None:
        assert manifest is not None
        return _inline_fence(MANIFEST_NAME, manifest) + "".join(added) + "\n"
    lines = _raw_lines(source.head)
    if manifest is not None and manifest != source.manifest_bytes:
        fence = _inline_fence(MANIFEST_NAME, manifest).replace("\n", source.style.newline)
        if source.head_manifest is not None:
            start, end = source.head_manifest
            lines[start:end] = [fence]
        else:
            added.insert(0, fence)
    if not added:
        return "".join(lines)
    newline = source.style.newline
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    return "".join(lines) + "".join(added) + newline


def _text_narrative(
    plans: list[_Plan],
    assets: Mapping[str, bytes],
    source: SourceNarrative | None,
    kept_files: frozenset[str],
) -> tuple[str, Narrative, dict[str, bytes]]:
    """Write a text bundle's narrative: each asset no content or kept line holds goes in a
    fence closing the turn that first references it (or before the first turn), which
    takes a second pass when there are such assets. Returns the text, its parse and the
    assets written as fences (the manifest included)."""
    style = source.style if source is not None else _FRESH
    newline = style.newline
    fences: dict[str, str] = {}
    orphans = _guess_attachments(plans, assets, source, kept_files)
    guessed = [*orphans]
    for plan in plans:
        held = plan.kept.fences if plan.kept is not None else frozenset()
        guessed.extend(asset for asset in plan.attachments if asset not in held)
    for asset in guessed:
        fences[asset] = _inline_fence(asset, assets[asset]).replace("\n", newline)
    manifest: bytes | None = None

    def head() -> str:
        nonlocal manifest
        manifest = _manifest_data(_record(plans, source), source)
        return _text_head(source, manifest, orphans, fences)

    for _ in range(len(plans) + 3):
        text, narrative = _settle(plans, assets, style, head, fences)
        _check_fences(narrative, fences, assets, manifest)
        present = _fenced_in_content(narrative, plans)
        if source is not None:
            present |= source.head_fences
        for plan in plans:
            if plan.kept is not None:
                present |= plan.kept.fences
        outside = [asset for asset in assets if asset not in present | kept_files]
        for asset in outside:
            if asset not in fences:
                fences[asset] = _inline_fence(asset, assets[asset]).replace("\n", newline)
        before = [plan.attachments for plan in plans]
        left = _attach(narrative, plans, outside)
        if before == [plan.attachments for plan in plans] and left == orphans:
            written = {asset: assets[asset] for asset in outside}
            if manifest is not None and manifest != (source.manifest_bytes if source else None):
                written[MANIFEST_NAME] = manifest
            return text, narrative, written
        orphans = left
    raise TranscriptError(
        "the .lmml attachments changed how the narrative reads",
        hint="save the transcript as .lmmlz",
    )


def _guess_attachments(
    plans: Sequence[_Plan],
    assets: Mapping[str, bytes],
    source: SourceNarrative | None,
    kept_files: frozenset[str],
) -> list[str]:
    """Place each asset's fence before the narrative is parsed, by where ``@name`` first
    appears, so the first parse is usually the last; the parse then settles it. Returns
    the assets no content mentions (their fences go before the first turn)."""
    held = set(kept_files) | (source.head_fences if source is not None else set())
    for plan in plans:
        if plan.kept is not None:
            held |= plan.kept.fences
    left = [asset for asset in assets if asset not in held]
    for plan in plans:
        text = plan.kept.text if plan.kept is not None else plan.message.content
        left = [asset for asset in left if "@@@" + asset not in text]
        mine = tuple(asset for asset in left if "@" + asset in text)
        if mine:
            plan.attachments = (*plan.attachments, *mine)
            left = [asset for asset in left if asset not in mine]
    return left


def _check_fences(
    narrative: Narrative,
    fences: Mapping[str, str],
    assets: Mapping[str, bytes],
    manifest: bytes | None,
) -> None:
    """Refuse an asset whose fence does not give its bytes back exactly.

    :raises NotInlinableError: naming the asset.
    """
    from ..bundle.bundle import first_fences

    first = first_fences(narrative)
    wanted = {asset: assets[asset] for asset in fences}
    if manifest is not None:
        wanted[MANIFEST_NAME] = manifest
    for asset, data in wanted.items():
        fence = first.get(asset)
        if fence is not None and fence.content != data:
            raise NotInlinableError(
                "a .lmml fence cannot hold this asset exactly (carriage returns, or a "
                "line before the last that is or ends with @@@)",
                name=asset,
                hint="save the transcript as .lmmlz",
            )


def _resolves_to(bundle: Bundle, name: str, data: bytes) -> bool:
    try:
        return bundle.embed(name) == data
    except LmmlError:
        return False


# --- reading -------------------------------------------------------------------------------


def _record_entries(bundle: Bundle) -> list[dict[str, Any]] | None:
    manifest = bundle.manifest
    if not manifest or MANIFEST_KEY not in manifest:
        return None
    record = manifest[MANIFEST_KEY]

    def fail(message: str) -> TranscriptFormatError:
        return TranscriptFormatError(
            f"manifest.json {MANIFEST_KEY!r}: {message}",
            name=MANIFEST_NAME,
            hint="remove the record to read the narrative alone",
        )

    if not isinstance(record, dict):
        raise fail("is not an object")
    version = record.get("version")
    if version != TRANSCRIPT_LMML_VERSION:
        raise fail(f"version {version!r} is not supported (this lmml_mdit reads 1)")
    entries = record.get("messages")
    if not isinstance(entries, list):
        raise fail("has no messages list")
    for position, entry in enumerate(entries):
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("author"), str)
            and isinstance(entry.get("metadata"), dict)
            and isinstance(entry.get("sha256"), str)
            and (entry.get("heading") is None or isinstance(entry.get("heading"), str))
            and isinstance(entry.get("content", ""), str)
            and entry.get("encoding", "verbatim") in ENCODINGS
            and isinstance(entry.get("attachments", []), list)
            and all(isinstance(item, str) for item in entry.get("attachments", []))
        ):
            raise fail(f"message {position} is malformed")
    return entries


def _content(text: str, entry: Mapping[str, Any]) -> str:
    """A message's content from its turn text and record entry.

    The narrative is what is sent and shown, so it decides: the entry's exact content is
    taken only when the digest shows the turn unchanged and the content, written as the
    entry says, reads as this turn text (they may differ only in what a narrative cannot
    hold: blank edge lines, carriage returns, NUL, and the backslashes that keep an ``@``
    from being a reference); else the turn text is the content.
    """
    encoding = entry.get("encoding", "verbatim")
    decoded = _decode(text, encoding)
    stored = entry.get("content")
    if stored is None or entry["sha256"] != _digest(text) or stored == decoded:
        return decoded
    if encoding == "escaped":
        written = _escape(stored)
    elif encoding == "fenced":
        written = _fence(stored)
    else:
        written = stored
    return stored if _differs_by_at_escapes(as_turn_text(written), text) else decoded


def _differs_by_at_escapes(base: str, text: str) -> bool:
    """Whether *text* is *base* with backslashes inserted before some ``@`` signs only."""
    base_pieces, text_pieces = base.split("@"), text.split("@")
    if len(base_pieces) != len(text_pieces) or base_pieces[-1] != text_pieces[-1]:
        return False
    return all(
        written.startswith(piece) and not written[len(piece) :].strip("\\")
        for piece, written in zip(base_pieces[:-1], text_pieces[:-1], strict=True)
    )


def transcript_from_bundle(bundle: Bundle) -> Transcript:
    """Read *bundle*'s turns as messages, and its assets.

    The transcript remembers the narrative it was read from, so that
    :func:`transcript_to_bundle` writes unedited messages back as their own lines.

    :raises TranscriptFormatError: for a malformed transcript record in ``manifest.json``.
    :raises InvalidManifestError: when ``manifest.json`` is not a JSON object.
    """
    narrative = bundle.narrative
    entries = _record_entries(bundle)
    turns, skip = _message_turns(narrative)
    if entries is not None and len(entries) != len(turns):
        entries = None  # turns were added or removed by hand: positions no longer align
    embed_lines = [embed.line for embed in narrative.embeds]
    assets, folder = _assets(bundle)
    messages: list[Message] = []
    read: list[tuple[str | None, str, dict[str, Any] | None, tuple[str, ...]]] = []
    for position, turn in enumerate(turns):
        entry = entries[position] if entries is not None else None
        closing = tuple(entry.get("attachments", ())) if entry is not None else ()
        text = _turn_text(narrative, turn, skip, closing, embed_lines)
        named = decode_author(turn.heading, turn.role) if turn.role != "context" else None
        author = named if named is not None else turn.role
        metadata: dict[str, Any] = {"role": turn.role} if named is not None else {}
        content = text
        if entry is not None:
            metadata = copy.deepcopy(entry["metadata"])
            role = metadata.get("role")
            if turn.role != "context" and role in MESSAGE_ROLES and role != turn.role:
                metadata["role"] = turn.role  # the heading decides the role
            heading = entry["heading"]
            if heading == turn.heading and (heading is None) == (turn.role == "context"):
                author = entry["author"]
            content = _content(text, entry)
        messages.append(Message(author, content, metadata))
        read.append((turn.heading, text, entry, closing))
    transcript = Transcript(messages, assets=assets)
    transcript._source = _source(bundle, turns, skip, messages, read, assets, folder)
    return transcript


def _source(
    bundle: Bundle,
    turns: Sequence[Turn],
    skip: int,
    messages: Sequence[Message],
    read: Sequence[tuple[str | None, str, dict[str, Any] | None, tuple[str, ...]]],
    assets: dict[str, bytes],
    folder: frozenset[str],
) -> SourceNarrative | None:
    narrative = bundle.narrative
    raw = _raw_lines(narrative.text)
    if len(raw) != len(narrative.lines):
        return None  # the text and its lines disagree: write afresh
    starts = [
        max(turn.start_line - 1, skip) if turn.delimiter_line is None else turn.delimiter_line - 1
        for turn in turns
    ]
    ends = [*starts[1:], len(raw)] if starts else []
    origins: dict[int, _Origin] = {}
    embed_lines = [embed.line for embed in narrative.embeds]
    for message, turn, start, end, (heading, text, entry, closing) in zip(
        messages, turns, starts, ends, read, strict=True
    ):
        delimiter = None
        if turn.delimiter_line is not None:
            delimiter = "\n".join(narrative.lines[turn.delimiter_line - 1 : turn.start_line - 1])
        first = bisect.bisect_left(embed_lines, start + 1)
        last = bisect.bisect_right(embed_lines, end)
        fences = frozenset(e.name for e in narrative.embeds[first:last] if e.is_inline)
        origins[id(message)] = _Origin(
            author=message.author,
            content=message.content,
            metadata=copy.deepcopy(message.metadata),
            role=turn.role,
            heading=heading,
            delimiter=delimiter,
            raw="".join(raw[start:end]),
            text=text,
            fences=fences,
            attachments=closing,
            entry=copy.deepcopy(entry),
        )
    head_end = starts[0] if starts else len(raw)
    head_fences = frozenset(
        embed.name
        for embed in narrative.embeds[: bisect.bisect_right(embed_lines, head_end)]
        if embed.is_inline
    )
    manifest_bytes = None
    if MANIFEST_NAME in bundle.entries or MANIFEST_NAME in narrative.first_embeds:
        # The bytes bundle.manifest decodes: an inline fence wins over the entry.
        try:
            manifest_bytes = bundle.embed(MANIFEST_NAME)
        except (MissingEntryError, UnresolvableReferenceError):
            manifest_bytes = None  # referenced, never supplied: no record to keep
    return SourceNarrative(
        kind=bundle.kind,
        name=bundle.name,
        base_dir=bundle.base_dir,
        head="".join(raw[:head_end]),
        head_manifest=_fence_span(narrative, MANIFEST_NAME, 0, head_end),
        head_fences=head_fences,
        origins=origins,
        messages=tuple(messages),
        entries=bundle.entries,
        assets=dict(assets),
        folder=folder,
        manifest=copy.deepcopy(bundle.manifest),
        manifest_bytes=manifest_bytes,
        recorded=any(item[2] is not None for item in read),
        style=_style_of(narrative, raw),
    )


def _assets(bundle: Bundle) -> tuple[dict[str, bytes], frozenset[str]]:
    """The assets a bundle holds, and those of them a text bundle read from its folder."""
    from ..bundle.archive import unsafe_reason

    assets: dict[str, bytes] = {}
    for embed in bundle.narrative.embeds:
        name = embed.name
        fresh = embed.is_inline and name not in assets and name != MANIFEST_NAME
        if fresh and unsafe_reason(name) is None:
            # What a reference resolves to: the first inline fence of that name.
            assets[name] = bundle.embed(name)
    for name in bundle.entries:
        if name != MANIFEST_NAME and name not in assets:
            assets[name] = bundle.read(name)
    folder: set[str] = set()
    for embed in bundle.narrative.embeds:
        # A text bundle opened with base_dir= resolves references to files beside it; carry
        # those too. A reference nothing resolves stays plain text for the transcript.
        name = embed.name
        if name in assets or name == MANIFEST_NAME or unsafe_reason(name) is not None:
            continue
        try:
            assets[name] = bundle.embed(name)
        except LmmlError:
            continue
        folder.add(name)
    return assets, frozenset(folder)


# --- files ---------------------------------------------------------------------------------


def save_lmml(transcript: Transcript, path: str | os.PathLike[str]) -> None:
    """Save *transcript* as ``.lmmlz`` (zip) or ``.lmml`` (text), atomically.

    :raises TranscriptError: for a path with another extension.
    """
    target = os.fspath(path)
    if target.endswith(".lmmlz"):
        kind: Literal["zip", "text"] = "zip"
    elif target.endswith(".lmml"):
        kind = "text"
    else:
        raise TranscriptError("an LMML transcript file ends in .lmml or .lmmlz", name=target)
    stem = os.path.basename(target)
    folder = os.path.dirname(os.path.abspath(target))
    transcript_to_bundle(transcript, stem, kind=kind, base_dir=folder).save(target)


def load_lmml(
    path: str | os.PathLike[str], *, base_dir: str | os.PathLike[str] | Literal[False] | None = None
) -> Transcript:
    """Read a ``.lmml`` or ``.lmmlz`` file as a transcript.

    :param base_dir: the folder a ``.lmml``'s references resolve against: by default the
        file's own folder; ``False`` for none.
    """
    from ..bundle.bundle import open as open_bundle

    folder = os.path.dirname(os.path.abspath(path)) if base_dir is None else base_dir
    bundle = open_bundle(path, base_dir=folder)
    try:
        return transcript_from_bundle(bundle)
    finally:
        bundle.close()
