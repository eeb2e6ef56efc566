"""Bridge figures: import speed, batch export on all cores, and the export's memory.

Run: ``.venv/bin/python benchmarks/bench_bridge.py [bundles]``. Prints ratios, not
pass/fail: the speed-up of ``export_folder`` on all cores over one worker, and the parent
process's peak RSS growth for a small and a 10x larger folder (flat memory means the
growth does not scale with the folder).
"""

from __future__ import annotations

import base64
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lmml_mdit.bridge import export_folder, import_messages

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


def peak_rss_growth(folder: Path, out: Path) -> float:
    """Peak RSS (MiB) of a fresh process exporting *folder*, minus its pre-export peak."""
    code = (
        "import resource, sys\n"
        "from lmml_mdit.bridge import export_folder\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "export_folder(sys.argv[1], 'openai', sys.argv[2])\n"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "print((after - before) / 1024)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(folder), str(out)],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(result.stdout.strip())


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 300
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

        make_folder(root / "large", count * 10)
        small = peak_rss_growth(root / "small", root / "s.jsonl")
        large = peak_rss_growth(root / "large", root / "l.jsonl")
        size = (root / "l.jsonl").stat().st_size / 2**20
        print(
            f"parent peak RSS growth: {small:.1f} MiB for {count} bundles, {large:.1f} MiB for "
            f"{count * 10} bundles ({size:.0f} MiB of JSONL written); ratio "
            f"x{(large + 0.1) / (small + 0.1):.2f}"
        )
        print(f"(resource module: {resource.__name__}; one JSONL line per bundle)")


if __name__ == "__main__":
    main()
