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

from ._calls import CUSTOM_CALL_TYPE, Call, ToolCall
from ._messages import (
    ChatConversation,
    ChatMessage,
    ChatTurn,
    ImportedConversation,
    ImportedPart,
    Item,
    MessagePart,
    MessageRole,
    OutgoingConversation,
    OutgoingMessage,
    ToolResult,
    resolve_calls,
    sendable,
)
from ._native import MESSAGE_KEYS, PART_KEYS, Native, NativeItem
from ._parts import (
    TEXT_EMBEDS_CHOICES,
    Asset,
    AudioPart,
    Base64Cache,
    DocumentPart,
    ImagePart,
    ImportedAsset,
    Part,
    RemotePart,
    Text,
    TextEmbeds,
    TextFilePart,
    TextPart,
    VideoPart,
)
from ._remote import FILE_ID_PROVIDERS, MAX_URL_LENGTH, RemoteAsset, RemoteKind

__all__ = [
    "CUSTOM_CALL_TYPE",
    "FILE_ID_PROVIDERS",
    "MAX_URL_LENGTH",
    "MESSAGE_KEYS",
    "PART_KEYS",
    "TEXT_EMBEDS_CHOICES",
    "Asset",
    "AudioPart",
    "Base64Cache",
    "Call",
    "ChatConversation",
    "ChatMessage",
    "ChatTurn",
    "DocumentPart",
    "ImagePart",
    "ImportedAsset",
    "ImportedConversation",
    "ImportedPart",
    "Item",
    "MessagePart",
    "MessageRole",
    "Native",
    "NativeItem",
    "OutgoingConversation",
    "OutgoingMessage",
    "Part",
    "RemoteAsset",
    "RemoteKind",
    "RemotePart",
    "Text",
    "TextEmbeds",
    "TextFilePart",
    "TextPart",
    "ToolCall",
    "ToolResult",
    "VideoPart",
    "resolve_calls",
    "sendable",
]
