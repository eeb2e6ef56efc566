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
    """One provider-specific item read from its fence.

    :ivar provider: the chat format it belongs to, e.g. ``"anthropic"``.
    :ivar kind: the kind in its name (``thinking``, ``part``, ``message``, ...).
    :ivar value: the JSON object, exactly as read.
    :ivar embed_name: the fence's name.
    :ivar line: the 1-based line of the fence's ``@@@``.
    :ivar column: the 1-based column of the fence's ``@@@``.
    """

    provider: str
    kind: str
    value: JSONObject
    embed_name: str
    line: int
    column: int

    @property
    def describe(self) -> str:
        """The item as a warning names it: ``anthropic thinking (anthropic.thinking.1.json)``;
        for keys of a part or a message, the keys themselves:
        ``gemini part key 'thought_signature' (gemini.part.2.json)``."""
        if self.kind in (PART_KEYS, MESSAGE_KEYS) and self.value:
            noun = "key" if len(self.value) == 1 else "keys"
            keys = ", ".join(repr(key) for key in self.value)
            return f"{self.provider} {self.kind} {noun} {keys} ({self.embed_name})"
        return f"{self.provider} {self.kind} ({self.embed_name})"


@dataclass(frozen=True)
class Native:
    """A provider-specific item, kept whole at its place (see
    :mod:`lmml_mdit.narrative.native`).

    :ivar provider: the chat format it came from.
    :ivar kind: its type, or ``part`` / ``message`` for keys of the part before it or of
        its message.
    :ivar value: the JSON object, exactly as given.
    """

    provider: str
    kind: str
    value: JSONObject
