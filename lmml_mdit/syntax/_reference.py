"""The external reference: ``@name``, an ``lmml_ref`` token.

By default (``references="assets"``) a name is a reference only when it is a file name or a
known asset name; ``references="any"`` keeps the RFC 4.1 rule. In the fast parse of
:func:`lmml_mdit.parse` the rule records the reference (:class:`.positions.FoundInline`)
instead of making a token (see :mod:`.collect`). Grammar and examples: docs/syntax.md,
"External reference"; the recording: docs/performance.md.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Container

from markdown_it.rules_inline import StateInline

from ..media import is_file_name
from ..modes import REFERENCE_MODES as REFERENCE_MODES
from ..modes import ReferenceMode as ReferenceMode
from ._compat import append_pending
from ._keys import FOUND_KEY, INLINE_PARENT_KEY, KNOWN_SCRATCH_KEY, NEW_REFS_KEY
from ._positions import FoundInline

SIGIL = "@"
_NAME = re.compile(r"[^\W_][\w./-]*")
_TRAILING_PUNCTUATION = "./-"
_WORD_JOINERS = frozenset("_+-.@")
_PATH_JOINERS = frozenset("/:")

InlineRule = Callable[[StateInline, bool], bool]


def _continues_word(char: str) -> bool:
    """Whether an ``@`` after *char* is part of a word, an address or a run of ``@``."""
    return char.isalnum() or char in _WORD_JOINERS


def may_start_reference(text: str, pos: int, mode: ReferenceMode = "assets") -> bool:
    """Whether the ``@`` at ``text[pos]`` stands where a reference can start: at the start
    of the text or after a character that cannot be part of a word, a mail address or (in
    ``"assets"`` mode) a path or URL. (An escaped ``\\@`` is the escape rule's.)"""
    if pos == 0:
        return True
    before = text[pos - 1]
    return not (_continues_word(before) or (mode == "assets" and before in _PATH_JOINERS))


def match_reference_name(text: str, pos: int, end: int) -> str | None:
    """Return the reference name starting at ``text[pos]`` (just after the ``@``), or None."""
    match = _NAME.match(text, pos, end)
    if match is None:
        return None
    # Interned: a narrative names the same few assets many times, and every reference
    # keeps its name (token, meta and embed share the one string).
    return sys.intern(match.group().rstrip(_TRAILING_PUNCTUATION))


def has_extension(name: str) -> bool:
    """Whether *name* ends in a file extension the library knows
    (:data:`~lmml_mdit.media.FILE_EXTENSIONS`, in any case): ``chart.png``,
    ``data.tar.gz``, ``main.py``; not ``john.smith``, ``app.route``, ``v1.2``, ``types/node``
    nor ``a.b/c``."""
    return is_file_name(name)


def is_asset_reference(
    name: str, known_names: Container[str] | None = None, mode: ReferenceMode = "assets"
) -> bool:
    """Whether ``@name`` (already a syntactic name) is a reference in *mode*.

    :param name: a name :func:`match_reference_name` gives.
    :param known_names: the asset names that count without an extension.
    :param mode: ``"assets"`` or ``"any"``.
    """
    if mode == "any" or has_extension(name):
        return True
    return known_names is not None and name in known_names


def writes_as_reference(
    name: str, known_names: Container[str] | None = None, mode: ReferenceMode = "assets"
) -> bool:
    """Whether ``@name`` written at a word boundary reads back as a reference to exactly
    *name* (the question every writer of ``@name`` asks).

    :param known_names: the names the reader will know (a zip's entries, say).
    """
    return match_reference_name(name, 0, len(name)) == name and is_asset_reference(
        name, known_names, mode
    )


def make_reference_rule(mode: ReferenceMode) -> InlineRule:
    """The ``lmml_ref`` inline rule for *mode* (``"assets"`` or ``"any"``).

    The known names come from ``env`` (the plugin's core pass puts them in a scratch key
    before the inline pass), so one parser serves parses with different names.
    """
    assets = mode == "assets"

    def embed_reference(state: StateInline, silent: bool) -> bool:
        """Inline rule for ``@name`` references."""
        pos = state.pos
        src = state.src
        if src[pos] != SIGIL:
            return False
        if not may_start_reference(src, pos, mode):
            return False
        env = state.env
        parent = env.get(INLINE_PARENT_KEY)
        if parent is None or parent.content is not src:
            # A nested parse (image alt text) or a parse we did not start: no references.
            return False
        name = match_reference_name(src, pos + 1, state.posMax)
        if name is None:
            return False
        if assets and not is_file_name(name):
            known: Container[str] | None = env.get(KNOWN_SCRATCH_KEY)
            if known is None or name not in known:
                return False
        end = pos + 1 + len(name)
        if not silent:
            found: FoundInline | None = env.get(FOUND_KEY)
            if found is None:
                token = state.push("lmml_ref", "", 0)
                token.content = name
                token.markup = SIGIL
                token.meta = {"name": name, "pos": pos}
                env[NEW_REFS_KEY].append(token)
            else:
                # The fast parse: the reference stays text, as markdown-it alone reads it,
                # and only its offset and name are kept (see .collect).
                found.add(pos, name)
                append_pending(state, src[pos:end])
        state.pos = end
        return True

    return embed_reference
