"""The SDK clients sends go through, made once and shared: a synchronous client for the
whole process, closed as it exits, and an asyncio client per event loop, closed on that
loop as it ends (docs/architecture.md, "How a loop's clients are closed").
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import inspect
import threading
import weakref
from collections.abc import AsyncGenerator, Callable

Key = tuple[object, ...]
"""What a cached client is made from: the SDK, base URL, key, timeout."""

_PROCESS: dict[Key, object] = {}
_LOOPS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopClients] = (
    weakref.WeakKeyDictionary()
)
_LOCK = threading.Lock()  # _LOOPS is shared by the threads that each run a loop
_PROCESS_LOCK = threading.Lock()


def process_client(key: Key, make: Callable[[], object]) -> object:
    """The synchronous client for *key*, made by *make* the first time (by one thread,
    when several ask at once); kept for the process (it holds no event loop) and closed
    as the interpreter exits."""
    client = _PROCESS.get(key)
    if client is None:
        with _PROCESS_LOCK:
            client = _PROCESS.get(key)
            if client is None:
                if not _PROCESS:
                    atexit.register(_close_process_clients)
                client = _PROCESS[key] = make()
    return client


def _close_process_clients() -> None:
    """Close the synchronous clients and their connections, as the interpreter exits."""
    with _PROCESS_LOCK:
        clients = list(_PROCESS.values())
        _PROCESS.clear()
    for client in clients:
        closer = getattr(client, "close", None)
        if closer is not None:
            with contextlib.suppress(Exception):  # exiting: the others are closed all the same
                closer()


async def close_client(client: object) -> None:
    """Close an asyncio SDK client and its connections (google-genai's asyncio side is
    ``client.aio``; the others' ``close()`` is a coroutine)."""
    aio = getattr(client, "aio", None)
    closer = getattr(aio, "aclose", None) or getattr(client, "close", None)
    if closer is not None:
        done = closer()
        if inspect.isawaitable(done):
            await done


class LoopClients:
    """One event loop's asyncio clients, by :data:`Key`, and who holds a share of each."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = weakref.ref(loop)
        self.clients: dict[Key, object] = {}
        self.users: dict[Key, weakref.WeakSet[object]] = {}
        self.closer = self._close_at_end()

    def get(self, key: Key, make: Callable[[], object], user: object) -> object:
        """The client for *key* (made by *make* the first time), a share of it held by
        *user* until :meth:`release` or :meth:`release_last` (or until *user* is gone)."""
        client = self.clients.get(key)
        if client is None:
            client = self.clients[key] = make()
            self.users[key] = weakref.WeakSet()
        self.users[key].add(user)
        return client

    def release(self, key: Key, user: object) -> None:
        """*user* no longer uses its client, which stays cached for the loop's others."""
        users = self.users.get(key)
        if users is not None:
            users.discard(user)

    def release_last(self, key: Key, client: object, user: object) -> bool:
        """Let go of *user*'s share of *client*; True when it was the last share (the
        client is then no longer cached: the caller closes it)."""
        self.release(key, user)
        if self.clients.get(key) is not client or self.users[key]:
            return False  # closed at the loop's end already, or still used
        del self.clients[key], self.users[key]
        return True

    async def _close_at_end(self) -> AsyncGenerator[None, None]:
        """Waits at its ``yield`` while the loop runs; ``loop.shutdown_asyncgens()`` closes
        it, and its ``finally`` closes the loop's clients there."""
        try:
            yield
        finally:
            await asyncio.sleep(0)  # the generators closed with it (an SDK's stream) first
            loop = self.loop()
            with _LOCK:
                if loop is not None and _LOOPS.get(loop) is self:
                    del _LOOPS[loop]
            clients = list(self.clients.values())
            self.clients.clear()
            self.users.clear()
            failed: list[Exception] = []
            for client in clients:
                try:
                    await close_client(client)
                except Exception as error:  # the others closed all the same
                    failed.append(error)
            if failed:
                raise failed[0]  # reported by the loop's exception handler

    def start(self) -> None:
        """Run the closer to its ``yield``, here: it awaits nothing before it, and its first
        step is when the running loop (its ``firstiter`` hook) takes note of it."""
        step = self.closer.asend(None)
        try:
            step.send(None)
        except StopIteration:
            return
        raise AssertionError("the closer awaited before its yield")  # pragma: no cover


def loop_clients() -> LoopClients:
    """The running loop's clients (the first call in a loop starts their closer)."""
    loop = asyncio.get_running_loop()
    with _LOCK:
        found = _LOOPS.get(loop)
        if found is None:
            found = _LOOPS[loop] = LoopClients(loop)
            found.start()
    return found


def cached_clients() -> int:
    """How many asyncio clients are cached, over every loop (what the tests count)."""
    with _LOCK:
        return sum(len(clients.clients) for clients in _LOOPS.values())
