"""The per-parse results: embeds in document order and the turn delimiters.

One core rule walks the block-level tokens once (inline children are visited only for
``inline`` tokens the position pass marked as holding references) and stores:

- ``env["lmml_embeds"]``: every :class:`~lmml_mdit.model.Embed`, in document order;
- ``env["lmml_delimiters"]``: the top-level delimiter tokens (``heading_open`` with a role
  word, ``lmml_role``), each with ``meta["lmml_role"]``;
- ``env["lmml_source"]``: the normalized source the token maps refer to.
"""

from __future__ import annotations

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..model import Embed
from .roles import role_word

EMBEDS_KEY = "lmml_embeds"
DELIMITERS_KEY = "lmml_delimiters"
SOURCE_KEY = "lmml_source"


def _fence_embed(token: Token) -> Embed:
    meta = token.meta
    return Embed(
        name=meta["name"],
        kind="inline",
        content=token.content.encode("utf-8"),
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
        line=meta.get("line", 1),
        column=meta.get("column", 1),
    )


def collect_lmml(state: StateCore) -> None:
    """Core rule: gather embeds and delimiters into ``env``."""
    embeds: list[Embed] = []
    delimiters: list[Token] = []
    tokens = state.tokens
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "inline":
            refs = token.meta.get("lmml_refs") if token.meta else None
            if refs:
                embeds.extend(_reference_embed(ref) for ref in refs)
        elif kind == "lmml_embed":
            embeds.append(_fence_embed(token))
        elif kind == "lmml_role":
            delimiters.append(token)
        elif kind == "heading_open" and token.level == 0 and index + 1 < len(tokens):
            heading = tokens[index + 1].content
            role = role_word(heading)
            if role is not None:
                token.meta["lmml_role"] = role
                token.meta["lmml_heading"] = heading
                delimiters.append(token)
    state.env[EMBEDS_KEY] = embeds
    state.env[DELIMITERS_KEY] = delimiters
    state.env[SOURCE_KEY] = state.src
