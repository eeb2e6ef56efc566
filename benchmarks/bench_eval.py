"""The evaluation's own cost and its concurrency, printed as ratios (a script, not a test;
it exits 1 when a goal below is missed).

A one-input template and a JSONL file of cases are evaluated by ``aevaluate`` against a
loopback server speaking OpenAI Chat Completions (the ``openai`` SDK), without a cache.

- Own cost: with a server answering at once, one request at a time, the time per case less
  the SDK call (each row's ``latency``: the request, the server, the response) and less
  rendering the case's request; per case means the difference between N and N/2 cases
  over N/2, so a run's fixed cost (printed apart) is left out. Goal: at most 2 times
  rendering the request alone (``Rendering.case``) on the same cases in the same run.
- Concurrency: with a server taking 50 ms per answer, cases per second at
  ``concurrency=64`` over cases per second at ``concurrency=1``. Goal: at least 20 times.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import sys
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from goals import exit_status

import lmml_mdit
from lmml_mdit.chat.cases import Rendering
from lmml_mdit.eval.runner import aevaluate
from lmml_mdit.eval.targets import Target

OWN_GOAL = 2.0
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
    """Seconds for the whole run, and the sum of the rows' SDK latencies."""
    if os.path.exists(out):
        os.remove(out)
    target = Target("openai", "bench-model", url)
    started = time.perf_counter()
    summary = asyncio.run(aevaluate(bundle, cases, [target], out, concurrency=concurrency))
    elapsed = time.perf_counter() - started
    assert not summary.errors, summary.errors[:3]
    with open(out, encoding="utf-8") as stream:
        latency = sum(json.loads(line)["latency"] for line in stream)
    return elapsed, latency


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "t.lmml")
    cases = os.path.join(folder, "cases.jsonl")
    half = os.path.join(folder, "half.jsonl")
    out = os.path.join(folder, "out.jsonl")
    with open(path, "w", encoding="utf-8") as stream:
        stream.write(TEMPLATE)
    with open(cases, "w", encoding="utf-8") as stream:
        stream.writelines(json.dumps({"city": f"France {n}"}) + "\n" for n in range(count))
    with open(half, "w", encoding="utf-8") as stream:
        stream.writelines(json.dumps({"city": f"France {n}"}) + "\n" for n in range(count // 2))
    bundle = lmml_mdit.open(path)
    os.environ.setdefault("OPENAI_API_KEY", "bench")
    missed: list[str] = []

    instant = _Server(0.0)
    url = instant.url
    _evaluate(bundle, cases, url, out, 1)  # warm: the SDK imported
    # A run's fixed cost (a client per event loop, its TLS context, reading the cases
    # twice) is the same for N and 2N cases: the difference is N cases' own cost.
    own: list[float] = []
    render: list[float] = []
    fixed: list[float] = []
    rendering = Rendering.of("openai", True, "bench-model", {})
    for _ in range(3):
        short, short_latency = _evaluate(bundle, half, url, out, 1)
        whole, whole_latency = _evaluate(bundle, cases, url, out, 1)
        started = time.perf_counter()
        for number in range(1, count + 1):
            rendering.case(bundle, number, {"city": f"France {number}"})
        rendered = (time.perf_counter() - started) / count
        render.append(rendered)
        per_case = ((whole - whole_latency) - (short - short_latency)) / (count - count // 2)
        own.append(per_case - rendered)
        fixed.append(short - short_latency - per_case * (count // 2))
    instant.close()
    ratio = min(own) / min(render)
    if ratio > OWN_GOAL:
        missed.append("eval own cost")
    print(
        f"eval, instant server: library's own time {min(own) * 1e6:.0f} us per "
        f"case beyond rendering it ({min(render) * 1e6:.0f} us): {ratio:.2f}x "
        f"(goal <= {OWN_GOAL})" + (" MISSED" if ratio > OWN_GOAL else "")
    )
    print(f"a run's fixed cost (client, reading the cases): {min(fixed) * 1e3:.1f} ms")

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
