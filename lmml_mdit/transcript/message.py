"""The documented path ``lmml_mdit.transcript.message``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_message`` (see docs/architecture.md)."""

from __future__ import annotations

from ._message import (
    MAX_METADATA_DEPTH,
    PINNED_ROLES,
    Message,
    MessageRef,
    Pov,
    check_asset,
    check_message,
    check_metadata,
    check_saveable,
    check_text,
    pinned_role,
    pov_roles,
)

__all__ = [
    "MAX_METADATA_DEPTH",
    "PINNED_ROLES",
    "Message",
    "MessageRef",
    "Pov",
    "check_asset",
    "check_message",
    "check_metadata",
    "check_saveable",
    "check_text",
    "pinned_role",
    "pov_roles",
]
