"""Gemini ``generateContent`` sent through the ``google-genai`` SDK, its reply read back.

The body :func:`~lmml_mdit.chat.outgoing.to_request` builds is the keyword arguments of
``api.models.generate_content`` (``model``, ``contents``, ``config``). The reply's first
candidate content is the payload :mod:`.gemini` imports; a stream's chunks are gathered into
one content (adjacent text parts joined, function calls kept whole).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .sending import Emit, Exchange, Failure, TextDelta, ToolCallEvent, retry_after_seconds

__all__ = ["SENDER", "GeminiSender"]


def _usage(exchange: Exchange, usage: Mapping[str, Any] | None) -> None:
    if usage:
        exchange.input_tokens = usage.get("prompt_token_count", exchange.input_tokens)
        exchange.output_tokens = usage.get("candidates_token_count", exchange.output_tokens)


def _request_id(response: Any) -> str | None:
    http = getattr(response, "sdk_http_response", None)
    headers = getattr(http, "headers", None) or {}
    found = getattr(response, "response_id", None)
    return found or headers.get("x-request-id")


class _Gathered:
    """Responses (one, or a stream's chunks) gathered into one reply content."""

    def __init__(self, emit: Emit) -> None:
        self.emit = emit
        self.parts: list[dict[str, Any]] = []
        self.raw: list[object] = []
        self.text: list[str] = []
        self.calls = 0
        self.exchange = Exchange({}, complete=False)

    def add(self, response: Any) -> None:
        self.raw.append(response)
        data = response.model_dump(mode="json", exclude_none=True)
        self.exchange.model = data.get("model_version") or self.exchange.model
        self.exchange.request_id = _request_id(response) or self.exchange.request_id
        _usage(self.exchange, data.get("usage_metadata"))
        candidates = data.get("candidates") or [{}]
        candidate = candidates[0]
        for part in (candidate.get("content") or {}).get("parts") or []:
            self._part(part)
        if candidate.get("finish_reason"):
            self.exchange.finish_reason = candidate["finish_reason"]
            self.exchange.complete = True

    def _part(self, part: dict[str, Any]) -> None:
        text = part.get("text")
        if isinstance(text, str) and set(part) <= {"text", "thought"}:
            if not part.get("thought"):
                self.text.append(text)
                self.emit(TextDelta(text))
            last = self.parts[-1] if self.parts else None
            if (
                last is not None
                and set(last) <= {"text", "thought"}
                and "text" in last
                and last.get("thought") == part.get("thought")
            ):
                last["text"] += text
                return
        elif isinstance(text, str):
            self.text.append(text)
            self.emit(TextDelta(text))
        call = part.get("function_call")
        if isinstance(call, Mapping):
            self.calls += 1
            # Without an id, the importer numbers the calls of the reply the same way.
            call_id = call.get("id") or f"call_{self.calls}"
            self.emit(ToolCallEvent(call_id, call.get("name", ""), call.get("args")))
        self.parts.append(dict(part))

    def finish(self) -> Exchange:
        self.exchange.payload = {"contents": [{"role": "model", "parts": self.parts}]}
        self.exchange.raw = self.raw[0] if len(self.raw) == 1 else self.raw
        self.exchange.text = self.text
        return self.exchange


def _arguments(body: Mapping[str, Any]) -> dict[str, Any]:
    return {key: body[key] for key in ("model", "contents", "config") if key in body}


class GeminiSender:
    """Gemini: ``api.models.generate_content`` (and ``generate_content_stream``)."""

    name = "gemini"
    key_variables = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    sdk = "google-genai"
    extra = "gemini"
    otel_name = "gcp.gemini"
    default_url = "https://generativelanguage.googleapis.com"

    def client(
        self,
        *,
        base_url: str | None,
        api_key: str | None,
        timeout: float | None,
        asynchronous: bool,
    ) -> object:
        from google import genai
        from google.genai import types

        options = types.HttpOptions(
            base_url=base_url, timeout=None if timeout is None else int(timeout * 1000)
        )
        return genai.Client(api_key=api_key, http_options=options)

    def failure(self, error: BaseException) -> Failure | None:
        from google.genai import errors

        if isinstance(error, errors.APIError):
            response = getattr(error, "response", None)
            headers = getattr(response, "headers", None)
            return Failure(
                "status",
                status=error.code,
                message=error.message or str(error),
                retry_after=retry_after_seconds(headers),
            )
        names = {cls.__name__ for cls in type(error).__mro__}
        if "TimeoutException" in names:
            return Failure("timeout", message=str(error))
        if names & {"TransportError", "ConnectError", "NetworkError"}:
            return Failure("connection", message=str(error) or type(error).__name__)
        return None

    def call(
        self, client: object, body: Mapping[str, Any], *, stream: bool, emit: Emit
    ) -> Exchange:
        api: Any = client
        gathered = _Gathered(emit)
        if not stream:
            gathered.add(api.models.generate_content(**_arguments(body)))
            gathered.exchange.complete = True
            return gathered.finish()
        for chunk in api.models.generate_content_stream(**_arguments(body)):
            gathered.add(chunk)
        return gathered.finish()

    async def acall(
        self, client: object, body: Mapping[str, Any], *, stream: bool, emit: Emit
    ) -> Exchange:
        api: Any = client
        gathered = _Gathered(emit)
        if not stream:
            gathered.add(await api.aio.models.generate_content(**_arguments(body)))
            gathered.exchange.complete = True
            return gathered.finish()
        async for chunk in await api.aio.models.generate_content_stream(**_arguments(body)):
            gathered.add(chunk)
        return gathered.finish()


SENDER = GeminiSender()
