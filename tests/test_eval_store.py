"""Targets read; the answer cache keyed by content; results appended row by row and read
back for a resumed run (a cut last line dropped)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from lmml_mdit import LmmlError
from lmml_mdit.eval import AnswerCache, ResultsWriter, Target, done_rows, request_key


@pytest.mark.parametrize(
    ("text", "target"),
    [
        ("openai:gpt-4o-mini", Target("openai", "gpt-4o-mini")),
        ("anthropic:claude-x", Target("anthropic", "claude-x")),
        (
            "openai:llama3@http://localhost:11434/v1",
            Target("openai", "llama3", "http://localhost:11434/v1"),
        ),
        ("gemini:models/g:1@https://h/x@y", Target("gemini", "models/g:1", "https://h/x@y")),
    ],
)
def test_targets_read_and_write_back(text: str, target: Target) -> None:
    assert Target.parse(text) == target
    assert str(target) == text


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("gpt-4o", "PROVIDER:MODEL"),
        ("openai:", "PROVIDER:MODEL"),
        ("nobody:m", "no sender for provider 'nobody'"),
        ("openai:m@localhost:1", "http://"),
    ],
)
def test_bad_targets_are_refused(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        Target.parse(text)


def test_the_cache_key_is_the_exact_request_and_target(tmp_path: Path) -> None:
    target = Target("openai", "m")
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    key = request_key(body, target)
    assert key == request_key(dict(reversed(body.items())), target)  # key order is not content
    assert key != request_key({**body, "temperature": 0}, target)
    assert key != request_key(body, Target("openai", "m", "http://127.0.0.1:1/v1"))
    cache = AnswerCache(tmp_path / "cache")
    assert cache.get(key) is None
    cache.put(key, {"text": "hello"})
    assert AnswerCache(tmp_path / "cache").get(key) == {"text": "hello"}
    (tmp_path / "cache" / key[:2] / f"{key}.json").write_text("{cut", encoding="utf-8")
    assert cache.get(key) is None  # unreadable: a miss, answered and written again


def test_results_resume_after_a_cut_line(tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    assert done_rows(out) == {}
    with ResultsWriter(out) as writer:
        writer.write({"case": 1, "target": "openai:m", "answer": "é", "passed": True})
        writer.write({"case": 2, "target": "openai:m"})
    with open(out, "ab") as stream:
        stream.write(b'{"case": 3, "tar')  # killed mid-row
    assert done_rows(out) == {(1, "openai:m"): True, (2, "openai:m"): False}
    assert out.read_bytes().endswith(b"}\n")
    with ResultsWriter(out) as writer:
        writer.write({"case": 3, "target": "openai:m"})
    assert len(done_rows(out)) == 3


def test_a_foreign_results_file_is_refused_with_its_line(tmp_path: Path) -> None:
    out = tmp_path / "notes.jsonl"
    out.write_text('{"case": 1, "target": "t"}\nhello\n', encoding="utf-8")
    with pytest.raises(LmmlError, match=f"^{re.escape(os.fspath(out))}:2: not a results row"):
        done_rows(out)


def test_rows_are_synced_within_a_second_and_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lmml_mdit.eval import _results as results

    synced: list[int] = []
    clock = [100.0]
    monkeypatch.setattr(results.os, "fsync", synced.append)
    monkeypatch.setattr(results.time, "monotonic", lambda: clock[0])
    with ResultsWriter(tmp_path / "r.jsonl") as writer:
        writer.write({"case": 1, "target": "t"})
        clock[0] += 0.5
        writer.write({"case": 2, "target": "t"})
        assert synced == []  # not yet a second since the last sync
        clock[0] += 0.6
        writer.write({"case": 3, "target": "t"})
        assert len(synced) == 1
    assert len(synced) == 2  # and once at the end
    assert len(done_rows(tmp_path / "r.jsonl")) == 3
