"""The evaluation's own cost and its concurrency, printed as ratios (a script, not a test;
it exits 1 when a goal below is missed).

A one-input template and a JSONL file of cases are evaluated by ``aevaluate`` against a
loopback server speaking OpenAI Chat Completions (the ``openai`` SDK), without a cache.

- Own cost: with a server answering at once, one request at a time, over
  :data:`OWN_CASES` cases, the CPU time per case of the evaluation less the CPU time spent
  inside the SDK's call and inside rendering the case's request, both measured around each
  call in the same run (one case at a time, so nothing else runs inside the window); per
  case means the difference between N and N/2 cases over N/2, so a run's fixed cost
  (printed apart) is left out; each figure the least of five rounds. Goal: at most 2 times
  rendering the request alone (``Rendering.case``, hot, on the same cases). Rendering
  inside a run takes longer than alone (the SDK's work between cases leaves it colder in
  the CPU's caches); both are printed.
- Concurrency: with a server taking 50 ms per answer, cases per second at
  ``concurrency=64`` over cases per second at ``concurrency=1``, over :data:`WIDE_CASES`
  cases by default (ten rounds of 64, so that opening the 64 connections and the last,
  partly filled round do not make up most of the run; the first argument sets another
  count). Goal: at least 20 times.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

from goals import exit_status

import lmml_mdit
from lmml_mdit.chat import Rendering
from lmml_mdit.chat.providers.sending import EventSender
from lmml_mdit.eval import Target, aevaluate

_T = TypeVar("_T")

OWN_GOAL = 2.0
OWN_CASES = 1000
WIDE_CASES = 640
SPEEDUP_GOAL = 20.0
DELAY = 0.05
TEMPLATE = """\
---
inputs:
  city: string
expect:
  - contains: Paris
  - max-tokens: 50
---
## system

You answer with the capital city only, in one word, and nothing else.

## user

What is the capital of {{ city }}?
"""
REPLY = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "bench-model",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Paris."},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 30, "completion_tokens": 2, "total_tokens": 32},
}


class _Listener(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # 64 connections at once


def _serve(delay: float, ports: multiprocessing.Queue[int]) -> None:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body leave at once

        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            if delay:
                time.sleep(delay)
            data = json.dumps(REPLY).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = _Listener(("127.0.0.1", 0), Handler)
    ports.put(server.server_address[1])
    server.serve_forever()


class _Server:
    """The server in a process of its own, so that it takes no time from the one measured."""

    def __init__(self, delay: float) -> None:
        ports: multiprocessing.Queue[int] = multiprocessing.Queue()
        self.process = multiprocessing.Process(target=_serve, args=(delay, ports), daemon=True)
        self.process.start()
        self.url = f"http://127.0.0.1:{ports.get(timeout=30)}/v1"

    def close(self) -> None:
        self.process.terminate()
        self.process.join()


def _evaluate(
    bundle: lmml_mdit.Bundle, cases: str, url: str, out: str, concurrency: int
) -> tuple[float, float]:
    """Seconds for the whole run, wall and CPU."""
    if os.path.exists(out):
        os.remove(out)
    target = Target("openai", "bench-model", url)
    started, cpu = time.perf_counter(), time.process_time()
    summary = asyncio.run(aevaluate(bundle, cases, [target], out, concurrency=concurrency))
    elapsed, used = time.perf_counter() - started, time.process_time() - cpu
    assert not summary.errors, summary.errors[:3]
    return elapsed, used


_SPENT = {"sdk": 0.0, "render": 0.0}
"""CPU seconds spent inside the SDK's calls and inside rendering, during one run."""


def _timed(what: str, call: Callable[..., _T]) -> Callable[..., _T]:
    """*call* (a function or a coroutine function), adding the CPU time spent inside it
    to ``_SPENT[what]``. One case at a time: nothing else runs inside the window."""
    if inspect.iscoroutinefunction(call):

        async def timed_async(*args: Any, **kwargs: Any) -> Any:
            cpu = time.process_time()
            try:
                return await call(*args, **kwargs)
            finally:
                _SPENT[what] += time.process_time() - cpu

        return timed_async  # type: ignore[return-value]

    def timed(*args: Any, **kwargs: Any) -> _T:
        cpu = time.process_time()
        try:
            return call(*args, **kwargs)
        finally:
            _SPENT[what] += time.process_time() - cpu

    return timed


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else WIDE_CASES
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "t.lmml")
    many = os.path.join(folder, "own.jsonl")
    cases = os.path.join(folder, "cases.jsonl")
    out = os.path.join(folder, "out.jsonl")
    with open(path, "w", encoding="utf-8") as stream:
        stream.write(TEMPLATE)
    half = os.path.join(folder, "half.jsonl")
    for name, number in ((many, OWN_CASES), (half, OWN_CASES // 2), (cases, count)):
        with open(name, "w", encoding="utf-8") as stream:
            stream.writelines(json.dumps({"city": f"France {n}"}) + "\n" for n in range(number))
    bundle = lmml_mdit.open(path)
    os.environ.setdefault("OPENAI_API_KEY", "bench")
    missed: list[str] = []

    instant = _Server(0.0)
    url = instant.url
    _evaluate(bundle, cases, url, out, 1)  # warm: the SDK imported
    rendering = Rendering.of("openai", True, "bench-model", {})
    alone: list[float] = []
    for _ in range(5):
        cpu = time.process_time()
        for number in range(1, OWN_CASES + 1):
            rendering.case(bundle, number, {"city": f"France {number}"})
        alone.append((time.process_time() - cpu) / OWN_CASES)
    EventSender.acall = _timed("sdk", EventSender.acall)  # type: ignore[method-assign]
    Rendering.case = _timed("render", Rendering.case)  # type: ignore[method-assign]
    rest: dict[str, list[float]] = {many: [], half: []}
    rendered: dict[str, list[float]] = {many: [], half: []}
    for _ in range(5):
        for name in (many, half):
            _SPENT.update(sdk=0.0, render=0.0)
            used = _evaluate(bundle, name, url, out, 1)[1]
            rest[name].append(used - _SPENT["sdk"] - _SPENT["render"])
            rendered[name].append(_SPENT["render"])
    instant.close()
    # N and N/2 cases: the difference is N/2 cases' cost, without the run's fixed cost
    # (an event loop, the client and its TLS context, opening the files).
    cases_apart = OWN_CASES - OWN_CASES // 2
    own = (min(rest[many]) - min(rest[half])) / cases_apart
    in_run = (min(rendered[many]) - min(rendered[half])) / cases_apart
    fixed = min(rest[half]) - own * (OWN_CASES // 2)
    ratio = own / min(alone)
    if ratio > OWN_GOAL:
        missed.append("eval own cost")
    print(
        f"eval, {OWN_CASES} cases, instant server: library's own CPU time {own * 1e6:.0f} us "
        f"per case beyond the SDK's call and rendering the request (rendering alone "
        f"{min(alone) * 1e6:.0f} us; inside the run {in_run * 1e6:.0f} us): {ratio:.2f}x "
        f"(goal <= {OWN_GOAL})" + (" MISSED" if ratio > OWN_GOAL else "")
    )
    print(f"a run's fixed cost beyond the SDK's calls and rendering: {fixed * 1e3:.1f} ms of CPU")

    slow = _Server(DELAY)
    url = slow.url
    serial, _ = _evaluate(bundle, cases, url, out, 1)
    wide, _ = _evaluate(bundle, cases, url, out, 64)
    slow.close()
    speedup = serial / wide
    if speedup < SPEEDUP_GOAL:
        missed.append("eval concurrency")
    print(
        f"eval, {count} cases, {DELAY * 1e3:.0f} ms per answer: concurrency 1 {serial:.2f} s, "
        f"concurrency 64 {wide:.2f} s: {speedup:.1f}x throughput (goal >= {SPEEDUP_GOAL:.0f})"
        + (" MISSED" if speedup < SPEEDUP_GOAL else "")
    )
    return exit_status(missed)


if __name__ == "__main__":
    sys.exit(main())
