"""The documented path ``lmml_mdit.chat.content``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_content`` (see docs/architecture.md)."""

from __future__ import annotations

from ._content import (
    RESERVED_NAMES,
    TEXT_EMBEDS_SETTING,
    BundleState,
    EmbedOmittedWarning,
    EmbedSegment,
    Item,
    MessageRole,
    MissingSettingWarning,
    Options,
    OutgoingConversation,
    OutgoingMessage,
    RequestOptions,
    Segment,
    SettingRangeWarning,
    SystemContentWarning,
    TextSegment,
    UnknownSettings,
    UnknownSettingWarning,
    build_conversation,
    bundle_state,
    bundle_template,
    turn_segments,
)

__all__ = [
    "RESERVED_NAMES",
    "TEXT_EMBEDS_SETTING",
    "BundleState",
    "EmbedOmittedWarning",
    "EmbedSegment",
    "Item",
    "MessageRole",
    "MissingSettingWarning",
    "Options",
    "OutgoingConversation",
    "OutgoingMessage",
    "RequestOptions",
    "Segment",
    "SettingRangeWarning",
    "SystemContentWarning",
    "TextSegment",
    "UnknownSettingWarning",
    "UnknownSettings",
    "build_conversation",
    "bundle_state",
    "bundle_template",
    "turn_segments",
]
