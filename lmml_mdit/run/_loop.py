"""The run loop: a bundle's request sent, its reply read and appended, tools answered.

One round builds the body :func:`~lmml_mdit.chat.to_request` builds, sends it
through the provider's :class:`~lmml_mdit.chat.providers.sending.Sender` (retrying a 429
or 5xx with exponential backoff that honours ``Retry-After``), reads the reply with the
provider's importer and appends it to the :class:`~lmml_mdit.run.Document`. A
reply with tool calls runs the functions, appends their results as tool turns and sends
again, up to ``max_rounds``. :func:`run` and :func:`arun` differ only in how they wait.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import random
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..bundle import Bundle
from ..chat import read_conversation, to_request
from ..chat.providers import sender
from ..chat.providers.sending import Exchange, Failure, Sender, UnreadableReply
from ..conversation import ChatMessage, TextPart, ToolCall
from ..errors import (
    ImportFormatError,
    MissingCredentialsError,
    ProviderConnectionError,
    ProviderError,
    RunError,
    StreamCutError,
)
from ..jsontypes import JSONMapping, JSONObject
from ..text import clipped
from ._clients import Key, LoopClients, close_client, loop_clients, process_client
from ._document import Document
from ._reply import Reply, ReplyEvent, ToolRun, Usage
from ._tools import Tool, declared_tools, tool_result
from ._trace import Span
from ._trace import span as trace_span

if TYPE_CHECKING:
    from ..chat import RequestOptions

__all__ = ["Approve", "RunOptions", "arun", "run"]

Approve = Callable[[ToolCall], bool]
"""Asked before each tool call runs; False sends the model a refusal instead."""

DEFAULT_RETRIES = 3
DEFAULT_BACKOFF = 0.5
DEFAULT_MAX_ROUNDS = 8
"""The requests one run makes at most: the first, then one per round of tool calls."""
MAX_DELAY = 60.0


@dataclass
class RunOptions:
    """What a run takes besides the bundle (see :meth:`Bundle.send
    <lmml_mdit.bundle.Bundle.send>` for each)."""

    provider: str
    model: str | None = None
    client: object = None
    stream: bool = False
    tools: Mapping[str, Tool] | Sequence[Tool] | None = None
    max_rounds: int = DEFAULT_MAX_ROUNDS
    base_url: str | None = None
    api_key: str | None = None
    timeout: float | None = None
    retries: int = DEFAULT_RETRIES
    backoff: float = DEFAULT_BACKOFF
    approve: Approve | None = None
    on_event: Callable[[ReplyEvent], None] | None = None
    keep_partial: bool = False
    commit: Callable[[Document], None] | None = None
    request_options: Mapping[str, object] = field(default_factory=dict)


def _functions(tools: Mapping[str, Tool] | Sequence[Tool] | None) -> dict[str, Tool]:
    if tools is None:
        return {}
    if isinstance(tools, Mapping):
        return dict(tools)
    return {getattr(function, "__name__", repr(function)): function for function in tools}


def _transport(error: BaseException) -> Failure | None:
    """An HTTP library's error the SDK let through (a stream read cut mid-way), or an
    answer whose body is not a reply."""
    names = {cls.__name__ for cls in type(error).__mro__}
    if "TimeoutException" in names:
        return Failure("timeout", message=str(error) or type(error).__name__)
    if names & {"TransportError", "StreamError", "RemoteProtocolError"}:
        return Failure("connection", message=str(error) or type(error).__name__)
    if isinstance(error, UnreadableReply):
        return Failure("unreadable", message=str(error))
    if isinstance(error, json.JSONDecodeError):  # the SDK read a body that is not JSON
        return Failure("unreadable", message=f"its body is not JSON ({error})")
    return None


class _Link:
    """A provider's client and the retry policy of a run: what sending one body needs."""

    def __init__(self, options: RunOptions, file: str | None, *, asynchronous: bool) -> None:
        self.options = options
        self.sender: Sender = sender(options.provider)
        self.share: tuple[LoopClients, Key] | None = None
        self.client = self._client(asynchronous)
        self.file = file
        self.attempt_events: list[ReplyEvent] = []

    def keep_partial(self) -> None:
        """Keep what arrived of a cut reply: a bare body has nowhere to keep it."""

    def cut_hint(self) -> str:
        """What a cut reply's error says was done with what arrived."""
        return "nothing was written; run again (--keep-partial writes what arrived)"

    # -- the client --------------------------------------------------------------------

    @property
    def url(self) -> str:
        found = self.options.base_url or getattr(self.client, "base_url", None)
        return str(found or self.sender.default_url)

    def _client(self, asynchronous: bool) -> object:
        """The options' client, else the one cached for them: for the process, or (an
        asyncio client) for the running loop, this link holding a share of it."""
        options = self.options
        if options.client is not None:
            return options.client
        key = options.api_key
        if key is None and not any(os.environ.get(name) for name in self.sender.key_variables):
            if options.base_url is None:
                names = " or ".join(self.sender.key_variables)
                raise MissingCredentialsError(
                    f"no API key for {options.provider}: {names} is not set",
                    hint=f"set {names}, or pass api_key= or a client=",
                    cli_hint=f"set {names}, or pass --api-key; a local server takes --base-url",
                )
            key = "unused"  # a local server (Ollama, vLLM, llama.cpp) takes any key
        cache = (self.sender.sdk, options.base_url, key, options.timeout)

        def make() -> object:
            try:
                return self.sender.client(
                    base_url=options.base_url,
                    api_key=key,
                    timeout=options.timeout,
                    asynchronous=asynchronous,
                )
            except ImportError:
                raise RunError(
                    f"sending to {options.provider} needs the {self.sender.sdk} package",
                    hint=f"pip install 'lmml-mdit[{self.sender.extra}]'",
                ) from None

        if not asynchronous:
            return process_client(cache, make)
        clients = loop_clients()
        self.share = clients, cache
        return clients.get(cache, make, self)

    def release(self) -> None:
        """This link's share of its asyncio client given back, the client kept cached."""
        if self.share is not None:
            clients, key = self.share
            self.share = None
            clients.release(key, self)

    async def aclose(self) -> None:
        """This link's share of its asyncio client given back; the client closed when
        no other run or sender of its loop holds a share."""
        if self.share is not None:
            clients, key = self.share
            self.share = None
            if clients.release_last(key, self.client, self):
                await close_client(self.client)

    def emit(self, event: ReplyEvent) -> None:
        self.attempt_events.append(event)
        if self.options.on_event is not None:
            self.options.on_event(event)

    def span_attributes(self, body: JSONMapping) -> JSONObject:
        where = urllib.parse.urlsplit(self.url)
        return {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self.sender.otel_name,
            "gen_ai.request.model": body.get("model") or self.options.model,
            "server.address": where.hostname,
            "server.port": where.port,
        }

    def failed(self, error: Exception) -> tuple[Failure, float | None]:
        """*error* read as a failure, and the delay before trying again (None: do not)."""
        failure = self.sender.failure(error) or _transport(error)
        if failure is None:
            raise error
        if self.attempt_events or failure.kind != "status":
            return failure, None
        status = failure.status or 0
        if status != 429 and status < 500:
            return failure, None
        return failure, 0.0

    def delay(self, failure: Failure, attempt: int) -> float | None:
        if attempt >= self.options.retries:
            return None
        if failure.retry_after is not None:
            return min(failure.retry_after, MAX_DELAY)
        backoff: float = self.options.backoff * 2.0**attempt
        return min(backoff + random.uniform(0, backoff / 4), MAX_DELAY)

    def error(self, failure: Failure) -> RunError:
        """The error a failure ends the run with (a stream cut keeps what arrived)."""
        if self.attempt_events:
            partial = "".join(e.text for e in self.attempt_events if hasattr(e, "text"))
            cut = StreamCutError(
                f"the connection to {self.url} failed mid-reply: {failure.message}",
                name=self.file,
                hint=self.cut_hint(),
            )
            cut.partial = partial
            return cut
        if failure.kind == "unreadable":
            provider = self.options.provider
            said = clipped(" ".join(failure.message.split()), 160)  # a page's text, one line
            unread = ProviderError(
                f"the answer from {self.url} is no {provider} reply: {said}",
                name=self.file,
                hint=f"check the base URL: the server there does not answer as {provider} does",
                cli_hint=(
                    "check --base-url and --provider: the server there does not answer "
                    f"as {provider} does"
                ),
            )
            return unread
        if failure.kind != "status":
            what = "timed out" if failure.kind == "timeout" else "cannot be reached"
            return ProviderConnectionError(
                f"{self.url} {what}: {failure.message}",
                name=self.file,
                hint="check the base URL and that the server runs; timeout= raises the limit",
                cli_hint="check --base-url and that the server runs; --timeout raises the limit",
            )
        status = failure.status
        hint, cli_hint = "fix the request and run again", None
        if status in (401, 403):
            names = " or ".join(self.sender.key_variables)
            hint = f"check the key in {names}, or pass api_key="
            cli_hint = f"check the key in {names}, or pass --api-key"
        elif status == 429 or (status or 0) >= 500:
            hint = "the provider is busy or failing; try again later (retries= tries more)"
            cli_hint = "the provider is busy or failing; try again later (--retries tries more)"
        elif status == 404:
            hint = "check the model name and the base URL"
        refused = ProviderError(
            f"{self.options.provider} refused the request ({status}): {failure.message}",
            name=self.file,
            hint=hint,
            cli_hint=cli_hint,
        )
        refused.status = status
        return refused


class _Run(_Link):
    """The state of one run, shared by the sync and the asyncio loop."""

    def __init__(self, bundle: Bundle, options: RunOptions, *, asynchronous: bool) -> None:
        super().__init__(options, bundle.file_name, asynchronous=asynchronous)
        self.document = Document.of(bundle)
        if not options.request_options.get("strict", True):
            # strict: building the first body refuses the defect, as render does
            self.document.refuse_unrecordable()
        self.functions = _functions(options.tools)
        self.tools = declared_tools(bundle.settings, self.functions) if self.functions else None
        self.turns: list[ChatMessage] = []
        self.events: list[ReplyEvent] = []
        self.tool_runs: list[ToolRun] = []
        self.lmml: list[str] = []
        self.input_tokens = 0
        self.output_tokens = 0
        self.counted = False
        self.reply: Reply | None = None
        self.rounds = 0

    # -- one round ---------------------------------------------------------------------

    def body(self) -> JSONObject:
        """The request body of the next round, as ``to_request`` builds it."""
        return _request(self.document, self.options, self.tools)

    def received(self, exchange: Exchange, latency: float, span: Span) -> list[ToolCall]:
        """Append the reply; the tool calls it makes."""
        self.rounds += 1
        if not exchange.complete:
            cut = StreamCutError(
                f"the reply from {self.url} ended before the provider finished it",
                name=self.file,
                hint=self.cut_hint(),
            )
            cut.partial = "".join(exchange.text)
            if self.options.keep_partial:
                self.keep_partial()
            raise cut
        try:
            conversation = read_conversation(exchange.payload, self.options.provider)
        except ImportFormatError as error:
            raise self.unwritable(exchange, error) from None
        parts = [part for turn in conversation.messages for part in turn.parts]
        parts = [
            dataclasses.replace(part, id=self.document.unique_call_id(part.id))
            if isinstance(part, ToolCall)
            else part
            for part in parts
        ]
        message = ChatMessage("assistant", parts)
        metadata = self.metadata(exchange, latency)
        self.lmml.append(self.document.add(message, metadata=metadata))
        self.turns.append(message)
        self.events.extend(self.attempt_events)
        self.input_tokens += exchange.input_tokens or 0
        self.output_tokens += exchange.output_tokens or 0
        self.counted = self.counted or exchange.input_tokens is not None
        span.set_attribute("gen_ai.response.model", exchange.model)
        span.set_attribute("gen_ai.response.finish_reasons", [exchange.finish_reason or ""])
        span.set_attribute("gen_ai.response.id", exchange.response_id)
        if exchange.input_tokens is not None:
            span.set_attribute("gen_ai.usage.input_tokens", exchange.input_tokens)
        if exchange.output_tokens is not None:
            span.set_attribute("gen_ai.usage.output_tokens", exchange.output_tokens)
        self.reply = Reply(
            message,
            self.options.provider,
            model=exchange.model,
            finish_reason=exchange.finish_reason,
            latency=latency,
            request_id=exchange.request_id,
            raw=exchange.raw,
            metadata=metadata,
        )
        return [part for part in parts if isinstance(part, ToolCall)]

    def unwritable(self, exchange: Exchange, error: ImportFormatError) -> ProviderError:
        """The error for a reply that came whole but does not read as its provider's (a
        tool call's arguments that are no JSON object, as a reply cut at the token limit
        leaves them): nothing is written."""
        where = f"{error.name}: " if error.name else ""
        stop = exchange.finish_reason
        return ProviderError(
            f"the reply from {self.url} cannot be written: {where}{error.message}"
            + (f" (finish reason {stop})" if stop else ""),
            name=self.file,
            hint="nothing was written; run again, with a larger max_tokens setting if the "
            "reply stopped at the token limit",
            cli_hint="nothing was written; run again, with --set max_tokens=N if the reply "
            "stopped at the token limit",
        )

    def metadata(self, exchange: Exchange, latency: float) -> JSONObject:
        found: JSONObject = {
            "provider": self.options.provider,
            "model": exchange.model,
            "finish_reason": exchange.finish_reason,
            "input_tokens": exchange.input_tokens,
            "output_tokens": exchange.output_tokens,
            "latency_ms": round(latency * 1000),
            "request_id": exchange.request_id,
        }
        return {key: value for key, value in found.items() if value is not None}

    def cut_hint(self) -> str:
        if self.options.keep_partial:  # keep_partial writes it as the error is raised
            return "what arrived was written, marked incomplete; run again for the rest"
        if self.options.commit is not None and self.document.changed:
            return (
                "this reply was not written, the rounds before it were; run again"
                " (--keep-partial writes what arrived)"
            )
        return super().cut_hint()

    def keep_partial(self) -> None:
        """Append what a cut stream delivered, marked incomplete, and commit it."""
        text = "".join(e.text for e in self.attempt_events if hasattr(e, "text"))
        metadata = {"provider": self.options.provider, "incomplete": True}
        message = ChatMessage("assistant", [TextPart(text)] if text else [])
        self.lmml.append(self.document.add(message, metadata=metadata))
        self.turns.append(message)
        self.commit()

    def answer(self, calls: list[ToolCall]) -> bool:
        """Run the tools the calls name and append their results; False when the run
        stops here (no tools given)."""
        if not self.functions:
            return False
        for call in calls:
            function = self.functions.get(call.name)
            with trace_span(
                f"execute_tool {call.name}",
                {
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": call.name,
                    "gen_ai.tool.call.id": call.id,
                },
            ) as span:
                if function is None:
                    result, failed = f"error: no tool named {call.name!r} is available", True
                elif self.options.approve is not None and not self.options.approve(call):
                    result, failed = "error: the user declined to run this tool call", True
                else:
                    result, raised = tool_result(function, call.arguments)
                    failed = raised is not None
                    if raised is not None:
                        span.fail(raised, result)
            self.tool_runs.append(ToolRun(call, result, failed))
            turn = ChatMessage("tool", [TextPart(result)], call)
            self.lmml.append(self.document.add(turn))
            self.turns.append(turn)
        return True

    def commit(self) -> None:
        if self.options.commit is not None and self.document.changed:
            self.options.commit(self.document)

    def result(self, stopped: str | None) -> Reply:
        assert self.reply is not None
        reply = self.reply
        reply.turns = self.turns
        reply.events = self.events
        reply.tool_runs = self.tool_runs
        reply.lmml = "".join(self.lmml)
        reply.rounds = self.rounds
        reply.stopped = stopped
        reply.usage = Usage(
            self.input_tokens if self.counted else None,
            self.output_tokens if self.counted else None,
        )
        return reply

    def stop_reason(self, calls: list[ToolCall], round_number: int) -> str | None:
        """Why the run ends after this round (None: send again)."""
        if not calls:
            return None
        if not self.functions:
            names = ", ".join(call.name for call in calls)
            return f"the reply calls {names}; no tools were given, so the run stops here"
        if round_number >= self.options.max_rounds:
            return f"stopped after {self.options.max_rounds} rounds with tool calls unanswered"
        return ""


def _request(document: Document, options: RunOptions, tools: list[JSONObject] | None) -> JSONObject:
    """The body ``to_request`` builds for the document as it now reads, with *tools* (the
    settings' declarations plus the given functions') when there are any."""
    request_options = dict(options.request_options)
    given = request_options.get("settings") or {}
    if tools is not None and isinstance(given, Mapping):  # not a mapping: to_request says so
        request_options["settings"] = {"tools": tools, **given}
    checked = cast("RequestOptions", request_options)  # to_request checks each at run time
    return to_request(document.bundle(), options.provider, model=options.model, **checked)


def _run_span(state: _Run) -> Any:
    return trace_span(
        "invoke_agent lmml",
        {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "lmml",
            "gen_ai.provider.name": state.sender.otel_name,
            "gen_ai.request.model": state.options.model,
        },
    )


def _chat_span(state: _Link, body: JSONMapping) -> Any:
    return trace_span(
        f"chat {body.get('model') or ''}".strip(), state.span_attributes(body), client=True
    )


def _end_round(state: _Run, calls: list[ToolCall], round_number: int) -> Reply | None:
    """Answer the round's tool calls and commit; the reply when the run stops here (None:
    send again)."""
    stopped = state.stop_reason(calls, round_number)
    if stopped == "":
        state.answer(calls)
    state.commit()
    return None if stopped == "" else state.result(stopped)


def run(bundle: Bundle, options: RunOptions) -> Reply:
    """Send *bundle*, round after round, and return the last reply (see :class:`_Run`)."""
    state = _Run(bundle, options, asynchronous=False)
    with _run_span(state):
        for round_number in range(1, max(1, options.max_rounds) + 1):
            body = state.body()
            with _chat_span(state, body) as span:
                exchange, latency = _send(state, body)
                calls = state.received(exchange, latency, span)
            reply = _end_round(state, calls, round_number)
            if reply is not None:
                return reply
    return state.result(None)


def _send(state: _Link, body: JSONMapping) -> tuple[Exchange, float]:
    attempt = 0
    while True:
        state.attempt_events = []
        started = time.perf_counter()
        try:
            exchange = state.sender.call(
                state.client, body, stream=state.options.stream, emit=state.emit
            )
            return exchange, time.perf_counter() - started
        except KeyboardInterrupt:
            _interrupted(state)
            raise
        except RunError:
            raise
        except Exception as error:
            time.sleep(_wait(state, error, attempt))
            attempt += 1


def _interrupted(state: _Link) -> None:
    """An attempt interrupted: what arrived kept, when the options ask for it."""
    if state.options.keep_partial and state.attempt_events:
        state.keep_partial()


def _wait(state: _Link, error: Exception, attempt: int) -> float:
    """The seconds to wait before trying *error*'s attempt again (the run's error raised
    when it is not to be tried again)."""
    failure, retry = state.failed(error)
    wait = None if retry is None else state.delay(failure, attempt)
    if wait is None:
        _give_up(state, failure)
    return wait or 0.0


def _give_up(state: _Link, failure: Failure) -> None:
    error = state.error(failure)
    if isinstance(error, StreamCutError) and state.options.keep_partial:
        state.keep_partial()
    raise error from None


async def arun(bundle: Bundle, options: RunOptions) -> Reply:
    """:func:`run` with the SDK's asyncio client (cached for the running loop: the run
    holds a share of it until it ends, and the loop closes it as it ends)."""
    state = _Run(bundle, options, asynchronous=True)
    try:
        with _run_span(state):
            for round_number in range(1, max(1, options.max_rounds) + 1):
                body = state.body()
                with _chat_span(state, body) as span:
                    exchange, latency = await _asend(state, body)
                    calls = state.received(exchange, latency, span)
                reply = _end_round(state, calls, round_number)
                if reply is not None:
                    return reply
        return state.result(None)
    finally:
        state.release()


async def _asend(state: _Link, body: JSONMapping) -> tuple[Exchange, float]:
    attempt = 0
    while True:
        state.attempt_events = []
        started = time.perf_counter()
        try:
            exchange = await state.sender.acall(
                state.client, body, stream=state.options.stream, emit=state.emit
            )
            return exchange, time.perf_counter() - started
        except (KeyboardInterrupt, asyncio.CancelledError):
            _interrupted(state)
            raise
        except RunError:
            raise
        except Exception as error:
            await asyncio.sleep(_wait(state, error, attempt))
            attempt += 1


class BodySender:
    """Sends request bodies as they are to one provider (no tools, one round each) through
    one client, retrying as a run does; made inside the event loop that sends.

    Without a ``client`` in the options, the client is the one every run and sender of
    this loop with the same provider, URL, key and timeout shares; the sender holds a share
    of it until :meth:`aclose`, and the loop closes it as it ends (see :meth:`aclose`)."""

    def __init__(self, options: RunOptions, *, file: str | None = None) -> None:
        self._link = _Link(options, file, asynchronous=True)

    @property
    def client(self) -> object:
        """The SDK client the bodies go through (the options' own, or the shared one)."""
        return self._link.client

    async def send(self, body: JSONMapping) -> tuple[Exchange, float]:
        """Send *body* once; the reply and the seconds it took. *file* names what the body
        came from in errors."""
        # Each send its own attempt, one client for all: copy.copy's shallow copy, without
        # the lookups of its copy protocol, which cost a short request more than the rest.
        link = object.__new__(_Link)
        link.__dict__.update(self._link.__dict__)
        link.attempt_events = []
        return await _asend(link, body)

    async def aclose(self) -> None:
        """Give back this sender's share of its client, and close the client, its
        connections with it, when no other sender or run of this event loop still holds
        a share; else it stays open for them and is closed when the loop ends. A client
        given in the options is left open. Call it when the sender's sending is done;
        ``asyncio.run()`` (or a loop closed after ``loop.shutdown_asyncgens()``) closes
        the loop's clients as it ends all the same."""
        await self._link.aclose()


async def asend_body(
    body: JSONMapping, options: RunOptions, *, file: str | None = None
) -> tuple[Exchange, float]:
    """Send *body* as it is, once (no tools, one round), retrying as a run does; the reply
    and the seconds it took. *file* names what the body came from in errors."""
    sender = BodySender(options, file=file)
    try:
        return await sender.send(body)
    finally:
        sender._link.release()


def dry_run_body(bundle: Bundle, options: RunOptions) -> JSONObject:
    """The first request body a run would send, built without a client or a key."""
    functions = _functions(options.tools)
    tools = declared_tools(bundle.settings, functions) if functions else None
    return _request(Document.of(bundle), options, tools)
