"""Inline tokens parsed on demand: :class:`DeferredInlines`.

With ``env["lmml_inline_on_demand"]`` set (:data:`INLINE_ON_DEMAND_KEY`; :func:`lmml_mdit.
parse` sets it), the plugin's core pass (:mod:`.collect`) parses only the ``inline`` tokens
whose content may hold LMML (:func:`.triggers.may_hold_lmml`); every other one keeps an
empty ``children`` list and its position goes to ``env["lmml_deferred_inlines"]``
(:data:`DEFERRED_KEY`). Their embeds, escapes and delimiters are those of no inline rule,
so the parse's results are complete without them; :class:`DeferredInlines` parses them
later, one by one or all at once, into exactly the children a full parse gives them.

That holds while each ``inline`` token's children depend only on its content, the parser
and the ``env`` the block parse left (link reference definitions): true of markdown-it's
own inline rules, the plugin's, and the core rules markdown-it runs after ``inline``
(``linkify``, ``replacements``, ``smartquotes``, ``text_join``), which treat each
``inline`` token alone. :func:`rules_after_inline` tells whether a parser is made only of
such rules; the core pass parses every token up front when it is not (a footnote plugin,
say, whose tail rule reads what its inline rule gathered across blocks).
"""

from __future__ import annotations

import array
import bisect
import threading
from collections.abc import Callable, Sequence

from markdown_it import MarkdownIt
from markdown_it.rules_core import linkify, replace, smartquotes, text_join
from markdown_it.rules_core.state_core import StateCore
from markdown_it.rules_inline import text as text_rule
from markdown_it.token import Token
from markdown_it.utils import EnvType

__all__ = ["DEFERRED_KEY", "INLINE_ON_DEMAND_KEY", "DeferredInlines", "rules_after_inline"]

INLINE_ON_DEMAND_KEY = "lmml_inline_on_demand"
"""An ``env`` key: when true, the core pass leaves for later the ``inline`` tokens that
cannot hold LMML (when the parser allows it, see :func:`rules_after_inline`)."""

DEFERRED_KEY = "lmml_deferred_inlines"
"""An ``env`` key the core pass sets when it left tokens for later: their positions in the
token stream, ascending (an ``array`` of integers)."""

CoreRule = Callable[[StateCore], None]

_PER_BLOCK_CORE_RULES: frozenset[CoreRule] = frozenset({linkify, replace, smartquotes, text_join})
"""markdown-it's core rules after ``inline``: each reads and rewrites one ``inline`` token's
children at a time, whatever the other tokens hold."""

_OWN_MODULES = ("markdown_it.", "lmml_mdit.")
"""Where the inline rules come from whose results depend only on the content they parse."""


def _own(function: object) -> bool:
    module = getattr(function, "__module__", None) or ""
    return module.startswith(_OWN_MODULES)


def rules_after_inline(md: MarkdownIt) -> tuple[CoreRule, ...] | None:
    """The enabled core rules that run after ``inline`` on *md*, when each ``inline`` token
    may be parsed apart from the others (every inline rule is markdown-it's or the
    plugin's, and each core rule after ``inline`` is one of markdown-it's per-block rules);
    None otherwise.
    """
    inline_rules = [*md.inline.ruler.getRules(""), *md.inline.ruler2.getRules("")]
    if not all(_own(rule) for rule in inline_rules):
        return None
    rules = md.core.ruler.__rules__
    names = [rule.name for rule in rules]
    if "inline" not in names:
        return None
    after = tuple(rule.fn for rule in rules[names.index("inline") + 1 :] if rule.enabled)
    if not all(rule in _PER_BLOCK_CORE_RULES for rule in after):
        return None
    return after


class DeferredInlines:
    """The ``inline`` tokens a parse left for later, parsed on demand.

    :param md: the parser of the parse.
    :param env: its ``env`` (link reference definitions, other plugins' state), kept for
        the inline parses to come.
    :param tokens: its token stream.
    :param positions: the positions in *tokens* of the ``inline`` tokens left for later,
        ascending (``env["lmml_deferred_inlines"]``).
    """

    __slots__ = ("_done", "_env", "_lock", "_md", "_positions", "_rules", "_tokens")

    def __init__(
        self, md: MarkdownIt, env: EnvType, tokens: list[Token], positions: Sequence[int]
    ) -> None:
        rules = rules_after_inline(md)
        if rules is None:
            raise ValueError("this parser's inline tokens cannot be parsed one at a time")
        self._md: MarkdownIt | None = md
        self._env = env
        self._tokens = tokens
        self._positions = array.array("q", positions)
        self._done: set[int] = set()
        self._rules = rules
        self._lock = threading.Lock()

    @property
    def pending(self) -> bool:
        """Whether some token is still unparsed."""
        return self._md is not None

    def _is_pending(self, position: int) -> bool:
        if self._md is None or position in self._done:
            return False
        found = bisect.bisect_left(self._positions, position)
        return found < len(self._positions) and self._positions[found] == position

    def parse(self, position: int) -> None:
        """Parse the token at *position* if it was left for later (else do nothing)."""
        with self._lock:
            if self._is_pending(position):
                self._parse([self._tokens[position]])
                self._done.add(position)

    def complete(self) -> None:
        """Parse every token still left, so the stream is the one a full parse gives."""
        with self._lock:
            if self._md is None:
                return
            done = self._done
            self._parse([self._tokens[at] for at in self._positions if at not in done])
            self._md = None  # nothing left: let go of the parser, env and positions
            self._env = {}
            self._positions = array.array("q")
            self._done = set()

    def _parse(self, inlines: list[Token]) -> None:
        md = self._md
        assert md is not None
        env = self._env
        parse_inline = md.inline.parse
        # A content without any character an inline rule starts at is one text token: the
        # text rule (markdown-it's first) takes all of it, and no other rule runs.
        rules = md.inline.ruler.getRules("")
        terminator = md.inline.terminator_re if rules and rules[0] is text_rule else None
        for token in inlines:
            content = token.content
            if terminator is not None and content and terminator.search(content) is None:
                token.children = [Token("text", "", 0, content=content)]
                continue
            token.children = []
            parse_inline(content, md, env, token.children)
        # The core rules after "inline", run on these tokens alone: each reads one inline
        # token at a time, so this is what the full parse's run gave them.
        state = StateCore("", md, env, inlines)
        for rule in self._rules:
            rule(state)
