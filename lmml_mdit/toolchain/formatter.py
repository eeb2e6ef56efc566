"""The mdformat plugin: LMML formatted by mdformat, its constructs kept as written.

mdformat (the Markdown formatter built on markdown-it-py) finds this module through its
``mdformat.parser_extension`` entry point, named ``lmml``; ``mdformat --extensions lmml``
or ``mdformat.text(text, extensions={"lmml"})`` uses it. It follows mdformat's plugin
interface: :func:`update_mdit` installs :func:`~lmml_mdit.lmml_plugin` on mdformat's
parser, :data:`RENDERERS` writes the plugin's tokens back and :data:`POSTPROCESSORS`
guards what mdformat writes around them. The Markdown around LMML is formatted by
mdformat's own rules; LMML itself is written back as it was:

- an ``@@@`` fence at the top level is its source lines, byte for byte; one inside a block
  quote or a list item keeps its opening line and content byte for byte, and its closing
  marker is written ``@@@`` (the container's prefix on each line is mdformat's);
- a reference is ``@`` and its name as written; every syntactic ``@name`` is kept, so a
  name that is a reference only in a ``.lmmlz`` (an entry without an extension) is kept
  too;
- an LMML escape (``\\@``, or the backslash before a delimiter-shaped line) stays, where
  mdformat alone would drop it and turn ``\\@chart.png`` into a reference; so does an
  entity whose decoded character would make or break a reference (``&#64;x.png``,
  ``&#95;@x.png``);
- a role comment ``<!-- user -->`` is written as written (without its indentation); a role
  heading is a heading, which mdformat writes in ATX form (``user`` over ``===`` becomes
  ``# user``), still the same delimiter;
- a front matter block is kept as written;
- a paragraph line that would open a fence once mdformat strips its indentation (a lazy
  continuation line ``    @@@name``, or a line mdformat's wrapping starts with ``@@@``) is
  indented by four spaces, which keeps it paragraph text, as mdformat does for lines that
  would start an HTML block.

:func:`format_text` is the library call (and ``lmml fmt`` the command): mdformat with this
plugin, then a check that the result has the same turns, embeds (with the same bytes),
references and escapes as the input; a document whose Markdown mdformat cannot rewrite
without changing one of them is refused with :class:`~lmml_mdit.errors.FormatError`
naming the first difference, never rewritten.
"""

from __future__ import annotations

import bisect
import types
from collections.abc import Container, Mapping
from typing import TYPE_CHECKING, Final

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from mdit_py_plugins.front_matter import front_matter_plugin

from ..errors import FormatError
from ..narrative.narrative import Narrative, parse
from ..syntax import FRONT_MATTER_TOKEN, SOURCE_KEY, lmml_plugin
from ..syntax.escape import ESCAPE_TOKEN_INFO
from ..syntax.fence import MARKER
from ..syntax.reference import SIGIL

if TYPE_CHECKING:
    from mdformat.renderer import RenderContext, RenderTreeNode
    from mdformat.renderer.typing import Postprocess, Render

__all__ = [
    "CHANGES_AST",
    "EXTENSION_NAME",
    "POSTPROCESSORS",
    "RENDERERS",
    "format_text",
    "outline",
    "update_mdit",
]

EXTENSION_NAME: Final = "lmml"
"""The plugin's name: its ``mdformat.parser_extension`` entry point, and ``--extensions``."""

CHANGES_AST: Final = False
"""mdformat's flag for a plugin whose formatting changes the document's meaning: this one
does not (mdformat checks the HTML before and after)."""

ESCAPE_TOKEN: Final = "lmml_escape"
"""The token type an LMML escape gets on mdformat's parser, so that markdown-it's
``text_join`` leaves it apart from the text around it (and so it is written back)."""

VERBATIM_TOKEN: Final = "lmml_verbatim"
"""The token type of an entity kept as written, where decoding it would make or break a
reference."""

ENTITY_TOKEN_INFO: Final = "entity"
"""The ``info`` markdown-it gives the ``text_special`` token of an entity."""

_CODE_INDENT = "    "


def _keep_escapes(state: StateCore) -> None:
    """Core rule ``lmml_keep_escapes``, run before ``text_join``: an LMML escape's token
    (a ``text_special`` the plugin marked) becomes an ``lmml_escape`` token, and an entity
    that would start or end a reference once decoded (``&#64;x.png``, ``&#95;@x.png``)
    an ``lmml_verbatim`` one; both are written as they were."""
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        children = token.children
        for index, child in enumerate(children):
            if child.type != "text_special":
                continue
            if child.info == ESCAPE_TOKEN_INFO and child.meta.get("lmml_escape"):
                child.type = ESCAPE_TOKEN
            elif child.info == ENTITY_TOKEN_INFO and (
                child.content == SIGIL
                or (index + 1 < len(children) and children[index + 1].type == "lmml_ref")
            ):
                child.type = VERBATIM_TOKEN


def _complete_inlines(state: StateCore) -> None:
    """Core rule ``lmml_inline_children``: every inline token with content has its
    children (mdformat renders from them), even from a parse that builds some lazily."""
    md = state.md
    for token in state.tokens:
        if token.type == "inline" and token.content and not token.children:
            token.children = []
            md.inline.parse(token.content, md, state.env, token.children)


def update_mdit(mdit: MarkdownIt) -> None:
    """mdformat's hook: install the LMML rules (and front matter) on its parser.

    References are read in the ``"any"`` mode, so every syntactic ``@name`` is a token
    written back as it is, whether or not a reader will know the name.

    :param mdit: mdformat's parser (changed in place).
    """
    if FRONT_MATTER_TOKEN not in mdit.block.ruler.get_all_rules():
        mdit.use(front_matter_plugin)
    mdit.use(lmml_plugin, references="any")
    mdit.core.ruler.after("inline", "lmml_inline_children", _complete_inlines)
    mdit.core.ruler.before("text_join", "lmml_keep_escapes", _keep_escapes)


_LINES_KEY = "lmml_format_lines"
"""The ``env`` key of the source's lines, split once per rendering."""


def _source_lines(context: RenderContext, first: int, last: int) -> str:
    lines: list[str] | None = context.env.get(_LINES_KEY)
    if lines is None:
        source: str = context.env[SOURCE_KEY]
        lines = context.env[_LINES_KEY] = source.split("\n")
    return "\n".join(lines[first:last])


def _render_embed(node: RenderTreeNode, context: RenderContext) -> str:
    token = node.token
    assert token is not None and token.map is not None
    first, last = token.map
    if token.level == 0:
        # Unclosed, it runs to the end of the document: its blank last lines are content.
        return _source_lines(context, first, last)
    # In a container: the prefix of each line is the container's, written by mdformat.
    opening = _source_lines(context, first, first + 1)[token.meta["column"] - 1 :]
    text = f"{opening}\n{token.content}"
    if token.meta["closed"]:
        return text + MARKER
    # Unclosed, it ran to the end of its container, whose blank lines mdformat writes.
    return text.rstrip("\n")


def _render_reference(node: RenderTreeNode, context: RenderContext) -> str:
    return node.markup + node.content


def _render_escape(node: RenderTreeNode, context: RenderContext) -> str:
    return node.markup


def _starts_escaped_line(node: RenderTreeNode | None) -> bool:
    """Whether *node* is the escape at the start of a delimiter-shaped line (``\\## user``),
    which must stay at its line's start, the line whole, for the escape to be LMML's."""
    return node is not None and node.type == ESCAPE_TOKEN and node.markup != "\\" + SIGIL


def _ends_escaped_line(node: RenderTreeNode) -> bool:
    """Whether the softbreak *node* ends a line that starts with a delimiter escape."""
    sibling = node.previous_sibling
    while sibling is not None and sibling.type != "softbreak":
        if sibling.previous_sibling is None or sibling.previous_sibling.type == "softbreak":
            return _starts_escaped_line(sibling)
        sibling = sibling.previous_sibling
    return False


def _render_softbreak(node: RenderTreeNode, context: RenderContext) -> str:
    """mdformat's soft break, except around an escaped delimiter line, which wrapping
    must neither join to another line nor move (the line break stays)."""
    if context.do_wrap and (_starts_escaped_line(node.next_sibling) or _ends_escaped_line(node)):
        return "\n"
    from mdformat.renderer import DEFAULT_RENDERERS

    return DEFAULT_RENDERERS["softbreak"](node, context)


def _render_role(node: RenderTreeNode, context: RenderContext) -> str:
    return node.markup


def _render_front_matter(node: RenderTreeNode, context: RenderContext) -> str:
    token = node.token
    assert token is not None and token.map is not None
    return _source_lines(context, token.map[0], token.map[1])


def _opens_fence(line: str) -> bool:
    stripped = line.lstrip(" \t")
    return stripped.startswith(MARKER) and bool(stripped[len(MARKER) :].strip())


def _guard_paragraph(text: str, node: RenderTreeNode, context: RenderContext) -> str:
    """A paragraph line that would open an ``@@@`` fence is indented to stay text."""
    if MARKER not in text:
        return text
    lines = text.split("\n")
    return "\n".join(
        _CODE_INDENT + line if index and _opens_fence(line) else line
        for index, line in enumerate(lines)
    )


RENDERERS: Mapping[str, Render] = types.MappingProxyType(
    {
        "lmml_embed": _render_embed,
        "lmml_ref": _render_reference,
        "lmml_role": _render_role,
        ESCAPE_TOKEN: _render_escape,
        VERBATIM_TOKEN: _render_escape,
        "softbreak": _render_softbreak,
        FRONT_MATTER_TOKEN: _render_front_matter,
    }
)
"""mdformat's renderers for the plugin's tokens (and front matter), by token type."""

POSTPROCESSORS: Mapping[str, Postprocess] = types.MappingProxyType({"paragraph": _guard_paragraph})
"""mdformat's postprocessors: a paragraph's lines kept from opening a fence."""


# --------------------------------------------------------------------------- the library call


Outline = tuple[tuple[object, ...], ...]
"""What formatting keeps: each turn (role, heading) with the embeds and references in it,
in document order, and the number of LMML escapes."""


def outline(narrative: Narrative) -> Outline:
    """What :func:`format_text` must keep of *narrative*: per turn its role and heading
    text, then each embed in it in document order (kind, name, and a fence's bytes and
    whether it closes), and last the number of LMML escapes.

    :param narrative: a parse.
    """
    turns = narrative.turns
    starts = [turn.delimiter_line or turn.start_line for turn in turns]
    rows: list[list[object]] = [[turn.role, turn.heading] for turn in turns]
    for embed in narrative.embeds:
        at = max(bisect.bisect_right(starts, embed.line) - 1, 0)
        item = (embed.kind, embed.name, embed.content, embed.closed)
        if rows:
            rows[at].append(item)
        else:
            rows.append(["context", None, item])
    return (*(tuple(row) for row in rows), ("escapes", len(narrative.escapes)))


def _shown_item(item: object) -> str:
    if not isinstance(item, tuple):
        return "nothing"
    kind, name, content, _ = item
    if kind == "inline" and isinstance(content, bytes):
        return f"the fence {MARKER}{name} ({len(content)} bytes)"
    return f"the reference {SIGIL}{name}"


def _first_difference(before: Outline, after: Outline) -> str:
    """The first difference of two outlines, in words."""
    *was_turns, (_, was_escapes) = before
    *now_turns, (_, now_escapes) = after
    if len(was_turns) != len(now_turns):
        return f"it would have {len(now_turns)} turns instead of {len(was_turns)}"
    for number, (was, now) in enumerate(zip(was_turns, now_turns, strict=True), 1):
        if was[:2] != now[:2]:
            return f"turn {number} ({was[0]}, {was[1]!r}) would become ({now[0]}, {now[1]!r})"
        was_items, now_items = was[2:], now[2:]
        for index in range(max(len(was_items), len(now_items))):
            was_item = was_items[index] if index < len(was_items) else None
            now_item = now_items[index] if index < len(now_items) else None
            if was_item != now_item:
                return (
                    f"in turn {number} ({was[0]}), {_shown_item(was_item)} would become "
                    f"{_shown_item(now_item)}"
                )
    return f"its LMML escapes would go from {was_escapes} to {now_escapes}"


def _line_of_difference(before: Narrative, after: Narrative) -> int | None:
    for was, now in zip(before.embeds, after.embeds, strict=False):
        if (was.kind, was.name, was.content) != (now.kind, now.name, now.content):
            return was.line
    for was_turn, now_turn in zip(before.turns, after.turns, strict=False):
        if (was_turn.role, was_turn.heading) != (now_turn.role, now_turn.heading):
            return was_turn.delimiter_line
    return None


def _register() -> None:
    """Make this module mdformat's ``lmml`` extension when no installed distribution
    declares it (a source checkout on ``sys.path``); the entry point wins when present."""
    import mdformat.plugins

    extensions = mdformat.plugins.PARSER_EXTENSIONS
    if EXTENSION_NAME not in extensions:
        import sys

        extensions[EXTENSION_NAME] = sys.modules[__name__]  # type: ignore[index]


def format_text(
    text: str,
    *,
    options: Mapping[str, object] | None = None,
    name: str | None = None,
    known_names: Container[str] | None = None,
) -> str:
    """*text* (an LMML narrative) formatted by mdformat with this plugin.

    :param text: the narrative.
    :param options: mdformat's options (``{"wrap": 80}``, ``{"number": True}``, ...).
    :param name: the file name, for errors.
    :param known_names: the asset names references may have without an extension (a
        ``.lmmlz``'s entries), for the check.
    :returns: the formatted narrative, ending in one newline (empty for an empty one).
    :raises FormatError: when formatting would change the turns, an embed's bytes, a
        reference or an escape (the text is then best left as it is), naming the first
        difference.
    :raises LmmlSyntaxError: for a text holding a lone surrogate.
    """
    import mdformat

    before = parse(text, name=name, known_names=known_names)
    _register()
    formatted = mdformat.text(
        before.source, options=dict(options or {}), extensions=[EXTENSION_NAME]
    )
    after = parse(formatted, name=name, known_names=known_names)
    was, now = outline(before), outline(after)
    if was != now:
        raise FormatError(
            "formatting would change the conversation: " + _first_difference(was, now),
            name=name,
            line=_line_of_difference(before, after),
            hint="leave this file out of formatting, or rewrite the Markdown around what "
            "is named so that mdformat keeps it",
        )
    return formatted
