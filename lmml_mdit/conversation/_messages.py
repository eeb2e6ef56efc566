"""The conversation's message and conversation: one :class:`ChatMessage` class for a
bundle's turn as sent, a turn read from a payload and a model's reply, and one
:class:`ChatConversation` holding them; the names each direction used before
(``OutgoingMessage``, ``ChatTurn``, ...) stay as constructors of the same classes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Literal, TypeAlias

from ..errors import UnsupportedContentError
from ..jsontypes import JSONObject
from ..model import Role, Turn
from ._calls import ToolCall
from ._native import NativeItem
from ._parts import ImportedAsset, Part
from ._remote import RemoteAsset

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..bundle import Bundle, BundleSource
    from ..chat import RequestOptions

__all__ = [
    "ChatConversation",
    "ChatMessage",
    "ChatTurn",
    "ImportedConversation",
    "ImportedPart",
    "Item",
    "MessagePart",
    "MessageRole",
    "OutgoingConversation",
    "OutgoingMessage",
    "ToolResult",
    "resolve_calls",
    "sendable",
]

MessageRole = Literal["system", "user", "assistant", "tool"]
"""The roles a message sends (a preamble's ``context`` becomes one of them)."""

MessagePart: TypeAlias = Part | ToolCall | NativeItem | ImportedAsset | RemoteAsset
"""One part of a :class:`ChatMessage`: a content part (text, or an asset with its bytes
resolved), a tool call, a provider-specific item, or, in a message read from a payload, an
:class:`~lmml_mdit.conversation.ImportedAsset` (decoded bytes) or a
:class:`~lmml_mdit.conversation.RemoteAsset` (a URL or file id, recorded, never fetched)."""

Item: TypeAlias = Part | ToolCall | NativeItem
"""A part as a provider writes it: a content part, a tool call or a provider-specific item
(what :func:`sendable` gives)."""

ImportedPart: TypeAlias = MessagePart
"""The name import gave a part before the directions shared one message class (kept; 0.4
may remove it)."""

ToolResult: TypeAlias = tuple[str, list[MessagePart]]
"""A tool result inside a message (Anthropic, Gemini): the call id it answers and its parts."""


@dataclass(eq=False)
class ChatMessage:
    """One provider-neutral message: a role and its parts in order.

    Export builds one per turn of a bundle, import one per turn of a payload, and a run one
    per reply turn.

    :ivar role: ``system``, ``user``, ``assistant`` or ``tool`` (``context`` only where a
        payload gives text outside any message).
    :ivar parts: everything in the message, in order: text and embed parts, (assistant)
        tool calls, provider-specific items (:class:`~lmml_mdit.conversation.NativeItem`),
        and an imported message's decoded or remote assets.
    :ivar call: for a ``tool`` message, the call it answers. Read from a payload, it is the
        assistant's call of that id when the payload holds it (so its name is known), else
        a call with that id, name ``""`` and arguments None.
    :ivar turn: the bundle turn it came from; None for a message read from a payload or a
        reply.
    """

    role: Role
    parts: list[MessagePart] = field(default_factory=list)
    call: ToolCall | None = None
    turn: Turn | None = None

    @property
    def items(self) -> list[MessagePart]:
        """The same list as :attr:`parts` (the name providers written against 0.2 and 0.3
        read)."""
        return self.parts

    @items.setter
    def items(self, value: list[MessagePart]) -> None:
        self.parts = value

    @property
    def call_id(self) -> str | None:
        """The id of :attr:`call`, or None."""
        return None if self.call is None else self.call.id

    def __eq__(self, other: object) -> bool:
        """Equal to any message with the same fields, whichever constructor made it."""
        if not isinstance(other, ChatMessage):
            return NotImplemented
        return all(
            getattr(self, each.name) == getattr(other, each.name) for each in fields(ChatMessage)
        )

    __hash__ = None  # type: ignore[assignment]


def _answered(call_id: str | None) -> ToolCall | None:
    """The call a tool message answers when only its id is known."""
    return None if call_id is None else ToolCall(call_id, "", None)


class _KeptName(type):
    """The class of a kept name: calling it builds the class it extends (its ``__new__``
    returns one), and every instance of that class is an instance of it, so
    ``isinstance(message, OutgoingMessage)`` holds for any message (a subclass made
    elsewhere is checked as usual)."""

    def __instancecheck__(cls, instance: object) -> bool:
        if cls.__module__ == __name__:
            return isinstance(instance, cls.__bases__[0])
        return type.__instancecheck__(cls, instance)


class OutgoingMessage(ChatMessage, metaclass=_KeptName):
    """``OutgoingMessage(role, items, turn, call=None)``: the constructor export used
    before the directions shared :class:`ChatMessage` (kept; 0.4 may remove it)."""

    def __new__(  # type: ignore[misc]  # builds the one class, not a subclass
        cls, role: Role, items: list[MessagePart], turn: Turn, call: ToolCall | None = None
    ) -> ChatMessage:
        return ChatMessage(role, items, call, turn)


class ChatTurn(ChatMessage, metaclass=_KeptName):
    """``ChatTurn(role, parts=[], call_id=None)``: the constructor import and run used
    before the directions shared :class:`ChatMessage` (kept; 0.4 may remove it). A bare
    *call_id* becomes a :attr:`~ChatMessage.call` with that id, name ``""`` and arguments
    None; :func:`~lmml_mdit.chat.importer.read_conversation` then puts the assistant's call
    of that id in its place when the payload holds it."""

    def __new__(  # type: ignore[misc]  # builds the one class, not a subclass
        cls, role: Role, parts: list[MessagePart] | None = None, call_id: str | None = None
    ) -> ChatMessage:
        return ChatMessage(role, [] if parts is None else parts, _answered(call_id))


@dataclass(eq=False)
class ChatConversation:
    """A whole provider-neutral conversation.

    :ivar messages: the messages in order.
    :ivar warnings: the omissions reported while building it from a bundle.
    :ivar settings: request parameters outside the conversation (model, temperature,
        tools, ...) read from a payload, kept as given; an import writes them to
        ``settings.json`` when not empty.
    :ivar metadata: record fields that are not request parameters (a ShareGPT ``id``),
        kept as given under the source format's key in ``manifest.json``, so a provider
        export never sends them.
    """

    messages: list[ChatMessage] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    settings: JSONObject = field(default_factory=dict)
    metadata: JSONObject = field(default_factory=dict)

    @classmethod
    def from_bundle(
        cls, bundle: BundleSource, **options: Unpack[RequestOptions]
    ) -> ChatConversation:
        """The conversation *bundle* holds, as export builds it before writing a provider's
        request (the options of :meth:`~lmml_mdit.Bundle.messages`, which this skips):
        each turn a message, its assets resolved, each message keeping its turn, and the
        bundle's settings in :attr:`settings`.

        :raises LmmlError: as :meth:`~lmml_mdit.Bundle.messages` does.
        """
        from ..chat import Options, build_conversation, sendable_settings

        parsed = Options.from_kwargs(options)
        conversation = build_conversation(bundle, parsed)
        conversation.settings = sendable_settings(bundle, strict=parsed.strict)
        return conversation

    def to_bundle(self, name: str = "conversation") -> Bundle:
        """The conversation as a zip bundle in memory, written as import writes one (see
        docs/bridge.md, "The narrative written"); :meth:`from_bundle` reads it back.

        :raises ImportFormatError: for what no bundle can hold (a tool result without its
            call, two assets of one name with different bytes).
        """
        from ..chat import write_bundle

        return write_bundle(self, name)

    def to_lmml(self) -> str:
        """The narrative :meth:`to_bundle` writes: its assets are the bundle's entries,
        referenced by name.

        :raises ImportFormatError: as :meth:`to_bundle`.
        """
        from ..chat import write_narrative

        return write_narrative(self)[0]

    @property
    def turns(self) -> list[ChatMessage]:
        """The same list as :attr:`messages` (the name import used before)."""
        return self.messages

    @turns.setter
    def turns(self, value: list[ChatMessage]) -> None:
        self.messages = value

    def __eq__(self, other: object) -> bool:
        """Equal to any conversation with the same fields, whichever constructor made it."""
        if not isinstance(other, ChatConversation):
            return NotImplemented
        return all(
            getattr(self, each.name) == getattr(other, each.name)
            for each in fields(ChatConversation)
        )

    __hash__ = None  # type: ignore[assignment]


class OutgoingConversation(ChatConversation, metaclass=_KeptName):
    """``OutgoingConversation(messages, warnings=[])``: the constructor export used before
    the directions shared :class:`ChatConversation` (kept; 0.4 may remove it)."""

    def __new__(  # type: ignore[misc]  # builds the one class, not a subclass
        cls, messages: list[ChatMessage], warnings: list[str] | None = None
    ) -> ChatConversation:
        return ChatConversation(messages, [] if warnings is None else warnings)


class ImportedConversation(ChatConversation, metaclass=_KeptName):
    """``ImportedConversation(turns=[], settings={}, metadata={})``: the constructor import
    used before the directions shared :class:`ChatConversation` (kept; 0.4 may remove
    it)."""

    def __new__(  # type: ignore[misc]  # builds the one class, not a subclass
        cls,
        turns: list[ChatMessage] | None = None,
        settings: JSONObject | None = None,
        metadata: JSONObject | None = None,
    ) -> ChatConversation:
        return ChatConversation(
            [] if turns is None else turns,
            [],
            {} if settings is None else settings,
            {} if metadata is None else metadata,
        )


def resolve_calls(messages: Iterable[ChatMessage]) -> None:
    """Give each ``tool`` message known only by its call's id the assistant's call of that
    id, when an earlier message holds it (in place)."""
    made: dict[str, ToolCall] = {}
    for message in messages:
        if message.role == "assistant":
            made.update((part.id, part) for part in message.parts if isinstance(part, ToolCall))
        elif message.call is not None and (message.call.name, message.call.arguments) == (
            "",
            None,
        ):
            message.call = made.get(message.call.id, message.call)


def sendable(message: ChatMessage) -> list[Item]:
    """*message*'s parts as a provider writes them, in order.

    :raises UnsupportedContentError: for an :class:`~lmml_mdit.conversation.ImportedAsset`
        or a :class:`~lmml_mdit.conversation.RemoteAsset` (a part read from a payload, not
        resolved against a bundle's assets: write the conversation to a bundle first).
    """
    items: list[Item] = []
    for part in message.parts:
        if isinstance(part, (ImportedAsset, RemoteAsset)):
            raise UnsupportedContentError(
                f"a {message.role} message holds {type(part).__name__}, a part read from a "
                "payload, which a provider does not write",
                hint="import the payload into a bundle (lmml_mdit.import_messages), then "
                "export the bundle",
            )
        items.append(part)
    return items
