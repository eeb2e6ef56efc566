"""Preview-speed figures (a script, not a test).

Run ``python benchmarks/bench_preview.py [--turns 2000] [--reps 5]``. The script builds a
zip bundle of a long session (tables, task lists, an inline fence every other turn, image
and text references, raw HTML, Markdown images) and times, in interleaved rounds so that
drift on a busy machine hits every contender alike:

- ``render_html(bundle)`` with Pygments and with ``highlight=False``;
- bare markdown-it-py, ``MarkdownIt("commonmark").render`` of the same text, as the yardstick.

It prints the best CPU time (:func:`time.process_time`, the garbage collector paused during
each call, as :mod:`timeit` does) of each and the ratios to the yardstick, then the ratio of
rendering twice the turns to rendering the given number, with its goal: at most 2.2 (linear
work gives about 2). It exits 1 when the goal is missed. (``render_html`` of a bundle
against the bare parse of its narrative is judged by ``bench_messages.py``.)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from bench_parse import best_times
from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lmml_mdit.bundle import Bundle
from lmml_mdit.preview import render_html

DOUBLING_GOAL = 2.2

_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf0000000301010018dd8db40000000049454e44ae426082"
)


def narrative(turns: int) -> str:
    """A session of *turns* turns exercising every part of the preview."""
    parts = ["# A long review\n\nNotes before the first turn.\n\n"]
    for number in range(turns):
        role = "user" if number % 2 == 0 else "assistant"
        parts.append(f"## Turn {number + 1} -- {role}\n\n")
        parts.append(
            f"Message {number} looks at @chart.png and @notes.txt, with *emphasis*, "
            "`code`, a [link](https://example.com/a) and <b>raw</b> HTML.\n\n"
            "| week | sales |\n|---|---|\n| 1 | 120 |\n| 2 | 135 |\n\n"
            "- [x] done\n- [ ] to do\n\n![a chart](chart.png)\n\n"
        )
        if number % 2:
            parts.append("@@@numbers.py\nfor week in range(2):\n    print(week * 2)\n@@@\n\n")
    return "".join(parts)


def bundle(turns: int) -> Bundle:
    entries = {"chart.png": _PNG, "notes.txt": b"line\n" * 20}
    return Bundle.from_zip("bench", narrative(turns), entries)


def measure(contenders: dict[str, Callable[[], object]], reps: int) -> dict[str, float]:
    """The best CPU time of each contender (:func:`bench_parse.best_times`)."""
    return dict(zip(contenders, best_times(list(contenders.values()), reps), strict=True))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args(argv)
    small, large = bundle(args.turns), bundle(2 * args.turns)
    bare = MarkdownIt("commonmark")
    text = small.narrative.text
    best = measure(
        {
            "markdown-it-py render": lambda: bare.render(text),
            "render_html": lambda: render_html(small),
            "render_html highlight=False": lambda: render_html(small, highlight=False),
            "render_html 2x turns": lambda: render_html(large),
        },
        args.reps,
    )
    yardstick = best["markdown-it-py render"]
    print(f"{args.turns} turns, {len(text):,} characters of narrative")
    for name, seconds in best.items():
        print(f"  {name:30} {seconds:7.3f} s   {seconds / yardstick:5.2f}x markdown-it-py")
    doubling = best["render_html 2x turns"] / best["render_html"]
    met = doubling <= DOUBLING_GOAL
    print(
        f"  {'doubling ratio':30} {doubling:7.2f}   goal <= {DOUBLING_GOAL}  "
        f"{'ok' if met else 'MISSED'}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
