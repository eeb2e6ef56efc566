"""One severity for each issue kind: the table every command reads.

``validate``, ``render``, ``export``, the language server, the pre-commit hook and the
Sphinx directive judge an :class:`~lmml_mdit.model.Issue` by :data:`KIND_RULES` alone, so
the same file gets the same verdict from each: ``refused``, ``warned`` or ``validated``.
docs/errors.md prints the table ("One severity for each kind"), and a test keeps the two
equal.

The kinds a reserved embed raises are written in its declaration
(:mod:`lmml_mdit.bundle.reserved_embeds`), which sits above this module: they join the
table through :func:`declare_kinds`, and the first read of the table imports the
declarations (a delegation), so it is whole whenever it is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Set
from typing import Literal, TypeVar

__all__ = [
    "ERROR_KINDS",
    "KIND_RULES",
    "WARNED_KINDS",
    "OnSend",
    "Rule",
    "Severity",
    "declare_kinds",
    "severity_of",
]

Severity = Literal["error", "warning"]
OnSend = Literal["refused", "warned", "validated"]
Rule = tuple[Severity, OnSend]
"""A kind's severity, and what a send does with it."""

_RULES: dict[str, Rule] = {
    "unclosed_embed": ("error", "refused"),
    "missing_reference": ("error", "refused"),
    "conflicting_embed": ("error", "refused"),
    "malformed_embed_name": ("error", "refused"),
    "invalid_input": ("error", "refused"),
    "missing_input": ("error", "refused"),
    "invalid_tool_call": ("error", "refused"),
    "unknown_tool_call_id": ("error", "refused"),
    "unanswered_tool_call": ("error", "refused"),
    "invalid_remote_asset": ("error", "refused"),
    "unsendable_embed": ("error", "refused"),
    "suspicious_delimiter": ("warning", "warned"),
    "orphaned_entry": ("warning", "validated"),
    "unsent_image": ("warning", "validated"),
    "undeclared_input": ("warning", "validated"),
    "unused_input": ("warning", "validated"),
    "no_turns": ("warning", "validated"),
}

_declared = False


def _table() -> dict[str, Rule]:
    """The table, with the reserved embeds' kinds: their declarations are imported on the
    first read (a delegation to the bundle layer, which declares them as it loads)."""
    global _declared
    if not _declared:
        _declared = True
        from .bundle.reserved_embeds import RESERVED_EMBEDS  # noqa: F401  (declares kinds)
    return _RULES


class _Table(Mapping[str, Rule]):
    """A read-only view of the table, whole on every read."""

    def __getitem__(self, kind: str) -> Rule:
        return _table()[kind]

    def __iter__(self) -> Iterator[str]:
        return iter(_table())

    def __len__(self) -> int:
        return len(_table())

    def __repr__(self) -> str:
        return repr(_table())


KIND_RULES: Mapping[str, Rule] = _Table()
"""Every issue kind: its severity, and what a send does with it (a read-only view)."""


def declare_kinds(rules: Mapping[str, Rule]) -> None:
    """Add issue kinds written in a layer above (a reserved embed's declaration) to the
    table. Declaring a kind again with the same rule changes nothing.

    :raises ValueError: for a kind the table already holds with another rule.
    """
    for kind, rule in rules.items():
        known = _RULES.get(kind)
        if known is not None and known != rule:
            raise ValueError(f"the issue kind {kind!r} is already {known}, not {rule}")
    _RULES.update(rules)


_T = TypeVar("_T")


class _KindSet(Set[str]):
    """The kinds of the table whose rule has *value* at *index*: a read-only set that
    follows the table."""

    def __init__(self, index: int, value: str) -> None:
        self._index = index
        self._value = value

    def __contains__(self, kind: object) -> bool:
        rule = _table().get(kind) if isinstance(kind, str) else None
        return rule is not None and rule[self._index] == self._value

    def __iter__(self) -> Iterator[str]:
        return iter([kind for kind, rule in _table().items() if rule[self._index] == self._value])

    def __len__(self) -> int:
        return sum(1 for rule in _table().values() if rule[self._index] == self._value)

    def __repr__(self) -> str:
        return repr(frozenset(self))

    @classmethod
    def _from_iterable(cls, it: Iterable[_T]) -> frozenset[_T]:
        """What ``&``, ``|``, ``-`` and ``^`` give: a frozenset, as before."""
        return frozenset(it)

    # The rest of a frozenset's methods, on what the table holds now.

    def copy(self) -> frozenset[str]:
        return frozenset(self)

    def union(self, *others: Iterable[str]) -> frozenset[str]:
        return frozenset(self).union(*others)

    def intersection(self, *others: Iterable[str]) -> frozenset[str]:
        return frozenset(self).intersection(*others)

    def difference(self, *others: Iterable[str]) -> frozenset[str]:
        return frozenset(self).difference(*others)

    def symmetric_difference(self, other: Iterable[str]) -> frozenset[str]:
        return frozenset(self).symmetric_difference(other)

    def issubset(self, other: Iterable[str]) -> bool:
        return frozenset(self).issubset(other)

    def issuperset(self, other: Iterable[str]) -> bool:
        return frozenset(self).issuperset(other)


ERROR_KINDS: Set[str] = _KindSet(0, "error")
"""The issue kinds that stop a send (severity ``"error"``)."""

WARNED_KINDS: Set[str] = _KindSet(1, "warned")
"""The warning kinds every command that sends or shows a bundle reports."""


def severity_of(kind: str) -> Severity:
    """The severity of the issue kind *kind* (``"warning"`` for a kind not in the table)."""
    rule = _table().get(kind)
    return rule[0] if rule is not None else "warning"
