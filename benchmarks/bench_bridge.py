"""Bridge figures: import speed, batch export on all cores, and the export's memory.

Run: ``.venv/bin/python benchmarks/bench_bridge.py [bundles]``. Prints ratios, not
pass/fail: the speed-up of ``export_folder`` on all cores over one worker, and the peak
RSS of the exporting process (its growth during the export) and of its workers for a folder
of *bundles* (200 by default) and one ten times larger: flat memory means neither figure
scales with the folder.
"""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from lmml_mdit.chat import export_folder, import_messages

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)


def conversation(number: int) -> list[dict[str, object]]:
    url = "data:image/png;base64," + base64.b64encode(PNG + bytes([number % 256])).decode()
    turns: list[dict[str, object]] = [{"role": "system", "content": "Be brief."}]
    for turn in range(10):
        turns.append(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"Question {number}.{turn}: " + "words " * 40},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            }
        )
        turns.append({"role": "assistant", "content": f"Answer {number}.{turn}. " * 20})
    return turns


def make_folder(root: Path, count: int) -> float:
    root.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    for number in range(count):
        bundle = import_messages(conversation(number), name=f"c{number:05d}")
        bundle.save(root / f"c{number:05d}.lmmlz")
    return time.perf_counter() - start


def _burn(steps: int) -> int:
    total = 0
    for step in range(steps):
        total += step * step
    return total


def cpu_ceiling(workers: int) -> float:
    """The speed-up of *workers* processes over one on pure CPU work: what this machine
    can give at best (other load on a shared machine lowers it)."""
    timings = []
    for count in (1, workers):
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=count) as pool:
            list(pool.map(_burn, [2_000_000] * (4 * workers)))
        timings.append(time.perf_counter() - start)
    return timings[0] / timings[1]


def peak_rss(folder: Path, out: Path) -> tuple[float, float, float]:
    """For a fresh process exporting *folder*: its peak RSS growth during the export, the
    peak of the Python memory it allocates while exporting (tracemalloc, which an earlier
    RSS peak cannot hide), and the largest peak RSS of its worker processes, in MiB."""
    code = (
        "import resource, sys, tracemalloc\n"
        "from lmml_mdit.chat import export_folder\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "tracemalloc.start()\n"
        "export_folder(sys.argv[1], 'openai', sys.argv[2])\n"
        "traced = tracemalloc.get_traced_memory()[1]\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "print((after - before) / 1024, traced / 2**20, workers / 1024)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(folder), str(out)],
        check=True,
        capture_output=True,
        text=True,
    )
    growth, traced, workers = result.stdout.split()
    return float(growth), float(traced), float(workers)


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    cores = os.cpu_count() or 1
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        seconds = make_folder(root / "small", count)
        print(f"import_messages + save: {count / seconds:.0f} conversations/s (21 turns, 1 image)")

        start = time.perf_counter()
        export_folder(root / "small", "openai", root / "one.jsonl", workers=1)
        one = time.perf_counter() - start
        start = time.perf_counter()
        export_folder(root / "small", "openai", root / "all.jsonl")
        every = time.perf_counter() - start
        same = (root / "one.jsonl").read_bytes() == (root / "all.jsonl").read_bytes()
        print(
            f"export_folder {count} bundles: 1 worker {one:.2f}s, {cores} workers {every:.2f}s, "
            f"speed-up x{one / every:.2f}; identical output: {same}"
        )
        print(f"(CPU ceiling: pure-Python work on {cores} processes x{cpu_ceiling(cores):.2f})")

        make_folder(root / "large", count * 10)
        small, small_traced, small_workers = peak_rss(root / "small", root / "s.jsonl")
        large, large_traced, large_workers = peak_rss(root / "large", root / "l.jsonl")
        size = (root / "l.jsonl").stat().st_size / 2**20
        print(
            f"exporting process, peak RSS growth: {small:.1f} MiB for {count} bundles, "
            f"{large:.1f} MiB for {count * 10} bundles ({size:.0f} MiB of JSONL written); "
            f"ratio x{(large + 0.1) / (small + 0.1):.2f}"
        )
        print(
            f"exporting process, peak Python allocations: {small_traced:.2f} MiB for {count} "
            f"bundles, {large_traced:.2f} MiB for {count * 10}; "
            f"ratio x{large_traced / small_traced:.2f}"
        )
        print(
            f"largest worker, peak RSS: {small_workers:.1f} MiB for {count} bundles, "
            f"{large_workers:.1f} MiB for {count * 10} bundles; "
            f"ratio x{large_workers / small_workers:.2f}"
        )


if __name__ == "__main__":
    main()
