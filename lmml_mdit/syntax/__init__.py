"""LMML syntax as markdown-it-py rules, behind :func:`lmml_plugin`."""

from __future__ import annotations

from markdown_it import MarkdownIt

from .block import make_block_rule
from .collect import (
    DELIMITERS_KEY,
    EMBEDS_KEY,
    SOURCE_KEY,
    parse_inlines_and_collect,
    reset_scratch,
)
from .reference import SIGIL, embed_reference
from .render import render_embed, render_reference, render_role
from .roles import comment_role, role_word

__all__ = [
    "DELIMITERS_KEY",
    "EMBEDS_KEY",
    "SOURCE_KEY",
    "comment_role",
    "lmml_plugin",
    "role_word",
]

_BLOCK_ALTS = ["paragraph", "reference", "blockquote", "list"]


def lmml_plugin(
    md: MarkdownIt, *, fences: bool = True, references: bool = True, roles: bool = True
) -> None:
    """Add LMML to a markdown-it parser: ``@@@name`` fences, ``@name`` references and role
    delimiters, with their render rules and per-parse results in ``env``.

    Works on any preset, with or without ``html``. After ``md.parse(text, env)``,
    ``env["lmml_embeds"]`` holds every :class:`~lmml_mdit.model.Embed` in document order and
    ``env["lmml_delimiters"]`` the top-level delimiter tokens.

    :param md: the parser to extend (changed in place).
    :param fences: recognise ``@@@name`` inline embed fences.
    :param references: recognise ``@name`` external references.
    :param roles: recognise ``<!-- role -->`` comment delimiters (role headings are always
        marked, since they stay ordinary headings).
    """
    if fences or roles:
        rule = make_block_rule(fences=fences, roles=roles)
        md.block.ruler.before("html_block", "lmml_block", rule, {"alt": _BLOCK_ALTS})
    if references:
        md.inline.add_terminator_char(SIGIL)
        md.inline.ruler.push("lmml_ref", embed_reference)
    # Rules keep per-parse state only in ``env``, never on ``md``: one parser may serve
    # many parses, from several threads.
    md.core.ruler.before("block", "lmml_reset", reset_scratch)
    md.core.ruler.at("inline", parse_inlines_and_collect)
    md.add_render_rule("lmml_ref", render_reference)
    md.add_render_rule("lmml_embed", render_embed)
    md.add_render_rule("lmml_role", render_role)
