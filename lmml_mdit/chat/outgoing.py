"""The documented path ``lmml_mdit.chat.outgoing``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_outgoing`` (see docs/architecture.md)."""

from __future__ import annotations

from ._outgoing import (
    PROVIDERS,
    MessageList,
    Payload,
    message_list,
    messages,
    render_payload,
    render_turns,
    request_body,
    request_params,
    sendable_settings,
    to_request,
)

__all__ = [
    "PROVIDERS",
    "MessageList",
    "Payload",
    "message_list",
    "messages",
    "render_payload",
    "render_turns",
    "request_body",
    "request_params",
    "sendable_settings",
    "to_request",
]
