"""LMML escapes: the backslashes that exist for the parser, not for the model.

``\\@`` anywhere, and a backslash before a line that would otherwise be a role delimiter.
The rule takes the place of markdown-it's ``escape`` rule (keeping its name), makes the
token ``escape`` would and records each backslash's position for ``env["lmml_escapes"]``.
Grammar: docs/syntax.md, "LMML escapes".
"""

from __future__ import annotations

import re

from markdown_it.rules_inline import StateInline

from ._keys import FOUND_KEY, INLINE_PARENT_KEY, NEW_REFS_KEY, OPENER_KEY, UNDERLINE_KEY
from ._positions import FoundInline
from ._reference import InlineRule
from ._roles import DelimiterMode, atx_content_end, comment_role, heading_role

ESCAPE_TOKEN_INFO = "escape"
_LINE_ESCAPABLE = frozenset("#<-=")
_ESCAPABLE = _LINE_ESCAPABLE | {"@"}
_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*")


def _at_line_start(src: str, pos: int) -> int | None:
    """The content offset where *pos*'s line starts, if only spaces precede *pos* on it."""
    start = pos
    while start > 0 and src[start - 1] in " \t":
        start -= 1
    if start == 0 or src[start - 1] == "\n":
        return start
    return None


def _atx_text(line: str) -> str | None:
    """The text of *line* read as an ATX heading (``#`` characters first), or None."""
    opening = len(line) - len(line.lstrip("#"))
    if opening > 6:
        return None
    after = line[opening:]
    if after[:1] not in ("", " ", "\t"):
        return None
    if not after.strip(" \t").strip("#"):
        return ""  # empty, or only a closing sequence
    content = after.lstrip(" \t")
    return content[: atx_content_end(content)]


def escapes_delimiter(
    src: str, pos: int, line_start: int, delimiters: DelimiterMode, first_underline: bool = True
) -> bool:
    """Whether the line of ``src[pos]`` (a backslash at its line start) would be a role
    delimiter without the backslash.

    :param first_underline: whether no earlier escaped underline stands in this content
        (only the first could have ended a setext heading).
    """
    end = src.find("\n", pos)
    rest = src[pos + 1 : len(src) if end < 0 else end]
    first = rest[:1]
    if first == "#":
        text = _atx_text(rest)
        return text is not None and heading_role(text, delimiters) is not None
    if first == "<":
        return comment_role(rest) is not None
    if first_underline and _UNDERLINE.fullmatch(rest):
        above = src[:line_start].strip()
        return bool(above) and heading_role(above, delimiters) is not None
    return False


def make_escape_rule(delimiters: DelimiterMode, markdown_escape: InlineRule) -> InlineRule:
    """The ``escape`` inline rule: LMML escapes (delimiters read in *delimiters* mode),
    and every other escape by *markdown_escape*, the rule it replaces."""

    def lmml_escape(state: StateInline, silent: bool) -> bool:
        pos = state.pos
        src = state.src
        if src[pos] != "\\" or pos + 1 >= state.posMax:
            return False
        escaped = src[pos + 1]
        if escaped not in _ESCAPABLE:
            return markdown_escape(state, silent)
        if escaped != "@":
            line_start = _at_line_start(src, pos)
            if line_start is None:
                return markdown_escape(state, silent)
            env = state.env
            parent = env.get(INLINE_PARENT_KEY)
            opener = env.get(OPENER_KEY)
            first_underline = True
            if escaped in "-=":
                first_underline = env.get(UNDERLINE_KEY) is not parent
                env[UNDERLINE_KEY] = parent
            # Delimiters are top level: only a line of a top-level paragraph could have been
            # one, or of a setext heading, which is a paragraph its escaped lines ran into.
            if (
                parent is None
                or parent.content is not src
                or opener is None
                or opener.level != 0
                or not (
                    opener.type == "paragraph_open"
                    or (opener.type == "heading_open" and opener.markup in ("=", "-"))
                )
                or not escapes_delimiter(src, pos, line_start, delimiters, first_underline)
            ):
                return markdown_escape(state, silent)
        if not silent:
            token = state.push("text_special", "", 0)
            token.content = escaped
            token.markup = "\\" + escaped
            token.info = ESCAPE_TOKEN_INFO
            env = state.env
            parent = env.get(INLINE_PARENT_KEY)
            if parent is not None and parent.content is src:
                found: FoundInline | None = env.get(FOUND_KEY)
                if found is None:
                    token.meta = {"pos": pos, "lmml_escape": True}
                    env[NEW_REFS_KEY].append(token)
                else:  # the fast parse: the position alone (see .collect)
                    found.add(pos, None)
        state.pos = pos + 2
        return True

    return lmml_escape
