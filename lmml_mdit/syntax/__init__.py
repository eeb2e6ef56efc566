"""LMML syntax as markdown-it-py rules, behind :func:`lmml_plugin`.

The modules are private; every name is imported from here. The block dispatcher and the
link parser (``DispatchingBlockParser``, ``LinkParser``) load on first use: the plugin does
not need them, only the narrative's parser does."""

from __future__ import annotations

import contextlib
from collections.abc import Container
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt
from markdown_it.rules_inline import escape as markdown_escape

from ..lazy import lazy_attributes, public_names
from ._block import make_block_rule
from ._collect import DELIMITERS_KEY as DELIMITERS_KEY
from ._collect import EMBEDS_KEY as EMBEDS_KEY
from ._collect import ESCAPES_KEY as ESCAPES_KEY
from ._collect import KNOWN_NAMES_KEY as KNOWN_NAMES_KEY
from ._collect import SOURCE_KEY as SOURCE_KEY
from ._collect import make_collect_rule, reset_scratch
from ._compat import add_terminator_char
from ._deferred import COLLECTED_KEY as COLLECTED_KEY
from ._deferred import DEFERRED_KEY as DEFERRED_KEY
from ._deferred import INLINE_ON_DEMAND_KEY as INLINE_ON_DEMAND_KEY
from ._deferred import CollectedInlines as CollectedInlines
from ._deferred import DeferredInlines as DeferredInlines
from ._deferred import records_in_place as records_in_place
from ._escape import ESCAPE_TOKEN_INFO as ESCAPE_TOKEN_INFO
from ._escape import make_escape_rule
from ._fence import MARKER as MARKER
from ._frontmatter import FRONT_MATTER_KEY as FRONT_MATTER_KEY
from ._frontmatter import FRONT_MATTER_TOKEN as FRONT_MATTER_TOKEN
from ._frontmatter import add_front_matter
from ._positions import FoundInline as FoundInline
from ._positions import place_references as place_references
from ._reference import REFERENCE_MODES as REFERENCE_MODES
from ._reference import SIGIL as SIGIL
from ._reference import ReferenceMode as ReferenceMode
from ._reference import has_extension as has_extension
from ._reference import make_reference_rule
from ._reference import match_reference_name as match_reference_name
from ._reference import may_start_reference as may_start_reference
from ._reference import writes_as_reference as writes_as_reference
from ._render import render_embed, render_reference, render_role
from ._roles import COMMENT_CLOSE as COMMENT_CLOSE
from ._roles import COMMENT_OPEN as COMMENT_OPEN
from ._roles import DELIMITER_MODES as DELIMITER_MODES
from ._roles import LATER_LABELS as LATER_LABELS
from ._roles import SUSPICIOUS_DELIMITER as SUSPICIOUS_DELIMITER
from ._roles import SUSPICIOUS_KEY as SUSPICIOUS_KEY
from ._roles import DelimiterMode as DelimiterMode
from ._roles import atx_content_end as atx_content_end
from ._roles import comment_role as comment_role
from ._roles import corrected_heading as corrected_heading
from ._roles import could_be_strict_delimiter as could_be_strict_delimiter
from ._roles import delimiter_issues as delimiter_issues
from ._roles import heading_role as heading_role
from ._roles import label_role as label_role
from ._roles import marks_near_miss as marks_near_miss
from ._roles import may_hold_label as may_hold_label
from ._roles import role_word as role_word
from ._roles import strict_heading_role as strict_heading_role
from ._roles import suggested_role as suggested_role
from ._roles import suspicious_heading as suspicious_heading
from ._triggers import INLINE_TRIGGERS as INLINE_TRIGGERS
from ._triggers import may_hold_lmml as may_hold_lmml
from ._write import CONTENT_FENCE_INFO as CONTENT_FENCE_INFO
from ._write import ESCAPE as ESCAPE
from ._write import FenceCharacter as FenceCharacter
from ._write import check_fenceable as check_fenceable
from ._write import code_fence as code_fence
from ._write import code_fence_marker as code_fence_marker
from ._write import embed_fence as embed_fence
from ._write import escape_at as escape_at
from ._write import reference as reference
from ._write import turn_label as turn_label

if TYPE_CHECKING:
    from ._blocks import STARTS as STARTS
    from ._blocks import DispatchingBlockParser as DispatchingBlockParser
    from ._links import LinkParser as LinkParser
    from ._links import normalize_link as normalize_link

# Each on first use: the narrative's parser needs them, the plugin alone does not.
_NAMES = {
    "STARTS": "._blocks",
    "DispatchingBlockParser": "._blocks",
    "LinkParser": "._links",
    "normalize_link": "._links",
}
__getattr__ = lazy_attributes(__name__, _NAMES)

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names(
        [
            *_NAMES,
            "COLLECTED_KEY",
            "COMMENT_CLOSE",
            "COMMENT_OPEN",
            "DEFERRED_KEY",
            "DELIMITERS_KEY",
            "CONTENT_FENCE_INFO",
            "DELIMITER_MODES",
            "EMBEDS_KEY",
            "ESCAPE",
            "ESCAPES_KEY",
            "ESCAPE_TOKEN_INFO",
            "FRONT_MATTER_KEY",
            "FRONT_MATTER_TOKEN",
            "INLINE_ON_DEMAND_KEY",
            "INLINE_TRIGGERS",
            "KNOWN_NAMES_KEY",
            "LATER_LABELS",
            "MARKER",
            "REFERENCE_MODES",
            "SIGIL",
            "SOURCE_KEY",
            "SUSPICIOUS_DELIMITER",
            "SUSPICIOUS_KEY",
            "CollectedInlines",
            "DeferredInlines",
            "DelimiterMode",
            "FenceCharacter",
            "FoundInline",
            "ReferenceMode",
            "atx_content_end",
            "check_fenceable",
            "code_fence",
            "code_fence_marker",
            "comment_role",
            "corrected_heading",
            "could_be_strict_delimiter",
            "delimiter_issues",
            "embed_fence",
            "escape_at",
            "has_extension",
            "heading_role",
            "label_role",
            "marks_near_miss",
            "may_hold_label",
            "lmml_plugin",
            "match_reference_name",
            "may_hold_lmml",
            "may_start_reference",
            "place_references",
            "records_in_place",
            "reference",
            "reference_mode",
            "role_word",
            "strict_heading_role",
            "suggested_role",
            "suspicious_heading",
            "turn_label",
            "writes_as_reference",
        ]
    )

_BLOCK_ALTS = ["paragraph", "reference", "blockquote", "list"]


def reference_mode(references: bool | str) -> ReferenceMode | None:
    """The reference mode an option value names: ``True``/``"assets"`` give ``"assets"``,
    ``"any"`` gives ``"any"``, ``False`` gives None (references off).

    :raises ValueError: for any other value.
    """
    if references is True or references == "assets":
        return "assets"
    if references == "any":
        return "any"
    if references is False:
        return None
    raise ValueError(f"references must be True, False, 'assets' or 'any', not {references!r}")


def lmml_plugin(
    md: MarkdownIt,
    *,
    fences: bool = True,
    references: bool | ReferenceMode = True,
    roles: bool = True,
    delimiters: DelimiterMode = "strict",
    known_names: Container[str] | None = None,
    front_matter: bool = True,
) -> None:
    """Add LMML to a markdown-it parser: front matter, ``@@@name`` fences, ``@name``
    references and role delimiters, with their render rules and per-parse results in ``env``.

    Works on any preset, with or without ``html``. After ``md.parse(text, env)``,
    ``env["lmml_embeds"]`` holds every :class:`~lmml_mdit.model.Embed` in document order,
    ``env["lmml_delimiters"]`` the top-level delimiter tokens and ``env["lmml_escapes"]``
    the positions of LMML escapes, and ``env["lmml_front_matter"]`` the mapping of a leading
    ``---`` … ``---`` block (one ``front_matter`` token that renders to nothing).

    :param md: the parser to extend (changed in place).
    :param fences: recognise ``@@@name`` inline embed fences.
    :param references: recognise ``@name`` external references: ``True`` or ``"assets"``
        (a name needs a file extension the library knows, or must be known), ``"any"``
        (RFC 4.1 as written), or
        ``False`` (off).
    :param roles: recognise ``<!-- role -->`` comment delimiters (role headings are always
        marked, since they stay ordinary headings).
    :param delimiters: ``"strict"`` (a heading's whole text is the role, or
        ``label -- role``) or ``"loose"`` (a role word anywhere in it, the 0.1 rule).
    :param known_names: asset names (any container: a set, an archive's entries) that are
        references without an extension; ``env["lmml_known_names"]`` overrides it per parse.
    :param front_matter: recognise a leading ``---`` … ``---`` block as front matter (the
        ``mdit_py_plugins.front_matter`` rule, added unless *md* has it already).
    :raises ValueError: for a *references* or *delimiters* value outside the choices.
    """
    mode = reference_mode(references)
    if delimiters not in DELIMITER_MODES:
        raise ValueError(f"delimiters must be 'strict' or 'loose', not {delimiters!r}")
    if front_matter:
        add_front_matter(md)
    if fences or roles:
        rule = make_block_rule(fences=fences, roles=roles)
        md.block.ruler.before("html_block", "lmml_block", rule, {"alt": _BLOCK_ALTS})
    if mode is not None:
        add_terminator_char(md, SIGIL)
        md.inline.ruler.push("lmml_ref", make_reference_rule(mode))
    # The escape rule is wrapped, not preceded: other positions pay no extra call, and
    # disabling "escape" (the "zero" preset) disables LMML escapes too. A parser without
    # markdown-it's escape rule has none to record.
    with contextlib.suppress(KeyError):
        md.inline.ruler.at("escape", make_escape_rule(delimiters, markdown_escape))
    # Rules keep per-parse state only in ``env``, never on ``md``: one parser may serve
    # many parses, from several threads.
    md.core.ruler.before("block", "lmml_reset", reset_scratch)
    md.core.ruler.at("inline", make_collect_rule(delimiters=delimiters, known_names=known_names))
    md.add_render_rule("lmml_ref", render_reference)
    md.add_render_rule("lmml_embed", render_embed)
    md.add_render_rule("lmml_role", render_role)
