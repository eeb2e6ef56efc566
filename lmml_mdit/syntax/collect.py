"""The plugin's core pass: parse the inlines and gather the per-parse results.

It stands in for markdown-it's core ``inline`` rule, so the one walk over the block tokens
that parses each ``inline`` token also finds the references and role headings; the block
rules list their fence and comment tokens in ``env`` as they make them. Plain Markdown pays
one more comparison per ``inline`` token and nothing more. It stores:

- ``env["lmml_embeds"]``: every :class:`~lmml_mdit.model.Embed`, in document order;
- ``env["lmml_delimiters"]``: the top-level delimiter tokens (``heading_open`` with a role
  word, ``lmml_role``), each with ``meta["lmml_role"]``; a role heading also gets
  ``meta["lmml_heading"]``, its text;
- ``env["lmml_source"]``: the normalized source the token maps refer to.

Each ``inline`` token holding references also gets ``meta["lmml_refs"]``, its ``lmml_ref``
children in order, so a reader can skip the paragraphs that have none.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Any, TypeVar

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..errors import LmmlSyntaxError
from ..model import Embed
from .keys import FENCE_TOKENS_KEY, INLINE_PARENT_KEY, NEW_REFS_KEY, ROLE_TOKENS_KEY, SCRATCH_KEYS
from .positions import place_references
from .roles import role_word

EMBEDS_KEY = "lmml_embeds"
DELIMITERS_KEY = "lmml_delimiters"
SOURCE_KEY = "lmml_source"

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


def _mark_role_heading(heading_open: Token, inline: Token, delimiters: list[Token]) -> None:
    role = role_word(inline.content)
    if role is not None:
        heading_open.meta["lmml_role"] = role
        heading_open.meta["lmml_heading"] = inline.content
        delimiters.append(heading_open)


def reset_scratch(state: StateCore) -> None:
    """Core rule ``lmml_reset``, run before ``block``: drop scratch keys an earlier parse
    left in a reused ``env`` (one that raised before its end), so that no fence or comment
    of that parse leaks into this one."""
    _drop_scratch(state.env)


def _drop_scratch(env: Any) -> None:
    for key in SCRATCH_KEYS:
        env.pop(key, None)


def parse_inlines_and_collect(state: StateCore) -> None:
    """Core rule replacing ``inline``: parse every inline token, give each reference its
    source position, mark role headings, and store the results in ``env``.

    The scratch keys are removed even when a rule raises, so a reused ``env`` stays clean.
    """
    try:
        _collect(state)
    finally:
        _drop_scratch(state.env)


def _collect(state: StateCore) -> None:
    env = state.env
    md = state.md
    parse_inline = md.inline.parse
    references: list[Embed] = []
    headings: list[Token] = []
    new_refs: list[Token] = []
    env[NEW_REFS_KEY] = new_refs
    previous: Token | None = None
    for token in state.tokens:
        if token.type == "inline":
            if token.children is None:
                token.children = []
            env[INLINE_PARENT_KEY] = token
            parse_inline(token.content, md, env, token.children)
            if new_refs:
                place_references(state.src, env, token, new_refs)
                token.meta["lmml_refs"] = new_refs
                references.extend(_reference_embed(ref) for ref in new_refs)
                new_refs = []
                env[NEW_REFS_KEY] = new_refs
            if previous is not None and previous.type == "heading_open" and previous.level == 0:
                _mark_role_heading(previous, token, headings)
        previous = token
    fences = [_fence_embed(token) for token in env.get(FENCE_TOKENS_KEY, ())]
    comments: list[Token] = env.get(ROLE_TOKENS_KEY, [])
    env[EMBEDS_KEY] = _in_document_order(fences, references, _embed_position)
    env[DELIMITERS_KEY] = _in_document_order(comments, headings, _token_line)
    env[SOURCE_KEY] = state.src


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
