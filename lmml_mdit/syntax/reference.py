"""The external reference: ``@name``.

Grammar::

    reference  = boundary "@" name
    boundary   = start of the inline content / a character that is not a letter, digit,
                 "_", "+", "-", "." or "@"
    name       = (letter / digit) *(letter / digit / "_" / "." / "-" / "/")
                 ; trailing ".", "-" and "/" are never part of the name

So ``bob@example.com`` and ``a@@b`` hold no reference, and ``Attached: @report.pdf.`` names
``report.pdf``. ``\\@`` escapes (markdown-it's escape rule takes it first). Code spans,
autolinks, raw HTML and link destinations are consumed by their own rules before this one
sees an ``@``; image alt text is parsed apart and holds no references either.

Token: ``lmml_ref`` (inline, nesting 0), ``content`` and ``meta["name"]`` = name,
``markup`` = ``"@"``; the plugin's position pass adds ``meta["line"]``/``meta["column"]``
(1-based) and ``map``.
"""

from __future__ import annotations

import re
import sys

from markdown_it.rules_inline import StateInline

from .keys import INLINE_PARENT_KEY, NEW_REFS_KEY

SIGIL = "@"
_NAME = re.compile(r"[^\W_][\w./-]*")
_TRAILING_PUNCTUATION = "./-"
_WORD_JOINERS = frozenset("_+-.@")


def _continues_word(char: str) -> bool:
    """Whether an ``@`` after *char* is part of a word, an address or a run of ``@``."""
    return char.isalnum() or char in _WORD_JOINERS


def match_reference_name(text: str, pos: int, end: int) -> str | None:
    """Return the reference name starting at ``text[pos]`` (just after the ``@``), or None."""
    match = _NAME.match(text, pos, end)
    if match is None:
        return None
    # Interned: a narrative names the same few assets many times, and every reference
    # keeps its name (token, meta and embed share the one string).
    return sys.intern(match.group().rstrip(_TRAILING_PUNCTUATION))


def embed_reference(state: StateInline, silent: bool) -> bool:
    """Inline rule for ``@name`` references."""
    pos = state.pos
    src = state.src
    if src[pos] != SIGIL:
        return False
    if pos > 0 and _continues_word(src[pos - 1]):
        return False
    parent = state.env.get(INLINE_PARENT_KEY)
    if parent is None or parent.content is not src:
        # A nested parse (image alt text) or a parse we did not start: no references there.
        return False
    name = match_reference_name(src, pos + 1, state.posMax)
    if name is None:
        return False
    if not silent:
        token = state.push("lmml_ref", "", 0)
        token.content = name
        token.markup = SIGIL
        token.meta = {"name": name, "pos": pos}
        state.env[NEW_REFS_KEY].append(token)
    state.pos = pos + 1 + len(name)
    return True
