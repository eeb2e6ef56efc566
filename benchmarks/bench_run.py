"""The run loop's own cost, printed as a ratio (a script, not a test; it exits 1 when the
goal below is missed).

A 200-turn ``.lmml`` is sent to a loopback server speaking OpenAI Chat Completions (the
``openai`` SDK, one client reused), and the reply appended and written back, as ``lmml
run`` does. The library's own time per send is the whole send less the SDK call and the
write (the
request, the server, the response: ``Reply.latency``): building the body, reading the
reply, appending it, the atomic write. Goal: at most 1.5 times ``to_request`` alone on the
same bundle in the same run.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from goals import exit_status

import lmml_mdit
from lmml_mdit.run import RunOptions, run

GOAL = 1.5
TURNS = 200
REPLY = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "bench-model",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "A short answer, with **bold** text."},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 900, "completion_tokens": 9, "total_tokens": 909},
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        data = json.dumps(REPLY).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _conversation() -> str:
    turns = ["@@@settings.yaml\nmodel: bench-model\ntemperature: 0.2\n@@@\n"]
    for number in range(1, TURNS + 1):
        role = "user" if number % 2 else "assistant"
        turns.append(
            f"## Turn {number} -- {role}\n\nTurn {number}: a paragraph of ordinary prose with "
            "*emphasis*, `code` and a [link](https://example.org).\n\n- a point\n- another\n"
        )
    return "\n".join(turns)


def main() -> int:
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "long.lmml")
    out = os.path.join(folder, "out.lmml")
    with open(path, "w", encoding="utf-8") as stream:
        stream.write(_conversation())
    bundle = lmml_mdit.open(path)

    writes: list[float] = []

    def commit(document: object) -> None:
        started = time.perf_counter()
        document.save(out)  # type: ignore[attr-defined]
        writes.append(time.perf_counter() - started)

    options = RunOptions("openai", base_url=url, api_key="bench", commit=commit)
    run(bundle, options)  # warm: the SDK imported, the client made
    own: list[float] = []
    building: list[float] = []
    for _ in range(repeat):
        writes.clear()
        started = time.perf_counter()
        reply = run(bundle, options)
        own.append(time.perf_counter() - started - reply.latency - sum(writes))
        # The baseline in the same conditions: right after a send, as the next one would be.
        started = time.perf_counter()
        bundle.to_request("openai")
        building.append(time.perf_counter() - started)
    server.shutdown()
    ratio = min(own) / min(building)
    missed = ratio > GOAL
    print(
        f"send, {TURNS} turns: library's own time {min(own) * 1e3:.1f} ms per send, "
        f"to_request {min(building) * 1e3:.1f} ms: {ratio:.2f}x (goal <= {GOAL})"
        + (" MISSED" if missed else "")
    )
    print(f"the atomic write of the {TURNS}-turn file: {min(writes) * 1e3:.1f} ms (disk-bound)")
    return exit_status(["run overhead"] if missed else [])


if __name__ == "__main__":
    sys.exit(main())
