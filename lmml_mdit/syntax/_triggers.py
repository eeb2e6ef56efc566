"""What makes an ``inline`` token worth parsing up front: the inline triggers.

A block can hold LMML only if its content holds one of :data:`INLINE_TRIGGERS` (``@``,
``\\#``, ``\\<``, ``\\-``, ``\\=``); :func:`lmml_mdit.parse` parses the rest when a reader
asks. A rule added to the plugin's inline parse adds the text it starts with here, and
nowhere else. See docs/performance.md, "Parse only what can change the answer".
"""

from __future__ import annotations

__all__ = ["INLINE_TRIGGERS", "may_hold_lmml"]

INLINE_TRIGGERS: tuple[str, ...] = ("@", "\\#", "\\<", "\\-", "\\=")
"""The texts whose presence in an inline content can make the plugin's inline rules act."""


def _by_first_character(triggers: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each first character of *triggers*, with the longer triggers it starts (empty when
    the character alone is a trigger)."""
    grouped: dict[str, list[str]] = {}
    for trigger in triggers:
        grouped.setdefault(trigger[0], []).append(trigger)
    return tuple(
        (first, () if first in found else tuple(found)) for first, found in grouped.items()
    )


_grouped: list[object] = [None, ()]
"""The triggers last grouped, and their groups (regrouped when the set is replaced)."""


def _groups() -> tuple[tuple[str, tuple[str, ...]], ...]:
    if _grouped[0] is not INLINE_TRIGGERS:
        _grouped[:] = [INLINE_TRIGGERS, _by_first_character(INLINE_TRIGGERS)]
    return _grouped[1]  # type: ignore[return-value]


def may_hold_lmml(content: str) -> bool:
    """Whether the inline *content* holds one of :data:`INLINE_TRIGGERS` (read at each
    call, so a change of the set takes effect at the next parse).

    A content is searched for each trigger's first character first (most hold none of
    them), and only then for the triggers starting with it: a few scans of the content,
    each linear in its length.
    """
    for first, triggers in _groups():
        if first in content and (not triggers or any(found in content for found in triggers)):
            return True
    return False
