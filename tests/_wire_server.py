"""A loopback HTTP server that answers as the providers' APIs do, from scripted answers.

It records every request (path, query, headers, JSON body) and answers each with the next
scripted :class:`Json`, :class:`Sse`, :class:`Drop` or :class:`Raw`. Server-sent events go
out with chunked transfer encoding, so a stream cut mid-way (``Sse(..., cut_after=N)``) is a
connection closed inside the body, as a real network failure looks to the client.

The event builders below (:func:`openai_chat`, :func:`openai_responses`, :func:`anthropic`,
:func:`gemini`) write each provider's own wire format, streamed and not, from one reply
description: text, tool calls, usage.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest


@dataclass
class Json:
    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Sse:
    events: list[tuple[str | None, Any]]
    cut_after: int | None = None
    done_marker: bool = False  # OpenAI Chat Completions ends with ``data: [DONE]``
    headers: dict[str, str] = field(default_factory=dict)
    # Before event number ``hold_before``, wait (10 s at most) for ``gate``; ``released``
    # then says whether the client opened it in time.
    hold_before: int | None = None
    gate: threading.Event | None = None
    released: bool | None = None


@dataclass
class Drop:
    """Close the connection without answering."""


@dataclass
class Raw:
    """A body sent as it is (not JSON, or JSON cut short), with its status and type."""

    data: bytes
    status: int = 200
    content_type: str = "application/json"


Answer = Json | Sse | Drop | Raw


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    at: float = 0.0
    """When it arrived (``time.monotonic()`` as the request line was read)."""


class _Loopback(ThreadingHTTPServer):
    """The HTTP server, for which a client hanging up is normal: a test that abandons a
    stream, or a client closing a kept-alive connection, leaves the handler's thread
    writing to (or reading from) a closed socket, and that prints nothing."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # broken pipe, reset by peer
            return
        super().handle_error(request, client_address)


class WireServer:
    """The server; ``url`` is its base, ``requests`` what it received."""

    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.answers: deque[Answer] = deque()
        self._hold: tuple[str, frozenset[str], threading.Event] | None = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                arrived = time.monotonic()
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                body = json.loads(raw) if raw else None
                server.requests.append(
                    Request(
                        "POST",
                        parts.path,
                        parse_qs(parts.query),
                        {k.lower(): v for k, v in self.headers.items()},
                        body,
                        arrived,
                    )
                )
                server._wait_for_hold()
                answer = (
                    server.answers.popleft()
                    if server.answers
                    else Json({"error": {"message": "no scripted answer"}}, status=500)
                )
                server._answer(self, answer)

        self._http = _Loopback(("127.0.0.1", 0), Handler)
        self.port = self._http.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)
        self._thread.start()

    def script(self, *answers: Answer) -> None:
        self.answers.extend(answers)

    def hold_until(self, header: str, values: set[str]) -> threading.Event:
        """Answer no request until requests carrying each of *values* in *header* have
        come (30 s at most); the event returned is set once they have."""
        released = threading.Event()
        self._hold = (header.lower(), frozenset(values), released)
        return released

    def _wait_for_hold(self) -> None:
        if self._hold is None:
            return
        header, values, released = self._hold
        if values <= {request.headers.get(header) for request in list(self.requests)}:
            released.set()
        released.wait(30)

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()

    @staticmethod
    def _answer(handler: BaseHTTPRequestHandler, answer: Answer) -> None:
        if isinstance(answer, Drop):
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        if isinstance(answer, Raw):
            handler.send_response(answer.status)
            handler.send_header("content-type", answer.content_type)
            handler.send_header("content-length", str(len(answer.data)))
            handler.end_headers()
            handler.wfile.write(answer.data)
            return
        if isinstance(answer, Json):
            data = json.dumps(answer.body).encode()
            handler.send_response(answer.status)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(data)))
            for key, value in {"x-request-id": "req_test", **answer.headers}.items():
                handler.send_header(key, value)
            handler.end_headers()
            handler.wfile.write(data)
            return
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("transfer-encoding", "chunked")
        for key, value in {"x-request-id": "req_test", **answer.headers}.items():
            handler.send_header(key, value)
        handler.end_headers()

        def chunk(text: str) -> None:
            data = text.encode()
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()

        for number, (event, data) in enumerate(answer.events):
            if number == answer.hold_before and answer.gate is not None:
                answer.released = answer.gate.wait(10)
            if answer.cut_after is not None and number >= answer.cut_after:
                handler.close_connection = True
                handler.connection.shutdown(socket.SHUT_RDWR)
                return
            head = f"event: {event}\n" if event else ""
            chunk(f"{head}data: {json.dumps(data)}\n\n")
        if answer.done_marker:
            chunk("data: [DONE]\n\n")
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()


# -- the fixtures (tests/conftest.py hands them to every test module) ---------------------


@pytest.fixture(scope="module")
def wire_server() -> Iterator[WireServer]:
    """One server for a test module."""
    server = WireServer()
    yield server
    server.close()


@pytest.fixture
def server(wire_server: WireServer, monkeypatch: pytest.MonkeyPatch) -> WireServer:
    """The module's server with no request seen and no answer scripted, and a test key for
    each provider in the environment."""
    wire_server.requests.clear()
    wire_server.answers.clear()
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.setenv(name, "test-key")
    return wire_server


# -- one reply in each provider's wire format --------------------------------------------


@dataclass
class Said:
    """A reply to script: its text pieces, tool calls ``(id, name, arguments)``, usage."""

    pieces: list[str] = field(default_factory=list)
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    input_tokens: int = 11
    output_tokens: int = 7
    model: str = "test-model"
    thinking: tuple[str, str] | None = None
    """(text, signature): an Anthropic thinking block, an OpenAI Responses reasoning item
    (its summary and encrypted content), a Gemini thought signature (the signature)."""


def openai_chat(said: Said, *, stream: bool) -> Answer:
    finish = "tool_calls" if said.calls else "stop"
    usage = {
        "prompt_tokens": said.input_tokens,
        "completion_tokens": said.output_tokens,
        "total_tokens": said.input_tokens + said.output_tokens,
    }
    base = {"id": "chatcmpl-1", "created": 1, "model": said.model}
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(said.pieces) or None}
        if said.calls:
            message["tool_calls"] = [
                {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, n, a in said.calls
            ]
        return Json(
            {
                **base,
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
        )
    chunk = {**base, "object": "chat.completion.chunk"}
    events: list[tuple[str | None, Any]] = [
        (None, {**chunk, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
    ]
    for piece in said.pieces:
        events.append((None, {**chunk, "choices": [{"index": 0, "delta": {"content": piece}}]}))
    for index, (call_id, name, arguments) in enumerate(said.calls):
        text = json.dumps(arguments)
        head = {"index": index, "id": call_id, "type": "function"}
        events.append(
            (
                None,
                {
                    **chunk,
                    "choices": [
                        {
                            "index": 0,
                            "delta": {
                                "tool_calls": [
                                    {**head, "function": {"name": name, "arguments": ""}}
                                ]
                            },
                        }
                    ],
                },
            )
        )
        for start in range(0, len(text), 5):
            delta = {"index": index, "function": {"arguments": text[start : start + 5]}}
            events.append(
                (None, {**chunk, "choices": [{"index": 0, "delta": {"tool_calls": [delta]}}]})
            )
    events.append(
        (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    )
    events.append((None, {**chunk, "choices": [], "usage": usage}))
    return Sse(events, done_marker=True)


def anthropic(said: Said, *, stream: bool) -> Answer:
    content: list[dict[str, Any]] = []
    if said.thinking is not None:
        content.append(
            {"type": "thinking", "thinking": said.thinking[0], "signature": said.thinking[1]}
        )
    if said.pieces:
        content.append({"type": "text", "text": "".join(said.pieces)})
    for call_id, name, arguments in said.calls:
        content.append({"type": "tool_use", "id": call_id, "name": name, "input": arguments})
    stop = "tool_use" if said.calls else "end_turn"
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": said.model,
        "stop_sequence": None,
    }
    if not stream:
        return Json(
            {
                **message,
                "content": content,
                "stop_reason": stop,
                "usage": {"input_tokens": said.input_tokens, "output_tokens": said.output_tokens},
            },
            headers={"request-id": "req_ant"},
        )
    events: list[tuple[str | None, Any]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    **message,
                    "content": [],
                    "stop_reason": None,
                    "usage": {"input_tokens": said.input_tokens, "output_tokens": 1},
                },
            },
        )
    ]
    for index, block in enumerate(content):
        kind = block["type"]
        start = {"type": kind, **({"text": ""} if kind == "text" else {})}
        if kind == "tool_use":
            start = {"type": kind, "id": block["id"], "name": block["name"], "input": {}}
        if kind == "thinking":
            start = {"type": kind, "thinking": "", "signature": ""}
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            deltas = [{"type": "text_delta", "text": piece} for piece in said.pieces]
        elif kind == "tool_use":
            text = json.dumps(block["input"])
            deltas = [
                {"type": "input_json_delta", "partial_json": text[i : i + 4]}
                for i in range(0, len(text), 4)
            ]
        else:
            deltas = [
                {"type": "thinking_delta", "thinking": block["thinking"]},
                {"type": "signature_delta", "signature": block["signature"]},
            ]
        for delta in deltas:
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": said.output_tokens},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return Sse(events, headers={"request-id": "req_ant"})


def gemini(said: Said, *, stream: bool) -> Answer:
    usage = {
        "promptTokenCount": said.input_tokens,
        "candidatesTokenCount": said.output_tokens,
        "totalTokenCount": said.input_tokens + said.output_tokens,
    }
    calls = [{"functionCall": {"name": n, "args": a}} for _, n, a in said.calls]

    def response(parts: list[dict[str, Any]], finish: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            candidate["finishReason"] = "STOP"
        found: dict[str, Any] = {
            "candidates": [candidate],
            "modelVersion": said.model,
            "responseId": "resp_gem",
        }
        if finish:
            found["usageMetadata"] = usage
        return found

    signed = {"thoughtSignature": said.thinking[1]} if said.thinking is not None else {}
    if not stream:
        text = [{"text": "".join(said.pieces), **signed}] if said.pieces else []
        return Json(response([*text, *calls], True))
    events: list[tuple[str | None, Any]] = [
        (None, response([{"text": piece, **(signed if not n else {})}], False))
        for n, piece in enumerate(said.pieces)
    ]
    events.append((None, response(calls, True)))
    return Sse(events)


def openai_responses(said: Said, *, stream: bool) -> Answer:
    text = "".join(said.pieces)
    output: list[dict[str, Any]] = []
    if said.thinking is not None:
        output.append(
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": said.thinking[0]}],
                "encrypted_content": said.thinking[1],
            }
        )
    if said.pieces:
        output.append(
            {
                "type": "message",
                "id": "msg_1",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    for number, (call_id, name, arguments) in enumerate(said.calls):
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{number}",
                "call_id": call_id,
                "name": name,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
        )
    whole = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": said.model,
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": said.input_tokens,
            "output_tokens": said.output_tokens,
            "total_tokens": said.input_tokens + said.output_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }
    if not stream:
        return Json(whole)
    started = {**whole, "status": "in_progress", "output": [], "usage": None}
    events: list[tuple[str | None, Any]] = [
        (
            "response.created",
            {"type": "response.created", "sequence_number": 0, "response": started},
        )
    ]
    sequence = 1

    def add(kind: str, **data: Any) -> None:
        nonlocal sequence
        events.append((kind, {"type": kind, "sequence_number": sequence, **data}))
        sequence += 1

    for index, item in enumerate(output):
        if item["type"] == "reasoning":
            add("response.output_item.added", output_index=index, item=item)
            add("response.output_item.done", output_index=index, item=item)
        elif item["type"] == "message":
            add(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            for piece in said.pieces:
                add(
                    "response.output_text.delta",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    delta=piece,
                    logprobs=[],
                )
            add("response.output_item.done", output_index=index, item=item)
        else:
            add(
                "response.output_item.added",
                output_index=index,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            add(
                "response.function_call_arguments.delta",
                item_id=item["id"],
                output_index=index,
                delta=item["arguments"],
            )
            add("response.output_item.done", output_index=index, item=item)
    add("response.completed", response=whole)
    return Sse(events)


BUILDERS = {
    "openai": openai_chat,
    "openai-responses": openai_responses,
    "anthropic": anthropic,
    "gemini": gemini,
}


def error_body(provider: str, status: int, message: str) -> dict[str, Any]:
    """An error answer's body in *provider*'s form."""
    if provider == "anthropic":
        return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    if provider == "gemini":
        return {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT"}}
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}


def base_url(server: WireServer, provider: str) -> str:
    """The base URL each SDK is given (the OpenAI SDK expects the ``/v1`` prefix in it)."""
    return server.url + "/v1" if provider.startswith("openai") else server.url


def serve() -> Iterator[WireServer]:
    server = WireServer()
    try:
        yield server
    finally:
        server.close()
