"""The documented path ``lmml_mdit.chat.opening``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_opening`` (see docs/architecture.md)."""

from __future__ import annotations

from ._opening import (
    chat_payload_error,
)
from ._opening import (
    open as open,
)

__all__ = [
    "chat_payload_error",
    "open",
]
