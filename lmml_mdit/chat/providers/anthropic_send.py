"""Anthropic Messages sent through the ``anthropic`` SDK, its reply read back.

The reply's content blocks (text, tool use, thinking with its signature) make one
assistant message of the payload :mod:`.anthropic` imports; a stream's events are gathered
into the same blocks (``content_block_start``/``_delta``/``_stop``).
"""

from __future__ import annotations

from collections.abc import Mapping
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

__all__ = ["SENDER", "AnthropicSender"]


def _usage(exchange: Exchange, usage: Mapping[str, Any] | None) -> None:
    if not usage:
        return
    if usage.get("input_tokens") is not None:
        exchange.input_tokens = usage["input_tokens"]
    if usage.get("output_tokens") is not None:
        exchange.output_tokens = usage["output_tokens"]


def _whole(response: Any) -> Exchange:
    data = response.model_dump(mode="json", exclude_none=True)
    exchange = Exchange(
        {"messages": [{"role": "assistant", "content": data.get("content") or []}]},
        raw=response,
        model=data.get("model"),
        finish_reason=data.get("stop_reason"),
        request_id=getattr(response, "_request_id", None),
    )
    _usage(exchange, data.get("usage"))
    return exchange


class _Gathered:
    """A stream's events gathered into the reply's content blocks."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.blocks: dict[int, dict[str, Any]] = {}
        self.partial_json: dict[int, list[str]] = {}
        self.events: list[object] = []
        self.text: list[str] = []
        self.exchange = Exchange({}, complete=False)

    def add(self, event: Any) -> None:
        self.events.append(event)
        data = event.model_dump(mode="json", exclude_none=True)
        kind = data.get("type")
        if kind == "message_start":
            message = data.get("message") or {}
            self.exchange.model = message.get("model")
            _usage(self.exchange, message.get("usage"))
        elif kind == "content_block_start":
            self.blocks[data["index"]] = dict(data.get("content_block") or {})
        elif kind == "content_block_delta":
            self._delta(data["index"], data.get("delta") or {})
        elif kind == "content_block_stop":
            block = self.blocks.get(data["index"], {})
            pieces = self.partial_json.pop(data["index"], None)
            if block.get("type") == "tool_use":
                if pieces is not None:
                    block["input"] = parse_arguments("".join(pieces))
                self.emit(ToolCallEvent(block["id"], block["name"], block.get("input", {})))
        elif kind == "message_delta":
            delta = data.get("delta") or {}
            self.exchange.finish_reason = delta.get("stop_reason") or self.exchange.finish_reason
            _usage(self.exchange, data.get("usage"))
        elif kind == "message_stop":
            self.exchange.complete = True

    def _delta(self, index: int, delta: Mapping[str, Any]) -> None:
        block = self.blocks.setdefault(index, {})
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + delta.get("text", "")
            self.text.append(delta.get("text", ""))
            self.emit(TextDelta(delta.get("text", "")))
        elif kind == "input_json_delta":
            self.partial_json.setdefault(index, []).append(delta.get("partial_json", ""))
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
        elif kind == "signature_delta":
            block["signature"] = block.get("signature", "") + delta.get("signature", "")
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(delta.get("citation"))

    def finish(self, request_id: str | None) -> Exchange:
        content = [self.blocks[index] for index in sorted(self.blocks)]
        self.exchange.payload = {"messages": [{"role": "assistant", "content": content}]}
        self.exchange.raw = self.events
        self.exchange.text = self.text
        self.exchange.request_id = request_id
        return self.exchange


def _request_id(stream: object) -> str | None:
    response = getattr(stream, "response", None)
    headers = getattr(response, "headers", None)
    return None if headers is None else headers.get("request-id")


class AnthropicSender:
    """Anthropic Messages: ``api.messages.create``."""

    name = "anthropic"
    key_variables = ("ANTHROPIC_API_KEY",)
    sdk = "anthropic"
    extra = "anthropic"
    otel_name = "anthropic"
    default_url = "https://api.anthropic.com"

    def client(
        self,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout: float | None,
        asynchronous: bool,
    ) -> object:
        import anthropic

        factory = anthropic.AsyncAnthropic if asynchronous else anthropic.Anthropic
        return factory(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0)

    def failure(self, error: BaseException) -> Failure | None:
        import anthropic

        if isinstance(error, anthropic.APITimeoutError):
            return Failure("timeout", message=str(error))
        if isinstance(error, anthropic.APIConnectionError):
            return Failure("connection", message=str(error))
        if isinstance(error, anthropic.APIStatusError):
            message = error.message
            body = error.body
            if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
                found = body["error"].get("message")
                if isinstance(found, str):
                    message = found
            return Failure(
                "status",
                status=error.status_code,
                message=message,
                retry_after=retry_after_seconds(error.response.headers),
            )
        return None

    def call(
        self, client: object, body: Mapping[str, Any], *, stream: bool, emit: Emit
    ) -> Exchange:
        api: Any = client
        create = api.messages.create
        if not stream:
            return _whole(create(**split_known(create, body)))
        gathered = _Gathered(emit)
        with create(**split_known(create, {**body, "stream": True})) as opened:
            for event in opened:
                gathered.add(event)
            return gathered.finish(_request_id(opened))

    async def acall(
        self, client: object, body: Mapping[str, Any], *, stream: bool, emit: Emit
    ) -> Exchange:
        api: Any = client
        create = api.messages.create
        if not stream:
            return _whole(await create(**split_known(create, body)))
        gathered = _Gathered(emit)
        opened = await create(**split_known(create, {**body, "stream": True}))
        async with opened:
            async for event in opened:
                gathered.add(event)
            return gathered.finish(_request_id(opened))


SENDER = AnthropicSender()
