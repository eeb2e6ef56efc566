"""A send whose events are read live: :class:`ReplyStream` and :class:`AsyncReplyStream`.

A stream runs the same send as ``send(..., stream=True)``; iterating it yields each text
piece and each complete tool call as the provider's stream delivers it, and
:meth:`~ReplyStream.reply` returns the :class:`~lmml_mdit.run.Reply` once the stream has
ended. The sync stream runs the send on a worker thread and hands its events over a queue;
the async one runs it as a task on the caller's loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from types import TracebackType

from ._reply import Reply, ReplyEvent

__all__ = ["AsyncReplyStream", "ReplyStream"]

Start = Callable[[Callable[[ReplyEvent], None]], Reply]
"""A send, given where to report its events."""
AsyncStart = Callable[[Callable[[ReplyEvent], None]], Awaitable[Reply]]


class _Abandoned(Exception):
    """Raised inside the send when its reader stopped reading: the send ends there."""


@dataclass(frozen=True)
class _End:
    reply: Reply | None
    error: BaseException | None


def _outcome(end: _End | None) -> Reply:
    """The reply a stream ended with; its error raised, or the closing said, instead."""
    assert end is not None
    if end.error is not None:
        raise end.error
    if end.reply is None:
        raise RuntimeError("the stream was closed before its reply arrived")
    return end.reply


class ReplyStream:
    """A send in progress: iterate it for its events as they arrive (text pieces and each
    complete tool call, over every round), then call :meth:`reply`.

    The send starts on first iteration (or on :meth:`reply`). Leaving a ``with`` block or
    calling :meth:`close` before the end abandons it: the provider's stream is closed at
    its next event and nothing is written. An error of the send (a refusal, a stream cut)
    is raised where the iteration reaches it, and again by :meth:`reply`.
    """

    def __init__(self, start: Start, *, finish: Callable[[Reply], None] | None = None) -> None:
        self._start = start
        self._finish = finish
        self._events: queue.SimpleQueue[ReplyEvent | _End] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._abandoned = threading.Event()
        self._end: _End | None = None

    def _put(self, event: ReplyEvent) -> None:
        if self._abandoned.is_set():
            raise _Abandoned
        self._events.put(event)

    def _work(self) -> None:
        try:
            reply = self._start(self._put)
        except BaseException as error:  # handed to the reader, which raises it
            self._events.put(_End(None, error))
        else:
            self._events.put(_End(reply, None))

    def __iter__(self) -> Iterator[ReplyEvent]:
        if self._end is not None:
            _outcome(self._end)
            return
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="lmml-stream", daemon=True)
            self._thread.start()
        while True:
            item = self._events.get()
            if isinstance(item, _End):
                self._ended(item)
                return
            yield item

    def _ended(self, end: _End) -> None:
        self._end = end
        if end.reply is not None and self._finish is not None and not self._abandoned.is_set():
            self._finish(end.reply)
        _outcome(self._end)

    def reply(self) -> Reply:
        """The reply, once the stream has ended (the events not yet read are skipped)."""
        for _ in self:
            pass
        return _outcome(self._end)

    def close(self) -> None:
        """Abandon the send if it is still running; nothing of it is written."""
        if self._end is None:
            self._abandoned.set()
            if self._thread is not None:
                self._thread.join()
            self._end = _End(None, None)

    def __enter__(self) -> ReplyStream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class AsyncReplyStream:
    """:class:`ReplyStream` on the caller's event loop: ``async for`` its events, then
    ``await`` :meth:`reply`; ``async with`` (or :meth:`aclose`) abandons an unfinished
    send by cancelling it."""

    def __init__(self, start: AsyncStart, *, finish: Callable[[Reply], None] | None = None) -> None:
        self._start = start
        self._finish = finish
        self._events: asyncio.Queue[ReplyEvent | _End] | None = None
        self._task: asyncio.Task[None] | None = None
        self._end: _End | None = None

    async def _work(self, events: asyncio.Queue[ReplyEvent | _End]) -> None:
        try:
            reply = await self._start(events.put_nowait)
        except asyncio.CancelledError:
            raise
        except BaseException as error:
            events.put_nowait(_End(None, error))
        else:
            events.put_nowait(_End(reply, None))

    async def __aiter__(self) -> AsyncIterator[ReplyEvent]:
        if self._end is not None:
            _outcome(self._end)
            return
        if self._events is None:
            self._events = asyncio.Queue()
            self._task = asyncio.ensure_future(self._work(self._events))
        while True:
            item = await self._events.get()
            if isinstance(item, _End):
                self._end = item
                if item.reply is not None and self._finish is not None:
                    self._finish(item.reply)
                _outcome(self._end)
                return
            yield item

    async def reply(self) -> Reply:
        """The reply, once the stream has ended (the events not yet read are skipped)."""
        async for _ in self:
            pass
        return _outcome(self._end)

    async def aclose(self) -> None:
        """Abandon the send if it is still running (it is cancelled); nothing is written."""
        if self._end is None:
            if self._task is not None and not self._task.done():
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
            self._end = _End(None, None)

    async def __aenter__(self) -> AsyncReplyStream:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()
