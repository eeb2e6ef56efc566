"""One block rule for the plugin's two line-start constructs, dispatched on the first
character.

markdown-it tries every block rule at each block start and every terminator rule at each
paragraph line, so the plugin adds a single rule there, placed just before ``html_block``
(rules that claim a line earlier, lists, quotes, code, never call it). It costs one
character test on a line that starts with neither ``@`` nor ``<``.
"""

from __future__ import annotations

from collections.abc import Callable

from markdown_it.rules_block import StateBlock

from ._fence import embed_fence
from ._roles import role_comment

BlockRule = Callable[[StateBlock, int, int, bool], bool]

_FIRST_CHARACTERS = frozenset("@<")
"""What a line the rule may claim starts with: ``@`` (a fence), ``<`` (a role comment)."""


def make_block_rule(*, fences: bool, roles: bool) -> BlockRule:
    """The ``lmml_block`` rule: ``@@@name`` fences (if *fences*) and ``<!-- role -->``
    delimiters (if *roles*)."""

    def lmml_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        # Called on every line a paragraph continues to: one index and one set test.
        try:
            first = state.src[state.bMarks[start_line] + state.tShift[start_line]]
        except IndexError:  # a blank last line with no newline
            return False
        if first not in _FIRST_CHARACTERS:
            return False
        if first == "@":
            return fences and embed_fence(state, start_line, end_line, silent)
        return roles and role_comment(state, start_line, end_line, silent)

    return lmml_block
