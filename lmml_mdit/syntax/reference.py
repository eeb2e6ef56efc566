"""The external reference: ``@name``.

Grammar::

    reference  = boundary "@" name
    boundary   = start of the inline content / a character that is not a letter, digit,
                 "_", "+", "-", ".", "@", and (references="assets") not "/" or ":"
    name       = (letter / digit) *(letter / digit / "_" / "." / "-" / "/")
                 ; trailing ".", "-" and "/" are never part of the name

With ``references="assets"`` (the default) a name is a reference only when it is a file
name::

    asset-name = file-name / known-name
    file-name  = name whose final "." and what follows it, in any case, is one of the
                 extensions the library knows (lmml_mdit.media.FILE_EXTENSIONS: the media
                 table's and the common document, data, code and archive extensions),
                 or a typo of one (two adjacent characters swapped: ``.pgn``)
    known-name = a name in the caller's known asset names (``known_names``, or
                 ``env["lmml_known_names"]``: a zip's entries, the files beside a bare
                 ``.lmml``), or the name of an ``@@@`` fence of the same document

Read literally: ``@chart.png``, ``@data.tar.gz``, ``@notes.md``, ``@main.py`` and
``@scope/pkg.js`` are file names; ``@john.smith``, ``@app.route``, ``@v1.2``,
``@Builder.Default``, ``@emma.design`` (no known extension), ``@alice-dev``, ``@5pm``,
``@types/node`` (no ``.`` at all) and ``@a.b/c`` (``/`` after the final ``.``) are not, so
they are references only when known. An ``@`` right after ``/`` or ``:`` starts no reference
(``https://mastodon.social/@alice``). ``references="any"`` keeps the RFC 4.1 rule as written
(every name is a reference, whatever follows a ``/`` or ``:``).

So ``bob@example.com`` and ``a@@b`` hold no reference, and ``Attached: @report.pdf.`` names
``report.pdf``. ``\\@`` escapes (see :mod:`.escape`). Code spans, autolinks, raw HTML and
link destinations are consumed by their own rules before this one sees an ``@``; image alt
text is parsed apart and holds no references either.

Token: ``lmml_ref`` (inline, nesting 0), ``content`` and ``meta["name"]`` = name,
``markup`` = ``"@"``; the plugin's position pass adds ``meta["line"]``/``meta["column"]``
(1-based) and ``map``. In the fast parse of :func:`lmml_mdit.parse` the rule makes no
token: it records the reference's offset and name (:class:`.positions.FoundInline`) and
leaves its text to the text token around it, as markdown-it alone would read it; the
block's tokens are made when a reader asks for them (see :mod:`.collect`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Container

from markdown_it.rules_inline import StateInline

from ..media import is_file_name
from ..modes import REFERENCE_MODES as REFERENCE_MODES
from ..modes import ReferenceMode as ReferenceMode
from .compat import append_pending
from .keys import FOUND_KEY, INLINE_PARENT_KEY, KNOWN_SCRATCH_KEY, NEW_REFS_KEY
from .positions import FoundInline

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
