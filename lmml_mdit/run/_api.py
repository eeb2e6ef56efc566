"""``send`` and ``asend``: a bundle or a transcript sent to a provider, the reply returned.

:meth:`Bundle.send <lmml_mdit.bundle.Bundle.send>` and
:meth:`Transcript.send <lmml_mdit.transcript.Transcript.send>` call these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from ..chat import DEFAULT_PROVIDER, RequestOptions
from ..conversation import NativeItem, TextPart, ToolCall
from ..jsontypes import JSONObject
from ._loop import (
    DEFAULT_BACKOFF,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_RETRIES,
    Approve,
    RunOptions,
    arun,
    run,
)
from ._reply import Reply, ReplyEvent
from ._stream import AsyncReplyStream, ReplyStream
from ._tools import Tool

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..bundle import Bundle
    from ..transcript import Transcript

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


class StreamOptions(RequestOptions, total=False):
    """The keyword options of ``stream()`` and ``astream()`` (``**options:
    Unpack[StreamOptions]``), so a type checker catches a misspelt one: those of
    ``to_request()`` and of :func:`send` but ``stream`` and ``on_event``."""

    model: str | None
    client: object
    tools: Mapping[str, Tool] | Sequence[Tool] | None
    max_rounds: int
    base_url: str | None
    api_key: str | None
    timeout: float | None
    retries: int
    backoff: float
    approve: Approve | None


class SendOptions(StreamOptions, total=False):
    """The keyword options of ``Transcript.send()`` and ``asend()``: every option of
    :func:`send`."""

    stream: bool
    on_event: Callable[[ReplyEvent], None] | None


def _options(
    provider: str,
    *,
    model: str | None,
    client: object,
    stream: bool,
    tools: Mapping[str, Tool] | Sequence[Tool] | None,
    max_rounds: int,
    base_url: str | None,
    api_key: str | None,
    timeout: float | None,
    retries: int,
    backoff: float,
    on_event: Callable[[ReplyEvent], None] | None,
    approve: Approve | None,
    request_options: dict[str, object],
) -> RunOptions:
    if max_rounds < 1:
        raise ValueError(f"max_rounds must be at least 1, not {max_rounds!r}")
    if retries < 0:
        raise ValueError(f"retries must be 0 or more, not {retries!r}")
    return RunOptions(
        provider,
        model=model,
        client=client,
        stream=stream,
        tools=tools,
        max_rounds=max_rounds,
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        retries=retries,
        backoff=backoff,
        on_event=on_event,
        approve=approve,
        request_options=request_options,
    )


def send(
    bundle: Bundle,
    provider: str = DEFAULT_PROVIDER,
    *,
    model: str | None = None,
    client: object = None,
    stream: bool = False,
    tools: Mapping[str, Tool] | Sequence[Tool] | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float | None = None,
    retries: int = DEFAULT_RETRIES,
    backoff: float = DEFAULT_BACKOFF,
    on_event: Callable[[ReplyEvent], None] | None = None,
    approve: Approve | None = None,
    **request_options: Unpack[RequestOptions],
) -> Reply:
    """Send *bundle*'s request (``to_request(provider, model=model, **request_options)``)
    and return the reply; with *tools*, answer its tool calls and send again, up to
    *max_rounds*. The bundle is left as it is: :attr:`Reply.lmml` is the text of the new
    turns, :attr:`Reply.turns` the turns."""
    options = _options(
        provider,
        model=model,
        client=client,
        stream=stream,
        tools=tools,
        max_rounds=max_rounds,
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        retries=retries,
        backoff=backoff,
        on_event=on_event,
        approve=approve,
        request_options=dict(request_options),
    )
    return run(bundle, options)


async def asend(
    bundle: Bundle,
    provider: str = DEFAULT_PROVIDER,
    *,
    model: str | None = None,
    client: object = None,
    stream: bool = False,
    tools: Mapping[str, Tool] | Sequence[Tool] | None = None,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float | None = None,
    retries: int = DEFAULT_RETRIES,
    backoff: float = DEFAULT_BACKOFF,
    on_event: Callable[[ReplyEvent], None] | None = None,
    approve: Approve | None = None,
    **request_options: Unpack[RequestOptions],
) -> Reply:
    """:func:`send` with the SDK's asyncio client (``client=`` takes an async one)."""
    options = _options(
        provider,
        model=model,
        client=client,
        stream=stream,
        tools=tools,
        max_rounds=max_rounds,
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        retries=retries,
        backoff=backoff,
        on_event=on_event,
        approve=approve,
        request_options=dict(request_options),
    )
    return await arun(bundle, options)


def _append(transcript: Transcript, reply: Reply) -> None:
    """The reply's turns appended as messages: text as content; tool calls, tool results'
    call ids, provider items and the reply's metadata in each message's metadata."""
    last = reply.turns[-1] if reply.turns else None
    for turn in reply.turns:
        metadata: JSONObject = {"role": turn.role}
        calls = [
            {"id": part.id, "name": part.name, "arguments": part.arguments}
            for part in turn.parts
            if isinstance(part, ToolCall)
        ]
        natives = [part.value for part in turn.parts if isinstance(part, NativeItem)]
        if calls:
            metadata["tool_calls"] = calls
        if natives:
            metadata["native"] = natives
        if turn.call is not None:
            metadata["tool_call_id"] = turn.call.id
        if turn is last or (turn.role == "assistant" and turn is reply.message):
            metadata["lmml_run"] = reply.metadata
        text = "".join(part.text for part in turn.parts if isinstance(part, TextPart))
        transcript.append(turn.role, text, metadata=metadata)


def send_transcript(transcript: Transcript, provider: str, **options: Unpack[SendOptions]) -> Reply:
    """Send *transcript* (as :meth:`~Transcript.to_bundle` writes it) and append the reply
    and any tool turns to it."""
    reply = send(transcript.to_bundle(), provider, **options)
    _append(transcript, reply)
    return reply


async def asend_transcript(
    transcript: Transcript, provider: str, **options: Unpack[SendOptions]
) -> Reply:
    """:func:`send_transcript` with the asyncio client."""
    reply = await asend(transcript.to_bundle(), provider, **options)
    _append(transcript, reply)
    return reply


def _live(
    bundle: Bundle,
    provider: str,
    options: StreamOptions,
    finish: Callable[[Reply], None] | None = None,
) -> ReplyStream:
    """*bundle* sent as :func:`send` sends it, streamed, its events handed to a
    :class:`ReplyStream`; *finish* gets the reply once the stream has ended."""
    _refuse_stream_options(options)
    return ReplyStream(
        lambda report: send(bundle, provider, stream=True, on_event=report, **options),
        finish=finish,
    )


def _alive(
    bundle: Bundle,
    provider: str,
    options: StreamOptions,
    finish: Callable[[Reply], None] | None = None,
) -> AsyncReplyStream:
    """:func:`_live` with the SDK's asyncio client."""
    _refuse_stream_options(options)
    return AsyncReplyStream(
        lambda report: asend(bundle, provider, stream=True, on_event=report, **options),
        finish=finish,
    )


def _refuse_stream_options(options: Mapping[str, object]) -> None:
    """A stream takes every option of :func:`send` but ``stream`` and ``on_event``."""
    for taken in ("stream", "on_event"):
        if taken in options:
            raise TypeError(
                f"a stream takes no {taken!r}: it streams, and iterating it is its events"
            )


def stream(
    bundle: Bundle, provider: str = DEFAULT_PROVIDER, **options: Unpack[StreamOptions]
) -> ReplyStream:
    """*bundle* sent as :func:`send` sends it with ``stream=True``, its events read live by
    iterating the returned :class:`~lmml_mdit.run.ReplyStream`."""
    return _live(bundle, provider, options)


def astream(
    bundle: Bundle, provider: str = DEFAULT_PROVIDER, **options: Unpack[StreamOptions]
) -> AsyncReplyStream:
    """:func:`stream` with the SDK's asyncio client."""
    return _alive(bundle, provider, options)


def stream_transcript(
    transcript: Transcript, provider: str, **options: Unpack[StreamOptions]
) -> ReplyStream:
    """:func:`stream` of *transcript*; the reply and any tool turns are appended to it when
    the stream ends (not when it is abandoned or fails)."""
    return _live(
        transcript.to_bundle(), provider, options, lambda reply: _append(transcript, reply)
    )


def astream_transcript(
    transcript: Transcript, provider: str, **options: Unpack[StreamOptions]
) -> AsyncReplyStream:
    """:func:`stream_transcript` with the SDK's asyncio client."""
    return _alive(
        transcript.to_bundle(), provider, options, lambda reply: _append(transcript, reply)
    )
