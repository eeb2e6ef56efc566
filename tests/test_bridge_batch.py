"""Batch export: a folder of bundles to JSONL, on a process pool, streaming, in order."""

from __future__ import annotations

import base64
import json
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from lmml_mdit import export_folder, import_messages
from lmml_mdit.chat import _export as export_module  # private on purpose: its pool is patched
from lmml_mdit.chat import iter_bundles
from lmml_mdit.errors import BundleError

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
COUNT = 50


def conversation(number: int) -> list[dict[str, Any]]:
    content: Any = f"Question {number}?"
    if number % 3 == 0:
        url = "data:image/png;base64," + base64.b64encode(PNG).decode()
        content = [
            {"type": "text", "text": content},
            {"type": "image_url", "image_url": {"url": url}},
        ]
    return [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": content},
        {"role": "assistant", "content": f"Answer {number}."},
    ]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "bundles"
    for number in range(COUNT):
        sub = root / f"part{number % 4}" / ("deep" if number % 5 == 0 else "")
        sub.mkdir(parents=True, exist_ok=True)
        bundle = import_messages(conversation(number), name=f"c{number:03d}")
        if number % 3:
            bundle.inline(orphans="append").save(sub / f"c{number:03d}.lmml")
        else:
            bundle.save(sub / f"c{number:03d}.lmmlz")
    (root / "part1" / "broken.lmmlz").write_bytes(b"PK\x03\x04 this is not a zip archive")
    (root / "part2" / "notes.txt").write_text("not a bundle", encoding="utf-8")
    return root


def numbers_in(lines: list[str]) -> list[int]:
    out = []
    for line in lines:
        record = json.loads(line)
        user = record["messages"][1]["content"][0]["text"]
        out.append(int(user.split()[1].rstrip("?")))
    return out


def test_exports_every_bundle_in_walk_order(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "data.jsonl"
    report = export_folder(folder, "openai", out, workers=2)
    assert report.total == COUNT + 1
    assert report.written == COUNT
    assert len(report.failures) == 1
    path, reason = report.failures[0]
    assert path.endswith("broken.lmmlz")
    assert reason  # a reason a person can read, e.g. the archive is corrupt
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == COUNT
    expected = [int(Path(p).stem[1:]) for p in iter_bundles(folder) if "broken" not in p]
    assert numbers_in(lines) == expected
    first = json.loads(lines[0])
    assert first["messages"][0] == {
        "role": "system",
        "content": [{"type": "text", "text": "Be brief."}],
    }


def test_output_is_the_same_whatever_the_worker_count(folder: Path, tmp_path: Path) -> None:
    one = tmp_path / "one.jsonl"
    three = tmp_path / "three.jsonl"
    export_folder(folder, "anthropic", one, workers=1)
    export_folder(folder, "anthropic", three, workers=3)
    assert one.read_bytes() == three.read_bytes()
    assert len(one.read_bytes().splitlines()) == COUNT


def test_walk_order_is_sorted_and_recursive(folder: Path) -> None:
    paths = list(iter_bundles(folder))
    assert len(paths) == COUNT + 1
    assert not any(p.endswith(".txt") for p in paths)
    assert paths == list(iter_bundles(folder))
    relative = [str(Path(p).relative_to(folder)) for p in paths]
    assert relative == sorted(relative, key=lambda p: Path(p).parts)
    assert relative[0] == "part0/c004.lmml"  # "c004" sorts before "deep"


class _RecordingPool:
    """Stands in for the process pool: runs tasks on threads and records how many results
    were submitted but not yet taken (the in-flight window)."""

    largest = 0

    def __init__(self, max_workers: int) -> None:
        self.pool = ThreadPoolExecutor(max_workers)
        self.lock = threading.Lock()
        self.outstanding = 0

    def __enter__(self) -> _RecordingPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.shutdown()

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        with self.lock:
            self.outstanding += 1
            _RecordingPool.largest = max(_RecordingPool.largest, self.outstanding)
        future = self.pool.submit(fn, *args)
        original = future.result

        def result(timeout: float | None = None) -> Any:
            with self.lock:
                self.outstanding -= 1
            return original(timeout)

        future.result = result  # type: ignore[method-assign]
        return future


def test_in_flight_window_is_bounded(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(export_module, "process_pool", _RecordingPool)
    _RecordingPool.largest = 0
    report = export_folder(folder, "gemini", tmp_path / "g.jsonl", workers=3)
    assert report.written == COUNT
    assert 0 < _RecordingPool.largest <= 2 * 3


def test_progress_callback_and_quiet_stderr(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[tuple[int, Any]] = []
    export_folder(
        folder,
        "sharegpt",
        tmp_path / "s.jsonl",
        workers=2,
        progress=lambda done, total, detail: calls.append((done, detail)),
    )
    assert [done for done, _ in calls] == list(range(1, COUNT + 2))
    export_folder(folder, "sharegpt", tmp_path / "s2.jsonl", workers=2)
    assert capsys.readouterr().err == ""  # stderr is not a terminal here: no progress


def test_sharegpt_lines_refuse_assets(folder: Path, tmp_path: Path) -> None:
    report = export_folder(folder, "sharegpt", tmp_path / "s.jsonl", workers=2)
    with_images = sum(1 for n in range(COUNT) if n % 3 == 0)
    assert report.written == COUNT - with_images
    assert any("ShareGPT cannot carry" in reason for _, reason in report.failures)


def test_unknown_provider_and_missing_folder(folder: Path, tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="unknown export provider"):
        export_folder(folder, "llama", tmp_path / "x.jsonl")
    with pytest.raises(BundleError, match="not a folder"):
        export_folder(tmp_path / "nope", "openai", tmp_path / "x.jsonl")
    assert not (tmp_path / "x.jsonl").exists()


def test_output_replaced_atomically_no_temp_left(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "data.jsonl"
    out.write_text("old\n", encoding="utf-8")
    export_folder(folder, "openai", out, workers=2)
    assert out.read_text(encoding="utf-8") != "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bundles", "data.jsonl"]


@pytest.mark.parametrize("workers", [1, 2])
def test_unknown_settings_choice_reaches_each_line(tmp_path: Path, workers: int) -> None:
    """A dataset line keeps every setting by default; ``warn`` leaves out what the provider
    has no parameter for (reported per bundle), ``error`` fails the bundle."""
    runs = tmp_path / "runs"
    runs.mkdir()
    settings = "@@@settings.yaml\nmodel: m\nthinking: {type: enabled, budget_tokens: 1024}\n@@@\n"
    for name in ("a", "b"):
        (runs / f"{name}.lmml").write_text(settings + "\n## user\n\nHi\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"

    report = export_folder(runs, "openai", out, workers=workers)
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["thinking"]["type"] for line in lines] == ["enabled", "enabled"]
    assert report.warnings == []

    report = export_folder(runs, "openai", out, workers=workers, unknown_settings="warn")
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert ["thinking" in line for line in lines] == [False, False]
    assert len(report.warnings) == 2
    assert all("'thinking' left out" in warning for _, warning in report.warnings)

    report = export_folder(runs, "openai", out, workers=workers, unknown_settings="error")
    assert report.written == 0
    assert len(report.failures) == 2
    assert all("thinking" in reason for _, reason in report.failures)


def test_the_cli_takes_the_unknown_settings_choice(tmp_path: Path) -> None:
    from lmml_mdit.cli import main

    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.lmml").write_text(
        "@@@settings.yaml\nmodel: m\nthinking: {type: enabled}\n@@@\n\n## user\n\nHi\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    args = ["export", str(runs), "--jsonl", str(out), "-q"]
    assert main([*args, "--unknown-settings", "warn"]) == 0
    assert "thinking" not in json.loads(out.read_text(encoding="utf-8"))
    assert main(args) == 0
    assert "thinking" in json.loads(out.read_text(encoding="utf-8"))


def test_a_text_file_named_as_an_archive_is_exported_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # validate and render say that a .lmmlz holding no zip is read as a bare narrative;
    # the export read it the same way and said nothing.
    from lmml_mdit.cli import main

    root = tmp_path / "bundles"
    root.mkdir()
    import_messages(conversation(1)).save(root / "good.lmmlz")
    (root / "renamed.lmmlz").write_text("## Turn 1 -- user\n\nHi.\n", encoding="utf-8")
    report = export_folder(root, "openai", tmp_path / "out.jsonl", workers=2)
    assert report.written == 2 and not report.failures
    assert report.warnings == [
        (
            str(root / "renamed.lmmlz"),
            "renamed.lmmlz: not a zip archive (it starts with b'## T'); read as a bare "
            "narrative (rename it to .lmml if that is what it is)",
        )
    ]
    status = main(["export", str(root), "-p", "openai", "--jsonl", str(tmp_path / "o.jsonl")])
    err = capsys.readouterr().err
    assert status == 0, err
    assert f"lmml: warning: {root / 'renamed.lmmlz'}: not a zip archive (it starts with" in err
