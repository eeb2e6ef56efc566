"""Where asset names are mentioned: every ``@name`` reference and ``@@@name`` fence of a
narrative as a span of one line, and the one under the cursor.

Read from :attr:`Narrative.index <lmml_mdit.narrative.Narrative.index>` (its
references and fences), so an escaped ``\\@name``, a name in a code span or in a fence's
content is no mention.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from ..narrative import Fence, Narrative
from ..syntax import MARKER, SIGIL

__all__ = ["Mention", "mention_at", "mentions"]


@dataclass(frozen=True)
class Mention:
    """One mention of an asset name.

    :ivar name: the asset name.
    :ivar kind: ``"reference"`` (``@name``) or ``"fence"`` (an ``@@@name`` opening line).
    :ivar line: its 0-based line.
    :ivar start: the 0-based code point column where it starts (the ``@`` or ``@@@``).
    :ivar end: the column after its name.
    :ivar name_start: the column where the name itself starts.
    """

    name: str
    kind: Literal["reference", "fence"]
    line: int
    start: int
    end: int
    name_start: int


def mentions(narrative: Narrative, name: str | None = None) -> Iterator[Mention]:
    """Every mention (of *name*, or of any name), references first, each kind in
    document order."""
    for embed in narrative.index.references:
        if name is None or embed.name == name:
            start = embed.column - 1
            end = start + len(SIGIL) + len(embed.name)
            yield Mention(embed.name, "reference", embed.line - 1, start, end, start + 1)
    for fence in narrative.index.fences:
        if name is None or fence.name == name:
            yield _fence_mention(narrative, fence)


def _fence_mention(narrative: Narrative, fence: Fence) -> Mention:
    """The mention of a fence's name on its opening line."""
    text = narrative.lines[fence.start] if fence.start < len(narrative.lines) else ""
    marker = fence.column - 1
    name_start = text.find(fence.name, marker + len(MARKER))
    if name_start < 0:
        name_start = marker + len(MARKER)
    end = name_start + len(fence.name)
    return Mention(fence.name, "fence", fence.start, marker, end, name_start)


def mention_at(narrative: Narrative, line: int, column: int) -> Mention | None:
    """The mention whose span holds the 0-based code point *column* of *line* (its end
    included, for a cursor just after a name), or None."""
    for embed in narrative.index.references:
        if embed.line - 1 == line:
            start = embed.column - 1
            end = start + len(SIGIL) + len(embed.name)
            if start <= column <= end:
                return Mention(embed.name, "reference", line, start, end, start + 1)
        elif embed.line - 1 > line:
            break
    for fence in narrative.index.fences_in(line, line + 1):
        found = _fence_mention(narrative, fence)
        if found.start <= column <= found.end:
            return found
    return None
