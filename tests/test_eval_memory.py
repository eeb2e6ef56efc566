"""The promise that memory is bounded by the concurrency, not the number of cases: the
peak traced while evaluating 5,000 cases is that of 1,000, and a 100,000-line cases file
streams through the reader in the memory of a few lines.

The send is answered in-process at once (a reply in the import format the SDK senders
give), so the test measures the runner's own holding (cases read, requests rendered,
answers checked, rows written) at a size the suite can afford; the SDKs over HTTP are
tested in tests/test_eval_run.py."""

from __future__ import annotations

import asyncio
import gc
import json
import tracemalloc
from pathlib import Path

import pytest
from _eval_template import TEMPLATE

import lmml_mdit
from lmml_mdit.chat.providers.sending import Exchange
from lmml_mdit.eval import Target, aevaluate, iter_cases
from lmml_mdit.jsontypes import JSONMapping
from lmml_mdit.run import BodySender


async def _instant(sender: BodySender, body: JSONMapping) -> tuple[Exchange, float]:
    reply = {"messages": [{"role": "assistant", "content": "Paris"}]}
    return Exchange(reply, input_tokens=3, output_tokens=1), 0.0


def _cases(path: Path, count: int) -> None:
    with open(path, "w", encoding="utf-8") as stream:
        for number in range(count):
            stream.write(json.dumps({"city": f"city number {number} " + "x" * 200}) + "\n")


def _peak(tmp_path: Path, count: int) -> int:
    """The peak of traced memory while *count* cases are evaluated, 8 in flight."""
    folder = tmp_path / str(count)
    folder.mkdir()
    (folder / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    _cases(folder / "cases.jsonl", count)
    bundle = lmml_mdit.open(folder / "t.lmml")
    target = Target("openai", "m", "http://127.0.0.1:9/v1")
    gc.collect()
    tracemalloc.start()
    try:
        summary = asyncio.run(
            aevaluate(bundle, folder / "cases.jsonl", [target], folder / "out.jsonl", concurrency=8)
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (summary.rows, summary.passed, summary.errors) == (count, count, [])
    return peak


def test_memory_is_bounded_by_the_concurrency_not_the_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(BodySender, "send", _instant)
    _peak(tmp_path, 50)  # imports and first-use caches out of the way
    small = _peak(tmp_path, 1_000)
    large = _peak(tmp_path, 5_000)
    # 4,000 more cases of ~250 bytes each: held, they would add over 1 MB (and far more
    # as dicts, requests and rows)
    assert large < small * 1.25 + 256 * 1024, (small, large)


def test_a_100000_case_file_streams_through_the_reader(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    _cases(path, 100_000)
    gc.collect()
    tracemalloc.start()
    try:
        count = sum(1 for _, case in iter_cases(path) if isinstance(case, dict))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 100_000
    assert peak < 1024 * 1024, peak  # the file is over 25 MB


def test_a_resumed_run_reads_its_results_file_a_row_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resuming reads the rows already written to skip them: a line at a time, keeping
    only each row's case, target and verdict (the whole file was read into memory at once:
    every request and answer of a run killed near its end)."""
    monkeypatch.setattr(BodySender, "send", _instant)
    count = 2_000
    _peak(tmp_path, count)  # every row written: the results file to resume
    out = tmp_path / str(count) / "out.jsonl"
    padded = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    with open(out, "w", encoding="utf-8") as stream:
        for row in padded:  # rows of a long conversation: 10 kB each, 20 MB in all
            row["answer"] = "y" * 10_000
            stream.write(json.dumps(row) + "\n")
        stream.write('{"case": 1, "tar')  # and a row cut by a kill
    size = out.stat().st_size
    bundle = lmml_mdit.open(tmp_path / str(count) / "t.lmml")
    target = Target("openai", "m", "http://127.0.0.1:9/v1")
    cases = tmp_path / str(count) / "cases.jsonl"
    gc.collect()
    tracemalloc.start()
    try:
        summary = asyncio.run(aevaluate(bundle, cases, [target], out, concurrency=8))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (summary.rows, summary.skipped, summary.errors) == (0, count, [])
    assert out.read_bytes().endswith(b"}\n") and out.stat().st_size < size  # cut row gone
    assert peak < size // 10, (peak, size)
