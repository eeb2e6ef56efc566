"""Inline tokens parsed on demand: :class:`DeferredInlines`.

With ``env["lmml_inline_on_demand"]`` set (:data:`INLINE_ON_DEMAND_KEY`; :func:`lmml_mdit.
parse` sets it), the ``inline`` tokens that cannot hold LMML, and those parsed with
recording rules (:class:`CollectedInlines`), wait here and are parsed later into exactly
the children a full parse gives them. :func:`rules_after_inline` tells whether a parser
allows it. See docs/performance.md, "Parse only what can change the answer".
"""

from __future__ import annotations

import array
import bisect
import threading
from collections.abc import Callable, Container, Iterator, Sequence

from markdown_it import MarkdownIt
from markdown_it.rules_core import linkify, replace, smartquotes, text_join
from markdown_it.rules_core.state_core import StateCore
from markdown_it.rules_inline import text as text_rule
from markdown_it.token import Token
from markdown_it.utils import EnvType

from ..model import Embed
from ._compat import terminator_pattern
from ._keys import (
    INLINE_PARENT_KEY,
    KNOWN_SCRATCH_KEY,
    NEW_REFS_KEY,
    OPENER_KEY,
    SCRATCH_KEYS,
    UNDERLINE_KEY,
)
from ._reference import SIGIL, match_reference_name

__all__ = [
    "COLLECTED_KEY",
    "DEFERRED_KEY",
    "INLINE_ON_DEMAND_KEY",
    "CollectedInlines",
    "DeferredInlines",
    "plain_line_spans",
    "records_in_place",
    "rules_after_inline",
]

INLINE_ON_DEMAND_KEY = "lmml_inline_on_demand"
"""An ``env`` key: when true, the core pass leaves for later the ``inline`` tokens that
cannot hold LMML (when the parser allows it, see :func:`rules_after_inline`)."""

DEFERRED_KEY = "lmml_deferred_inlines"
"""An ``env`` key the core pass sets when it left tokens for later: their positions in the
token stream, ascending (an ``array`` of integers)."""

COLLECTED_KEY = "lmml_collected_inlines"
"""An ``env`` key the core pass sets when it parsed tokens with recording rules: a
:class:`CollectedInlines`."""

CoreRule = Callable[[StateCore], None]

_PER_BLOCK_CORE_RULES: frozenset[CoreRule] = frozenset({linkify, replace, smartquotes, text_join})
"""markdown-it's core rules after ``inline``: each reads and rewrites one ``inline`` token's
children at a time, whatever the other tokens hold."""

_OWN_MODULES = ("markdown_it.", "lmml_mdit.")
"""Where the inline rules come from whose results depend only on the content they parse."""


def _own(function: object) -> bool:
    module = getattr(function, "__module__", None) or ""
    return module.startswith(_OWN_MODULES)


def rules_after_inline(md: MarkdownIt) -> tuple[CoreRule, ...] | None:
    """The enabled core rules that run after ``inline`` on *md*, when each ``inline`` token
    may be parsed apart from the others (every inline rule is markdown-it's or the
    plugin's, and each core rule after ``inline`` is one of markdown-it's per-block rules);
    None otherwise.
    """
    inline_rules = [*md.inline.ruler.getRules(""), *md.inline.ruler2.getRules("")]
    if not all(_own(rule) for rule in inline_rules):
        return None
    rules = md.core.ruler.__rules__
    names = [rule.name for rule in rules]
    if "inline" not in names:
        return None
    after = tuple(rule.fn for rule in rules[names.index("inline") + 1 :] if rule.enabled)
    if not all(rule in _PER_BLOCK_CORE_RULES for rule in after):
        return None
    return after


def records_in_place(md: MarkdownIt) -> bool:
    """Whether the plugin's rules may record the references and escapes they find instead
    of making tokens for them (the fast parse, see :mod:`.collect`), leaving a reference's
    text to the text around it: true unless a rule reads that text back. Of markdown-it's
    rules only ``linkify`` does (it reads the scheme of a URL from the text before it),
    and only when the parser's ``linkify`` option is on.
    """
    return not (md.options.get("linkify") and "linkify" in md.inline.ruler.get_active_rules())


class CollectedInlines:
    """The ``inline`` tokens of a fast parse that hold references or LMML escapes: parsed
    up front with the rules recording what they found, then left without children until a
    reader asks (:class:`DeferredInlines` parses them again, in full).

    For each, the index of its first reference in the parse's embeds (the references of a
    token follow each other there, as a full parse finds them), and whether it holds only
    references and white space; for the few with escapes, the index of the first in the
    parse's escapes; for those whose recording parse gave plain lines of text, the offsets
    of their references, from which their complete children are built without a second
    parse. Seventeen bytes a token, sixteen more for a plain one and eight for each of its
    references.

    :param known: the names the parse's references could have without an extension.
    """

    __slots__ = (
        "embed_starts",
        "escape_positions",
        "escape_starts",
        "known",
        "only_references",
        "plain_offsets",
        "plain_positions",
        "plain_starts",
        "positions",
    )

    def __init__(self, known: Container[str]) -> None:
        self.known = known
        self.positions = array.array("q")
        self.embed_starts = array.array("q")
        self.only_references = bytearray()
        self.escape_positions = array.array("q")
        self.escape_starts = array.array("q")
        self.plain_positions = array.array("q")
        self.plain_starts = array.array("q")
        self.plain_offsets = array.array("q")

    def add(
        self,
        position: int,
        first_reference: int,
        first_escape: int | None = None,
        only_references: bool = False,
        plain_offsets: Sequence[int] | None = None,
    ) -> None:
        """Add the token at *position* (after every earlier one).

        :param first_reference: how many references came before its own.
        :param first_escape: how many escapes came before its own, if it holds any.
        :param only_references: whether it holds references and nothing else.
        :param plain_offsets: for a token whose recording parse gave plain lines of text
            (see :func:`.collect._plain_lines`), the offsets of its references in its
            content: it is rebuilt from them, not parsed again.
        """
        if plain_offsets is not None:
            self.plain_positions.append(position)
            self.plain_starts.append(len(self.plain_offsets))
            self.plain_offsets.extend(plain_offsets)
        self.positions.append(position)
        self.embed_starts.append(first_reference)
        self.only_references.append(only_references)
        if first_escape is not None:
            self.escape_positions.append(position)
            self.escape_starts.append(first_escape)

    def count_fences(self, embeds: Sequence[Embed]) -> None:
        """Turn the reference counts of :meth:`add` into indexes in *embeds*, the parse's
        embeds in document order with the fences among the references."""
        starts = self.embed_starts
        at = 0
        references = 0
        for index, embed in enumerate(embeds):
            if embed.is_inline:
                continue
            while at < len(starts) and starts[at] == references:
                starts[at] = index
                at += 1
            references += 1
        while at < len(starts):  # tokens after the last reference hold escapes only
            starts[at] = len(embeds)
            at += 1

    def find(self, position: int) -> int | None:
        """The index of the token at *position* among these, or None."""
        return _index_of(self.positions, position)

    def first_escape(self, position: int) -> int:
        """The index in the parse's escapes of the first escape of the token at
        *position* (one that holds escapes)."""
        index = _index_of(self.escape_positions, position)
        return 0 if index is None else self.escape_starts[index]

    def plain_references(self, position: int) -> Sequence[int] | None:
        """The offsets of the references of the token at *position*, if it is plain lines
        of text (see :meth:`add`), else None."""
        index = _index_of(self.plain_positions, position)
        if index is None:
            return None
        start = self.plain_starts[index]
        after = (
            self.plain_starts[index + 1]
            if index + 1 < len(self.plain_starts)
            else len(self.plain_offsets)
        )
        return self.plain_offsets[start:after]

    def reference_names(self, index: int, embeds: Sequence[Embed]) -> Iterator[str]:
        """The names of the references of the *index*-th token, read from *embeds*."""
        start = self.embed_starts[index]
        after = self.embed_starts[index + 1] if index + 1 < len(self.positions) else len(embeds)
        # Only fences stand between one token's references and the next token's.
        return (embed.name for embed in embeds[start:after] if not embed.is_inline)


def _index_of(ascending: Sequence[int], value: int) -> int | None:
    found = bisect.bisect_left(ascending, value)
    if found < len(ascending) and ascending[found] == value:
        return found
    return None


class DeferredInlines:
    """The ``inline`` tokens a parse left for later, parsed on demand.

    :param md: the parser of the parse.
    :param env: its ``env`` (link reference definitions, other plugins' state), kept for
        the inline parses to come.
    :param tokens: its token stream.
    :param positions: the positions in *tokens* of the ``inline`` tokens left for later,
        ascending (``env["lmml_deferred_inlines"]``).
    :param collected: the tokens parsed with recording rules (``env["lmml_collected_inlines"]``),
        also left for later.
    :param embeds: the parse's embeds, in document order (where *collected* points).
    :param escapes: the parse's escape positions, in document order (likewise).
    """

    __slots__ = (
        "_collected",
        "_done",
        "_embeds",
        "_env",
        "_escapes",
        "_lock",
        "_md",
        "_positions",
        "_rules",
        "_tokens",
    )

    def __init__(
        self,
        md: MarkdownIt,
        env: EnvType,
        tokens: list[Token],
        positions: Sequence[int],
        collected: CollectedInlines | None = None,
        embeds: Sequence[Embed] = (),
        escapes: Sequence[tuple[int, int]] = (),
    ) -> None:
        rules = rules_after_inline(md)
        if rules is None:
            raise ValueError("this parser's inline tokens cannot be parsed one at a time")
        self._md: MarkdownIt | None = md
        self._env = env
        self._tokens = tokens
        self._positions = array.array("q", positions)
        self._collected = collected if collected is not None and collected.positions else None
        self._embeds = embeds
        self._escapes = escapes
        self._done: set[int] = set()
        self._rules = rules
        self._lock = threading.Lock()

    @property
    def pending(self) -> bool:
        """Whether some token is still unparsed."""
        return self._md is not None

    def _is_pending(self, position: int) -> bool:
        if self._md is None or position in self._done:
            return False
        if _index_of(self._positions, position) is not None:
            return True
        return self._collected is not None and self._collected.find(position) is not None

    def attachment_names(self, position: int) -> tuple[str, ...] | None:
        """For an ``inline`` token parsed with recording rules and not yet again: the names
        of its references if it holds nothing but references and white space, else ();
        None for any other token (its children tell).
        """
        with self._lock:
            collected = self._collected
            if collected is None or not self._is_pending(position):
                return None
            index = collected.find(position)
            if index is None:
                return None
            if not collected.only_references[index]:
                return ()
            return tuple(collected.reference_names(index, self._embeds))

    def parse(self, position: int) -> None:
        """Parse the token at *position* if it was left for later (else do nothing)."""
        with self._lock:
            if self._is_pending(position):
                self._parse([position])
                self._done.add(position)

    def complete(self) -> None:
        """Parse every token still left, so the stream is the one a full parse gives."""
        with self._lock:
            if self._md is None:
                return
            done = self._done
            left: list[int] = self._positions.tolist()
            if self._collected is not None:
                # Two ascending runs: sorting them is one merge, done in C.
                left.extend(self._collected.positions)
                left.sort()
            self._parse([at for at in left if at not in done] if done else left)
            self._md = None  # nothing left: let go of the parser, env and positions
            self._env = {}
            self._positions = array.array("q")
            self._done = set()
            self._collected = None
            self._embeds = ()
            self._escapes = ()

    def _parse(self, positions: list[int]) -> None:
        """Parse the tokens at *positions* (ascending)."""
        md = self._md
        assert md is not None
        env = self._env
        tokens = self._tokens
        collected = self._collected
        # The recorded tokens among them, met in order: one step each, no search.
        recorded: Sequence[int] = () if collected is None else collected.positions
        next_recorded = bisect.bisect_left(recorded, positions[0]) if positions else 0
        parse_inline = md.inline.parse
        # A content without any character an inline rule starts at is one text token: the
        # text rule (markdown-it's first) takes all of it, and no other rule runs.
        rules = md.inline.ruler.getRules("")
        terminator = terminator_pattern(md) if rules and rules[0] is text_rule else None
        inlines: list[Token] = []
        for position in positions:
            token = tokens[position]
            inlines.append(token)
            while next_recorded < len(recorded) and recorded[next_recorded] < position:
                next_recorded += 1
            if next_recorded < len(recorded) and recorded[next_recorded] == position:
                assert collected is not None
                self._parse_collected(token, position, collected, next_recorded)
                continue
            content = token.content
            if terminator is not None and content and terminator.search(content) is None:
                token.children = [Token("text", "", 0, content=content)]
                continue
            token.children = []
            parse_inline(content, md, env, token.children)
        # The core rules after "inline", run on these tokens alone: each reads one inline
        # token at a time, so this is what the full parse's run gave them.
        state = StateCore("", md, env, inlines)
        for rule in self._rules:
            rule(state)

    def _parse_collected(
        self, token: Token, position: int, collected: CollectedInlines, index: int
    ) -> None:
        """Parse a token the fast parse read with recording rules, as the full parse does
        (or rebuild it, when it was plain lines of text): its reference and escape tokens
        get the positions the fast parse found for them."""
        offsets = collected.plain_references(position)
        if offsets is not None:
            token.children = _plain_children(token.content, offsets)
            refs = [child for child in token.children if child.type == "lmml_ref"]
        else:
            refs = self._parse_with_tokens(token, position, collected)
        embeds = self._embeds
        next_embed = collected.embed_starts[index]
        next_escape = -1  # read when the first escape comes
        references: list[Token] = []
        line_map: list[int] = []
        for ref in refs:
            if ref.type == "lmml_ref":
                while embeds[next_embed].is_inline:  # never between a token's references
                    next_embed += 1
                embed = embeds[next_embed]
                next_embed += 1
                line, column = embed.line, embed.column
                references.append(ref)
            else:
                if next_escape < 0:
                    next_escape = collected.first_escape(position)
                line, column = self._escapes[next_escape]
                next_escape += 1
            ref.meta["line"] = line
            ref.meta["column"] = column
            if not line_map or line_map[1] != line:
                line_map = [line - 1, line]
            ref.map = line_map
        if references:
            token.meta["lmml_refs"] = references

    def _parse_with_tokens(
        self, token: Token, position: int, collected: CollectedInlines
    ) -> list[Token]:
        """Parse *token* as the core pass of a full parse does, with the plugin's rules
        making their tokens; return those tokens (references and escapes), in order."""
        md = self._md
        assert md is not None
        env = self._env
        refs: list[Token] = []
        env[INLINE_PARENT_KEY] = token
        env[OPENER_KEY] = self._tokens[position - 1] if position else None
        env[KNOWN_SCRATCH_KEY] = collected.known
        env[NEW_REFS_KEY] = refs
        env.pop(UNDERLINE_KEY, None)
        try:
            token.children = []
            md.inline.parse(token.content, md, env, token.children)
        finally:
            for key in SCRATCH_KEYS:
                env.pop(key, None)
        return refs


def _plain_children(content: str, offsets: Sequence[int]) -> list[Token]:
    """The children a full parse gives a *content* whose recording parse gave plain lines
    of text (see :func:`.collect._plain_lines`), its references at *offsets*: each line as
    the ``newline`` rule leaves it, cut at the references, with a ``softbreak`` between
    lines. A reference's ``meta`` gets its name and offset here, its position later."""
    children: list[Token] = []
    at = 0
    count = len(offsets)
    for start, end, last in plain_line_spans(content):
        while at < count and offsets[at] < end:
            offset = offsets[at]
            at += 1
            if offset > start:
                children.append(Token("text", "", 0, content=content[start:offset]))
            name = match_reference_name(content, offset + 1, end)
            assert name is not None, "a recorded reference has a name"
            children.append(
                Token(
                    "lmml_ref",
                    "",
                    0,
                    content=name,
                    markup=SIGIL,
                    meta={"name": name, "pos": offset},
                )
            )
            start = offset + 1 + len(name)
        if end > start:
            children.append(Token("text", "", 0, content=content[start:end]))
        if not last:
            children.append(Token("softbreak", "br", 0))
    return children


def plain_line_spans(content: str) -> Iterator[tuple[int, int, bool]]:
    """Each line of an inline *content* as markdown-it's ``newline`` rule leaves its text:
    ``(start, end, last)``, the spaces and tabs at the start of a line after the first
    skipped and one space before a line break dropped (*end* may equal *start*)."""
    start = 0
    first = True
    while True:
        if not first:
            while start < len(content) and content[start] in " \t":
                start += 1
        newline = content.find("\n", start)
        last = newline < 0
        end = len(content) if last else newline
        if not last and end > start and content[end - 1] == " ":
            end -= 1
        yield start, end, last
        if last:
            return
        start = newline + 1
        first = False
