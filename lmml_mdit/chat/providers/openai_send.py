"""OpenAI Chat Completions sent through the ``openai`` SDK, its reply read back.

The reply message (``choices[0].message``) is the payload :mod:`.openai` imports; a stream's
chunks are gathered into the same message (text deltas joined, tool-call deltas joined by
their ``index``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .sending import (
    Emit,
    Exchange,
    Failure,
    TextDelta,
    ToolCallEvent,
    parse_arguments,
    retry_after_seconds,
    split_known,
)

__all__ = ["SENDER", "OpenAIChatSender", "openai_client", "openai_failure"]

KEY_VARIABLES = ("OPENAI_API_KEY",)


def openai_client(
    *, base_url: str | None, api_key: str | None, timeout: float | None, asynchronous: bool
) -> object:
    """An ``openai`` client with the SDK's own retries off."""
    import openai

    factory = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    return factory(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)


def openai_failure(error: BaseException) -> Failure | None:
    """An ``openai`` exception read as a :class:`~.sending.Failure`."""
    import openai

    if isinstance(error, openai.APITimeoutError):
        return Failure("timeout", message=str(error))
    if isinstance(error, openai.APIConnectionError):
        return Failure("connection", message=str(error))
    if isinstance(error, openai.APIStatusError):
        body = error.body
        message = error.message
        if isinstance(body, Mapping):
            found = body.get("message")
            inner = body.get("error")
            if isinstance(inner, Mapping):
                found = inner.get("message", found)
            if isinstance(found, str):
                message = found
        return Failure(
            "status",
            status=error.status_code,
            message=message,
            retry_after=retry_after_seconds(error.response.headers),
        )
    return None


def _usage(exchange: Exchange, usage: Mapping[str, Any] | None) -> None:
    if usage:
        exchange.input_tokens = usage.get("prompt_tokens")
        exchange.output_tokens = usage.get("completion_tokens")


def _message(message: Mapping[str, Any]) -> dict[str, Any]:
    """The reply message as the importer takes it: null fields and empty lists left out."""
    kept = {
        key: value
        for key, value in message.items()
        if value is not None and value != [] and key not in ("annotations", "refusal", "audio")
    }
    kept.setdefault("content", "")
    return kept


def _whole(response: Any) -> Exchange:
    data = response.model_dump(mode="json", exclude_none=True)
    choice = (data.get("choices") or [{}])[0]
    exchange = Exchange(
        {"messages": [_message(choice.get("message") or {"role": "assistant"})]},
        raw=response,
        model=data.get("model"),
        finish_reason=choice.get("finish_reason"),
        request_id=getattr(response, "_request_id", None),
    )
    _usage(exchange, data.get("usage"))
    return exchange


class _Gathered:
    """A stream's chunks gathered into one reply message."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.text: list[str] = []
        self.calls: dict[int, dict[str, str]] = {}
        self.chunks: list[object] = []
        self.exchange = Exchange({}, complete=False)

    def add(self, chunk: Any) -> None:
        self.chunks.append(chunk)
        data = chunk.model_dump(mode="json", exclude_none=True)
        self.exchange.model = data.get("model") or self.exchange.model
        _usage(self.exchange, data.get("usage"))
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            text = delta.get("content")
            if text:
                self.text.append(text)
                self.emit(TextDelta(text))
            for call in delta.get("tool_calls") or []:
                slot = self.calls.setdefault(
                    call.get("index", 0), {"id": "", "name": "", "arguments": ""}
                )
                function = call.get("function") or {}
                slot["id"] = call.get("id") or slot["id"]
                slot["name"] += function.get("name") or ""
                slot["arguments"] += function.get("arguments") or ""
            if choice.get("finish_reason"):
                self.exchange.finish_reason = choice["finish_reason"]
                self.exchange.complete = True
                self._calls_done()

    def _calls_done(self) -> None:
        for slot in self.calls.values():
            self.emit(ToolCallEvent(slot["id"], slot["name"], parse_arguments(slot["arguments"])))

    def finish(self, request_id: str | None) -> Exchange:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text)}
        if self.calls:
            message["tool_calls"] = [
                {
                    "id": slot["id"],
                    "type": "function",
                    "function": {"name": slot["name"], "arguments": slot["arguments"]},
                }
                for _, slot in sorted(self.calls.items())
            ]
        self.exchange.payload = {"messages": [message]}
        self.exchange.raw = self.chunks
        self.exchange.text = self.text
        self.exchange.request_id = request_id
        return self.exchange


def _stream_options(body: Mapping[str, Any]) -> dict[str, Any]:
    arguments = dict(body)
    arguments["stream"] = True
    arguments.setdefault("stream_options", {"include_usage": True})
    return arguments


def _request_id(stream: object) -> str | None:
    response = getattr(stream, "response", None)
    headers = getattr(response, "headers", None)
    return None if headers is None else headers.get("x-request-id")


class OpenAIChatSender:
    """OpenAI Chat Completions: ``api.chat.completions.create``."""

    name = "openai"
    key_variables = KEY_VARIABLES
    sdk = "openai"
    extra = "openai"
    otel_name = "openai"
    default_url = "https://api.openai.com/v1"

    def client(
        self,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout: float | None,
        asynchronous: bool,
    ) -> object:
        return openai_client(
            base_url=base_url, api_key=api_key, timeout=timeout, asynchronous=asynchronous
        )

    def failure(self, error: BaseException) -> Failure | None:
        return openai_failure(error)

    def call(
        self, client: object, body: Mapping[str, Any], *, stream: bool, emit: Emit
    ) -> Exchange:
        api: Any = client
        create = api.chat.completions.create
        if not stream:
            return _whole(create(**split_known(create, body)))
        gathered = _Gathered(emit)
        chunks: Iterable[Any] = create(**split_known(create, _stream_options(body)))
        with chunks as opened:  # type: ignore[attr-defined]
            for chunk in opened:
                gathered.add(chunk)
            return gathered.finish(_request_id(opened))

    async def acall(
        self, client: object, body: Mapping[str, Any], *, stream: bool, emit: Emit
    ) -> Exchange:
        api: Any = client
        create = api.chat.completions.create
        if not stream:
            return _whole(await create(**split_known(create, body)))
        gathered = _Gathered(emit)
        opened = await create(**split_known(create, _stream_options(body)))
        async with opened:
            async for chunk in opened:
                gathered.add(chunk)
            return gathered.finish(_request_id(opened))


SENDER = OpenAIChatSender()
