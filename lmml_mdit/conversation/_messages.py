"""The conversation's messages: the outgoing ones a bundle's turns become (their parts
resolved, each keeping its source turn) and the ones an import reads from a payload."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeAlias

from ..jsontypes import JSONObject
from ..model import Role, Turn
from ._calls import Call, ToolCall
from ._native import Native, NativeItem
from ._parts import ImportedAsset, Part, Text
from ._remote import RemoteAsset

__all__ = [
    "ChatTurn",
    "ImportedConversation",
    "ImportedPart",
    "Item",
    "MessageRole",
    "OutgoingConversation",
    "OutgoingMessage",
    "ToolResult",
]

MessageRole = Literal["system", "user", "assistant", "tool"]
"""The roles a message sends (a preamble's ``context`` becomes one of them)."""

Item = Part | ToolCall | NativeItem


@dataclass
class OutgoingMessage:
    """One provider-neutral message: a turn's parts in order.

    :ivar role: ``system``, ``user``, ``assistant`` or ``tool``.
    :ivar items: text and embed parts, (assistant) tool calls and provider-specific items
        (:class:`~lmml_mdit.narrative.NativeItem`), in source order.
    :ivar turn: the turn it came from.
    :ivar call: for a ``tool`` message, the call it answers.
    """

    role: MessageRole
    items: list[Item]
    turn: Turn
    call: ToolCall | None = None


@dataclass
class OutgoingConversation:
    """The neutral messages of a bundle and the omissions reported on the way."""

    messages: list[OutgoingMessage]
    warnings: list[str] = field(default_factory=list)


ImportedPart: TypeAlias = Text | ImportedAsset | Call | RemoteAsset | Native
"""A part of an imported turn; a :class:`~lmml_mdit.conversation.RemoteAsset` is an image
or file given by URL or file id (recorded, never fetched), a :class:`Native` a
provider-specific item."""

ToolResult: TypeAlias = tuple[str, list[ImportedPart]]
"""A tool result inside a message (Anthropic, Gemini): the call id it answers and its parts."""


@dataclass
class ChatTurn:
    """One turn to write: a role and its parts in order.

    :ivar role: ``system``, ``user``, ``assistant`` or ``tool``.
    :ivar parts: the content, in the order the payload gave it.
    :ivar call_id: for a ``tool`` turn, the id of the call it answers.
    """

    role: Role
    parts: list[ImportedPart] = field(default_factory=list)
    call_id: str | None = None


@dataclass
class ImportedConversation:
    """A whole conversation read from one payload.

    :ivar turns: the turns in order.
    :ivar settings: request parameters outside the conversation (model, temperature,
        tools, ...), kept as given; written to ``settings.json`` when not empty.
    :ivar metadata: record fields that are not request parameters (a ShareGPT ``id``),
        kept as given under the source format's key in ``manifest.json``, so a provider
        export never sends them.
    """

    turns: list[ChatTurn] = field(default_factory=list)
    settings: JSONObject = field(default_factory=dict)
    metadata: JSONObject = field(default_factory=dict)
