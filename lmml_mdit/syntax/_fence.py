"""The inline embed fence: ``@@@name`` … ``@@@``, an ``lmml_embed`` token.

The content is every character between the opening line and the closing marker, verbatim;
a fence may interrupt a paragraph and works inside block quotes and list items, and an
unclosed one runs to the end of its container (``meta["closed"] = False``). Grammar:
docs/syntax.md, "Inline embed fence"; the token's fields: "Tokens".
"""

from __future__ import annotations

from markdown_it.rules_block import StateBlock

from ._keys import FENCE_TOKENS_KEY

MARKER = "@@@"


def _is_close_line(text: str) -> bool:
    return text.strip() == MARKER


def embed_fence(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """Block rule for ``@@@name`` fences."""
    start = state.bMarks[start_line] + state.tShift[start_line]
    line_end = state.eMarks[start_line]
    # The cheap test first: this rule is tried at every block start and paragraph line.
    if not state.src.startswith(MARKER, start, line_end) or state.is_code_block(start_line):
        return False
    name = state.src[start + len(MARKER) : line_end].strip()
    if not name:
        return False
    if silent:
        return True

    content_indent = state.blkIndent
    next_line = start_line + 1
    closed = False
    tail = ""
    while next_line < end_line:
        line_start = state.bMarks[next_line] + state.tShift[next_line]
        line_stop = state.eMarks[next_line]
        if line_start < line_stop and state.sCount[next_line] < state.blkIndent:
            # A non-blank line outdented past the container ends the container, and us.
            break
        text = state.src[line_start:line_stop]
        if _is_close_line(text):
            closed = True
            break
        stripped = text.rstrip()
        if stripped.endswith(MARKER):
            # The Elixir reference's inliner writes `content@@@` on the last content line.
            tail = state.getLines(next_line, next_line + 1, content_indent, False).rstrip()
            tail = tail[: -len(MARKER)]
            closed = True
            break
        next_line += 1

    content = state.getLines(start_line + 1, next_line, content_indent, True) + tail
    last_line = next_line + 1 if closed else next_line
    state.line = last_line

    token = state.push("lmml_embed", "figure", 0)
    token.block = True
    token.info = name
    token.content = content
    token.markup = MARKER
    token.map = [start_line, last_line]
    token.meta = {
        "name": name,
        "closed": closed,
        "line": start_line + 1,
        "column": start - state.src.rfind("\n", 0, start),
    }
    state.env.setdefault(FENCE_TOKENS_KEY, []).append(token)
    return True
