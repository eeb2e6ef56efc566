"""The conversation model: the provider-neutral messages, parts, tool calls, native items
and remote assets that export, import, running and the Transcript share.

A bundle's turns become :class:`ChatMessage` values (parts with their bytes resolved, each
message keeping its source :class:`~lmml_mdit.model.Turn`), an import reads a payload into
the same class, and a run's reply turns are that class too; a :class:`ChatConversation`
holds them. They carry the same :class:`ToolCall`, :class:`NativeItem` and
:class:`RemoteAsset`. The names each direction used before (``OutgoingMessage``,
``ChatTurn``, ``OutgoingConversation``, ``ImportedConversation``, ``Call``, ``Native``,
``Text``) are kept. See docs/architecture.md, "conversation".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes, public_names

if TYPE_CHECKING:
    from ._calls import CUSTOM_CALL_TYPE as CUSTOM_CALL_TYPE
    from ._calls import Call as Call
    from ._calls import ToolCall as ToolCall
    from ._handlers import PART_TYPES as PART_TYPES
    from ._handlers import Handler as Handler
    from ._handlers import builtin_part as builtin_part
    from ._handlers import handler_for as handler_for
    from ._handlers import handler_key as handler_key
    from ._handlers import is_handled as is_handled
    from ._handlers import register_handler as register_handler
    from ._handlers import registered_handlers as registered_handlers
    from ._handlers import unregister_handler as unregister_handler
    from ._messages import ChatConversation as ChatConversation
    from ._messages import ChatMessage as ChatMessage
    from ._messages import ChatTurn as ChatTurn
    from ._messages import ImportedConversation as ImportedConversation
    from ._messages import ImportedPart as ImportedPart
    from ._messages import Item as Item
    from ._messages import MessagePart as MessagePart
    from ._messages import MessageRole as MessageRole
    from ._messages import OutgoingConversation as OutgoingConversation
    from ._messages import OutgoingMessage as OutgoingMessage
    from ._messages import ToolResult as ToolResult
    from ._messages import resolve_calls as resolve_calls
    from ._messages import sendable as sendable
    from ._native import MESSAGE_KEYS as MESSAGE_KEYS
    from ._native import PART_KEYS as PART_KEYS
    from ._native import Native as Native
    from ._native import NativeItem as NativeItem
    from ._parts import TEXT_EMBEDS_CHOICES as TEXT_EMBEDS_CHOICES
    from ._parts import Asset as Asset
    from ._parts import AudioPart as AudioPart
    from ._parts import Base64Cache as Base64Cache
    from ._parts import DocumentPart as DocumentPart
    from ._parts import ImagePart as ImagePart
    from ._parts import ImportedAsset as ImportedAsset
    from ._parts import Part as Part
    from ._parts import RemotePart as RemotePart
    from ._parts import Text as Text
    from ._parts import TextEmbeds as TextEmbeds
    from ._parts import TextFilePart as TextFilePart
    from ._parts import TextPart as TextPart
    from ._parts import VideoPart as VideoPart
    from ._remote import FILE_ID_PROVIDERS as FILE_ID_PROVIDERS
    from ._remote import MAX_URL_LENGTH as MAX_URL_LENGTH
    from ._remote import RemoteAsset as RemoteAsset
    from ._remote import RemoteKind as RemoteKind

_NAMES = {
    name: f".{module}"
    for module, names in {
        "_calls": (
            "CUSTOM_CALL_TYPE",
            "Call",
            "ToolCall",
        ),
        "_handlers": (
            "PART_TYPES",
            "Handler",
            "builtin_part",
            "handler_for",
            "handler_key",
            "is_handled",
            "register_handler",
            "registered_handlers",
            "unregister_handler",
        ),
        "_messages": (
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
        ),
        "_native": (
            "MESSAGE_KEYS",
            "PART_KEYS",
            "Native",
            "NativeItem",
        ),
        "_parts": (
            "TEXT_EMBEDS_CHOICES",
            "Asset",
            "AudioPart",
            "Base64Cache",
            "DocumentPart",
            "ImagePart",
            "ImportedAsset",
            "Part",
            "RemotePart",
            "Text",
            "TextEmbeds",
            "TextFilePart",
            "TextPart",
            "VideoPart",
        ),
        "_remote": (
            "FILE_ID_PROVIDERS",
            "MAX_URL_LENGTH",
            "RemoteAsset",
            "RemoteKind",
        ),
    }.items()
    for name in names
}

# Each on first use: validating a bundle loads the handlers and parts alone.
__getattr__ = lazy_attributes(__name__, _NAMES)

if not TYPE_CHECKING:
    __all__ = public_names(_NAMES)
