"""Running a conversation: a bundle sent to a provider, the reply written back.

:func:`send` / :func:`asend` (behind :meth:`Bundle.send` and :meth:`Transcript.send`) build
the request ``to_request`` builds, send it through the provider's official SDK, read the
reply into the library's conversation model (:class:`Reply`; :class:`ReplyStream` yields
its events live) and, with tools, run them and
send again. ``lmml run`` appends the new turns to the file (:mod:`.document`). Tracing
(:mod:`.trace`) follows the OpenTelemetry GenAI conventions.
"""

from __future__ import annotations

from .api import asend, send
from .reply import Reply, ReplyEvent, TextDelta, ToolCallEvent, ToolRun, Usage
from .stream import AsyncReplyStream, ReplyStream

__all__ = [
    "AsyncReplyStream",
    "Reply",
    "ReplyEvent",
    "ReplyStream",
    "TextDelta",
    "ToolCallEvent",
    "ToolRun",
    "Usage",
    "asend",
    "send",
]
