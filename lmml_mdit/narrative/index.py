"""The structure of a narrative's token stream, read in one walk: :class:`StructureIndex`.

Everything that needs to know where a block, a fence, a delimiter or an attachment line
lies (the messages' segments, packing and inlining, the transcript writer, the preview,
the Markdown export, the turn reader) reads it here, from
:attr:`Narrative.index <lmml_mdit.narrative.narrative.Narrative.index>`, instead of walking
the tokens again. The index is built on first use and kept with the narrative, so a parse
that nobody asks about costs nothing more.

Line numbers are 0-based and spans end-exclusive, as markdown-it's ``token.map``; columns
are 1-based, as :class:`~lmml_mdit.model.Embed`'s. A token position is an index into
``Narrative.tokens``; a turn position is an index into ``Narrative.turns``.

- **Blocks**: each top-level block (the opening token, or the single token, of level 0
  with a line map), in document order. Top-level blocks never overlap, so each line lies in
  at most one; :meth:`StructureIndex.block_at` finds it by bisection.
- **Fences**: each ``@@@name`` fence (``lmml_embed`` token) at any depth, in document order.
- **Delimiters**: each role delimiter (a role heading or ``<!-- role -->``), in order.
- **Attachment paragraphs**: each top-level paragraph made only of references and white
  space (``@photo.png``, ``@a.png @b.png``), with the names it holds.
- **References**: each ``@name`` occurrence (an external :class:`~lmml_mdit.model.Embed`,
  with its line and column), in document order.
"""

from __future__ import annotations

import array
import bisect
import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple, TypeVar, overload

from markdown_it.token import Token

from ..model import Embed, Role, Turn

__all__ = ["AttachmentParagraph", "Block", "Blocks", "Delimiter", "Fence", "StructureIndex"]


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


class Blocks(Sequence[Block]):
    """The top-level blocks of a narrative, in document order: a read-only sequence of
    :class:`Block` held as columns of machine integers (about 40 bytes a block, where one
    record object each costs about 200), each :class:`Block` made when it is read.

    Two are equal when they hold the same blocks.
    """

    __slots__ = ("_ends", "_kinds", "_tokens", "_turns", "starts")

    def __init__(self) -> None:
        #: the blocks' first lines, ascending (what :meth:`StructureIndex.block_at` bisects).
        self.starts = array.array("q")
        self._ends = array.array("q")
        self._tokens = array.array("q")
        self._turns = array.array("q")  # -1: in no turn
        self._kinds: list[str] = []

    def _append(self, kind: str, start: int, end: int, token: int, turn: int | None) -> None:
        self._kinds.append(kind)
        self.starts.append(start)
        self._ends.append(end)
        self._tokens.append(token)
        self._turns.append(-1 if turn is None else turn)

    def __len__(self) -> int:
        return len(self._kinds)

    def _block(self, index: int) -> Block:
        turn = self._turns[index]
        return Block(
            self._kinds[index],
            self.starts[index],
            self._ends[index],
            self._tokens[index],
            None if turn < 0 else turn,
        )

    @overload
    def __getitem__(self, index: int) -> Block: ...

    @overload
    def __getitem__(self, index: slice) -> list[Block]: ...

    def __getitem__(self, index: int | slice) -> Block | list[Block]:
        if isinstance(index, slice):
            return [self._block(at) for at in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._block(index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Blocks):
            return NotImplemented
        return (self._kinds, self.starts, self._ends, self._tokens, self._turns) == (
            other._kinds,
            other.starts,
            other._ends,
            other._tokens,
            other._turns,
        )

    __hash__ = None  # type: ignore[assignment]  # compared by value, so never hashed

    def __iter__(self) -> Iterator[Block]:
        for kind, start, end, token, turn in zip(
            self._kinds, self.starts, self._ends, self._tokens, self._turns, strict=True
        ):
            yield Block(kind, start, end, token, None if turn < 0 else turn)

    def __repr__(self) -> str:
        return f"Blocks({list(self)!r})"


@dataclass(frozen=True)
class StructureIndex:
    """Where a narrative's blocks, fences, delimiters, attachment paragraphs and references
    lie, read from its tokens in one walk (:meth:`from_tokens`).

    :ivar blocks: the top-level blocks, in document order (ascending, never overlapping).
    :ivar fences: every ``@@@name`` fence, at any depth, in document order.
    :ivar delimiters: the role delimiters, in document order; the *n*-th opens the *n*-th
        turn after the ``context`` turn, when there is one.
    :ivar attachments: the top-level paragraphs made only of references, in order.
    :ivar embeds: every embed, in document order (``Narrative.embeds``; :attr:`references`
        reads the references from it).
    """

    blocks: Blocks
    fences: tuple[Fence, ...]
    delimiters: tuple[Delimiter, ...]
    attachments: tuple[AttachmentParagraph, ...]
    embeds: Sequence[Embed] = field(repr=False)

    @classmethod
    def from_tokens(
        cls, tokens: Sequence[Token], turns: Sequence[Turn], embeds: Sequence[Embed]
    ) -> StructureIndex:
        """Read the index of a parse.

        :param tokens: the token stream (``Narrative.tokens``).
        :param turns: the turns segmented from it (``Narrative.turns``).
        :param embeds: its embeds in document order (``Narrative.embeds``).
        """
        blocks = Blocks()
        add_block = blocks._append
        kinds: dict[str, str] = {}  # token type -> kind: one string per kind, not per block
        fences: list[Fence] = []
        delimiters: list[Delimiter] = []
        attachments: list[AttachmentParagraph] = []
        # The turn opened by the n-th delimiter: every turn but a leading context turn.
        opened = 1 if turns and turns[0].delimiter_line is None else 0
        # Blocks come in line order, so one pass over the turns finds each block's turn:
        # the first turn not ending before the block holds it if it starts at or before it.
        turn_count = len(turns)
        next_turn = 0
        for position, token in enumerate(tokens):
            token_map = token.map
            if token_map is None:  # closing tokens (and table cells) carry no map
                continue
            if token.level != 0:
                if token.type == "lmml_embed":
                    fences.append(_fence(token, position))
                continue
            if token.nesting == -1:
                continue
            start, end = token_map
            while next_turn < turn_count and turns[next_turn].end_line <= start:
                next_turn += 1
            turn = (
                next_turn
                if next_turn < turn_count and turns[next_turn].start_line <= start + 1
                else None
            )
            kind = kinds.get(token.type)
            if kind is None:
                kind = kinds[token.type] = token.type.removesuffix("_open")
            add_block(kind, start, end, position, turn)
            if kind == "paragraph":
                names = (
                    _attachment_names(tokens[position + 1]) if position + 1 < len(tokens) else ()
                )
                if names:
                    attachments.append(AttachmentParagraph(start, end, names, turn))
            elif kind == "lmml_embed":
                fences.append(_fence(token, position))
            elif kind in ("heading", "lmml_role") and token.meta and "lmml_role" in token.meta:
                heading = kind == "heading"
                delimiters.append(
                    Delimiter(
                        role=token.meta["lmml_role"],
                        kind="heading" if heading else "comment",
                        heading=token.meta.get("lmml_heading") if heading else None,
                        start=start,
                        end=end,
                        token=position,
                        turn=opened + len(delimiters),
                    )
                )
        return cls(
            blocks=blocks,
            fences=tuple(fences),
            delimiters=tuple(delimiters),
            attachments=tuple(attachments),
            embeds=embeds,
        )

    @property
    def references(self) -> Iterator[Embed]:
        """Every ``@name`` reference (an external :class:`~lmml_mdit.model.Embed`, with its
        line and column), in document order (read from :attr:`embeds` as it is iterated,
        so the index holds no second list of them)."""
        return (embed for embed in self.embeds if not embed.is_inline)

    @functools.cached_property
    def _fence_starts(self) -> list[int]:
        return [fence.start for fence in self.fences]

    @functools.cached_property
    def _attachment_starts(self) -> list[int]:
        return [paragraph.start for paragraph in self.attachments]

    def block_at(self, line: int) -> Block | None:
        """The top-level block holding the 0-based *line*, or None (a blank line between
        blocks, a line past the end)."""
        found = bisect.bisect_right(self.blocks.starts, line) - 1
        if found >= 0:
            block = self.blocks[found]
            if block.end > line:
                return block
        return None

    def fences_in(self, start: int, end: int) -> Iterator[Fence]:
        """The fences whose opening line lies in the 0-based lines ``[start, end)``, in
        order (found by bisection, so visiting each turn's fences is linear overall)."""
        return _starting_in(self.fences, self._fence_starts, start, end)

    def attachments_in(self, start: int, end: int) -> Iterator[AttachmentParagraph]:
        """The attachment paragraphs whose first line lies in the 0-based lines
        ``[start, end)``, in order."""
        return _starting_in(self.attachments, self._attachment_starts, start, end)

    @functools.cached_property
    def first_fences(self) -> dict[str, Fence]:
        """The first fence of each name, in document order."""
        first: dict[str, Fence] = {}
        for fence in self.fences:
            first.setdefault(fence.name, fence)
        return first


_Spanned = TypeVar("_Spanned", Fence, AttachmentParagraph)


def _starting_in(
    items: Sequence[_Spanned], starts: Sequence[int], start: int, end: int
) -> Iterator[_Spanned]:
    """The *items* (in line order, *starts* their first lines) whose first line lies in
    ``[start, end)``: found by bisection, then read in order."""
    found = bisect.bisect_left(starts, start)
    while found < len(items) and items[found].start < end:
        yield items[found]
        found += 1


def _fence(token: Token, position: int) -> Fence:
    meta = token.meta
    assert token.map is not None, "fence tokens always carry a map"
    return Fence(
        name=meta["name"],
        start=token.map[0],
        end=token.map[1],
        column=meta["column"],
        content=token.content,
        closed=meta["closed"],
        level=token.level,
        token=position,
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
