"""The structure of a narrative's token stream, read in one walk: :class:`StructureIndex`.

Where each top-level block, ``@@@`` fence, role delimiter, attachment paragraph and
reference lies, built on first use of
:attr:`Narrative.index <lmml_mdit.narrative.Narrative.index>` and kept, so every
reader of the structure uses it instead of walking the tokens again. See docs/narrative.md,
"The structure index".
"""

from __future__ import annotations

import array
import bisect
import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple, TypeVar, overload

from markdown_it.token import Token

from ..model import Embed, Role, Turn
from ..syntax import CONTENT_FENCE_INFO, SIGIL

__all__ = [
    "AttachmentParagraph",
    "Block",
    "ContentFence",
    "Delimiter",
    "Fence",
    "Records",
    "StructureIndex",
]


class Block(NamedTuple):
    """One top-level block.

    :ivar kind: the block's token type without ``_open``: ``paragraph``, ``heading``,
        ``blockquote``, ``bullet_list``, ``ordered_list``, ``table``, ``fence`` (a code
        fence), ``code_block``, ``html_block``, ``hr``, ``lmml_embed`` (an ``@@@`` fence),
        ``lmml_role`` (a comment delimiter), ``front_matter``, ...
    :ivar start: its first line (0-based).
    :ivar end: the line after its last (0-based, exclusive).
    :ivar token: the position of its first token in ``Narrative.tokens``.
    :ivar turn: the position in ``Narrative.turns`` of the turn whose region holds it; None
        for a block in no turn (a delimiter, a front matter block).
    """

    kind: str
    start: int
    end: int
    token: int
    turn: int | None


class Fence(NamedTuple):
    """One ``@@@name`` fence, at any depth.

    :ivar name: the fence's name.
    :ivar start: its opening line (0-based).
    :ivar end: the line after its closing ``@@@`` (0-based, exclusive); for an unclosed
        fence, the end of its container.
    :ivar column: the 1-based column of its ``@@@`` (what precedes it on the opening line is
        the container's prefix: indentation, a quote's ``>``, a list marker).
    :ivar content: its content, as text.
    :ivar closed: False for a fence that runs to the end of its container unclosed.
    :ivar level: its nesting depth: 0 at the top level, more inside a quote or a list.
    :ivar token: its token's position in ``Narrative.tokens``.
    """

    name: str
    start: int
    end: int
    column: int
    content: str
    closed: bool
    level: int
    token: int


class Delimiter(NamedTuple):
    """One role delimiter: a role heading (ATX or setext) or a ``<!-- role -->`` comment.

    :ivar role: the role it names.
    :ivar kind: ``"heading"`` or ``"comment"``.
    :ivar heading: a heading's text (``Turn 1 -- user``); None for a comment.
    :ivar start: its first line (0-based).
    :ivar end: the line after its last (0-based, exclusive): the turn it opens starts there.
    :ivar token: its token's position in ``Narrative.tokens`` (``heading_open`` or
        ``lmml_role``); a heading's text is the ``inline`` token after it, and its
        ``heading_close`` the one after that.
    :ivar turn: the position in ``Narrative.turns`` of the turn it opens.
    """

    role: Role
    kind: Literal["heading", "comment"]
    heading: str | None
    start: int
    end: int
    token: int
    turn: int


class AttachmentParagraph(NamedTuple):
    """A top-level paragraph made only of references and white space (an attachment line
    such as ``@photo.png``, or several references on one or more lines).

    :ivar start: its first line (0-based).
    :ivar end: the line after its last (0-based, exclusive).
    :ivar names: the names it references, in order (a name may repeat).
    :ivar turn: the position in ``Narrative.turns`` of the turn holding it, or None.
    """

    start: int
    end: int
    names: tuple[str, ...]
    turn: int | None


class ContentFence(NamedTuple):
    """A top-level code fence of :data:`~lmml_mdit.syntax.CONTENT_FENCE_INFO`: a turn's
    text as it is, sent without the fence's own lines.

    :ivar start: its opening line (0-based).
    :ivar end: the line after its last (0-based, exclusive): after its closing line, or
        where it runs out when it is not closed.
    """

    start: int
    end: int

    def wrappers(self, lines: Sequence[str]) -> tuple[int, ...]:
        """The fence's own lines, which leave the text sent: its opening line, and its
        closing line when it has one (a fence may run out where the document ends)."""
        if self.end - 1 <= self.start:
            return (self.start,)
        opening = lines[self.start].lstrip(" ")
        char = opening[:1]
        marker = len(opening) - len(opening.lstrip(char))
        closing = lines[self.end - 1].strip()
        closes = len(closing) >= marker and closing == char * len(closing)
        return (self.start, self.end - 1) if closes else (self.start,)


_Record = TypeVar("_Record", Block, Fence, Delimiter)

_INTEGER_FIELDS = frozenset({"start", "end", "column", "level", "token", "turn"})
"""The record fields held in arrays of machine integers (``turn`` may be None)."""

_NO_TURN = -1
"""How an integer column holds a ``turn`` of None."""


class Records(Sequence[_Record]):
    """A read-only sequence of records of one kind (:class:`Block`, :class:`Fence`,
    :class:`Delimiter`), held as columns: the integer fields in arrays of machine integers,
    the others in lists. A narrative has a block per paragraph and a delimiter per turn, and
    a record object each, with its integers, costs about 200 bytes where the columns take
    8 bytes a field; each record is made when it is read.

    Two are equal when they hold the same records.
    """

    __slots__ = ("_appends", "_columns", "_record", "_turn")

    def __init__(self, record: type[_Record]) -> None:
        self._record: type[_Record] = record
        self._columns: tuple[array.array[int] | list[object], ...] = tuple(
            array.array("q") if name in _INTEGER_FIELDS else [] for name in record._fields
        )
        # The column of an optional turn, which holds _NO_TURN for None.
        self._turn = record._fields.index("turn") if "turn" in record._fields else None
        self._appends: tuple[Callable[[Any], None], ...] = tuple(
            column.append for column in self._columns
        )

    def _appenders(self) -> tuple[Callable[[Any], None], ...]:
        """The ``append`` of each column, in field order: a record is added by passing each
        field to its column's (an integer column takes :data:`_NO_TURN` for None)."""
        return self._appends

    def _append(self, *values: object) -> None:
        for append, value in zip(self._appends, values, strict=True):
            append(value)

    def starts(self) -> Sequence[int]:
        """Each record's ``start`` field, in order (what a bisection searches)."""
        column = self._columns[self._record._fields.index("start")]
        assert isinstance(column, array.array)
        return column

    def __len__(self) -> int:
        return len(self._columns[0])

    def _read(self, index: int) -> _Record:
        values = [column[index] for column in self._columns]
        if self._turn is not None and values[self._turn] == _NO_TURN:
            values[self._turn] = None
        return self._record._make(values)

    @overload
    def __getitem__(self, index: int) -> _Record: ...

    @overload
    def __getitem__(self, index: slice) -> list[_Record]: ...

    def __getitem__(self, index: int | slice) -> _Record | list[_Record]:
        # A range of the positions resolves a negative index and a slice, and raises
        # IndexError out of range, as a list would.
        positions = range(len(self))[index]
        if isinstance(positions, range):
            return [self._read(at) for at in positions]
        return self._read(positions)

    def __iter__(self) -> Iterator[_Record]:
        return (self._read(at) for at in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Records):
            return NotImplemented
        return (self._record, self._columns) == (other._record, other._columns)

    __hash__ = None  # type: ignore[assignment]  # compared by value, so never hashed

    def __repr__(self) -> str:
        return f"Records({list(self)!r})"


@dataclass(frozen=True)
class StructureIndex:
    """Where a narrative's blocks, fences, delimiters, attachment paragraphs and references
    lie, read from its tokens in one walk (:meth:`from_tokens`).

    :ivar blocks: the top-level blocks, in document order (ascending, never overlapping).
    :ivar fences: every ``@@@name`` fence, at any depth, in document order.
    :ivar delimiters: the role delimiters, in document order; the *n*-th opens the *n*-th
        turn after the ``context`` turn, when there is one.
    :ivar attachments: the top-level paragraphs made only of references, in order.
    :ivar content_fences: the top-level ``lmml-content`` code fences, in order.
    :ivar embeds: every embed, in document order (``Narrative.embeds``; :attr:`references`
        reads the references from it).
    """

    blocks: Records[Block]
    fences: Records[Fence]
    delimiters: Records[Delimiter]
    attachments: tuple[AttachmentParagraph, ...]
    embeds: Sequence[Embed] = field(repr=False)
    content_fences: tuple[ContentFence, ...] = ()

    @classmethod
    def from_tokens(
        cls,
        tokens: Sequence[Token],
        turns: Sequence[Turn],
        embeds: Sequence[Embed],
        *,
        attachment_names: Callable[[int], tuple[str, ...] | None] | None = None,
    ) -> StructureIndex:
        """Read the index of a parse.

        :param tokens: the token stream (``Narrative.tokens``, or the stream as the parse
            left it, ``Narrative.parsed_tokens``).
        :param turns: the turns segmented from it (``Narrative.turns``).
        :param embeds: its embeds in document order (``Narrative.embeds``).
        :param attachment_names: for the position of an ``inline`` token whose children
            are still to be parsed, the reference names of an attachment paragraph (or ()
            for any other paragraph); None where the children tell
            (:meth:`~lmml_mdit.syntax.DeferredInlines.attachment_names`).
        """
        blocks = Records(Block)
        add_kind, add_start, add_end, add_token, add_turn = blocks._appenders()
        kinds: dict[str, str] = {}  # token type -> kind: one string per kind, not per block
        fences = Records(Fence)
        delimiters = Records(Delimiter)
        attachments: list[AttachmentParagraph] = []
        content_fences: list[ContentFence] = []
        # The turn opened by the n-th delimiter: every turn but a leading context turn.
        opened = 1 if turns and turns[0].delimiter_line is None else 0
        # Blocks come in line order, so one pass over the turns finds each block's turn:
        # the first turn not ending before the block holds it if it starts at or before it.
        turn_count = len(turns)
        next_turn = 0
        for position, token in enumerate(tokens):
            if token.level:  # most tokens: only a fence is read below the top level
                if token.type == "lmml_embed" and token.map is not None:
                    _add_fence(fences, token, position)
                continue
            token_map = token.map
            if token_map is None or token.nesting == -1:  # closing tokens carry no map
                continue
            start, end = token_map
            while next_turn < turn_count and turns[next_turn].end_line <= start:
                next_turn += 1
            held = next_turn < turn_count and turns[next_turn].start_line <= start + 1
            turn = next_turn if held else None
            kind = kinds.get(token.type)
            if kind is None:
                kind = kinds[token.type] = token.type.removesuffix("_open")
            add_kind(kind)
            add_start(start)
            add_end(end)
            add_token(position)
            add_turn(next_turn if held else _NO_TURN)
            if kind == "paragraph":
                inline = tokens[position + 1] if position + 1 < len(tokens) else None
                names = None
                # Only a paragraph with an "@" and no children yet can be a recorded one:
                # the others are told apart without asking.
                if (
                    attachment_names is not None
                    and inline is not None
                    and not inline.children
                    and SIGIL in inline.content
                ):
                    names = attachment_names(position + 1)
                if names is None:
                    names = _attachment_names(inline) if inline is not None else ()
                if names:
                    attachments.append(AttachmentParagraph(start, end, names, turn))
            elif kind == "lmml_embed":
                _add_fence(fences, token, position)
            elif kind == "fence" and token.info.strip() == CONTENT_FENCE_INFO:
                content_fences.append(ContentFence(start, end))
            elif kind in ("heading", "lmml_role") and token.meta and "lmml_role" in token.meta:
                heading = kind == "heading"
                delimiters._append(
                    token.meta["lmml_role"],
                    "heading" if heading else "comment",
                    token.meta.get("lmml_heading") if heading else None,
                    start,
                    end,
                    position,
                    opened + len(delimiters),
                )
        return cls(
            blocks=blocks,
            fences=fences,
            delimiters=delimiters,
            attachments=tuple(attachments),
            embeds=embeds,
            content_fences=tuple(content_fences),
        )

    @property
    def references(self) -> Iterator[Embed]:
        """Every ``@name`` reference (an external :class:`~lmml_mdit.model.Embed`, with its
        line and column), in document order (read from :attr:`embeds` as it is iterated,
        so the index holds no second list of them)."""
        return (embed for embed in self.embeds if not embed.is_inline)

    @functools.cached_property
    def _attachment_starts(self) -> list[int]:
        return [paragraph.start for paragraph in self.attachments]

    def block_at(self, line: int) -> Block | None:
        """The top-level block holding the 0-based *line*, or None (a blank line between
        blocks, a line past the end)."""
        found = bisect.bisect_right(self.blocks.starts(), line) - 1
        if found >= 0:
            block = self.blocks[found]
            if block.end > line:
                return block
        return None

    def fences_in(self, start: int, end: int) -> Iterator[Fence]:
        """The fences whose opening line lies in the 0-based lines ``[start, end)``, in
        order (found by bisection, so visiting each turn's fences is linear overall)."""
        return _starting_in(self.fences, self.fences.starts(), start, end)

    def attachments_in(self, start: int, end: int) -> Iterator[AttachmentParagraph]:
        """The attachment paragraphs whose first line lies in the 0-based lines
        ``[start, end)``, in order."""
        return _starting_in(self.attachments, self._attachment_starts, start, end)

    def content_fences_in(self, start: int, end: int) -> Iterator[ContentFence]:
        """The ``lmml-content`` code fences whose opening line lies in the 0-based lines
        ``[start, end)``, in order."""
        return _starting_in(self.content_fences, self._content_fence_starts, start, end)

    @functools.cached_property
    def _content_fence_starts(self) -> list[int]:
        return [fence.start for fence in self.content_fences]

    @functools.cached_property
    def first_fences(self) -> dict[str, Fence]:
        """The first fence of each name, in document order."""
        first: dict[str, Fence] = {}
        for fence in self.fences:
            first.setdefault(fence.name, fence)
        return first


_Spanned = TypeVar("_Spanned", Fence, AttachmentParagraph, ContentFence)


def _starting_in(
    items: Sequence[_Spanned], starts: Sequence[int], start: int, end: int
) -> Iterator[_Spanned]:
    """The *items* (in line order, *starts* their first lines) whose first line lies in
    ``[start, end)``: found by bisection, then read in order."""
    found = bisect.bisect_left(starts, start)
    while found < len(items) and items[found].start < end:
        yield items[found]
        found += 1


def _add_fence(fences: Records[Fence], token: Token, position: int) -> None:
    meta = token.meta
    assert token.map is not None, "fence tokens always carry a map"
    fences._append(
        meta["name"],
        token.map[0],
        token.map[1],
        meta["column"],
        token.content,
        meta["closed"],
        token.level,
        position,
    )


def _attachment_names(inline: Token) -> tuple[str, ...]:
    """The reference names of a paragraph's ``inline`` token made only of references (and
    white space), or ()."""
    if inline.type != "inline" or not inline.meta or not inline.meta.get("lmml_refs"):
        return ()
    names: list[str] = []
    for child in inline.children or ():
        if child.type == "lmml_ref":
            names.append(child.content)
        elif child.type == "softbreak" or (child.type == "text" and not child.content.strip()):
            continue
        else:
            return ()
    return tuple(names)
