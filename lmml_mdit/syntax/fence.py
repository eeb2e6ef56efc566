"""The inline embed fence: ``@@@name`` … ``@@@``.

Grammar (per line, after the container's own prefix such as ``> `` or list indentation)::

    fence        = open-line *content-line close
    open-line    = 0*3SP "@@@" *WSP name *WSP EOL      ; name is not empty
    close        = close-line / tail-close
    close-line   = *WSP "@@@" *WSP EOL                 ; content ends with the newline before it
    tail-close   = content-text "@@@" *WSP EOL         ; content ends just before "@@@"

The content is every character after the opening line up to the closing marker, verbatim:
no escaping, no Markdown, no references. A fence may interrupt a paragraph and works inside
block quotes and list items. Without a closing marker it runs to the end of its container and
its token records ``meta["closed"] = False``.

Token: ``lmml_embed`` (block, nesting 0), ``info`` and ``meta["name"]`` = name,
``content`` = content, ``map`` = the lines it spans, ``meta["line"]``/``meta["column"]``
(1-based) = where the ``@@@`` stands.
"""

from __future__ import annotations

from markdown_it.rules_block import StateBlock

from .keys import FENCE_TOKENS_KEY

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
