"""The asyncio SDK clients: each event loop's own, closed on the loop as ``asyncio.run()``
ends it, the loop then let go; a sender's ``aclose()`` closes only a client no other
sender or run of its loop holds; an eval closes its judge's client too. The real SDKs
against the loopback server."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import logging
import threading
import warnings
import weakref
from pathlib import Path

import pytest
from _eval_template import TEMPLATE
from _sdk_clients import open_clients
from _wire_server import BUILDERS, Said, Sse, WireServer, base_url, openai_chat

import lmml_mdit
from lmml_mdit.cli import main
from lmml_mdit.eval import Target, aevaluate
from lmml_mdit.run import BodySender, RunOptions

CHAT = "@@@settings.yaml\nmodel: m\nmax_tokens: 20\n@@@\n\n## user\n\nHello?\n"


pytestmark = pytest.mark.usefixtures("only_this_tests_objects")


def _cached() -> int:
    """How many asyncio clients are cached, over every event loop."""
    from lmml_mdit.run import _clients

    return _clients.cached_clients()


def _quiet(caught: list[warnings.WarningMessage], caplog: pytest.LogCaptureFixture) -> None:
    """No unclosed transport or event loop was reported, and asyncio logged no error (a
    connection closed on a loop already closed: "Event loop is closed")."""
    gc.collect()
    resources = [str(found.message) for found in caught if found.category is ResourceWarning]
    assert resources == []
    said = [
        record.getMessage()
        for record in caplog.records
        if record.name == "asyncio" and record.levelno >= logging.WARNING
    ]
    assert said == []


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_successive_asyncio_runs_leave_no_client_and_no_loop(
    tmp_path: Path, server: WireServer, provider: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Five ``asyncio.run(bundle.asend(...))``: each loop's client is closed as its loop
    ends, and the loop let go (each was kept, with a client of its own left open)."""
    path = tmp_path / "chat.lmml"
    path.write_text(CHAT, encoding="utf-8")
    bundle = lmml_mdit.open(path)
    loops: list[weakref.ref[asyncio.AbstractEventLoop]] = []

    async def once() -> str:
        loops.append(weakref.ref(asyncio.get_running_loop()))
        server.script(BUILDERS[provider](Said(["Hi"]), stream=False))
        reply = await bundle.asend(provider, base_url=base_url(server, provider))
        return reply.text

    before, cached = open_clients(), _cached()
    caplog.set_level(logging.WARNING, logger="asyncio")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert [asyncio.run(once()) for _ in range(5)] == ["Hi"] * 5
        gc.collect()
        assert [loop() for loop in loops] == [None] * 5
        assert open_clients() <= before
        assert _cached() == cached
        _quiet(caught, caplog)


def test_a_loop_closed_after_shutdown_asyncgens_closes_its_clients(
    tmp_path: Path, server: WireServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A loop run by hand closes its clients as ``asyncio.run()`` does when it is ended as
    the asyncio docs ask: ``loop.shutdown_asyncgens()`` before ``loop.close()``."""
    path = tmp_path / "chat.lmml"
    path.write_text(CHAT, encoding="utf-8")
    bundle = lmml_mdit.open(path)
    server.script(openai_chat(Said(["Hi"]), stream=False))
    before = open_clients()
    caplog.set_level(logging.WARNING, logger="asyncio")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loop = asyncio.new_event_loop()
        try:
            reply = loop.run_until_complete(bundle.asend("openai", base_url=server.url + "/v1"))
            assert open_clients() > before  # open while the loop runs, for its next send
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()
        assert reply.text == "Hi"
        alive = weakref.ref(loop)
        del loop
        gc.collect()
        assert alive() is None
        assert open_clients() <= before
        _quiet(caught, caplog)


def test_closing_one_sender_leaves_the_client_another_sender_shares(server: WireServer) -> None:
    """Two senders of one loop with the same settings share a client: the first one's
    ``aclose()`` gives up its share (it closed the client under the second), the last one
    closes it, before the loop ends."""
    options = RunOptions("openai", base_url=server.url + "/v1")
    body = {"model": "m", "messages": [{"role": "user", "content": "Hello?"}]}
    server.script(*(openai_chat(Said([text]), stream=False) for text in ("one", "two")))
    before = open_clients()

    async def go() -> tuple[list[str], set[int], set[int]]:
        first, second = BodySender(options), BodySender(options)
        said = [(await first.send(body))[0].payload]
        await first.aclose()
        said.append((await second.send(body))[0].payload)
        still = open_clients() - before
        await second.aclose()
        return [json.dumps(payload) for payload in said], still, open_clients() - before

    said, still, left = asyncio.run(go())
    assert ["one" in said[0], "two" in said[1]] == [True, True]
    assert len(still) == 1  # the shared client, open after the first sender's aclose
    assert left == set()  # closed by the last sender's, before the loop ended
    assert len(server.requests) == 2


def test_a_sender_closed_while_a_run_streams_leaves_the_runs_client_open(
    tmp_path: Path, server: WireServer
) -> None:
    """A run in flight holds a share of its loop's client too: a sender of the same
    settings closed meanwhile leaves it open, and the stream reads on to its end (the
    client was closed under it, the stream cut)."""
    path = tmp_path / "chat.lmml"
    path.write_text(CHAT, encoding="utf-8")
    bundle = lmml_mdit.open(path)
    answer = openai_chat(Said(["Hel", "lo"]), stream=True)
    assert isinstance(answer, Sse)
    gate = threading.Event()
    answer.hold_before, answer.gate = len(answer.events) - 1, gate  # the rest held
    server.script(answer)
    url = server.url + "/v1"

    async def go() -> str:
        async with bundle.astream("openai", base_url=url) as stream:
            async for _ in stream:
                if not gate.is_set():
                    await BodySender(RunOptions("openai", base_url=url)).aclose()
                    gate.set()
            return (await stream.reply()).text

    assert asyncio.run(go()) == "Hello"
    assert answer.released is True


def _judged(tmp_path: Path) -> Path:
    """A template and one case checked by a judge that names no target."""
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    case = {"city": "France", "expect": [{"judge": {"rubric": "Names the capital?"}}]}
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    return tmp_path / "t.lmml"


def test_an_eval_closes_its_judges_client_on_its_own_endpoint(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lmml eval --judge`` on another server than the target's: the judge's client is
    closed when the run ends (it was left open, cached past the run's loop)."""
    template = _judged(tmp_path)
    before = open_clients()
    with contextlib.closing(WireServer()) as judge:
        server.script(openai_chat(Said(["Paris"]), stream=False))
        judge.script(openai_chat(Said(["PASS\nit names Paris"]), stream=False))
        argv = ["eval", str(template), "--cases", str(tmp_path / "cases.jsonl")]
        argv += ["--target", f"openai:m@{server.url}/v1", "--judge", f"openai:j@{judge.url}/v1"]
        argv += ["--no-cache", "--out", str(tmp_path / "out.jsonl")]
        assert main(argv) == 0
        assert (len(server.requests), len(judge.requests)) == (1, 1)
    assert capsys.readouterr().err.splitlines()[-1].startswith("1 row(s): 1 passed")
    assert open_clients() <= before


def test_aevaluate_closes_its_judges_client_before_the_loop_ends(
    tmp_path: Path, server: WireServer
) -> None:
    """``aevaluate`` closes the clients it made, the judge's among them, before it returns:
    a loop that goes on (or is closed by hand) does not keep them open."""
    template = lmml_mdit.open(_judged(tmp_path))
    before = open_clients()
    with contextlib.closing(WireServer()) as judge:
        server.script(openai_chat(Said(["Paris"]), stream=False))
        judge.script(openai_chat(Said(["PASS\nit names Paris"]), stream=False))

        async def go() -> set[int]:
            summary = await aevaluate(
                template,
                tmp_path / "cases.jsonl",
                [Target("openai", "m", server.url + "/v1")],
                tmp_path / "out.jsonl",
                judge=Target("openai", "j", judge.url + "/v1"),
            )
            assert (summary.rows, summary.passed) == (1, 1)
            return open_clients() - before

        assert asyncio.run(go()) == set()


# -- the synchronous clients: one per process, closed as it exits ---------------------------


def test_threads_sending_at_once_make_one_synchronous_client(
    tmp_path: Path, server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four threads' first sends with the same settings share one client (each made its
    own, and three were dropped unclosed)."""
    import openai

    path = tmp_path / "chat.lmml"
    path.write_text(CHAT, encoding="utf-8")
    bundle = lmml_mdit.open(path)
    made: list[object] = []
    real_init = openai.OpenAI.__init__

    def slow_init(client: openai.OpenAI, *args: object, **kwargs: object) -> None:
        made.append(client)
        threading.Event().wait(0.2)  # the window in which the other threads ask
        real_init(client, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(openai.OpenAI, "__init__", slow_init)
    server.script(*(openai_chat(Said(["Hi"]), stream=False) for _ in range(4)))
    replies: list[str] = []
    start = threading.Barrier(4)

    def send() -> None:
        start.wait()
        reply = bundle.send("openai", base_url=server.url + "/v1", api_key="threads-key")
        replies.append(reply.text)

    threads = [threading.Thread(target=send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert replies == ["Hi"] * 4
    assert len(made) == 1


_AT_EXIT = """
import atexit, gc, sys
import openai
sys.path.insert(0, {tests!r})
from lmml_mdit.cli import main

def report():  # registered first, so it runs after the library's own exit handler
    clients = [found for found in gc.get_objects() if isinstance(found, openai.OpenAI)]
    print("open" if any(not client.is_closed() for client in clients) else "closed")

atexit.register(report)
sys.exit(main(["run", {path!r}, "--base-url", {url!r}, "--no-stream", "-q"]))
"""


def test_the_synchronous_client_is_closed_as_the_interpreter_exits(
    tmp_path: Path, server: WireServer
) -> None:
    import os
    import subprocess
    import sys

    path = tmp_path / "chat.lmml"
    path.write_text(CHAT, encoding="utf-8")
    server.script(openai_chat(Said(["Hi"]), stream=False))
    tests = str(Path(__file__).parent)
    script = _AT_EXIT.format(tests=tests, path=str(path), url=server.url + "/v1")
    env = dict(os.environ, PYTHONPATH=str(Path(tests).parent), OPENAI_API_KEY="k")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "closed"
