"""What differs between the markdown-it-py lines the package supports (3.x and 4.x), in
one place: the rest of the package calls these and never asks which line is installed.

markdown-it-py 4 lets a plugin add a character that stops the ``text`` rule and keeps the
set as a compiled pattern on the inline parser; markdown-it-py 3 has a fixed set (which
already holds ``@``) in its ``text`` rule. markdown-it-py 4 buffers pending text behind
``append_pending``; markdown-it-py 3 has a plain string.
"""

from __future__ import annotations

import functools
import importlib
import re

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

__all__ = ["add_terminator_char", "append_pending", "terminator_pattern"]


def add_terminator_char(md: MarkdownIt, char: str) -> None:
    """Make *char* stop markdown-it's ``text`` rule, so the inline rules see it.

    :raises ValueError: on markdown-it-py 3 for a character its fixed set lacks.
    """
    add = getattr(md.inline, "add_terminator_char", None)
    if add is not None:
        add(char)
    elif char not in _fixed_terminators():
        raise ValueError(f"markdown-it-py 3 cannot stop its text rule at {char!r}")


def terminator_pattern(md: MarkdownIt) -> re.Pattern[str]:
    """The pattern of the characters that stop *md*'s ``text`` rule."""
    pattern: re.Pattern[str] | None = getattr(md.inline, "terminator_re", None)
    if pattern is not None:
        return pattern
    return _fixed_pattern()


def append_pending(state: StateInline, text: str) -> None:
    """Add *text* to the inline state's pending text (flushed into one ``text`` token)."""
    append = getattr(state, "append_pending", None)
    if append is not None:
        append(text)
    else:
        state.pending += text


@functools.cache
def _fixed_terminators() -> frozenset[str]:
    # The module, not the rule function that ``markdown_it.rules_inline`` exports by its name.
    module = importlib.import_module("markdown_it.rules_inline.text")
    chars: set[str] = getattr(module, "_TerminatorChars", set())
    return frozenset(chars)


@functools.cache
def _fixed_pattern() -> re.Pattern[str]:
    return re.compile("[" + re.escape("".join(sorted(_fixed_terminators()))) + "]")
