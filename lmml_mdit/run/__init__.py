"""Running a conversation: a bundle sent to a provider, the reply written back.

:func:`send` / :func:`asend` (behind :meth:`Bundle.send` and :meth:`Transcript.send`) build
the request ``to_request`` builds, send it through the provider's official SDK, read the
reply into the library's conversation model (:class:`Reply`; :class:`ReplyStream` yields
its events live) and, with tools, run them and
send again. ``lmml run`` appends the new turns to the file (:class:`Document`). Tracing
(:func:`setup_console`, :func:`setup_otlp`) follows the OpenTelemetry GenAI conventions.
"""

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
from ._document import Document
from ._loop import BodySender, RunOptions, arun, dry_run_body, run
from ._reply import Reply, ReplyEvent, TextDelta, ToolCallEvent, ToolRun, Usage
from ._stream import AsyncReplyStream, ReplyStream
from ._tools import load_tool
from ._trace import setup_console, setup_otlp

# The modules are private; these names are the package's surface.
__all__ = [
    "AsyncReplyStream",
    "BodySender",
    "Document",
    "Reply",
    "ReplyEvent",
    "ReplyStream",
    "RunOptions",
    "SendOptions",
    "StreamOptions",
    "TextDelta",
    "ToolCallEvent",
    "ToolRun",
    "Usage",
    "arun",
    "asend",
    "asend_transcript",
    "astream",
    "astream_transcript",
    "dry_run_body",
    "load_tool",
    "run",
    "send",
    "send_transcript",
    "setup_console",
    "setup_otlp",
    "stream",
    "stream_transcript",
]
