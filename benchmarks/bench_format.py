"""Formatter figures: ``format_text`` against bare mdformat on the same documents.

Run: ``.venv/bin/python benchmarks/bench_format.py [turns]``. Prints the CPU time of
:func:`lmml_mdit.toolchain.format_text` (mdformat with the LMML plugin, plus the parses
that check the result) over ``mdformat.text`` without the plugin, for a narrative of
*turns* turns (400 by default) and one four times longer, each against its goal
(:data:`RATIO_GOAL`), and how much the ratio grows with the size (:data:`FLAT_GOAL`: a
ratio that stays flat means formatting stays linear in the document's size); exits 1 when
a goal is missed.
"""

from __future__ import annotations

import sys
from functools import partial

import mdformat
from bench_parse import best_times
from goals import exit_status

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


RATIO_GOAL = 3.5
"""The most ``format_text`` may cost on a file that changes, as a multiple of bare
mdformat: a second mdformat pass to settle the output, and the parses of the check."""

FLAT_GOAL = 1.2
"""The most the ratio may grow when the document is four times longer (linear work keeps
it flat; both sides share mdformat's own cost)."""


def main() -> int:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    ratios = []
    for size in (turns, turns * 4):
        text = narrative(size)
        bare, ours = best_times([partial(mdformat.text, text), partial(format_text, text)], 5)
        ratios.append(ours / bare)
        print(
            f"{size:6d} turns, {len(text) / 1024:8.1f} KiB: bare mdformat {bare:.3f} s, "
            f"format_text {ours:.3f} s, ratio {ours / bare:.2f}  goal <= {RATIO_GOAL}"
        )
    growth = ratios[1] / ratios[0]
    print(f"ratio at 4x the size / ratio at 1x: {growth:.2f}  goal <= {FLAT_GOAL}")
    missed = [
        f"ratio at {size} turns"
        for size, ratio in zip((turns, turns * 4), ratios, strict=True)
        if ratio > RATIO_GOAL
    ]
    if growth > FLAT_GOAL:
        missed.append("flat ratio")
    return exit_status(missed, "every figure within its goal")


if __name__ == "__main__":
    sys.exit(main())
