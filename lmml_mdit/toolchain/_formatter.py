"""The mdformat plugin: LMML formatted by mdformat, its constructs kept as written.

mdformat finds it through its ``mdformat.parser_extension`` entry point ``lmml``:
:func:`update_mdit` installs :func:`~lmml_mdit.lmml_plugin`, :data:`RENDERERS` writes the
plugin's tokens back and :data:`POSTPROCESSORS` guards what mdformat writes around them,
and leaves as it was (with a warning) a document that would read as another conversation.
:func:`format_text` (``lmml fmt``) refuses such a result with
:class:`~lmml_mdit.errors.FormatError`. See docs/toolchain.md, "The mdformat plugin".
"""

from __future__ import annotations

import bisect
import contextvars
import functools
import logging
import types
from collections.abc import Container, Mapping
from typing import TYPE_CHECKING, Final

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

from ..errors import FormatError
from ..narrative import Narrative, parse
from ..stdin import STDIN_LABEL
from ..syntax import (
    ESCAPE_TOKEN_INFO,
    FRONT_MATTER_TOKEN,
    MARKER,
    SIGIL,
    SOURCE_KEY,
    LinkParser,
    lmml_plugin,
)

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

_BRACE_ESCAPE = "\\{"
"""The escape that keeps ``\\{{`` literal braces in a template: mdformat alone drops it
(``{`` is nothing to Markdown), which would turn the braces into a placeholder."""

_PIPE_ESCAPE = "\\|"
"""The escape that keeps a ``|`` inside a table's cell: mdformat's core has no tables and
drops it (``|`` is nothing to CommonMark), which would split the cell."""

_KEPT_ESCAPES: Final = frozenset({_BRACE_ESCAPE, _PIPE_ESCAPE})


def _keep_escapes(state: StateCore) -> None:
    """Core rule ``lmml_keep_escapes``, run before ``text_join``: an LMML escape's token
    (a ``text_special`` the plugin marked), a ``\\{`` and a ``\\|`` escape become
    ``lmml_escape`` tokens, written as they were (mdformat alone drops them, which turns
    ``\\@chart.png`` into a reference, ``\\{{`` into a placeholder and splits a table's
    cell); an entity that would start or end a reference once decoded (``&#64;x.png``,
    ``&#95;@x.png``) an ``lmml_verbatim`` one."""
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        children = token.children
        for index, child in enumerate(children):
            if child.type != "text_special":
                continue
            if child.info == ESCAPE_TOKEN_INFO and (
                child.meta.get("lmml_escape") or child.markup in _KEPT_ESCAPES
            ):
                child.type = ESCAPE_TOKEN
            elif child.info == ENTITY_TOKEN_INFO and (
                child.content == SIGIL
                or (index + 1 < len(children) and children[index + 1].type == "lmml_ref")
            ):
                child.type = VERBATIM_TOKEN


def _inline_links(state: StateCore) -> None:
    """Core rule ``lmml_inline_links``: a reference-style link or image is written in its
    inline form (``[text](href "title")``), since mdformat gathers every definition at the
    end of the document, which moves it out of its turn into the last one."""
    pending = [token for token in state.tokens if token.type == "inline" and token.children]
    while pending:
        for child in pending.pop().children or ():
            if child.type == "link_open" or (
                child.type == "image" and '"' not in str(child.attrs.get("title", ""))
            ):
                child.meta.pop("label", None)
            if child.children:
                pending.append(child)


def _complete_inlines(state: StateCore) -> None:
    """Core rule ``lmml_inline_children``: every inline token with content has its
    children (mdformat renders from them), even from a parse that builds some lazily."""
    md = state.md
    for token in state.tokens:
        if token.type == "inline" and token.content and not token.children:
            token.children = []
            md.inline.parse(token.content, md, state.env, token.children)


def _skip_bom(state: StateCore) -> None:
    """Core rule ``lmml_bom``: a leading byte-order mark is skipped, as
    :func:`~lmml_mdit.parse` skips it, so a delimiter on the first line stays one."""
    if state.src.startswith("\ufeff"):
        state.src = state.src[1:]


def update_mdit(mdit: MarkdownIt) -> None:
    """mdformat's hook: install the LMML rules (and front matter) on its parser.

    References are read in the ``"any"`` mode, so every syntactic ``@name`` is a token
    written back as it is, whether or not a reader will know the name.

    :param mdit: mdformat's parser (changed in place).
    """
    if "lmml_bom" not in mdit.core.ruler.get_all_rules():
        mdit.core.ruler.before("normalize", "lmml_bom", _skip_bom)
    mdit.use(lmml_plugin, references="any")  # with front matter
    mdit.core.ruler.after("inline", "lmml_inline_children", _complete_inlines)
    mdit.core.ruler.before("text_join", "lmml_keep_escapes", _keep_escapes)
    mdit.core.ruler.after("lmml_inline_children", "lmml_inline_links", _inline_links)


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
    return (
        node is not None
        and node.type == ESCAPE_TOKEN
        and node.markup != "\\" + SIGIL
        and node.markup not in _KEPT_ESCAPES
    )


def _on_escaped_line(node: RenderTreeNode) -> bool:
    """Whether *node* is on (a soft break: ends) a line that starts with a delimiter escape."""
    sibling = node.previous_sibling
    while sibling is not None and sibling.type != "softbreak":
        if sibling.previous_sibling is None or sibling.previous_sibling.type == "softbreak":
            return _starts_escaped_line(sibling)
        sibling = sibling.previous_sibling
    return False


def _ends_bare_marker(node: RenderTreeNode) -> bool:
    """Whether the softbreak *node* ends a paragraph's first line that is a bare ``@@@``,
    which joined to the next line would open a fence (``@@@ more words``)."""
    sibling = node.previous_sibling
    return (
        sibling is not None
        and sibling.previous_sibling is None
        and sibling.type == "text"
        and sibling.content.strip() == MARKER
    )


def _paragraph_of(node: RenderTreeNode) -> RenderTreeNode | None:
    """The paragraph holding the inline *node*, or None (a heading's text)."""
    parent = node.parent
    while parent is not None and parent.type != "paragraph":
        parent = parent.parent
    return parent


@functools.cache
def _table_reader() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


_TABLES_KEY = "lmml_format_tables"
"""The ``env`` key of what :func:`_holds_table` found, by paragraph, for one rendering."""


def _holds_table(node: RenderTreeNode, context: RenderContext) -> bool:
    """Whether the paragraph holding *node* is, or holds, a GFM table: the parse reads one
    there (mdformat's core has none, so to it the table is a paragraph to wrap)."""
    paragraph = _paragraph_of(node)
    if paragraph is None:
        return False
    found: dict[int, bool] = context.env.setdefault(_TABLES_KEY, {})
    key = id(paragraph)
    if key not in found:
        content = paragraph.children[0].content if paragraph.children else ""
        found[key] = "|" in content and any(
            token.type == "table_open" for token in _table_reader().parse(content)
        )
    return found[key]


_OPEN_LINES_KEY = "lmml_format_open_lines"
"""The ``env`` key of the soft breaks that end a line with an unclosed ``{{``, by
paragraph, for one rendering."""


def _in_open_braces(node: RenderTreeNode) -> set[int]:
    """The soft breaks (by ``id``) of the paragraph holding *node* whose line has a ``{{``
    with no ``}}`` after it: joined to the next line, the two could make a placeholder
    (``{{`` + ``name }}``), which a line break keeps from being one."""
    paragraph = _paragraph_of(node)
    assert paragraph is not None
    breaks: set[int] = set()
    line = ""
    for part in paragraph.walk(include_self=False):
        if part.type in ("softbreak", "hardbreak"):
            if part.type == "softbreak" and line.rfind("{{") > line.rfind("}}"):
                breaks.add(id(part))
            line = ""
        elif not part.children:
            line += part.content or part.markup
    return breaks


def _opens_placeholder(node: RenderTreeNode, context: RenderContext) -> bool:
    """Whether the soft break *node* ends a line with an unclosed ``{{``."""
    paragraph = _paragraph_of(node)
    if paragraph is None:
        return False
    found: dict[int, set[int]] = context.env.setdefault(_OPEN_LINES_KEY, {})
    key = id(paragraph)
    if key not in found:
        found[key] = _in_open_braces(node)
    return id(node) in found[key]


def _render_softbreak(node: RenderTreeNode, context: RenderContext) -> str:
    """mdformat's soft break, except where wrapping must keep the line break: around an
    escaped delimiter line (which must neither join another line nor move), after a
    paragraph's bare ``@@@`` first line, after a line with an unclosed ``{{`` (joined,
    ``{{`` and ``name }}`` would make a placeholder) and in a paragraph that is a table
    to the parse."""
    if context.do_wrap and (
        _starts_escaped_line(node.next_sibling)
        or _on_escaped_line(node)
        or _ends_bare_marker(node)
        or _opens_placeholder(node, context)
        or _holds_table(node, context)
    ):
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


@functools.cache
def _html_reader() -> MarkdownIt:
    return MarkdownIt("commonmark")


def _opens_html_block(line: str) -> bool:
    """Whether *line*, as a block's first line, opens an HTML block (``<b>`` alone)."""
    tokens = _html_reader().parse(line)
    return bool(tokens) and tokens[0].type == "html_block"


def _keep_first_line_inline(text: str) -> str:
    """A wrapped paragraph whose first line is an HTML tag alone (``<b>``, which wrapping
    left there) gets its next line joined to it: as a block's first line, the tag would
    open an HTML block and swallow the paragraph (mdformat guards only the later lines,
    for the tags that can interrupt a paragraph)."""
    first, newline, rest = text.partition("\n")
    while newline and _opens_html_block(first):
        line, newline, rest = rest.partition("\n")
        first = f"{first} {line.lstrip(' ')}"
    return first + newline + rest


def _guard_paragraph(text: str, node: RenderTreeNode, context: RenderContext) -> str:
    """A paragraph line that would open an ``@@@`` fence is indented to stay text, and,
    with wrapping on, a first line that would open an HTML block is joined to the next."""
    if context.do_wrap and text.startswith("<"):
        text = _keep_first_line_inline(text)
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


def _join_placeholders(text: str, node: RenderTreeNode, context: RenderContext) -> str:
    """With wrapping on, the spaces inside a ``{{ name }}`` are no places to break a line
    (a placeholder split over two lines is no placeholder), nor those inside an escaped
    ``\\{{ name }}``, whose text starts at its second brace (the first is an escape); nor
    is any space of a paragraph that is a table to the parse (a row split over two lines
    is no row), nor of a line that starts with a delimiter escape (split, ``\\<!--`` and
    ``user -->`` are no delimiter, and the escape no longer LMML's)."""
    if not context.do_wrap:
        return text
    from mdformat.renderer import WRAP_POINT

    if WRAP_POINT in text and (_holds_table(node, context) or _on_escaped_line(node)):
        return text.replace(WRAP_POINT, " ")
    if "}}" not in text:
        return text

    pieces: list[str] = []
    position = 0
    if text.startswith("{") and not text.startswith("{{"):
        end = text.find("}}")
        if "{{" not in text[:end]:
            pieces.append(text[:end].replace(WRAP_POINT, " "))
            position = end
    while (start := text.find("{{", position)) != -1:
        end = text.find("}}", start + 2)
        if end == -1:
            break
        pieces.append(text[position:start])
        pieces.append(text[start:end].replace(WRAP_POINT, " "))
        position = end
    pieces.append(text[position:])
    return "".join(pieces)


_LOGGER: Final = logging.getLogger("mdformat.renderer")
"""mdformat's renderer logger: its command line prints what it gets as ``Warning: ...``."""

_CHECKED_BY_CALLER: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "lmml_format_checked_by_caller", default=False
)
"""Set by :func:`format_text`, which checks the whole result itself (and refuses it with
:class:`~lmml_mdit.errors.FormatError`), so that :func:`_keep_meaning` need not."""


def _written(text: str, env: Mapping[str, object]) -> str:
    """What mdformat writes for the document *text* rendered to: the link definitions it
    adds at the end (those of the links written by label), and the final newline."""
    used = env.get("used_refs")
    references = env.get("references")
    if used and isinstance(used, set) and isinstance(references, dict):
        lines = []
        for label in sorted(used):
            reference = references[label]
            title = str(reference.get("title") or "").replace('"', '\\"')
            item = f"[{label.lower()}]: {reference.get('href') or '<>'}"
            lines.append(f'{item} "{title}"' if title else item)
        text += "\n\n" + "\n".join(lines)
    return text + "\n" if text else text


def _keep_meaning(text: str, node: RenderTreeNode, context: RenderContext) -> str:
    """The document mdformat wrote, or, when it reads as another conversation than the
    source (:func:`outline`: turns, embeds, escapes, placeholders, text sent), the source
    as it was, with a warning naming the first difference. mdformat's own check compares
    the HTML only, which a dropped definition or a joined table row leaves the same."""
    source = context.env.get(SOURCE_KEY)
    if _CHECKED_BY_CALLER.get() or not isinstance(source, str):
        return text
    filename = context.options.get("mdformat", {}).get("filename") or None
    if filename == "-":  # mdformat's name for standard input
        filename = STDIN_LABEL
    refusal = _refusal(
        parse(source, name=filename),
        parse(_written(text, context.env), name=filename),
        name=filename,
        hint="the file is left as it is; rewrite the Markdown around what is named so "
        "that mdformat keeps it, or leave the file out of formatting",
    )
    if refusal is None:
        return text
    _LOGGER.warning(str(refusal))
    context.env["used_refs"] = set()  # the source keeps its own definitions
    return source[:-1] if source.endswith("\n") else source


POSTPROCESSORS: Mapping[str, Postprocess] = types.MappingProxyType(
    {"paragraph": _guard_paragraph, "text": _join_placeholders, "root": _keep_meaning}
)
"""mdformat's postprocessors: a paragraph's lines kept from opening a fence (and, wrapped,
its first line from opening an HTML block), a placeholder from being wrapped, and the
document as it was when it would read as another conversation."""


# --------------------------------------------------------------------------- the library call


Outline = tuple[tuple[object, ...], ...]
"""What formatting keeps, per turn: its role and heading, then the parts of
:data:`OUTLINE_PARTS` in that order."""

OUTLINE_PARTS: Final = ("embeds", "escapes", "placeholders", "text")
"""The parts of a turn :func:`outline` lists after its role and heading: its embeds and
references (kind, name, a fence's bytes, whether it closes), the characters its LMML
escapes keep, its placeholders and ``\\{{`` escapes, and the text it sends, as Markdown
reads it (its HTML, runs of white space made one space)."""


_ESCAPED_OPENING: Final = "\\{{"
"""How :func:`outline` marks a ``\\{{`` escape among a turn's placeholders."""


def _meaning(md: MarkdownIt, text: str) -> str:
    """*text* as Markdown reads it: its HTML, each run of white space one space, none at
    the edges of a paragraph or before the end of code (mdformat rewraps, reindents and
    closes an open code fence; none of that changes what a reader is sent)."""
    html = " ".join(md.render(text).split())
    for spaced, kept in (("<p> ", "<p>"), (" </p>", "</p>"), (" </code>", "</code>")):
        html = html.replace(spaced, kept)
    return html


@functools.cache
def _turn_reader() -> MarkdownIt:
    """The parser of :func:`_meaning`: the parse's rules, references in the ``"any"`` mode,
    without front matter, since a turn's text is read alone and a ``---`` line at its start
    is a thematic break (as front matter, it would hide the text up to the next ``---``)."""
    from ..narrative import GFM_RULES

    md = LinkParser("commonmark").enable(GFM_RULES)
    return md.use(lmml_plugin, references="any", front_matter=False)


def outline(narrative: Narrative) -> Outline:
    """What :func:`format_text` must keep of *narrative*: per turn its role and heading,
    then its embeds, escapes, placeholders and text (see :data:`OUTLINE_PARTS`).

    :param narrative: a parse.
    """
    turns = narrative.turns
    starts = [turn.delimiter_line or turn.start_line for turn in turns]
    count = max(len(turns), 1)
    embeds: list[list[object]] = [[] for _ in range(count)]
    escapes: list[list[str]] = [[] for _ in range(count)]
    placeholders: list[list[object]] = [[] for _ in range(count)]

    def turn_of(line: int) -> int:
        return max(bisect.bisect_right(starts, line) - 1, 0)

    for embed in narrative.embeds:
        embeds[turn_of(embed.line)].append((embed.kind, embed.name, embed.content, embed.closed))
    lines = narrative.lines
    for line, column in narrative.escapes:
        escapes[turn_of(line)].append(lines[line - 1][column : column + 1])
    found = narrative.placeholders
    for placeholder in found.found:
        placeholders[turn_of(placeholder.line)].append(
            (placeholder.path, placeholder.context, placeholder.fence)
        )
    for escape in found.escapes:
        placeholders[turn_of(escape.line)].append((_ESCAPED_OPENING, escape.context, escape.name))
    md = _turn_reader()
    heads: list[tuple[object, ...]] = [(turn.role, turn.heading) for turn in turns] or [
        ("context", None)
    ]
    texts = [_meaning(md, turn.text) for turn in turns] or [""]
    return tuple(
        (
            *heads[index],
            tuple(embeds[index]),
            "".join(escapes[index]),
            tuple(placeholders[index]),
            texts[index],
        )
        for index in range(count)
    )


def _shown_item(item: object) -> str:
    if not isinstance(item, tuple):
        return "nothing"
    kind, name, content, _ = item
    if kind == "inline" and isinstance(content, bytes):
        return f"the fence {MARKER}{name} ({len(content)} bytes)"
    return f"the reference {SIGIL}{name}"


_ESCAPES_DIFFER: Final = "the LMML escapes would keep"


def _first_difference(before: Outline, after: Outline) -> str:
    """The first difference of two outlines, in words."""
    if len(before) != len(after):
        return f"it would have {len(after)} turns instead of {len(before)}"
    for number, (was, now) in enumerate(zip(before, after, strict=True), 1):
        if was[:2] != now[:2]:
            return f"turn {number} ({was[0]}, {was[1]!r}) would become ({now[0]}, {now[1]!r})"
        where = f"in turn {number} ({was[0]}), "
        was_embeds, now_embeds = was[2], now[2]
        assert isinstance(was_embeds, tuple) and isinstance(now_embeds, tuple)
        for index in range(max(len(was_embeds), len(now_embeds))):
            was_item = was_embeds[index] if index < len(was_embeds) else None
            now_item = now_embeds[index] if index < len(now_embeds) else None
            if was_item != now_item:
                return f"{where}{_shown_item(was_item)} would become {_shown_item(now_item)}"
        if was[3] != now[3]:
            return f"{where}{_ESCAPES_DIFFER} {now[3]!r} instead of {was[3]!r}"
        if was[4] != now[4]:
            return f"{where}the placeholders would be {_shown(now[4])} instead of {_shown(was[4])}"
        if was[5] != now[5]:
            return f"{where}the text sent would read differently as Markdown"
    return "nothing"


def _shown(placeholders: object) -> str:
    assert isinstance(placeholders, tuple)
    return ", ".join(_shown_placeholder(found) for found in placeholders) or "none"


def _shown_placeholder(found: tuple[object, ...]) -> str:
    """One placeholder of an outline as written (``{{ a.b }}``, and where it is when not
    in text), or a ``\\{{`` escape (``\\{{ name }}``)."""
    first, context, last = found
    if first == _ESCAPED_OPENING:
        return f"{first} {last} }}}}" if isinstance(last, str) else f"{first} ... }}}}"
    shown = f"{{{{ {first} }}}}"
    if context == "code":
        return f"{shown} (in code)"
    return f"{shown} (in {last})" if isinstance(last, str) else shown


def _line_of_difference(
    before: Narrative, after: Narrative, at: str
) -> tuple[int | None, int | None]:
    """Where in *before* the difference *at* describes: a line and, for an escape, its
    column (1-based)."""
    for was, now in zip(before.embeds, after.embeds, strict=False):
        if (was.kind, was.name, was.content) != (now.kind, now.name, now.content):
            return was.line, None
    for was_turn, now_turn in zip(before.turns, after.turns, strict=False):
        if (was_turn.role, was_turn.heading) != (now_turn.role, now_turn.heading):
            return was_turn.delimiter_line or was_turn.start_line, None
    if _ESCAPES_DIFFER in at:
        escape = _first_lost_escape(before, after)
        if escape is not None:
            return escape
    if at.startswith("in turn "):
        number = int(at[len("in turn ") :].split(" ", 1)[0])
        if number <= len(before.turns):
            turn = before.turns[number - 1]
            return turn.delimiter_line or turn.start_line, None
    return None, None


def _first_lost_escape(before: Narrative, after: Narrative) -> tuple[int, int] | None:
    """The line and column of the first escape of *before* that *after* does not keep (the
    escapes compared in order, by the character each keeps)."""
    kept = [_escaped(after, line, column) for line, column in after.escapes]
    for index, (line, column) in enumerate(before.escapes):
        if index >= len(kept) or kept[index] != _escaped(before, line, column):
            return line, column
    return None


def _escaped(narrative: Narrative, line: int, column: int) -> str:
    """The character the escape whose backslash is at *line*, *column* keeps."""
    return narrative.lines[line - 1][column : column + 1]


def _register() -> None:
    """Make this module mdformat's ``lmml`` extension when no installed distribution
    declares it (a source checkout on ``sys.path``); the entry point wins when present."""
    import mdformat.plugins

    extensions = mdformat.plugins.PARSER_EXTENSIONS
    if EXTENSION_NAME not in extensions:
        import sys

        extensions[EXTENSION_NAME] = sys.modules[__name__]  # type: ignore[index]


_PASSES: Final = 3
"""How many times mdformat may rewrite a text before its output must stop changing."""


def _settled(text: str, options: dict[str, object], name: str | None) -> str:
    """mdformat's output for *text*, formatted again until it no longer changes (mdformat
    alone can write ``\\_`` one time and drop it the next), so formatting is idempotent.

    :raises FormatError: when it has not settled after :data:`_PASSES` passes.
    """
    import mdformat

    for _ in range(_PASSES):
        formatted: str = mdformat.text(text, options=options, extensions=[EXTENSION_NAME])
        if formatted == text:
            return formatted
        text = formatted
    raise FormatError(
        f"formatting does not settle: mdformat rewrites its own output {_PASSES} times over",
        name=name,
        hint="leave this file out of formatting",
    )


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
        reference, an escape, a placeholder or the text a turn sends (the text is then
        best left as it is), naming the first difference; or when mdformat's output does
        not settle.
    :raises LmmlSyntaxError: for a text holding a lone surrogate.
    """
    before = parse(text, name=name, known_names=known_names)
    _register()
    checked = _CHECKED_BY_CALLER.set(True)
    try:
        formatted = _settled(before.source, dict(options or {}), name)
    finally:
        _CHECKED_BY_CALLER.reset(checked)
    after = parse(formatted, name=name, known_names=known_names)
    refusal = _refusal(
        before,
        after,
        name=name,
        hint="leave this file out of formatting, or rewrite the Markdown around what is "
        "named so that mdformat keeps it",
    )
    if refusal is not None:
        raise refusal
    return formatted


def _is_closing(line: str, marker: str) -> bool:
    """Whether *line* (a container's prefix and indentation aside) closes a fence opened
    with *marker*."""
    stripped = line.lstrip(" \t>")
    return stripped.startswith(marker) and not stripped.rstrip().strip(marker[0])


def _unclosed_fence(narrative: Narrative) -> tuple[int, str, bool] | None:
    """The first code or ``@@@`` fence *narrative* leaves unclosed inside a list item or a
    block quote (a line indented less than the item's text, or without the quote's ``>``,
    ended the container before the fence's closing line): its 1-based line, how it opens
    (its marker, and an ``@@@`` fence's name) and whether its container is a list item;
    None when there is none."""
    lines = narrative.source.split("\n")
    containers: list[bool] = []  # True: a list item; False: a block quote
    for token in narrative.tokens:
        if token.type in ("list_item_open", "blockquote_open"):
            containers.append(token.type == "list_item_open")
        elif token.type in ("list_item_close", "blockquote_close"):
            containers.pop()
        elif containers and token.map is not None:
            first, last = token.map
            if token.type == "lmml_embed" and not token.meta.get("closed", True):
                return first + 1, MARKER + str(token.meta.get("name", "")), containers[-1]
            if token.type == "fence" and (
                last - first < 2 or not _is_closing(lines[last - 1], token.markup)
            ):
                return first + 1, token.markup, containers[-1]
    return None


def _fence_hint(narrative: Narrative) -> tuple[int, str] | None:
    """What to do about a fence left unclosed inside a list item or a block quote (the
    formatter cannot keep one: mdformat writes the container's blank lines, and closes a
    code fence), and the fence's line; None when there is none."""
    found = _unclosed_fence(narrative)
    if found is None:
        return None
    line, opening, in_item = found
    opener = narrative.lines[line - 1]
    prefix = opener[: len(opener) - len(opener.lstrip(" \t"))]
    indent = f"{len(prefix)} spaces" if prefix.strip(" ") == "" else "the same tabs and spaces"
    closing = MARKER if opening.startswith(MARKER) else opening
    if in_item:
        return line, (
            f"the fence {opening} at line {line} is inside a list item, but a line after it "
            "is indented less than the item's text, which ends the item and leaves the "
            f"fence unclosed: indent each line of the block and its closing {closing} as "
            f"line {line} is ({indent}), or, to make it a block of its own after "
            f"the list, put a blank line before it and start {opening} at the line's start"
        )
    return line, (
        f"the fence {opening} at line {line} is inside a block quote, but a line after it "
        "does not start with '>', which ends the quote and leaves the fence unclosed: start "
        f"each line of the block and its closing {closing} with '>' as line {line} does, "
        "or take the fence out of the quote"
    )


def _refusal(
    before: Narrative, after: Narrative, *, name: str | None, hint: str
) -> FormatError | None:
    """The error naming the first difference between the conversations *before* and
    *after* formatting (located in *before*), or None when they are the same. A fence left
    unclosed in a list item or a block quote, which the formatter cannot keep, is named
    with what to write instead."""
    was, now = outline(before), outline(after)
    if was == now:
        return None
    difference = _first_difference(was, now)
    line, column = _line_of_difference(before, after, difference)
    fence = _fence_hint(before)
    if fence is not None:
        line, column, hint = fence[0], None, f"{fence[1]}; {hint}"
    return FormatError(
        "formatting would change the conversation: " + difference,
        name=name,
        line=line,
        column=column,
        hint=hint,
    )
