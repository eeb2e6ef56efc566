"""What sending a request through a provider's official SDK gives back, whatever the provider.

Each provider's module implements :class:`Sender` (its ``SENDER``): it makes the SDK client,
sends a body :func:`~lmml_mdit.chat.to_request` built (streamed or not), reports
the text and the tool calls as they arrive, and returns an :class:`Exchange`: the reply in
the provider's own payload form (read back by the provider's importer), with its usage.
It also reads the SDK's exceptions as a :class:`Failure`, so the run loop retries and
reports them the same way for every provider.
"""

from __future__ import annotations

import email.utils
import functools
import importlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from ...jsonio import parse_json
from ...jsontypes import JSONMapping, JSONObject
from ...text import clipped

__all__ = [
    "Emit",
    "EventSender",
    "Exchange",
    "Failure",
    "Gathered",
    "Gathering",
    "Sender",
    "TextDelta",
    "ToolCallEvent",
    "UnreadableReply",
    "openai_style_client",
    "openai_style_failure",
    "reply_data",
    "retry_after_seconds",
    "split_known",
    "stream_request_id",
    "with_stream",
]


@dataclass(frozen=True)
class TextDelta:
    """A piece of the reply's text, as it streamed in."""

    text: str


@dataclass(frozen=True)
class ToolCallEvent:
    """A tool call of the reply, reported once it is complete.

    :ivar arguments: the parsed JSON arguments, or the raw string when it is not JSON; a
        custom tool's input text, as it is. Typed ``object``, as
        :attr:`ToolCall.arguments <lmml_mdit.conversation.ToolCall.arguments>` is: narrow
        it with ``isinstance`` before use.
    :ivar custom: whether it calls a custom tool (OpenAI's free-form tools, see
        :attr:`~lmml_mdit.conversation.ToolCall.is_custom`).
    """

    id: str
    name: str
    arguments: object
    custom: bool = False


Emit = Callable[[TextDelta | ToolCallEvent], None]
"""Where a sender reports the reply's events as they arrive."""


@dataclass
class Exchange:
    """One reply, read from the SDK's response or from its stream.

    :ivar payload: the reply as a payload of the provider's own import format
        (``{"messages": [...]}``, ``{"contents": [...]}``, ``{"input": [...]}``).
    :ivar raw: the SDK's response object (or the list of its stream's events).
    :ivar complete: False when the stream ended before the provider finished.
    :ivar response_id: the provider's own id of the reply (``chatcmpl-...``, ``msg_...``,
        ``resp_...``, Gemini's ``responseId``), not the HTTP request's id.
    """

    payload: JSONObject
    raw: object = None
    model: str | None = None
    finish_reason: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    request_id: str | None = None
    response_id: str | None = None
    complete: bool = True
    text: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Failure:
    """An SDK exception, read: what happened and whether to try again.

    :ivar kind: ``status`` (the provider answered with an error status), ``connection``
        (it could not be reached), ``timeout``, or ``unreadable`` (it answered with a body
        that is not its reply: not JSON, or without the reply in it).
    :ivar status: the HTTP status, for ``status``.
    :ivar message: the provider's own message.
    :ivar retry_after: the seconds its ``Retry-After`` header asks for, if any.
    """

    kind: Literal["status", "connection", "timeout", "unreadable"]
    status: int | None = None
    message: str = ""
    retry_after: float | None = None


class UnreadableReply(Exception):
    """A successful answer whose body is not the provider's reply (a web page, JSON cut
    short, an object without the reply in it); its message says what it is."""


def reply_data(response: object, *keys: str) -> JSONObject:
    """The SDK's whole *response* as JSON, holding one of *keys* at least.

    :raises UnreadableReply: when the SDK gave back something else (the body's text,
        when it was not JSON) or the JSON holds none of *keys*.
    """
    dump = getattr(response, "model_dump", None)
    if dump is None:
        text = str(response).strip()
        shown = clipped(text, 60)
        raise UnreadableReply(f"its body is not JSON: {shown!r}" if text else "its body is empty")
    data: JSONObject = dump(mode="json", exclude_none=True)
    if not any(key in data for key in keys):
        names = " or ".join(repr(key) for key in keys)
        raise UnreadableReply(f"it holds no {names}")
    return data


class Sender(Protocol):
    """One provider's direction out: its SDK, called with a request body."""

    name: str
    key_variables: tuple[str, ...]
    """The environment variables the SDK reads its key from, in its order."""
    sdk: str
    """The SDK's distribution name."""
    extra: str
    """The ``lmml_mdit`` extra that installs the SDK."""
    otel_name: str
    """The provider's ``gen_ai.provider.name`` in the OpenTelemetry conventions."""
    default_url: str
    """Where the SDK sends requests when no base URL is given."""

    def client(
        self,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout: float | None,
        asynchronous: bool,
    ) -> object:
        """A new SDK client (its own retries off: the run loop retries)."""
        ...

    def call(self, client: object, body: JSONMapping, *, stream: bool, emit: Emit) -> Exchange:
        """Send *body* and return the reply."""
        ...

    async def acall(
        self, client: object, body: JSONMapping, *, stream: bool, emit: Emit
    ) -> Exchange:
        """Send *body* with the asyncio client and return the reply."""
        ...

    def failure(self, error: BaseException) -> Failure | None:
        """*error* read as a failure, or None when it is not the SDK's."""
        ...


class Gathering(Protocol):
    """A stream's events gathered into one reply, each event reported as it arrives."""

    def add(self, event: object) -> None:
        """Take one event of the stream."""
        ...

    def finish(self, request_id: str | None) -> Exchange:
        """The reply, once the stream has ended."""
        ...


class Gathered:
    """What a provider's :class:`Gathering` keeps: the stream's events, the reply's text as
    it streamed, and the exchange it fills in."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.events: list[object] = []
        self.text: list[str] = []
        self.exchange = Exchange({}, complete=False)

    def streamed(self, text: str) -> None:
        """Keep a piece of the reply's text and report it."""
        self.text.append(text)
        self.emit(TextDelta(text))

    def finish(self, request_id: str | None) -> Exchange:
        """The reply, once the stream has ended: its events, its text and *request_id*."""
        self.exchange.raw = self.events
        self.exchange.text = self.text
        self.exchange.request_id = request_id
        return self.exchange


def stream_request_id(stream: object, header: str = "x-request-id") -> str | None:
    """The request id *header* of an SDK stream's HTTP response, if it has one."""
    response = getattr(stream, "response", None)
    headers = getattr(response, "headers", None)
    return None if headers is None else headers.get(header)


def openai_style_client(package: str, sync_class: str, async_class: str) -> Callable[..., object]:
    """The client maker of an SDK shaped like ``openai`` and ``anthropic``: *package*'s
    *sync_class* or *async_class* (imported on first use), its own retries off."""

    def make(
        *, base_url: str | None, api_key: str | None, timeout: float | None, asynchronous: bool
    ) -> object:
        sdk = importlib.import_module(package)
        factory = getattr(sdk, async_class if asynchronous else sync_class)
        made: object = factory(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)
        return made

    return make


def openai_style_failure(package: str) -> Callable[[BaseException], Failure | None]:
    """The failure reader of an SDK shaped like ``openai`` and ``anthropic``: its
    ``APITimeoutError``, ``APIConnectionError`` and ``APIStatusError`` (the provider's own
    message taken from the body's ``error.message``, else its ``message``)."""

    def read(error: BaseException) -> Failure | None:
        sdk: Any = importlib.import_module(package)
        if isinstance(error, sdk.APITimeoutError):
            return Failure("timeout", message=str(error))
        if isinstance(error, sdk.APIConnectionError):
            return Failure("connection", message=str(error))
        if not isinstance(error, sdk.APIStatusError):
            return None
        failed: Any = error
        message = failed.message
        body = failed.body
        if isinstance(body, Mapping):
            found = body.get("message")
            inner = body.get("error")
            if isinstance(inner, Mapping):
                found = inner.get("message", found)
            if isinstance(found, str):
                message = found
        return Failure(
            "status",
            status=failed.status_code,
            message=message,
            retry_after=retry_after_seconds(failed.response.headers),
        )

    return read


def with_stream(body: JSONMapping) -> JSONObject:
    """*body* asking for a stream: ``"stream": true``."""
    return {**body, "stream": True}


@dataclass(frozen=True)
class EventSender:
    """The :class:`Sender` of an SDK whose ``create`` method takes the body as keyword
    arguments and, streamed, yields server-sent events inside a context manager (OpenAI
    Chat Completions and Responses, Anthropic Messages). The provider module gives its
    names, its SDK's client and failure readers, and how its reply and its events are read.

    :ivar create: the SDK's method, found on a client (``attrgetter("messages.create")``).
    :ivar whole: the reply read from the SDK's whole response.
    :ivar gathering: a new gatherer of one stream's events, reporting to the given emit.
    :ivar stream_body: the body that asks for a stream.
    :ivar request_id_header: the response header carrying the provider's request id.
    """

    name: str
    key_variables: tuple[str, ...]
    sdk: str
    extra: str
    otel_name: str
    default_url: str
    make_client: Callable[..., object]
    read_failure: Callable[[BaseException], Failure | None]
    create: Callable[[object], Callable[..., object]]
    whole: Callable[[object], Exchange]
    gathering: Callable[[Emit], Gathering]
    stream_body: Callable[[JSONMapping], JSONMapping] = with_stream
    request_id_header: str = "x-request-id"

    def client(
        self,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout: float | None,
        asynchronous: bool,
    ) -> object:
        """A new SDK client (its own retries off: the run loop retries)."""
        return self.make_client(
            base_url=base_url, api_key=api_key, timeout=timeout, asynchronous=asynchronous
        )

    def failure(self, error: BaseException) -> Failure | None:
        """*error* read as a failure, or None when it is not the SDK's."""
        return self.read_failure(error)

    def call(self, client: object, body: JSONMapping, *, stream: bool, emit: Emit) -> Exchange:
        """Send *body*: the whole reply, or each event of its stream gathered."""
        create = self.create(client)
        if not stream:
            return self.whole(create(**split_known(create, body)))
        gathered = self.gathering(emit)
        events: Any = create(**split_known(create, self.stream_body(body)))  # the SDK's stream
        with events as opened:
            media = _not_events(opened)
            if media is not None:
                raise _unread_stream(media, opened.response.read())
            for event in opened:
                gathered.add(event)
            return gathered.finish(stream_request_id(opened, self.request_id_header))

    async def acall(
        self, client: object, body: JSONMapping, *, stream: bool, emit: Emit
    ) -> Exchange:
        """:meth:`call` with the SDK's asyncio client."""
        create = self.create(client)
        if not stream:
            reply: Any = create(**split_known(create, body))  # the SDK's coroutine
            return self.whole(await reply)
        gathered = self.gathering(emit)
        started: Any = create(**split_known(create, self.stream_body(body)))
        opened = await started
        async with opened:
            media = _not_events(opened)
            if media is not None:
                raise _unread_stream(media, await opened.response.aread())
            async for event in opened:
                gathered.add(event)
            return gathered.finish(stream_request_id(opened, self.request_id_header))


def _not_events(stream: object) -> str | None:
    """The media type of the HTTP answer behind an SDK *stream* when it says it is a web
    page or a JSON document (what a server that does not speak the protocol sends), else
    None: another type is left to the SDK, which reads events from any (a server may
    label its stream oddly)."""
    response = getattr(stream, "response", None)
    headers = getattr(response, "headers", None)
    kind = "" if headers is None else str(headers.get("content-type") or "")
    media = kind.partition(";")[0].strip().lower()
    subtype = media.partition("/")[2]
    page = subtype in ("html", "xhtml+xml") or subtype == "json" or subtype.endswith("+json")
    return media if page else None


def _unread_stream(media: str, body: bytes) -> UnreadableReply:
    """The error for a streamed request answered with a *media* body, not events."""
    text = body.decode("utf-8", "replace").strip()
    said = f": {clipped(text, 60)!r}" if text else " (empty)"
    return UnreadableReply(f"its body is {media}, not a stream of events{said}")


def split_known(method: Callable[..., object], body: JSONMapping) -> JSONObject:
    """*body* as keyword arguments of the SDK's *method*, handed over as it is.

    A list (the messages, the tools) goes in ``extra_body``, which the SDK sends untouched,
    so it does not walk the conversation against its parameter types on every request; a
    required parameter given that way is passed the SDK's ``NOT_GIVEN``. Other values the
    method has a parameter for stay keyword arguments (the SDK reads some: ``stream``,
    ``max_tokens``, ``model``). Keys it has no parameter for also go in ``extra_body``, so a
    setting passed through (``unknown_settings="pass"``) is still sent."""
    parameters, required = _parameters(method)
    unset = _not_given(method) if "extra_body" in parameters else None
    known: JSONObject = {}
    extra: JSONObject = {}
    for key, value in body.items():
        handed = "extra_body" in parameters and isinstance(value, list)
        if key not in parameters or (handed and (key not in required or unset is not None)):
            extra[key] = value
        else:
            known[key] = value
    for name in required:
        if name not in known and name in extra:
            known[name] = unset
    if extra:
        known["extra_body"] = extra
    return known


def _not_given(method: Callable[..., object]) -> object | None:
    """The ``NOT_GIVEN`` of the SDK *method* belongs to, or None when it has none."""
    return _package_not_given(getattr(method, "__module__", "").partition(".")[0])


@functools.lru_cache(maxsize=16)
def _package_not_given(package: str) -> object | None:
    """The ``NOT_GIVEN`` of the SDK *package*, looked up once."""
    try:
        found: object | None = getattr(importlib.import_module(package), "NOT_GIVEN", None)
    except ImportError:
        return None
    return found


@functools.lru_cache(maxsize=64)
def _signature(function: Callable[..., object]) -> tuple[frozenset[str], tuple[str, ...]]:
    import inspect

    parameters = inspect.signature(function).parameters
    required = tuple(
        name
        for name, parameter in parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
        and parameter.default is inspect.Parameter.empty
    )
    return frozenset(parameters), required


def _parameters(method: Callable[..., object]) -> tuple[frozenset[str], tuple[str, ...]]:
    """The names *method* takes, and the keyword-only ones it requires (its signature read
    once per SDK function, not per request)."""
    function = getattr(method, "__func__", method)
    return _signature(function)


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The delay a ``Retry-After`` (or ``retry-after-ms``) header asks for, in seconds;
    None when it asks for none, or for neither seconds nor an HTTP date."""
    if headers is None:
        return None
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        try:
            return max(0.0, float(milliseconds) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):  # neither seconds nor a date: the run's own backoff
        return None
    return max(0.0, parsed.timestamp() - time.time())


def parse_arguments(text: str) -> object:
    """Tool-call arguments as streamed (a JSON string), parsed as strict JSON
    (:func:`~lmml_mdit.jsonio.parse_json`); the raw text when not JSON."""
    try:
        return parse_json(text) if text else {}
    except (ValueError, RecursionError):
        return text
