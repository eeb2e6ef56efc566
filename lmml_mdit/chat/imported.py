"""The documented path ``lmml_mdit.chat.imported``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_imported`` (see docs/architecture.md)."""

from __future__ import annotations

from ._imported import (
    Call,
    ChatTurn,
    ImportedAsset,
    ImportedConversation,
    ImportedPart,
    Native,
    Text,
    ToolResult,
    decode_base64,
    decode_data_uri,
    expect,
    expect_items,
    reject_unknown_keys,
    split_body,
    tools_listed,
    turns_of_message,
    without_results,
)

__all__ = [
    "Call",
    "ChatTurn",
    "ImportedAsset",
    "ImportedConversation",
    "ImportedPart",
    "Native",
    "Text",
    "ToolResult",
    "decode_base64",
    "decode_data_uri",
    "expect",
    "expect_items",
    "reject_unknown_keys",
    "split_body",
    "tools_listed",
    "turns_of_message",
    "without_results",
]
