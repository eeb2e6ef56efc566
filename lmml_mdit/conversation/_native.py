"""The native item: a provider-specific item with no portable meaning (a reasoning trace, a
signature, a citation), kept whole at its place (see docs/bridge.md, "Provider-specific
items")."""

from __future__ import annotations

from dataclasses import dataclass

from ..jsontypes import JSONObject

__all__ = ["MESSAGE_KEYS", "PART_KEYS", "Native", "NativeItem"]

PART_KEYS = "part"
"""The kind of a fence holding extra keys of the part right before it."""

MESSAGE_KEYS = "message"
"""The kind of a fence holding extra keys of the message it stands in."""


@dataclass(frozen=True)
class NativeItem:
    """One provider-specific item: read from its fence, or from a payload.

    :ivar provider: the chat format it belongs to, e.g. ``"anthropic"``.
    :ivar kind: the kind in its name (``thinking``, ...), or ``part`` / ``message`` for
        keys of the part before it or of its message.
    :ivar value: the JSON object, exactly as read.
    :ivar embed_name: the fence's name; ``""`` for an item not read from a fence.
    :ivar line: the 1-based line of the fence's ``@@@``; ``0`` without a fence.
    :ivar column: the 1-based column of the fence's ``@@@``; ``0`` without a fence.
    """

    provider: str
    kind: str
    value: JSONObject
    embed_name: str = ""
    line: int = 0
    column: int = 0

    @property
    def describe(self) -> str:
        """The item as a warning names it: ``anthropic thinking (anthropic.thinking.1.json)``;
        for keys of a part or a message, the keys themselves:
        ``gemini part key 'thought_signature' (gemini.part.2.json)``; an item with no
        fence without the name."""
        where = f" ({self.embed_name})" if self.embed_name else ""
        if self.kind in (PART_KEYS, MESSAGE_KEYS) and self.value:
            noun = "key" if len(self.value) == 1 else "keys"
            keys = ", ".join(repr(key) for key in self.value)
            return f"{self.provider} {self.kind} {noun} {keys}{where}"
        return f"{self.provider} {self.kind}{where}"


Native = NativeItem
"""The name import gave a native item before the two directions shared one class:
``Native(provider, kind, value)``."""
