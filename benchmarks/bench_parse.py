"""Parse-speed ratios for the LMML plugin (a script, not a test).

Run ``python benchmarks/bench_parse.py [--reps N] [--size MB]``. Every figure comes from one
run: the contenders of each comparison are timed in interleaved rounds (A, B, B, A, ...), so
drift on a busy machine hits both alike, and the ratio of the per-contender minima is
reported next to the ratio of the medians. Times are the process's CPU time
(:func:`time.process_time`), not wall time, so other programs running on the same machine
do not count against either contender.

The targets are judged with the garbage collector paused during each timed call, as
:mod:`timeit` does: CPython's generational collector costs more per allocation the more
objects are alive, which adds a superlinear term to any parser that builds a token list
(bare markdown-it-py included) and would hide what the rules themselves cost. The same
comparisons are then repeated with the collector running, for the record and without a
verdict: there a full collection may or may not fall inside a timed call, which moves the
doubling ratio of bare markdown-it-py itself by 10-25% from run to run.

Targets (each printed with its ratio; the script exits 1 when one is missed):

- ``md.parse`` with the plugin vs without, on chat-like Markdown with no LMML syntax: <= 1.05
  (the plugin in a user's own pipeline, every inline token parsed);
- ``lmml_mdit.parse`` of a 2,000-turn transcript with embeds (1.08 MB) vs bare
  ``MarkdownIt("commonmark").parse`` of the same text: <= 0.60 (only the blocks that can
  hold LMML are inline-parsed up front, see docs/performance.md);
- ``lmml_mdit.open(data).validate()`` of the same transcript (a text bundle, as an editor
  re-validates it) vs the bare parse: <= 0.70;
- ``lmml_mdit.parse(..., full_parse=True)`` vs the bare parse, for the record (the full
  parse the fast path is compared with; no goal);
- doubling the input at most doubles the time (within 10%): <= 2.20;
- 1 MB of hostile input (10,000 unclosed ``@@@`` lines, 100,000 ``@`` signs, deeply nested
  quotes) vs 1 MB of prose, both through ``lmml_mdit.parse``: <= 2.0
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import lmml_mdit
from lmml_mdit import lmml_plugin

WORDS = [
    "the",
    "model",
    "answer",
    "question",
    "context",
    "token",
    "prompt",
    "output",
    "check",
    "value",
    "list",
    "table",
    "function",
    "result",
    "error",
    "retry",
    "cache",
    "request",
    "response",
    "latency",
    "budget",
    "summary",
    "draft",
    "review",
    "plan",
    "step",
    "note",
    "idea",
    "test",
    "case",
    "data",
    "file",
    "line",
    "code",
    "build",
    "deploy",
]


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(6, 16))]
    if rng.random() < 0.3:
        words[rng.randrange(len(words))] = f"*{rng.choice(WORDS)}*"
    if rng.random() < 0.2:
        words[rng.randrange(len(words))] = f"`{rng.choice(WORDS)}()`"
    if rng.random() < 0.1:
        words[rng.randrange(len(words))] = (
            f"[{rng.choice(WORDS)}](https://example.com/{rng.choice(WORDS)})"
        )
    return " ".join(words).capitalize() + "."


def _message_body(rng: random.Random) -> str:
    """A chat message: paragraphs, sometimes a list, a code block or a quote. No LMML."""
    parts = []
    for _ in range(rng.randint(1, 3)):
        parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(1, 4))))
    shape = rng.random()
    if shape < 0.25:
        parts.append("\n".join(f"- {_sentence(rng)}" for _ in range(rng.randint(2, 5))))
    elif shape < 0.4:
        body = "\n".join(f"    {rng.choice(WORDS)} = {rng.randint(0, 99)}" for _ in range(4))
        parts.append(f"```python\n{body}\n```")
    elif shape < 0.5:
        parts.append(f"> {_sentence(rng)}\n> {_sentence(rng)}")
    return "\n\n".join(parts)


def chat_prose(size: int, seed: int = 1) -> str:
    """Chat-like Markdown with no LMML syntax: ordinary headings, no ``@``, no role words."""
    rng = random.Random(seed)
    chunks: list[str] = []
    total = 0
    index = 0
    while total < size:
        index += 1
        chunk = f"## Message {index} from the {rng.choice(['team', 'reviewer', 'bot'])}\n\n"
        chunk += _message_body(rng) + "\n\n"
        chunks.append(chunk)
        total += len(chunk)
    return "".join(chunks)


def transcript(turns: int, seed: int = 2) -> str:
    """A transcript: role headings and comments, references, inline fences."""
    rng = random.Random(seed)
    chunks: list[str] = ["Shared context for the session, see @brief.md.\n\n"]
    for index in range(1, turns + 1):
        role = ("user", "assistant")[index % 2]
        if index % 7 == 0:
            chunks.append(f"<!-- {role} -->\n")
        else:
            chunks.append(f"## Turn {index} -- {role}\n")
        body = _message_body(rng)
        if rng.random() < 0.5:
            body += f"\n\nSee @img/shot_{index}.png and @notes_{index % 50}.txt."
        if rng.random() < 0.25:
            lines = "\n".join(f"{rng.choice(WORDS)}: {rng.randint(0, 999)}" for _ in range(6))
            body += f"\n\n@@@data_{index}.yaml\n{lines}\n@@@"
        chunks.append(body + "\n\n")
    return "".join(chunks)


def hostile(size: int) -> str:
    """10,000 unclosed ``@@@`` lines, 100,000 ``@`` signs, deeply nested quotes; ~*size*."""
    parts = [
        "> " * 5000 + "deep\n\n",
        ">" * 20000 + " deeper\n\n",
        ("@" * 100 + " ") * 1000 + "\n\n",  # 100,000 @ signs in one paragraph
        "".join(f"@@@ name{i}\n" if i % 2 else "@@@\n" for i in range(10000)),
    ]
    text = "".join(parts)
    prose = chat_prose(max(size - len(text), 0), seed=3)
    # The unclosed fences come last so that the prose before them is parsed as Markdown.
    return prose + text


COLLECTOR_PAUSED = True


def timed(function: Callable[[], object]) -> float:
    gc.collect()
    if COLLECTOR_PAUSED:
        gc.disable()
    try:
        start = time.process_time()
        function()
        return time.process_time() - start
    finally:
        gc.enable()


def best_times(functions: Sequence[Callable[[], object]], rounds: int) -> list[float]:
    """The least CPU time (:func:`timed`) of each of *functions* over *rounds* rounds.

    They take turns within a round, in reverse order every other round, so a slow spell of
    the machine, or a cache warmed by the one before, falls on every side of a ratio."""
    best = [float("inf")] * len(functions)
    order = list(range(len(functions)))
    for round_index in range(rounds):
        for index in order if round_index % 2 == 0 else order[::-1]:
            best[index] = min(best[index], timed(functions[index]))
    return best


def compare(
    label: str, first: Callable[[], object], second: Callable[[], object], reps: int
) -> tuple[float, float]:
    """Time *first* and *second* in interleaved rounds; return (min ratio, median ratio)."""
    a_times: list[float] = []
    b_times: list[float] = []
    first()
    second()  # warm caches and lazily compiled regexes
    for round_index in range(reps):
        pair = [(a_times, first), (b_times, second)]
        if round_index % 2:
            pair.reverse()
        for bucket, function in pair:
            bucket.append(timed(function))
    min_ratio = min(b_times) / min(a_times)
    median_ratio = statistics.median(b_times) / statistics.median(a_times)
    print(
        f"{label:<58} {min(a_times) * 1000:9.1f} {min(b_times) * 1000:9.1f}"
        f" {min_ratio:7.3f} {median_ratio:7.3f}"
    )
    return min_ratio, median_ratio


LIMITS = (1.05, 0.60, 0.70, None, 2.20, None, 2.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7, help="interleaved rounds per pair")
    parser.add_argument("--size", type=float, default=1.0, help="prose size in MB")
    args = parser.parse_args()
    size = int(args.size * 1_000_000)

    plain = MarkdownIt("commonmark")
    with_plugin = MarkdownIt("commonmark").use(lmml_plugin)
    prose = chat_prose(size)
    chat = transcript(2000)
    chat_bytes = chat.encode()
    chat_double = chat + transcript(2000, seed=4)
    attack = hostile(size)
    prose_1mb = chat_prose(len(attack), seed=5)
    assert "@" not in prose
    narrative = lmml_mdit.parse(chat)
    assert len(narrative.turns) == 2001, len(narrative.turns)

    print(f"python {sys.version.split()[0]}, reps={args.reps}")
    print(
        f"prose {len(prose) / 1e6:.2f} MB; transcript {len(chat) / 1e6:.2f} MB, "
        f"{len(narrative.turns) - 1} turns, {len(narrative.embeds)} embeds; "
        f"hostile {len(attack) / 1e6:.2f} MB"
    )
    global COLLECTOR_PAUSED
    verdicts: list[bool] = []
    for paused in (True, False):
        COLLECTOR_PAUSED = paused
        print()
        print(
            "garbage collector paused during each call (judged)"
            if paused
            else "garbage collector running (for the record)"
        )
        print(f"{'comparison (A vs B)':<58} {'A ms':>9} {'B ms':>9} {'min':>7} {'median':>7}")
        results = {
            "plugin vs none, no LMML (<= 1.05)": compare(
                "md.parse: without plugin vs with plugin, prose",
                lambda: plain.parse(prose),
                lambda: with_plugin.parse(prose),
                args.reps,
            ),
            "lmml_mdit.parse vs bare parse (<= 0.60)": compare(
                "transcript: bare commonmark parse vs lmml_mdit.parse",
                lambda: plain.parse(chat),
                lambda: lmml_mdit.parse(chat),
                args.reps,
            ),
            "open + validate vs bare parse (<= 0.70)": compare(
                "transcript: bare commonmark parse vs open().validate()",
                lambda: plain.parse(chat),
                lambda: lmml_mdit.open(chat_bytes, name="chat.lmml").validate(),
                args.reps,
            ),
            "full parse vs bare parse (reference)": compare(
                "transcript: bare commonmark parse vs full_parse=True",
                lambda: plain.parse(chat),
                lambda: lmml_mdit.parse(chat, full_parse=True),
                args.reps,
            ),
            "doubling the input (<= 2.20)": compare(
                f"lmml_mdit.parse: transcript vs transcript x{len(chat_double) / len(chat):.3f}",
                lambda: lmml_mdit.parse(chat),
                lambda: lmml_mdit.parse(chat_double),
                args.reps,
            ),
            "bare parse, doubling the input (reference)": compare(
                f"bare parse: transcript vs transcript x{len(chat_double) / len(chat):.3f}",
                lambda: plain.parse(chat),
                lambda: plain.parse(chat_double),
                args.reps,
            ),
            "hostile vs prose, same size (<= 2.0)": compare(
                "lmml_mdit.parse: prose vs hostile input, same size",
                lambda: lmml_mdit.parse(prose_1mb),
                lambda: lmml_mdit.parse(attack),
                args.reps,
            ),
        }
        print()
        for (label, (min_ratio, median_ratio)), limit in zip(results.items(), LIMITS, strict=True):
            met = limit is None or min_ratio <= limit
            if paused:
                verdicts.append(met)
            if limit is None:
                verdict = ""
            elif paused:
                verdict = "ok" if met else "MISSED"
            else:
                verdict = "(not judged)"
            goal = f"goal <= {limit:.2f}" if limit is not None else "no goal"
            print(
                f"{label:<45} min {min_ratio:.3f}  median {median_ratio:.3f}  {goal:<13} {verdict}"
            )
    failed = not all(verdicts)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
