"""The documented path ``lmml_mdit.chat.template``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_template`` (see docs/architecture.md)."""

from __future__ import annotations

from ._template import (
    OPENING_USER_PLACEHOLDER,
    SEPARATOR,
    ChatMessage,
    ChatTokenizer,
    FlattenFlags,
    detect_template_flags,
    ensure_user_first,
    flatten,
    fold_system,
    fold_tools,
    merge_same_role,
)

__all__ = [
    "OPENING_USER_PLACEHOLDER",
    "SEPARATOR",
    "ChatMessage",
    "ChatTokenizer",
    "FlattenFlags",
    "detect_template_flags",
    "ensure_user_first",
    "flatten",
    "fold_system",
    "fold_tools",
    "merge_same_role",
]
