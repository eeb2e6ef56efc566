"""OpenAI Responses sent through the ``openai`` SDK, its reply read back.

The reply's ``output`` items (messages, function calls, reasoning items) are the ``input``
payload :mod:`.openai_responses` imports, so a reasoning item goes back on the next request
as it came. A stream's ``response.completed`` event carries the whole response; before it,
the finished items (``response.output_item.done``) are what arrived.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .openai_send import KEY_VARIABLES, openai_client, openai_failure
from .sending import (
    Emit,
    Exchange,
    Failure,
    TextDelta,
    ToolCallEvent,
    parse_arguments,
    split_known,
)

__all__ = ["SENDER", "OpenAIResponsesSender"]

_ITEM_KEYS_DROPPED = ("status",)


def _item(item: Mapping[str, Any]) -> dict[str, Any]:
    kept = {key: value for key, value in item.items() if key not in _ITEM_KEYS_DROPPED}
    if kept.get("type") == "message":
        kept.pop("id", None)
        kept["content"] = [
            {key: value for key, value in part.items() if key not in ("annotations", "logprobs")}
            for part in kept.get("content") or []
        ]
    elif kept.get("type") == "function_call":
        kept.pop("id", None)
    return kept


def _read(exchange: Exchange, data: Mapping[str, Any]) -> None:
    exchange.model = data.get("model") or exchange.model
    exchange.request_id = exchange.request_id or data.get("id")
    usage = data.get("usage") or {}
    exchange.input_tokens = usage.get("input_tokens", exchange.input_tokens)
    exchange.output_tokens = usage.get("output_tokens", exchange.output_tokens)
    details = data.get("incomplete_details") or {}
    exchange.finish_reason = details.get("reason") or data.get("status")
    exchange.payload = {"input": [_item(item) for item in data.get("output") or []]}


def _whole(response: Any) -> Exchange:
    exchange = Exchange({}, raw=response, request_id=getattr(response, "_request_id", None))
    _read(exchange, response.model_dump(mode="json", exclude_none=True))
    return exchange


class _Gathered:
    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.items: dict[int, dict[str, Any]] = {}
        self.events: list[object] = []
        self.text: list[str] = []
        self.exchange = Exchange({}, complete=False)

    def add(self, event: Any) -> None:
        self.events.append(event)
        data = event.model_dump(mode="json", exclude_none=True)
        kind = data.get("type")
        if kind == "response.output_text.delta":
            self.text.append(data.get("delta", ""))
            self.emit(TextDelta(data.get("delta", "")))
        elif kind == "response.output_item.done":
            item = data.get("item") or {}
            self.items[data.get("output_index", len(self.items))] = item
            if item.get("type") == "function_call":
                self.emit(
                    ToolCallEvent(
                        item.get("call_id", ""),
                        item.get("name", ""),
                        parse_arguments(item.get("arguments", "")),
                    )
                )
        elif kind in ("response.completed", "response.incomplete"):
            _read(self.exchange, data.get("response") or {})
            self.exchange.complete = True
        elif kind == "response.created":
            self.exchange.model = (data.get("response") or {}).get("model")

    def finish(self, request_id: str | None) -> Exchange:
        if not self.exchange.complete:
            self.exchange.payload = {
                "input": [_item(self.items[index]) for index in sorted(self.items)]
            }
            if self.text and not any(i.get("type") == "message" for i in self.items.values()):
                self.exchange.payload["input"].append(
                    {"type": "message", "role": "assistant", "content": "".join(self.text)}
                )
        self.exchange.raw = self.events
        self.exchange.text = self.text
        self.exchange.request_id = request_id or self.exchange.request_id
        return self.exchange


def _request_id(stream: object) -> str | None:
    response = getattr(stream, "response", None)
    headers = getattr(response, "headers", None)
    return None if headers is None else headers.get("x-request-id")


class OpenAIResponsesSender:
    """OpenAI Responses: ``api.responses.create``."""

    name = "openai-responses"
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
        create = api.responses.create
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
        create = api.responses.create
        if not stream:
            return _whole(await create(**split_known(create, body)))
        gathered = _Gathered(emit)
        opened = await create(**split_known(create, {**body, "stream": True}))
        async with opened:
            async for event in opened:
                gathered.add(event)
            return gathered.finish(_request_id(opened))


SENDER = OpenAIResponsesSender()
