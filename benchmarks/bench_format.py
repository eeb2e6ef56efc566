"""Formatter figures: ``format_text`` against bare mdformat on the same documents.

Run: ``.venv/bin/python benchmarks/bench_format.py [turns]``. Prints ratios, not
pass/fail: the time of :func:`lmml_mdit.toolchain.format_text` (mdformat with the
LMML plugin, plus the parses that check the result) over ``mdformat.text`` without the
plugin, for a narrative of *turns* turns (400 by default) and one four times longer:
a ratio that stays flat means formatting stays linear in the document's size.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import mdformat

from lmml_mdit.toolchain import format_text


def narrative(turns: int) -> str:
    parts = []
    for turn in range(turns):
        role = "user" if turn % 2 == 0 else "assistant"
        parts.append(
            f"## Turn {turn + 1} -- {role}\n\n"
            f"See @chart{turn}.png and *these* words, \\@alice too.\n"
            "* one\n* two\n\n"
            f"@@@notes{turn}.txt\n  kept   as written\n@@@\n\n"
            "> quoted text with `code @x.png`\n\n"
        )
    return "".join(parts)


def best_of(function: Callable[[], object], runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    for size in (turns, turns * 4):
        text = narrative(size)
        bare = best_of(lambda text=text: mdformat.text(text))
        ours = best_of(lambda text=text: format_text(text))
        print(
            f"{size:6d} turns, {len(text) / 1024:8.1f} KiB: bare mdformat {bare:.3f} s, "
            f"format_text {ours:.3f} s, ratio {ours / bare:.2f}"
        )


if __name__ == "__main__":
    main()
