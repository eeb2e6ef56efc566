"""The plugin's core pass: parse the inlines and gather the per-parse results.

It stands in for markdown-it's core ``inline`` rule: the one walk that parses each
``inline`` token also finds the references and role headings, and fills the ``env`` keys
listed in docs/syntax.md, "Results in env". With ``env["lmml_inline_on_demand"]`` set (the
fast parse of :func:`lmml_mdit.parse`) blocks without a trigger are deferred and the rest
recorded, not tokenized (:mod:`.deferred`); see docs/performance.md, "Parse only what can
change the answer".
"""

from __future__ import annotations

import array
import heapq
from collections.abc import Callable, Container, Iterator, Sequence
from typing import Any, TypeVar

from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType

from ..errors import LmmlSyntaxError
from ..model import Embed
from ._deferred import (
    COLLECTED_KEY,
    DEFERRED_KEY,
    INLINE_ON_DEMAND_KEY,
    CollectedInlines,
    plain_line_spans,
    records_in_place,
    rules_after_inline,
)
from ._keys import (
    FENCE_TOKENS_KEY,
    FOUND_KEY,
    INLINE_PARENT_KEY,
    KNOWN_SCRATCH_KEY,
    NEW_REFS_KEY,
    OPENER_KEY,
    ROLE_TOKENS_KEY,
    SCRATCH_KEYS,
)
from ._positions import FoundInline, place_offsets, place_references
from ._roles import (
    COMMENT_OPEN,
    LATER_LABELS,
    SUSPICIOUS_KEY,
    DelimiterMode,
    comment_near_miss,
    could_be_strict_delimiter,
    heading_role,
    label_near_miss,
    later_label_lines,
    suspicious_heading,
)
from ._triggers import may_hold_lmml

EMBEDS_KEY = "lmml_embeds"
DELIMITERS_KEY = "lmml_delimiters"
SOURCE_KEY = "lmml_source"
ESCAPES_KEY = "lmml_escapes"
KNOWN_NAMES_KEY = "lmml_known_names"

CoreRule = Callable[[StateCore], None]

_Item = TypeVar("_Item")


def _fence_content(token: Token) -> bytes:
    """The fence's content as UTF-8 bytes.

    :raises LmmlSyntaxError: if the content holds a lone surrogate, which has no UTF-8 form
        (only possible for a ``str`` given straight to ``md.parse``; :func:`lmml_mdit.parse`
        refuses such text before parsing).
    """
    try:
        return token.content.encode("utf-8")
    except UnicodeEncodeError as error:
        raise LmmlSyntaxError(
            f"lone surrogate U+{ord(token.content[error.start]):04X} in the embed's content",
            name=token.meta["name"],
            line=token.meta["line"],
            hint="decode the narrative strictly as UTF-8 before parsing it",
        ) from None


def _fence_embed(token: Token) -> Embed:
    meta = token.meta
    return Embed(
        name=meta["name"],
        kind="inline",
        content=_fence_content(token),
        line=meta["line"],
        column=meta["column"],
        closed=meta["closed"],
    )


def _reference_embed(token: Token) -> Embed:
    meta = token.meta
    return Embed(
        name=meta["name"],
        kind="external",
        content=None,
        line=meta["line"],
        column=meta["column"],
    )


def _mark_role_heading(
    heading_open: Token, inline: Token, delimiters: list[Token], mode: DelimiterMode
) -> None:
    text = inline.content
    if mode == "strict" and not could_be_strict_delimiter(text):
        return
    role = heading_role(text, mode)
    if role is not None:
        heading_open.meta["lmml_role"] = role
        heading_open.meta["lmml_heading"] = text
        delimiters.append(heading_open)
    suspicious = suspicious_heading(text, mode, role)
    if suspicious is not None:
        heading_open.meta[SUSPICIOUS_KEY] = suspicious


def _mark_block(opener: Token, inline: Token, delimiters: list[Token], mode: DelimiterMode) -> None:
    """Mark the top-level block *opener* whose inline content is *inline*: a role heading
    (:func:`_mark_role_heading`), or a paragraph shaped like a role label."""
    if opener.level != 0:
        return
    if opener.type == "heading_open":
        _mark_role_heading(opener, inline, delimiters, mode)
    elif opener.type == "paragraph_open":
        suspicious = label_near_miss(inline.content)
        if suspicious is not None:
            opener.meta[SUSPICIOUS_KEY] = suspicious
        later = later_label_lines(inline.content, transcript=suspicious is not None)
        if later:
            opener.meta[LATER_LABELS] = later


class _KnownNames:
    """The caller's known asset names plus the document's own fence names."""

    __slots__ = ("fences", "known")

    def __init__(self, known: Container[str] | None, fences: frozenset[str]) -> None:
        self.known = known
        self.fences = fences

    def __contains__(self, name: object) -> bool:
        if name in self.fences:
            return True
        return self.known is not None and name in self.known


def reset_scratch(state: StateCore) -> None:
    """Core rule ``lmml_reset``, run before ``block``: drop scratch keys an earlier parse
    left in a reused ``env`` (one that raised before its end), so that no fence or comment
    of that parse leaks into this one."""
    _drop_scratch(state.env)


def _drop_scratch(env: Any) -> None:
    for key in SCRATCH_KEYS:
        env.pop(key, None)


def make_collect_rule(
    *, delimiters: DelimiterMode = "strict", known_names: Container[str] | None = None
) -> CoreRule:
    """The core rule replacing ``inline``: parse every inline token, give each reference
    and LMML escape its source position, mark role headings (read in *delimiters* mode),
    and store the results in ``env``.

    The scratch keys are removed even when a rule raises, so a reused ``env`` stays clean.

    :param delimiters: ``"strict"`` or ``"loose"`` (see :mod:`.roles`).
    :param known_names: asset names references may have without an extension, unless
        ``env["lmml_known_names"]`` gives others.
    """

    def parse_inlines_and_collect(state: StateCore) -> None:
        try:
            _collect(state, delimiters, known_names)
        finally:
            _drop_scratch(state.env)

    return parse_inlines_and_collect


def _collect(state: StateCore, mode: DelimiterMode, known_names: Container[str] | None) -> None:
    env = state.env
    md = state.md
    parse_inline = md.inline.parse
    references: list[Embed] = []
    escapes: list[tuple[int, int]] = []
    headings: list[Token] = []
    new_refs: list[Token] = []
    env[NEW_REFS_KEY] = new_refs
    fence_tokens: list[Token] = env.get(FENCE_TOKENS_KEY, [])
    known = env[KNOWN_SCRATCH_KEY] = _KnownNames(
        env.get(KNOWN_NAMES_KEY, known_names),
        frozenset(token.meta["name"] for token in fence_tokens),
    )
    # Inline tokens that cannot hold LMML wait for a reader that wants them (see .deferred).
    on_demand = bool(env.get(INLINE_ON_DEMAND_KEY)) and rules_after_inline(md) is not None
    env.pop(DEFERRED_KEY, None)  # a reused env's, from an earlier parse
    env.pop(COLLECTED_KEY, None)
    deferred = array.array("q")
    # The others are parsed with the rules recording what they find (see _collect_found).
    collected = CollectedInlines(known) if on_demand and records_in_place(md) else None
    found = FoundInline()
    src = state.src
    previous: Token | None = None
    for position, token in enumerate(state.tokens):
        if token.type == "inline":
            if token.children is None:
                token.children = []
            if on_demand and not may_hold_lmml(token.content):
                deferred.append(position)
                if previous is not None:
                    _mark_block(previous, token, headings, mode)
                previous = token
                continue
            env[INLINE_PARENT_KEY] = token
            env[OPENER_KEY] = previous
            if collected is not None:
                env[FOUND_KEY] = found
                parse_inline(token.content, md, env, token.children)
                if found:
                    first_reference, first_escape = len(references), len(escapes)
                    only, plain = _collect_found(src, env, token, found, references, escapes)
                    collected.add(
                        position,
                        first_reference,
                        first_escape if len(escapes) > first_escape else None,
                        only,
                        found.offsets if plain else None,
                    )
                    found = FoundInline()
            else:
                parse_inline(token.content, md, env, token.children)
            if new_refs:
                place_references(src, env, token, new_refs)
                refs = [ref for ref in new_refs if ref.type == "lmml_ref"]
                if len(refs) != len(new_refs):
                    escapes.extend(_escape_positions(new_refs))
                if refs:
                    token.meta["lmml_refs"] = refs
                    references.extend(_reference_embed(ref) for ref in refs)
                new_refs = []
                env[NEW_REFS_KEY] = new_refs
            if previous is not None:
                _mark_block(previous, token, headings, mode)
        elif (
            token.type == "html_block"
            and token.level == 0
            and token.content.startswith(COMMENT_OPEN)
            and token.content.count("\n") <= 1
        ):
            suspicious = comment_near_miss(token.content)
            if suspicious is not None:
                token.meta[SUSPICIOUS_KEY] = suspicious
        previous = token
    fences = [_fence_embed(token) for token in fence_tokens]
    comments: list[Token] = env.get(ROLE_TOKENS_KEY, [])
    embeds = env[EMBEDS_KEY] = _in_document_order(fences, references, _embed_position)
    env[DELIMITERS_KEY] = _in_document_order(comments, headings, _token_line)
    env[ESCAPES_KEY] = escapes
    env[SOURCE_KEY] = src
    if deferred:
        env[DEFERRED_KEY] = deferred
    if collected is not None and collected.positions:
        if fences:
            collected.count_fences(embeds)
        env[COLLECTED_KEY] = collected


def _collect_found(
    src: str,
    env: EnvType,
    inline: Token,
    found: FoundInline,
    references: list[Embed],
    escapes: list[tuple[int, int]],
) -> tuple[bool, bool]:
    """Read what the rules recorded in one ``inline`` token (the fast parse): the embeds
    and escapes it holds, in the order a full parse finds them; then let its children go,
    to be parsed again in full when a reader asks for them
    (:class:`.deferred.DeferredInlines`), or rebuilt from the offsets of its references
    when its children were plain lines of text (:func:`_plain_lines`).

    The children of the recording parse are markdown-it's own (the references are in the
    text tokens), so they are dropped before the embeds are made: a paragraph of a
    thousand references never holds a token for each.

    :returns: whether the token holds references and nothing but white space besides
        (see :func:`_only_references`), and whether its children were plain lines.
    """
    names = found.names
    children = inline.children or []
    attachment = _only_references(children, names)
    plain = None not in names and _plain_lines(children, inline.content)
    inline.children = []
    del children
    for name, (line, column) in zip(
        names, place_offsets(src, env, inline, found.offsets, found.lengths()), strict=True
    ):
        if name is None:
            escapes.append((line, column))
        else:
            references.append(
                Embed(name=name, kind="external", content=None, line=line, column=column)
            )
    return attachment, plain


def _plain_lines(children: Sequence[Token], content: str) -> bool:
    """Whether the *children* of a parse of *content* with recording rules are plain lines
    of text: for each line of the content a ``text`` token holding the line as the
    ``newline`` rule leaves it (the spaces and tabs at the start of a line after the first
    skipped, one space before a line break dropped), unless that is empty, and a
    ``softbreak`` between lines.

    Then the children of the full parse are the same lines cut at each reference, a
    ``text`` token for each piece that is not empty and an ``lmml_ref`` token for each
    reference (:meth:`.deferred.DeferredInlines` builds them so, without parsing again):
    no rule but ``text``, ``newline`` and the reference rule acted, and the text left
    between two references is exactly what a full parse leaves.
    """
    at = 0
    count = len(children)
    for start, end, last in plain_line_spans(content):
        if end > start:
            if at >= count:
                return False
            child = children[at]
            at += 1
            text = child.content
            if (
                child.type != "text"
                or len(text) != end - start
                or not content.startswith(text, start)
            ):
                return False
        if last:
            return at == count
        if at >= count or children[at].type != "softbreak":
            return False
        at += 1
    return False  # not reached: the last span ends the walk


def _only_references(children: Sequence[Token], names: Sequence[str | None]) -> bool:
    """Whether an ``inline`` token parsed with recording rules holds references and
    nothing but white space besides (what the index calls an attachment paragraph, read
    from its complete children).

    The references are in its text tokens, each ``@name`` all non-space: so the
    non-space characters of its text must be exactly theirs.
    """
    expected = 0
    references = False
    for name in names:
        if name is not None:
            expected += len(name) + 1
            references = True
    if not references:
        return False
    seen = 0
    for child in children:
        kind = child.type
        if kind == "softbreak":
            continue
        if kind != "text" and kind != "text_special":
            return False
        seen += len("".join(child.content.split()))
        if seen > expected:
            return False
    return seen == expected


def _escape_positions(found: list[Token]) -> Iterator[tuple[int, int]]:
    for token in found:
        if token.type != "lmml_ref":
            yield token.meta["line"], token.meta["column"]


def _embed_position(embed: Embed) -> tuple[int, int]:
    return embed.line, embed.column


def _token_line(token: Token) -> int:
    return token.map[0] if token.map else 0


def _in_document_order(
    block_found: list[_Item], inline_found: list[_Item], position: Callable[[_Item], Any]
) -> list[_Item]:
    """Merge two lists, each already in document order (a fence never shares a line with
    a reference, nor a comment delimiter with a heading)."""
    if not block_found:
        return inline_found
    if not inline_found:
        return block_found
    return list(heapq.merge(block_found, inline_found, key=position))
