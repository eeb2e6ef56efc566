"""Benchmark: one template rendered per eval case, against ``messages()`` without inputs.

The template is a 40-turn support conversation with eight placeholders (a string, a
number, an object's fields, an optional image left unfilled) in a zip bundle, opened once;
the baseline is the same conversation with the values written in by hand (no template),
also opened once, its ``messages()`` timed per call. The timed part of the template is
``render_cases`` over the cases in this process (``request=False``, so both sides produce
the messages list): the parse is shared by every case, so per case the cost is checking
the values and writing the edited lines. The two are timed in chunks of 20 calls, in CPU
time with the collector paused, taking turns; each side's least chunk time is kept.
Prints both per-call times, their ratio and the goal (at most 1.2), and exits 1 when the
goal is missed.

Run: ``python benchmarks/bench_templates.py [--cases 500] [--turns 40] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_parse import best_times

from lmml_mdit.bundle import Bundle
from lmml_mdit.chat import render_cases

CHUNK = 20
"""Calls (or cases) timed at a time."""

GOAL = 1.2
"""The most a case may cost, as a multiple of ``messages()`` on the opened bundle."""

DECLARATIONS = """\
---
inputs:
  customer: {type: string, description: who asks}
  product: string
  order: {type: object, schema: {type: object, required: [id, total]}}
  items: {type: number, default: 1}
  screenshot: {type: image, required: false}
---
"""


def conversation(turns: int, fill: dict[str, str] | None) -> str:
    """The narrative; with *fill*, each placeholder replaced by its text."""

    def value(name: str) -> str:
        return fill[name] if fill is not None else "{{ " + name + " }}"

    parts = [
        "You are the support desk of a shop. Answer in **Markdown**, briefly.\n",
    ]
    for index in range(turns):
        role = "user" if index % 2 == 0 else "assistant"
        parts.append(f"## Turn {index + 1} -- {role}\n")
        if index == 0:
            parts.append(
                f"Hello, I am {value('customer')} and my {value('product')} (order "
                f"{value('order.id')}, total {value('order.total')}, {value('items')} items) "
                "arrived broken.\n"
            )
            if fill is None:
                parts.append("{{ screenshot }}\n")
        parts.append(
            f"This is turn {index + 1}. It has *emphasis*, `code`, a [link](https://example.com)"
            " and a list:\n\n- first item\n- second item with more words in it\n"
        )
        if role == "assistant" and index % 10 == 1:
            parts.append(f"Thank you, {value('customer')}: about your {value('product')} ...\n")
        parts.append("A closing paragraph, long enough to look like a real message body.\n")
    text = "\n".join(parts)
    return text if fill is not None else DECLARATIONS + text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    if args.cases < CHUNK:
        parser.error(f"--cases must be at least {CHUNK}")

    cases = [
        {
            "customer": f"Customer {number}",
            "product": f"kettle model {number % 7}",
            "order": {"id": f"A-{number:05d}", "total": 19.5 + number},
        }
        for number in range(args.cases)
    ]
    fill = {
        "customer": "Customer 0",
        "product": "kettle model 0",
        "order.id": "A-00000",
        "order.total": "19.5",
        "items": "1",
    }
    template = Bundle.from_zip("template", conversation(args.turns, None), {})
    plain = Bundle.from_zip("plain", conversation(args.turns, fill), {})
    # Warm up both (validation and the structure index are built once per bundle).
    plain.messages("openai")
    first = next(render_cases(template, cases[:1], request=False))
    assert first.ok, first.error

    # Each side is timed a chunk of calls at a time, in CPU time with the collector paused,
    # taking turns (bench_parse.best_times); each keeps its least time. The cases go round
    # in chunks, so every case is rendered.
    batches = [cases[index : index + CHUNK] for index in range(0, args.cases - CHUNK + 1, CHUNK)]
    turn = itertools.cycle(batches)

    def plain_chunk() -> None:
        for _ in range(CHUNK):
            plain.messages("openai")

    def case_chunk() -> None:
        failed = sum(not result.ok for result in render_cases(template, next(turn), request=False))
        assert not failed

    plain_best, case_best = best_times([plain_chunk, case_chunk], args.repeat * len(batches))
    plain_time = plain_best / CHUNK
    case_time = case_best / CHUNK
    ratio = case_time / plain_time
    print(f"messages() without inputs: {plain_time * 1e6:9.1f} µs per call")
    print(f"render_cases, per case:     {case_time * 1e6:9.1f} µs per case")
    print(f"ratio: {ratio:.2f}x (goal: at most {GOAL}x)")
    return 0 if ratio <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
