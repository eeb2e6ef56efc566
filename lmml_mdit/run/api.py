"""The documented path ``lmml_mdit.run.api``, kept: its names, from ``lmml_mdit.run``'s
private module ``_api`` (see docs/architecture.md)."""

from __future__ import annotations

from ._api import (
    SendOptions,
    StreamOptions,
    asend,
    asend_transcript,
    astream,
    astream_transcript,
    send,
    send_transcript,
    stream,
    stream_transcript,
)

__all__ = [
    "SendOptions",
    "StreamOptions",
    "asend",
    "asend_transcript",
    "astream",
    "astream_transcript",
    "send",
    "send_transcript",
    "stream",
    "stream_transcript",
]
