"""Source positions for inline tokens.

markdown-it gives inline tokens no positions: their ``pos`` is relative to the parent
``inline`` token's content, whose lines have had container prefixes and indentation removed.
This module replaces the core ``inline`` rule with one that tells inline rules which token
they are parsing, and afterwards maps each new reference to its 1-based source line and
column. The mapping work is done only for inline tokens that hold references, so plain
Markdown pays one dictionary store per inline token.
"""

from __future__ import annotations

from typing import Any

from markdown_it.rules_core import StateCore
from markdown_it.token import Token

INLINE_PARENT_KEY = "_lmml_inline_parent"
NEW_REFS_KEY = "_lmml_new_refs"
_LINE_STARTS_KEY = "_lmml_line_starts"
_LINE_CURSOR_KEY = "_lmml_line_cursor"


def inline_with_positions(state: StateCore) -> None:
    """Core rule standing in for markdown-it's ``inline``: parse inlines, then position refs."""
    env = state.env
    new_refs: list[Token] = []
    env[NEW_REFS_KEY] = new_refs
    parse_inline = state.md.inline.parse
    for token in state.tokens:
        if token.type == "inline":
            if token.children is None:
                token.children = []
            env[INLINE_PARENT_KEY] = token
            parse_inline(token.content, state.md, env, token.children)
            if new_refs:
                _place_references(state.src, env, token, new_refs)
                token.meta["lmml_refs"] = new_refs
                new_refs = []
                env[NEW_REFS_KEY] = new_refs
    for key in (INLINE_PARENT_KEY, NEW_REFS_KEY, _LINE_STARTS_KEY, _LINE_CURSOR_KEY):
        env.pop(key, None)


def _line_start(src: str, env: Any, line: int) -> int:
    """Offset of 0-based *line* in *src*, extending a cached table lazily (linear overall)."""
    starts: list[int] = env.setdefault(_LINE_STARTS_KEY, [0])
    while len(starts) <= line:
        found = src.find("\n", starts[-1])
        if found < 0:
            return len(src)
        starts.append(found + 1)
    return starts[line]


def _place_references(src: str, env: Any, parent: Token, refs: list[Token]) -> None:
    """Set ``meta["line"]``, ``meta["column"]`` and ``map`` on each ref of *parent*."""
    content = parent.content
    first_line = parent.map[0] if parent.map else 0
    cursors: dict[int, int] = env.setdefault(_LINE_CURSOR_KEY, {})
    counted_to = 0
    content_line = 0
    placed_line = -1
    offset_in_source = 0
    for ref in refs:
        pos: int = ref.meta["pos"]
        if pos < counted_to:  # a rare backwards step: count again from the start
            counted_to, content_line = 0, 0
        content_line += content.count("\n", counted_to, pos)
        counted_to = pos
        line_in_content_start = content.rfind("\n", 0, pos) + 1
        if content_line != placed_line:
            placed_line = content_line
            source_line = first_line + content_line
            start = _line_start(src, env, source_line)
            end = src.find("\n", start)
            end = len(src) if end < 0 else end
            line_end_in_content = content.find("\n", pos)
            text = content[
                line_in_content_start : len(content) if line_end_in_content < 0 else line_end_in_content
            ]
            found = src.find(text, start + cursors.get(source_line, 0), end)
            offset_in_source = found - start if found >= 0 else 0
            if found >= 0:
                cursors[source_line] = offset_in_source + len(text)
        line_number = first_line + content_line + 1
        ref.meta["line"] = line_number
        ref.meta["column"] = offset_in_source + (pos - line_in_content_start) + 1
        ref.map = [line_number - 1, line_number]
