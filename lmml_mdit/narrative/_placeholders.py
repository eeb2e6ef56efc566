"""Input placeholders: where ``{{ name }}`` and ``{{ name.field }}`` stand in a narrative.

Each placeholder is found in the one parse, in a linear scan, with its *context*
(``"text"``, ``"code"`` or ``"fence"``), and never changes the parse; values are put in
later, as text, by :mod:`lmml_mdit.chat`. Grammar and rules: docs/templates.md,
"Placeholders".
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from markdown_it.token import Token

from ..text import line_starts
from ._index import StructureIndex

__all__ = [
    "OPEN",
    "Parsed",
    "Placeholder",
    "PlaceholderContext",
    "PlaceholderEscape",
    "Placeholders",
    "find_placeholders",
    "placeholder_spans",
]

OPEN = "{{"
"""What opens a placeholder; ``\\{{`` writes it literally."""

_PLACEHOLDER = re.compile(
    r"\{\{[ \t]*([A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*)[ \t]*\}\}"
)
"""Matched at one position only (``Pattern.match(text, pos)``), never over a document."""

PlaceholderContext = Literal["text", "code", "fence"]


@dataclass(frozen=True, slots=True)
class Placeholder:
    """One ``{{ name }}`` or ``{{ name.field }}`` in the narrative.

    :ivar name: the input it names.
    :ivar fields: the keys after the name (``("id",)`` for ``{{ order.id }}``).
    :ivar line: the 1-based source line.
    :ivar column: the 1-based column of its ``{{``.
    :ivar end: the 1-based column just past its ``}}``.
    :ivar context: ``"text"``, ``"code"`` or ``"fence"`` (see the module).
    :ivar fence: the embed fence holding it, for the ``"fence"`` context.
    :ivar alone: whether it is all its line holds (white space aside): an image or file
        input written so attaches without leaving an empty line.
    :ivar top_level: whether its line is in a paragraph at the top level of the document
        (in no list, block quote or table): where a ``messages`` input may stand.
    """

    name: str
    fields: tuple[str, ...]
    line: int
    column: int
    end: int
    context: PlaceholderContext
    fence: str | None = None
    alone: bool = False
    top_level: bool = False

    @property
    def holds_turns(self) -> bool:
        """Whether it can stand for turns (a ``messages`` input): a bare name alone on its
        line, at the top level."""
        return self.alone and self.top_level and not self.fields

    @property
    def path(self) -> str:
        """``name.field`` as written, without braces or spaces."""
        return ".".join((self.name, *self.fields))


@dataclass(frozen=True, slots=True)
class PlaceholderEscape:
    """The backslash of a ``\\{{`` (which writes a literal ``{{``).

    :ivar line: its 1-based line.
    :ivar column: the 1-based column of the backslash.
    :ivar context: as for :class:`Placeholder`.
    :ivar name: the input of the placeholder it keeps literal (``\\{{ name }}``), or None.
    """

    line: int
    column: int
    context: PlaceholderContext
    name: str | None = None


@dataclass(frozen=True)
class Placeholders:
    """The placeholders and escapes of one narrative, in document order.

    :ivar found: every placeholder, whatever its context.
    :ivar escapes: every ``\\{{``.
    """

    found: tuple[Placeholder, ...] = ()
    escapes: tuple[PlaceholderEscape, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The distinct names used, in order of first use."""
        return tuple(dict.fromkeys(found.name for found in self.found))


def placeholder_spans(text: str) -> Iterator[tuple[int, int, str, tuple[str, ...], bool]]:
    """Each placeholder of a plain *text* (an embed fence's content): ``(start, end, name,
    fields, escaped)`` with *start*/*end* offsets of the braces (an escaped one's *start*
    is its backslash's). Linear in *text*."""
    at = text.find(OPEN)
    while at >= 0:
        escaped = _escaped(text, at, 0)
        match = _PLACEHOLDER.match(text, at)
        if match is not None:
            name, *fields = match.group(1).split(".")
            yield (at - 1 if escaped else at), match.end(), name, tuple(fields), escaped
            at = text.find(OPEN, match.end())
        else:
            at = text.find(OPEN, at + 1)


def _escaped(text: str, at: int, floor: int) -> bool:
    """Whether an odd run of backslashes stands right before *at* (not before *floor*)."""
    count = 0
    while at - count - 1 >= floor and text[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1


class Parsed(Protocol):
    """What the scan reads of a :class:`~lmml_mdit.narrative.Narrative`."""

    @property
    def source(self) -> str:
        """The normalized text the token maps refer to."""

    @property
    def lines(self) -> Sequence[str]:
        """*source* split into lines."""

    @property
    def parsed_tokens(self) -> Sequence[Token]:
        """The token stream as the parse left it (an ``inline`` token's children only where
        the parse needed them)."""

    def inline_children(self, position: int) -> list[Token]:
        """The children of the ``inline`` token at *position*, parsed now if need be."""

    @property
    def index(self) -> StructureIndex:
        """The structure index of the stream."""


class _Classifier:
    """What each line of a narrative is, for the placeholders on it: read from the tokens
    and the structure index once, when the narrative holds a ``{{`` at all."""

    def __init__(self, narrative: Parsed) -> None:
        # Block tokens only: the inline children of a block are read (and parsed, if the
        # parse left them for later) only for a block whose text holds a backtick and a
        # placeholder, the one kind whose code spans can matter.
        tokens = narrative.parsed_tokens
        index = narrative.index
        self.skipped: set[int] = set()  # lines of no turn
        self.code: set[int] = set()
        self.fence_of: dict[int, str] = {}
        self.body_start = 0
        if tokens and tokens[0].type == "front_matter" and tokens[0].map:
            self.body_start = tokens[0].map[1]
        for delimiter in index.delimiters:
            self.skipped.update(range(delimiter.start, delimiter.end))
        for fence in index.fences:
            last = fence.end - 1 if fence.closed else fence.end
            for line in range(fence.start + 1, last):
                self.fence_of[line] = fence.name
            self.skipped.add(fence.start)  # the @@@name line
            if fence.closed:
                self.skipped.add(fence.end - 1)
        # Inline blocks (paragraphs, headings, table rows) by first line: the code spans of
        # the ones whose inline tokens hold any are found when a placeholder needs them.
        self.inline_starts: list[int] = []
        self.inline_blocks: list[tuple[int, int, bool]] = []
        self.top_lines: set[int] = set()  # lines of top-level paragraphs
        for position, token in enumerate(tokens):
            if token.type in ("fence", "code_block") and token.map:
                self.code.update(range(*token.map))
            elif token.type == "inline" and token.map:
                start, end = token.map
                if token.level == 1 and tokens[position - 1].type == "paragraph_open":
                    self.top_lines.update(range(start, end))
                has_code = (
                    "`" in token.content
                    and OPEN in token.content
                    and _holds_code_span(narrative.inline_children(position))
                )
                if self.inline_blocks and self.inline_blocks[-1][0] == start:
                    previous = self.inline_blocks[-1]  # the cells of one table row
                    self.inline_blocks[-1] = (start, max(end, previous[1]), has_code or previous[2])
                    continue
                self.inline_starts.append(start)
                self.inline_blocks.append((start, end, has_code))
        self._spans: dict[int, list[tuple[int, int]]] = {}

    def code_spans(self, line: int, lines: Sequence[str]) -> tuple[int, list[tuple[int, int]]]:
        """The inline block holding *line*: its first line and its code spans as offsets
        into its lines joined by ``\\n`` (empty when it holds none)."""
        found = bisect.bisect_right(self.inline_starts, line) - 1
        if found < 0:
            return line, []
        start, end, has_code = self.inline_blocks[found]
        if line >= end or not has_code:
            return line, []
        spans = self._spans.get(start)
        if spans is None:
            spans = self._spans[start] = _code_spans("\n".join(lines[start:end]))
        return start, spans


def _holds_code_span(children: Sequence[Token]) -> bool:
    return any(child.type == "code_inline" for child in children)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` offsets of the code spans of *text* (CommonMark: a backtick run
    opens a span closed by the next run of the same length; outside a span a backslash
    escapes one backtick). Each run is looked up by its length, so the scan is linear."""
    runs: list[tuple[int, int]] = []
    at = text.find("`")
    while at >= 0:
        stop = at
        while stop < len(text) and text[stop] == "`":
            stop += 1
        runs.append((at, stop - at))
        at = text.find("`", stop)
    by_length: dict[int, list[int]] = {}
    for start, length in runs:
        by_length.setdefault(length, []).append(start)
    spans: list[tuple[int, int]] = []
    cursor = 0
    for start, length in runs:
        if start < cursor:
            continue  # inside the span before
        if _escaped(text, start, cursor):
            start, length = start + 1, length - 1
            if not length:
                continue
        starts = by_length.get(length, [])
        following = bisect.bisect_right(starts, start)
        if following < len(starts):
            close = starts[following]
            spans.append((start, close + length))
            cursor = close + length
    return spans


def find_placeholders(narrative: Parsed) -> Placeholders:
    """Every placeholder and ``\\{{`` of *narrative* (what
    :attr:`~lmml_mdit.narrative.Narrative.placeholders` keeps)."""
    source = narrative.source
    at = source.find(OPEN)
    if at < 0:
        return Placeholders()
    lines = narrative.lines
    starts = line_starts(source)
    kinds = _Classifier(narrative)
    found: list[Placeholder] = []
    escapes: list[PlaceholderEscape] = []
    while at >= 0:
        line = bisect.bisect_right(starts, at) - 1
        column = at - starts[line]
        match = _PLACEHOLDER.match(source, at)
        following = match.end() if match is not None else at + 1
        if line < kinds.body_start or line in kinds.skipped or line >= len(lines):
            at = source.find(OPEN, following)
            continue
        context: PlaceholderContext = "text"
        fence = kinds.fence_of.get(line)
        if fence is not None:
            context = "fence"
        elif line in kinds.code:
            context = "code"
        else:
            block, spans = kinds.code_spans(line, lines)
            if spans:
                offset = at - starts[block]
                place = bisect.bisect_right(spans, (offset, len(source))) - 1
                if place >= 0 and spans[place][0] <= offset < spans[place][1]:
                    context = "code"
        name: str | None = None
        fields: tuple[str, ...] = ()
        if match is not None:
            name, *rest = match.group(1).split(".")
            fields = tuple(rest)
        if _escaped(source, at, starts[line]):
            escapes.append(PlaceholderEscape(line + 1, column, context, name))
        elif name is not None and match is not None:
            end = match.end() - starts[line]
            text = lines[line]
            found.append(
                Placeholder(
                    name=name,
                    fields=fields,
                    line=line + 1,
                    column=column + 1,
                    end=end + 1,
                    context=context,
                    fence=fence,
                    alone=not text[:column].strip() and not text[end:].strip(),
                    top_level=line in kinds.top_lines,
                )
            )
        at = source.find(OPEN, following)
    return Placeholders(tuple(found), tuple(escapes))
