"""Role delimiters: the headings and comments that split a narrative into turns.

Grammar (top level of the document only; never inside a block quote, a list item, code or
an embed)::

    heading-delimiter = ATX or setext heading whose text holds a role word
    comment-delimiter = 0*3SP "<!--" *WSP role *WSP "-->" *WSP EOL
    role              = "user" / "assistant" / "system" / "tool"     ; any case
    role word         = the first whole word of the text that is a role

A comment delimiter is recognised whether or not the ``html`` option is on, and may
interrupt a paragraph. It becomes an ``lmml_role`` token; a heading delimiter stays a
``heading_open`` token. Both get ``meta["lmml_role"]``.
"""

from __future__ import annotations

import re

from markdown_it.rules_block import StateBlock

from ..model import MESSAGE_ROLES, Role
from .keys import ROLE_TOKENS_KEY

_ROLES: dict[str, Role] = {role: role for role in MESSAGE_ROLES}
# A role spelled out as a whole word: not preceded or followed by a letter (a word is a run
# of letters, so digits, "_" and punctuation separate words).
_ROLE_WORD = re.compile(
    r"(?<![^\W\d_])(?:" + "|".join(MESSAGE_ROLES) + r")(?![^\W\d_])", re.IGNORECASE
)
COMMENT_OPEN = "<!--"
COMMENT_CLOSE = "-->"


def role_word(text: str) -> Role | None:
    """The first whole word of *text* that names a role (any case), or None."""
    lowered = text.lower()
    # Most headings name no role at all: four substring tests rule them out cheaply.
    if not (
        "user" in lowered or "assistant" in lowered or "system" in lowered or "tool" in lowered
    ):
        return None
    for match in _ROLE_WORD.finditer(text):
        # IGNORECASE also folds a few non-ASCII letters onto ASCII ones ("ſ" onto "s"):
        # only a word that lowercases to a role counts.
        role = _ROLES.get(match.group().lower())
        if role is not None:
            return role
    return None


def comment_role(line: str) -> Role | None:
    """The role of a line that is only ``<!-- role -->``, or None."""
    text = line.strip()
    if not (text.startswith(COMMENT_OPEN) and text.endswith(COMMENT_CLOSE)):
        return None
    if len(text) < len(COMMENT_OPEN) + len(COMMENT_CLOSE):
        return None
    return _ROLES.get(text[len(COMMENT_OPEN) : -len(COMMENT_CLOSE)].strip().lower())


def role_comment(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """Block rule for ``<!-- role -->`` lines at the top level.

    As a terminator (*silent*), it also ends a list item's paragraph when the comment line
    is outdented past the item: that line is top-level, and without this a parser with
    ``html`` off would take it as a lazy continuation line of the item.
    """
    start = state.bMarks[start_line] + state.tShift[start_line]
    end = state.eMarks[start_line]
    # The cheap test first: this rule is tried at every block start and paragraph line.
    if not state.src.startswith(COMMENT_OPEN, start, end) or state.is_code_block(start_line):
        return False
    if state.level != 0 and not (silent and state.sCount[start_line] < state.blkIndent):
        return False
    line = state.src[start:end]
    role = comment_role(line)
    if role is None:
        return False
    if silent:
        return True
    state.line = start_line + 1
    token = state.push("lmml_role", "", 0)
    token.block = True
    token.info = role
    token.markup = line.strip()
    token.map = [start_line, start_line + 1]
    token.meta = {"lmml_role": role, "line": start_line + 1}
    state.env.setdefault(ROLE_TOKENS_KEY, []).append(token)
    return True
