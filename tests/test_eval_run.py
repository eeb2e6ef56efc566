"""``aevaluate`` through the real OpenAI SDK against the loopback server: rows checked, the
cache (a rerun sends nothing, a changed case sends one), a failed send resumed without a
resend, a malformed expect refused before anything is sent."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _eval_template import TEMPLATE
from _wire_server import Answer, Drop, Json, Raw, Request, Said, WireServer, openai_chat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lmml_mdit
from lmml_mdit import ExpectError
from lmml_mdit.cli import main
from lmml_mdit.eval import Evaluator, Pace, Summary, Target, aevaluate, plan_jobs

ROOT = Path(__file__).resolve().parent.parent


def _files(tmp_path: Path, cases: list[dict[str, object]]) -> tuple[lmml_mdit.Bundle, Path]:
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(case) + "\n" for case in cases), encoding="utf-8")
    return lmml_mdit.open(tmp_path / "t.lmml"), path


def _said(text: str) -> Answer:
    return openai_chat(Said([text]), stream=False)


def _run(bundle: lmml_mdit.Bundle, cases: Path, server: WireServer, out: Path) -> Summary:
    target = Target("openai", "m", server.url + "/v1")
    return asyncio.run(
        aevaluate(
            bundle, cases, [target], out, cache=out.parent / "cache", retries=0, concurrency=1
        )
    )


def _rows(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


CASES: list[dict[str, object]] = [
    {"city": "France"},
    {"city": "Peru", "expect": [{"equals": "Lima"}, {"max-tokens": 5}]},
]


def test_rows_hold_each_verdict_and_the_cache_answers_a_rerun(
    tmp_path: Path, server: WireServer
) -> None:
    bundle, cases = _files(tmp_path, CASES)
    server.script(_said("Paris."), _said("Lima"))
    summary = _run(bundle, cases, server, tmp_path / "a.jsonl")
    assert (summary.rows, summary.passed, summary.cached, summary.errors) == (2, 1, 0, [])
    first, second = _rows(tmp_path / "a.jsonl")
    assert first["answer"] == "Paris." and first["passed"] is True
    assert "capital of France" in json.dumps(first["request"])
    assert second["assertions"] == [
        {"kind": "equals", "passed": True, "reason": "equal"},
        {"kind": "max-tokens", "passed": False, "reason": "7 tokens > 5"},
    ]
    assert second["inputs"] == {"city": "Peru"} and second["output_tokens"] == 7
    assert len(server.requests) == 2
    again = _run(bundle, cases, server, tmp_path / "b.jsonl")
    assert (again.rows, again.cached, len(server.requests)) == (2, 2, 2)
    _, cases = _files(tmp_path, [CASES[0], {"city": "Chile"}])
    server.script(_said("Santiago"))
    changed = _run(bundle, cases, server, tmp_path / "c.jsonl")
    assert (changed.rows, changed.cached, len(server.requests)) == (2, 1, 3)


def test_a_failed_send_gets_no_row_and_a_rerun_sends_only_it(
    tmp_path: Path, server: WireServer
) -> None:
    bundle, cases = _files(tmp_path, CASES)
    server.script(_said("Paris"), Drop())
    out = tmp_path / "out.jsonl"
    summary = _run(bundle, cases, server, out)
    assert summary.rows == 1 and len(summary.errors) == 1
    assert f"{cases}:2: openai:m@" in summary.errors[0]
    server.script(_said("Lima"))
    resumed = _run(bundle, cases, server, out)
    assert (resumed.rows, resumed.skipped, len(server.requests)) == (1, 1, 3)
    assert [row["case"] for row in _rows(out)] == [1, 2]


def test_an_answer_that_is_no_reply_gets_no_row_and_is_not_cached(
    tmp_path: Path, server: WireServer
) -> None:
    bundle, cases = _files(tmp_path, CASES[:1])
    server.script(Json({"object": "chat.completion"}))
    out = tmp_path / "out.jsonl"
    summary = _run(bundle, cases, server, out)
    assert summary.rows == 0
    (error,) = summary.errors
    assert "is no openai reply: it holds no 'choices'" in error
    server.script(_said("Paris"))
    resumed = _run(bundle, cases, server, out)
    assert (resumed.rows, resumed.cached, len(server.requests)) == (1, 0, 2)
    assert [row["answer"] for row in _rows(out)] == ["Paris"]


def test_what_rendering_warns_about_is_reported_once_a_target_as_lmml_render_does(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = "@@@settings.yaml\nfrobnicate: 1\n@@@\n\n## user\n"
    _files(tmp_path, [{"city": "France"}, {"city": "Peru"}])
    (tmp_path / "t.lmml").write_text(TEMPLATE.replace("## user\n", settings), encoding="utf-8")
    dropped = "setting 'frobnicate' left out: OpenAI Chat Completions (openai) has no parameter"
    cases = tmp_path / "cases.jsonl"
    assert (
        main(
            ["render", str(tmp_path / "t.lmml"), "--cases", str(cases), "--request", "--model", "m"]
        )
        == 0
    )
    assert f"t.lmml:8:13: {dropped}" in capsys.readouterr().err  # what render --cases says
    server.script(_said("Paris"), _said("Paris"))
    target = f"openai:m@{server.url}/v1"
    out = tmp_path / "out.jsonl"
    args = ["eval", str(tmp_path / "t.lmml"), "--cases", str(cases), "--target", target]
    assert main([*args, "--concurrency", "1", "--out", str(out), "--no-cache"]) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warned) == 1  # once for the target, at the first case that gave it
    # At the line the setting is written on, as render says it.
    place = f"{tmp_path / 't.lmml'}:8:13"
    assert warned[0].startswith(f"lmml: warning: {cases}:1: {target}: {place}: {dropped}")
    server.script(_said("Paris"), _said("Paris"))
    summary = _run(lmml_mdit.open(tmp_path / "t.lmml"), cases, server, tmp_path / "b.jsonl")
    # The API names the template by its file name; the command line, as it was typed.
    said = warned[0].removeprefix("lmml: warning: ").replace(place, "t.lmml:8:13")
    # ... and the way to keep the setting in its own words (an argument, not a flag).
    said = said.replace(
        "(--unknown-settings pass, on lmml render and export, would",
        "(unknown_settings='pass' would",
    )
    assert summary.warnings == [said]


def test_a_malformed_expect_is_refused_before_anything_is_sent(
    tmp_path: Path, server: WireServer
) -> None:
    bundle, cases = _files(tmp_path, [CASES[0], {"city": "x", "expect": [{"contain": "x"}]}])
    with pytest.raises(ExpectError, match=r"cases\.jsonl:2: unknown assertion 'contain'"):
        _run(bundle, cases, server, tmp_path / "out.jsonl")
    assert server.requests == []


def test_a_judge_target_that_is_no_target_is_refused_before_anything_is_sent(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    judged = {"judge": {"rubric": "Names it?", "target": "gpt-4o"}}
    _files(tmp_path, [CASES[0], {"city": "Peru", "expect": [judged]}])
    cases = tmp_path / "cases.jsonl"
    args = ["eval", str(tmp_path / "t.lmml"), "--cases", str(cases), "--no-cache"]
    assert main([*args, "--target", f"openai:m@{server.url}/v1"]) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"lmml: error: {cases}:2: judge's target: a target is") and (
        "internal error" not in said
    )
    assert server.requests == []


def test_the_command_writes_rows_and_exits_1_on_a_failed_check(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path, CASES)
    server.script(_said("Paris"), _said("Lima"))
    out = tmp_path / "out.jsonl"
    target = f"openai:m@{server.url}/v1"
    args = [
        "eval",
        str(tmp_path / "t.lmml"),
        "--cases",
        str(tmp_path / "cases.jsonl"),
        "--target",
        target,
        "--concurrency",
        "1",
        "--out",
        str(out),
    ]
    saved = tmp_path / "saved"
    assert main([*args, "--save-conversations", str(saved)]) == 1  # case 2: 7 > 5 tokens
    conversation = lmml_mdit.open(
        saved / f"case-1-openai_m_http___127.0.0.1_{server.port}_v1.lmmlz"
    )
    messages = conversation.messages("openai")
    assert "Paris" in json.dumps(messages[-1]["content"])
    assert [message["role"] for message in messages] == [
        "user",
        "assistant",
    ]
    assert "2 row(s): 1 passed, 1 failed, 0 from the cache" in capsys.readouterr().err
    report = tmp_path / "report.html"
    assert main([*args, "--fail-under", "0.5", "--report", str(report)]) == 0  # resumed
    page = report.read_text(encoding="utf-8")
    assert page.count("<details") == 2 and "<script" not in page
    assert "max-tokens</b>: 7 tokens &gt; 5" in page and "1/2 (50%)" in page
    assert "2 already in" in capsys.readouterr().err
    assert len(server.requests) == 2
    # resumed without a threshold: the failure written by the first run still counts
    assert main(args) == 1
    assert "2 already in" in (said := capsys.readouterr().err) and "(1 failed)" in said
    assert "pass rate 50.0% over all rows" in said and len(server.requests) == 2
    assert main([*args, "--rate", "openai:other=5/min"]) == 2
    assert "which is no --target" in capsys.readouterr().err
    assert main([*args[:-2], "--out", str(tmp_path / "b.jsonl"), "--target", "nobody:x"]) == 2
    assert "no sender for provider 'nobody'" in capsys.readouterr().err


def test_the_report_shows_only_the_targets_the_run_names_as_its_pass_rate_counts(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path, CASES)
    out, report = tmp_path / "out.jsonl", tmp_path / "report.html"
    base = ["eval", str(tmp_path / "t.lmml"), "--cases", str(tmp_path / "cases.jsonl")]
    args = [*base, "--out", str(out), "--concurrency", "1", "--no-cache"]
    first, second = f"openai:m@{server.url}/v1", f"openai:other@{server.url}/v1"
    server.script(_said("Rome"), _said("Rome"))
    assert main([*args, "--target", first]) == 1  # both cases fail at the first target
    server.script(_said("Paris"), _said("Lima"))
    assert main([*args, "--target", second, "--report", str(report)]) == 1  # 7 > 5 tokens
    assert "pass rate 50.0% over all rows" in capsys.readouterr().err
    page = report.read_text(encoding="utf-8")
    # The grid and the rates: the second target's two rows, one passed (as the run's
    # rate); the first's rows are named as left out, not shown.
    assert page.count("<details") == 2 and page.count('class="fail"') == 1
    assert "1/2 (50%)" in page and f"<th>{second}</th>" in page
    assert f"<th>{first}</th>" not in page
    assert f"Left out: 2 row(s) of the results for targets this run does not name ({first})" in (
        page
    )


def test_jobs_run_at_once_each_get_their_own_error(tmp_path: Path, server: WireServer) -> None:
    # case 1's send fails after case 2's rendering failed: each outcome is its own job's
    bundle, cases = _files(tmp_path, [{"city": "France"}, {"city": 5}])
    target = Target("openai", "m", server.url + "/v1")
    summary = Summary()
    first, second = plan_jobs(bundle, cases, [target], {}, summary)
    evaluator = Evaluator(str(cases), None, False, 0, target, summary, {})
    server.script(Drop())

    async def both() -> list[object]:
        try:
            return list(await asyncio.gather(evaluator.outcome(first), evaluator.outcome(second)))
        finally:
            await evaluator.aclose()

    failed, refused = asyncio.run(both())
    assert isinstance(failed, str) and failed.startswith(f"{cases}:1: {target}: ")
    assert isinstance(refused, str) and refused.startswith(f"{cases}:2: {target}: ")
    assert "city" in refused and summary.errors == []  # outcome leaves the summary alone


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "gemini"])
def test_a_request_over_the_timeout_gets_no_row_naming_the_url(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], provider: str
) -> None:
    import socket

    _files(tmp_path, CASES[:1])
    listener = socket.socket()  # takes the connection and never answers
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    out = tmp_path / "out.jsonl"
    cases = tmp_path / "cases.jsonl"
    args = ["eval", str(tmp_path / "t.lmml"), "--cases", str(cases), "--out", str(out)]
    try:
        target = f"{provider}:m@{url}"
        assert main([*args, "--target", target, "--timeout", "0.3", "--retries", "0", "-q"]) == 1
    finally:
        listener.close()
    err = capsys.readouterr().err
    assert f"{cases}:1: {target}: " in err and "timed out" in err
    assert not out.exists() or out.read_text(encoding="utf-8") == ""


def test_the_sending_options_default_as_a_run_does() -> None:
    from lmml_mdit.cli import build_parser
    from lmml_mdit.run import RunOptions

    parser = build_parser()
    for command in (["run", "a.lmml"], ["eval", "a.lmml", "--target", "openai:m"]):
        args = parser.parse_args(command)
        assert (args.retries, args.backoff, args.timeout) == (
            RunOptions.retries,
            RunOptions.backoff,
            RunOptions.timeout,
        )
        given = parser.parse_args([*command, "--retries", "1", "--backoff", "0", "--timeout", "2"])
        assert (given.retries, given.backoff, given.timeout) == (1, 0.0, 2.0)
    assert parser.parse_args(["run", "a.lmml"]).max_rounds == RunOptions.max_rounds


def _killable(folder: Path, server: WireServer, concurrency: int, out: Path) -> list[str]:
    """The ``lmml eval`` arguments of the kill tests: the folder's template and cases."""
    return [
        "eval",
        str(folder / "t.lmml"),
        "--cases",
        str(folder / "cases.jsonl"),
        "--target",
        f"openai:m@{server.url}/v1",
        "--concurrency",
        str(concurrency),
        "--out",
        str(out),
        "--quiet",
    ]


def _child(args: list[str]) -> subprocess.Popen[bytes]:
    """``lmml`` with *args* in a process of its own, to be killed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "lmml_mdit", *args], env=env)


@pytest.mark.parametrize("kill_after", [3, 17])
def test_killed_mid_run_and_started_again_it_loses_no_case(
    tmp_path: Path, server: WireServer, kill_after: int
) -> None:
    """SIGKILL once the server has seen *kill_after* requests; the rerun completes the rows:
    each case once, and no more sends than cases plus the two that may have been in flight."""
    total = 40
    _files(tmp_path, [{"city": f"c{n}"} for n in range(total)])
    server.script(*[_said("Paris") for _ in range(total + 10)])
    out = tmp_path / "out.jsonl"
    args = _killable(tmp_path, server, 2, out)
    child = _child(args)
    deadline = time.monotonic() + 60
    while len(server.requests) < kill_after and child.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    child.kill()
    child.wait()
    before = len(server.requests)
    assert main(args) == 0
    cases = [int(str(row["case"])) for row in _rows(out)]
    assert sorted(cases) == list(range(1, total + 1))
    assert len(server.requests) <= total + 2
    assert before < total  # the kill came mid-run


def _city(request: Request) -> str | None:
    """The case a request the server received was for (its ``c{n}`` city), or None for one
    cut by the kill before its body arrived (it was never sent whole)."""
    text = json.dumps(request.body)
    start = text.find("capital of ")
    if start < 0:
        return None
    start += len("capital of ")
    return text[start : text.index("?", start)]


@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(
    kills=st.lists(st.integers(0, 12), min_size=1, max_size=3),
    concurrency=st.integers(1, 4),
    cached=st.booleans(),
)
def test_killed_at_random_points_no_case_is_lost_and_none_finished_is_sent_again(
    tmp_path_factory: pytest.TempPathFactory,
    server: WireServer,
    kills: list[int],
    concurrency: int,
    cached: bool,
) -> None:
    """Killed (SIGKILL) after a random number of further requests, again and again, then
    run to the end: every case has exactly one row, a case whose row was written before a
    kill is never sent after it, and the only sends beyond one per case are those in flight
    at a kill (at most the concurrency each time)."""
    server.requests.clear()
    server.answers.clear()
    folder = tmp_path_factory.mktemp("killed")
    total = 24
    _files(folder, [{"city": f"c{n}"} for n in range(total)])
    server.script(*[_said("Paris") for _ in range(total * 3)])
    out = folder / "out.jsonl"
    args = _killable(folder, server, concurrency, out)
    args += ["--cache", str(folder / "cache")] if cached else ["--no-cache"]
    finished_before: list[tuple[int, set[str]]] = []  # (requests seen, cities with a row)
    for more in kills:
        child = _child(args)
        wanted = len(server.requests) + more
        deadline = time.monotonic() + 60
        while len(server.requests) < wanted and child.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.002)
        child.kill()
        child.wait()
        rows = _rows(out) if out.exists() else []
        cities = {str(row["inputs"]["city"]) for row in rows}  # type: ignore[index]
        finished_before.append((len(server.requests), cities))
    assert main(args) == 0
    rows = _rows(out)
    assert sorted(int(str(row["case"])) for row in rows) == list(range(1, total + 1))
    cut = [_city(request) for request in server.requests]
    for seen, cities in finished_before:
        again = {city for city in cut[seen:] if city in cities}
        assert not again, f"finished before a kill, sent again: {sorted(again)}"
    sent = [city for city in cut if city is not None]
    assert len(sent) - len(set(sent)) <= len(kills) * concurrency
    assert set(sent) == {f"c{n}" for n in range(total)}


def test_a_rate_spaces_the_requests_to_its_target(
    tmp_path: Path, server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 300/min the requests start 0.2 s apart, though five could be in flight at once:
    the pace lets the last go at least four gaps after the first asked, and by the server's
    clock each request came after the pace let it go (the same clock: ``time.monotonic``),
    so the server sees them spread over as long, whatever the jitter on the way."""
    bundle, cases = _files(tmp_path, [{"city": f"c{n}"} for n in range(5)])
    server.script(*[_said("Paris") for _ in range(5)])
    target = Target("openai", "m", server.url + "/v1")
    asked: list[float] = []
    let_go: list[float] = []
    wait = Pace.wait

    async def timed(pace: Pace) -> None:
        asked.append(time.monotonic())
        await wait(pace)
        let_go.append(time.monotonic())

    monkeypatch.setattr(Pace, "wait", timed)
    seen: list[tuple[int, int | None, str]] = []
    summary = asyncio.run(
        aevaluate(
            bundle,
            cases,
            [target],
            tmp_path / "o.jsonl",
            concurrency=5,
            rates={str(target): 300},
            progress=lambda done, total, detail: seen.append((done, total, detail)),
        )
    )
    assert summary.rows == 5
    assert [(done, total) for done, total, _ in seen] == [(n, 5) for n in range(1, 6)]
    assert seen[-1][2].startswith("0 failed, 0 errors, 0 cached, ETA 0 s")
    assert len(asked) == len(let_go) == 5
    # the pace's contract, less the event loop's clock resolution (1 ns)
    assert let_go[-1] - min(asked) >= 4 * 0.2 - 1e-3, (asked, let_go)
    arrivals = sorted(request.at for request in server.requests)
    assert all(came > went for came, went in zip(arrivals, sorted(let_go), strict=True))
    assert arrivals[-1] - min(asked) >= 4 * 0.2 - 1e-3


def test_a_judge_that_is_a_paced_target_keeps_its_pace(
    tmp_path: Path, server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judge (by default the first target) is sent to like any request to its target:
    its prompts wait for the target's rate too (they went out unpaced, so the target saw
    more than its rate)."""
    judged = [{"city": f"c{n}", "expect": [{"judge": "Names a capital?"}]} for n in range(3)]
    bundle, cases = _files(tmp_path, judged)
    server.script(*[_said(text) for text in ("Paris", "PASS", "Lima", "PASS", "Rome", "PASS")])
    target = Target("openai", "m", server.url + "/v1")
    let_go: list[float] = []
    wait = Pace.wait

    async def timed(pace: Pace) -> None:
        await wait(pace)
        let_go.append(time.monotonic())

    monkeypatch.setattr(Pace, "wait", timed)
    rates = {str(target): 600.0}
    out = tmp_path / "o.jsonl"
    summary = asyncio.run(aevaluate(bundle, cases, [target], out, concurrency=1, rates=rates))
    assert (summary.rows, summary.passed, len(server.requests)) == (3, 3, 6)
    assert len(let_go) == 6  # three answers and three judge prompts, each paced
    assert let_go[-1] - let_go[0] >= 5 * 0.1 - 1e-3


def test_the_progress_total_counts_only_what_this_run_sends(
    tmp_path: Path, server: WireServer
) -> None:
    """Rows an earlier run wrote for another target are not this run's: its total is the
    cases times its own targets, less its own rows already written."""
    bundle, cases = _files(tmp_path, [{"city": "France"}, {"city": "Peru"}])
    out = tmp_path / "o.jsonl"
    first, second = (Target("openai", model, server.url + "/v1") for model in ("a", "b"))
    server.script(*[_said("Paris") for _ in range(4)])
    asyncio.run(aevaluate(bundle, cases, [first], out))
    seen: list[tuple[int, int | None]] = []

    def run(targets: list[Target]) -> Summary:
        seen.clear()
        return asyncio.run(
            aevaluate(
                bundle,
                cases,
                targets,
                out,
                progress=lambda done, total, detail: seen.append((done, total)),
            )
        )

    assert (run([second]).rows, seen) == (2, [(1, 2), (2, 2)])
    assert (run([first, second]).skipped, seen) == (4, [])


def test_a_judge_is_asked_through_its_own_target(tmp_path: Path, server: WireServer) -> None:
    rubric = {"judge": {"rubric": "Names the capital?", "target": f"openai:judge@{server.url}/v1"}}
    bundle, cases = _files(tmp_path, [{"city": "France", "expect": [rubric]}])
    server.script(_said("Paris"), _said("PASS\nit names Paris"))
    summary = _run(bundle, cases, server, tmp_path / "out.jsonl")
    assert (summary.rows, summary.passed) == (1, 1)
    (row,) = _rows(tmp_path / "out.jsonl")
    assert row["assertions"] == [{"kind": "judge", "passed": True, "reason": "it names Paris"}]
    sent = server.requests[1].body
    assert sent["model"] == "judge" and "Names the capital?" in json.dumps(sent)
    assert "Paris" in json.dumps(sent["messages"])


def test_a_judges_verdict_is_cached_so_a_rerun_from_the_cache_sends_nothing(
    tmp_path: Path, server: WireServer
) -> None:
    judged = {"city": "France", "expect": [{"judge": "Names the capital?"}]}
    bundle, cases = _files(tmp_path, [judged])
    server.script(_said("Paris"), _said("PASS\nit names Paris"))
    assert _run(bundle, cases, server, tmp_path / "a.jsonl").passed == 1
    again = _run(bundle, cases, server, tmp_path / "b.jsonl")  # a new results file
    assert (again.rows, again.passed, again.cached) == (1, 1, 1)
    assert len(server.requests) == 2  # neither the case nor its judge sent again
    assert (
        _rows(tmp_path / "b.jsonl")[0]["assertions"] == _rows(tmp_path / "a.jsonl")[0]["assertions"]
    )


def test_a_tool_call_in_the_answer_is_checked(tmp_path: Path, server: WireServer) -> None:
    want = {"tool-call": {"name": "capital", "arguments": {"country": "France"}}}
    bundle, cases = _files(
        tmp_path, [{"city": "France", "expect": [want]}, {"city": "Peru", "expect": [want]}]
    )
    server.script(
        openai_chat(Said(calls=[("c1", "capital", {"country": "France"})]), stream=False),
        openai_chat(Said(calls=[("c2", "capital", {"country": "Chile"})]), stream=False),
    )
    summary = _run(bundle, cases, server, tmp_path / "out.jsonl")
    first, second = _rows(tmp_path / "out.jsonl")
    assert first["passed"] is True and second["passed"] is False
    assert first["calls"] == [{"name": "capital", "arguments": {"country": "France"}}]
    assert "'capital' country='Chile', not 'France'" in json.dumps(second["assertions"])
    assert summary.rows == 2


def test_tool_call_arguments_that_are_no_json_object_fail_with_what_they_are(
    tmp_path: Path, server: WireServer
) -> None:
    want = {"tool-call": {"name": "capital", "arguments": {"country": "France"}}}
    bundle, cases = _files(tmp_path, [{"city": "France", "expect": [want]}])
    answer = openai_chat(Said(calls=[("c1", "capital", {})]), stream=False)
    assert isinstance(answer, Json)
    raw = "country=France; " + "x" * 200
    answer.body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = raw
    server.script(answer)
    summary = _run(bundle, cases, server, tmp_path / "out.jsonl")
    (row,) = _rows(tmp_path / "out.jsonl")
    assert (summary.rows, summary.passed, row["passed"]) == (1, 0, False)
    assertions = row["assertions"]
    assert isinstance(assertions, list) and len(assertions) == 1
    reason = str(assertions[0]["reason"])
    assert reason.startswith("'capital' arguments are not a JSON object: 'country=France; xxx")
    assert reason.endswith("…'") and len(reason) < 140
    assert row["calls"] == [{"name": "capital", "arguments": raw}]  # kept as it came, no {}


def test_no_cache_sends_again_and_the_new_answer_replaces_the_stored_one(
    tmp_path: Path, server: WireServer
) -> None:
    _files(tmp_path, CASES[:1])
    cases, cache = tmp_path / "cases.jsonl", tmp_path / "cache"
    args = ["eval", str(tmp_path / "t.lmml"), "--cases", str(cases), "--cache", str(cache)]
    args += ["--target", f"openai:m@{server.url}/v1", "-q"]
    server.script(_said("Paris"), _said("Paris, France"))
    assert main([*args, "--out", str(tmp_path / "a.jsonl")]) == 0
    assert main([*args, "--out", str(tmp_path / "b.jsonl"), "--no-cache"]) == 0
    assert main([*args, "--out", str(tmp_path / "c.jsonl")]) == 0  # from the cache
    assert len(server.requests) == 2
    answers = [_rows(tmp_path / f"{name}.jsonl")[0]["answer"] for name in "abc"]
    assert answers == ["Paris", "Paris, France", "Paris, France"]
    assert _rows(tmp_path / "c.jsonl")[0]["cached"] is True


def test_a_judge_that_fails_is_its_case_error_and_the_other_cases_still_run(
    tmp_path: Path, server: WireServer
) -> None:
    judged = {"city": "France", "expect": [{"judge": "Names the capital?"}]}
    bundle, cases = _files(tmp_path, [judged, {"city": "Peru"}])
    refused = Json({"error": {"message": "judge down"}}, status=500)
    server.script(_said("Paris"), refused, _said("Lima, Paris"))
    out = tmp_path / "out.jsonl"
    summary = _run(bundle, cases, server, out)
    assert [row["case"] for row in _rows(out)] == [2] and summary.rows == 1
    (error,) = summary.errors
    target = f"openai:m@{server.url}/v1"
    assert error.startswith(f"{cases}:1: {target}: the judge {target} was not answered: ")
    assert "(500): judge down" in error
    server.script(_said("PASS\nit names Paris"))  # the rerun asks the judge again only
    resumed = _run(bundle, cases, server, out)
    assert (resumed.rows, resumed.passed, resumed.cached, resumed.errors) == (1, 1, 1, [])
    assert len(server.requests) == 4


def test_an_answer_holding_a_lone_surrogate_is_kept_and_written_where_text_can_hold_it(
    tmp_path: Path, server: WireServer
) -> None:
    """The results and the cache keep it whole (as a JSON escape, so the files stay UTF-8);
    the Parquet results, the report and the saved conversation show it as ``\\ud800``."""
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    _files(tmp_path, CASES[:1])
    said = _said("Paris")
    assert isinstance(said, Json)
    server.script(Raw(json.dumps(said.body).replace('"Paris"', '"Paris \\ud800 \\u00e9"').encode()))
    out, report, saved = tmp_path / "out.parquet", tmp_path / "r.html", tmp_path / "saved"
    args = ["eval", str(tmp_path / "t.lmml"), "--cases", str(tmp_path / "cases.jsonl"), "-q"]
    args += ["--target", f"openai:m@{server.url}/v1", "--cache", str(tmp_path / "cache")]
    extra = ["--out", str(out), "--report", str(report), "--save-conversations", str(saved)]
    assert main([*args, *extra]) == 0
    (row,) = _rows(Path(f"{out}.journal.jsonl"))  # read as UTF-8, strictly
    assert row["answer"] == "Paris \ud800 \u00e9"
    assert pq.read_table(out).to_pylist()[0]["answer"] == "Paris \\ud800 \u00e9"
    assert "Paris \\ud800 \u00e9" in report.read_text(encoding="utf-8")
    (bundle,) = saved.iterdir()
    answered = lmml_mdit.open(bundle).messages("openai")[-1]["content"]
    assert answered == [{"type": "text", "text": "Paris \\ud800 \u00e9"}]
    assert main([*args, "--out", str(tmp_path / "again.jsonl")]) == 0  # from the cache
    (again,) = _rows(tmp_path / "again.jsonl")
    assert (again["answer"], again["cached"], len(server.requests)) == (row["answer"], True, 1)


def test_backoff_spaces_the_retries_of_a_case_and_of_its_judge(
    tmp_path: Path, server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--backoff B`` waits B before the first retry, 2B before the second (plus at most a
    quarter of jitter), for the case's send and for its judge; the waits are recorded, not
    timed."""
    judged = {"city": "France", "expect": [{"judge": "Names the capital?"}]}
    _files(tmp_path, [judged])
    busy = Json({"error": {"message": "busy"}}, status=503)
    server.script(busy, busy, _said("Paris"), busy, _said("PASS\nit names Paris"))
    waits: list[float] = []
    sleep = asyncio.sleep

    async def recorded(delay: float, result: object = None) -> object:
        if delay > 0:
            waits.append(delay)
        return await sleep(0, result)

    monkeypatch.setattr(asyncio, "sleep", recorded)
    args = ["eval", str(tmp_path / "t.lmml"), "--cases", str(tmp_path / "cases.jsonl"), "-q"]
    args += ["--target", f"openai:m@{server.url}/v1", "--no-cache", "--retries", "2"]
    assert main([*args, "--out", str(tmp_path / "out.jsonl"), "--backoff", "0.25"]) == 0
    assert len(server.requests) == 5 and len(waits) == 3, waits
    for wait, base in zip(waits, [0.25, 0.5, 0.25], strict=True):
        assert base <= wait <= base * 1.25, waits
