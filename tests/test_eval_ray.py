"""``lmml_mdit.ray.eval_batches`` on a real two-node Ray cluster (``ray.cluster_utils``:
two raylets, one CPU each) against the loopback server through the real OpenAI SDK: its
rows equal the one-process ``aevaluate`` run's, row for row, and both nodes sent (each
node's environment holds its own API key, and the server sees both)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray
from _eval_template import TEMPLATE
from _wire_server import Said, WireServer, openai_chat
from ray.cluster_utils import Cluster

import lmml_mdit
from lmml_mdit.cli import main
from lmml_mdit.eval import Target, aevaluate
from lmml_mdit.ray import _evaluation as evaluation  # its gate, timed below
from lmml_mdit.ray import eval_batches

CITIES = ["France", "Peru", "Chile", "Spain", "Italy", "Japan"]
NODE_KEYS = ("head-node", "worker-node")
"""The API key each node's environment holds, so the server tells the nodes apart."""
DIFFERS = ("latency", "cached")
"""Fields that legitimately differ: the time a send took, and whether the cache answered."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    head, worker = ({"OPENAI_API_KEY": key} for key in NODE_KEYS)
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "env_vars": head})
    try:
        nodes.add_node(num_cpus=1, env_vars=worker)
        ray.init(address=nodes.address, log_to_driver=False)
        nodes.wait_for_nodes()
        assert len([node for node in ray.nodes() if node["Alive"]]) == 2  # type: ignore[no-untyped-call]
        ray.data.DataContext.get_current().enable_progress_bars = False
        yield nodes.address
    finally:
        ray.shutdown()
        nodes.shutdown()  # type: ignore[no-untyped-call]


def _timed_gate(log: Path) -> type[evaluation._Gate]:
    """The gate actor's class, writing to *log* when each ``wait`` is asked and when it
    lets its request go (``time.monotonic()``; defined here, so Ray ships it by value)."""

    class Timed(evaluation._Gate):
        async def wait(self) -> None:
            entered = time.monotonic()
            await super().wait()
            left = time.monotonic()
            with open(log, "a", encoding="utf-8") as file:
                file.write(f"{entered!r} {left!r}\n")

    return Timed


def _rows(path: Path) -> list[dict[str, object]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [{k: v for k, v in row.items() if k not in DIFFERS} for row in rows]


def test_eval_batches_rows_equal_the_one_process_run(
    cluster: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server = WireServer()
    try:
        template = tmp_path / "t.lmml"
        # a setting no provider has: rendering each case warns it is left out
        settings = "@@@settings.yaml\nfrobnicate: 1\n@@@\n\n## user\n"
        template.write_text(TEMPLATE.replace("## user\n", settings), encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        lines: list[dict[str, object]] = [{"city": city} for city in CITIES]
        lines[1]["expect"] = [{"equals": "Lima"}]
        cases.write_text("".join(json.dumps(case) + "\n" for case in lines), encoding="utf-8")
        target = Target("openai", "m", server.url + "/v1")
        for _ in range(2 * len(CITIES)):
            server.script(openai_chat(Said(["Paris"]), stream=False))
        bundle = lmml_mdit.open(template)
        one = tmp_path / "one.jsonl"
        alone = asyncio.run(aevaluate(bundle, cases, [target], one, retries=0, concurrency=1))
        assert len(alone.warnings) == 1 and "'frobnicate' left out" in alone.warnings[0]
        out = tmp_path / "ray.jsonl"
        # Both nodes get work for certain: the server answers no request until both nodes'
        # keys have come, and an actor holds one batch at a time, so while the first node's
        # actor waits on its batch the other batches go to the other node's actor (a third
        # request may be in flight: the first batch holds two of the target's slots).
        both = server.hold_until("authorization", {f"Bearer {node}" for node in NODE_KEYS})
        monkeypatch.setattr(ray.data.DataContext.get_current(), "max_tasks_in_flight_per_actor", 1)
        summary = eval_batches(
            template, cases, [target], out, cache=tmp_path / "cache", concurrency=3, batch_size=2
        )
        assert both.is_set()
        assert (summary.rows, summary.passed, summary.errors) == (6, 5, [])
        assert summary.warnings == alone.warnings  # said once, at the first case, as alone
        assert len(server.requests) == 12
        # Each node's workers send the key of its own environment: both nodes sent.
        keys = {request.headers["authorization"] for request in server.requests[6:]}
        assert keys == {f"Bearer {node}" for node in NODE_KEYS}
        expected = sorted(_rows(one), key=lambda row: row["case"])  # type: ignore[arg-type, return-value]
        assert _rows(out) == expected
        again = eval_batches(
            template, cases, [target], tmp_path / "again.jsonl", cache=tmp_path / "cache"
        )
        assert (again.rows, again.cached, len(server.requests)) == (6, 6, 12)
        resumed = eval_batches(template, cases, [target], out, cache=tmp_path / "cache")
        assert (resumed.rows, resumed.skipped) == (0, 6)
        ray.shutdown()  # the command joins the cluster itself
        by_cli = tmp_path / "cli.jsonl"
        arguments = [str(template), "--cases", str(cases), "--target", str(target)]
        arguments += ["--cache", str(tmp_path / "cli-cache"), "--out", str(by_cli)]
        for _ in range(len(CITIES)):
            server.script(openai_chat(Said(["Paris"]), stream=False))
        saved = tmp_path / "saved"
        paced = ["--rate", f"{target}=300/min", "--save-conversations", str(saved)]
        paced += ["--timeout", "60", "--backoff", "0.1"]  # handed to every worker's sender
        asked = tmp_path / "asked"
        monkeypatch.setattr(evaluation, "_Gate", _timed_gate(asked))
        code = main(["eval", *arguments, "--ray", cluster, "--concurrency", "3", "-q", *paced])
        assert code == 1  # the Lima case fails
        assert _rows(by_cli) == expected and len(server.requests) == 18
        # --rate: one gate actor paces the target for the whole cluster, its starts 0.2 s
        # apart. Its contract, measured at the gate: the last of six lets its request go at
        # least 5 gaps after the first asked (less the event loop's clock resolution, 1 ns).
        times = [line.split() for line in asked.read_text(encoding="utf-8").splitlines()]
        entered = [float(entry) for entry, _ in times]
        let_go = sorted(float(left) for _, left in times)
        assert len(times) == len(CITIES)
        assert let_go[-1] - min(entered) >= 5 * 0.2 - 1e-3, times
        # ...and every request really waited for it: the k-th request to reach the server
        # came after the k-th let go (one clock: the machine's monotonic one). A request's
        # trip from the gate to the server only delays it, so this holds under any load.
        arrivals = sorted(request.at for request in server.requests[12:])
        assert all(came > went for came, went in zip(arrivals, let_go, strict=True))
        assert arrivals[-1] - min(entered) >= 5 * 0.2 - 1e-3
        # --save-conversations: each case's conversation with its answer, written by workers
        written = sorted(path.name for path in saved.iterdir())
        assert len(written) == len(CITIES) and all(n.endswith(".lmmlz") for n in written)
        peru = lmml_mdit.open(next(saved.glob("case-2-*.lmmlz"))).messages("openai")
        assert [m["role"] for m in peru] == ["user", "assistant"]
        assert "Peru" in json.dumps(peru[0]["content"])
        # A template's defect is refused before any worker sends; --force and --set reach
        # every worker, and the warning names the template by the path given.
        broken = tmp_path / "broken.lmml"
        broken.write_text(TEMPLATE.replace("?\n", "? See @gone.png.\n"), encoding="utf-8")
        one_case = tmp_path / "one.cases.jsonl"
        one_case.write_text('{"city": "France"}\n', encoding="utf-8")
        arguments = [str(broken), "--cases", str(one_case), "--target", str(target), "--no-cache"]
        arguments += ["--ray", cluster, "--out", str(tmp_path / "broken.jsonl")]
        capsys.readouterr()
        assert main(["eval", *arguments]) == 2
        assert "(fix it, or add --force to send anyway)" in capsys.readouterr().err
        assert len(server.requests) == 18
        server.script(openai_chat(Said(["Paris"]), stream=False))
        assert main(["eval", *arguments, "--force", "--set", "temperature=0.25"]) == 0
        warned = capsys.readouterr().err
        assert f": {broken}:9:" in warned and "missing_reference" in warned, warned[-600:]
        assert server.requests[18].body["temperature"] == 0.25
    finally:
        server.close()


def test_parquet_results_on_the_cluster_are_parquet_with_a_journal_as_in_one_process(
    cluster: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    server = WireServer()
    try:
        (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
        cases = tmp_path / "cases.jsonl"
        cases.write_text("".join(json.dumps({"city": c}) + "\n" for c in CITIES[:2]), "utf-8")
        server.script(*[openai_chat(Said(["Paris"]), stream=False) for _ in range(2)])
        out, report = tmp_path / "r.parquet", tmp_path / "r.html"
        arguments = ["eval", str(tmp_path / "t.lmml"), "--cases", str(cases), "--ray", cluster]
        arguments += ["--target", f"openai:m@{server.url}/v1", "--out", str(out)]
        arguments += ["--report", str(report), "--cache", str(tmp_path / "cache")]
        ray.shutdown()  # the command joins the cluster itself
        assert main(arguments) == 0
        table = pq.read_table(out).to_pylist()
        assert [(row["case"], row["answer"]) for row in table] == [(1, "Paris"), (2, "Paris")]
        assert report.read_text(encoding="utf-8").count("<details") == 2
        assert main(arguments) == 0  # resumed from the journal: nothing sent
        assert "2 already in" in capsys.readouterr().err and len(server.requests) == 2
        assert len(pq.read_table(out).to_pylist()) == 2
    finally:
        server.close()


def test_the_command_on_the_cluster_takes_csv_cases_and_a_relative_hf_folder(
    cluster: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--ray`` reads every kind of cases the one-process run reads: a CSV file (its cells
    typed as their inputs declare) and ``hf:FOLDER`` given relative to the working folder
    (it was made ``/cwd/hf:FOLDER``, a file that does not exist)."""
    pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.chdir(tmp_path)
    server = WireServer()
    try:
        (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
        csv = "city,expect\nFrance,\nPeru,- contains: Lima\n"
        (tmp_path / "cases.csv").write_text(csv, encoding="utf-8")
        (tmp_path / "files").mkdir()
        (tmp_path / "files" / "train.jsonl").write_text(
            '{"city": "France"}\n{"city": "Peru", "expect": [{"contains": "Lima"}]}\n', "utf-8"
        )
        ray.shutdown()  # the command joins the cluster itself
        for cases, out in (("cases.csv", "csv.jsonl"), ("hf:files", "hf.jsonl")):
            server.script(*[openai_chat(Said(["Paris, Lima"]), stream=False)] * 2)
            arguments = ["eval", "t.lmml", "--cases", cases, "--ray", cluster, "--out", out]
            arguments += ["--target", f"openai:m@{server.url}/v1", "--cache", "cache-" + out]
            assert main([*arguments, "-q"]) == 0, capsys.readouterr().err
            rows = [json.loads(line) for line in (tmp_path / out).read_text("utf-8").splitlines()]
            said = [(row["inputs"], [a["reason"] for a in row["assertions"]]) for row in rows]
            found = [({"city": "France"}, ["found 'Paris'"]), ({"city": "Peru"}, ["found 'Lima'"])]
            assert said == found
        assert len(server.requests) == 4
    finally:
        server.close()
