"""Batch export and import, per item, against what each item must cost at least (a script,
not a test).

Run ``python benchmarks/bench_batch.py [--bundles 5000]``. It writes *bundles* small
conversations (21 turns, an image; ``bench_bridge.conversation``) as a JSONL file and as a
folder of ``.lmmlz`` bundles, then measures, in wall time (the workers are processes):

- ``lmml_mdit.import_path`` of the JSONL, per conversation, against ``json.loads`` of its line
  plus bare ``MarkdownIt("commonmark").parse`` of the narrative it writes: at most 3;
- ``export_folder(..., workers=1)`` of the folder, per bundle, against the bare parse of its
  narrative: at most 3;
- the speed-up of two workers over one: at least 1.7 (the machine's own ceiling for pure
  Python work on two processes is printed next to it: other load on a shared machine lowers
  both).

Each figure is printed with its goal; the script exits 1 when one is missed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_bridge import conversation, cpu_ceiling

import lmml_mdit
from lmml_mdit.chat import export_folder

GOALS = {"import": 3.0, "export": 3.0, "speed-up": 1.7}


def _seconds(action: object) -> float:
    assert callable(action)
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundles", type=int, default=5000)
    args = parser.parse_args(argv)
    count = args.bundles
    bare = MarkdownIt("commonmark")
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        lines = [json.dumps({"messages": conversation(number)}) for number in range(count)]
        source = root / "chats.jsonl"
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
        folder = root / "bundles"
        imported = _seconds(lambda: lmml_mdit.import_path(source, folder))
        bundles = sorted(folder.iterdir())
        narratives = [lmml_mdit.open(path).narrative.text for path in bundles]
        floor = _seconds(lambda: [json.loads(line) for line in lines]) + _seconds(
            lambda: [bare.parse(text) for text in narratives]
        )
        parse_only = _seconds(lambda: [bare.parse(text) for text in narratives])
        results["import"] = imported / floor
        print(
            f"import_path, {count} conversations: {imported / count * 1000:.2f} ms each "
            f"({count / imported:.0f}/s); json.loads + bare parse: {floor / count * 1000:.2f} ms"
        )
        one = _seconds(lambda: export_folder(folder, "openai", root / "one.jsonl", workers=1))
        two = _seconds(lambda: export_folder(folder, "openai", root / "two.jsonl", workers=2))
        results["export"] = one / parse_only
        results["speed-up"] = one / two
        print(
            f"export_folder, {count} bundles: 1 worker {one / count * 1000:.2f} ms each, "
            f"2 workers {two:.2f} s in all; bare parse {parse_only / count * 1000:.2f} ms each"
        )
        print(f"(CPU ceiling of 2 processes on this machine now: x{cpu_ceiling(2):.2f})")
    missed = []
    for name, value in results.items():
        goal = GOALS[name]
        met = value >= goal if name == "speed-up" else value <= goal
        relation = ">=" if name == "speed-up" else "<="
        print(f"{name:<10} {value:6.2f}  goal {relation} {goal}  {'ok' if met else 'MISSED'}")
        if not met:
            missed.append(name)
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
