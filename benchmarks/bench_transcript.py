"""Transcript timings, printed as ratios (a script, not a test; it exits 1 when the save
goal below is missed).

- ``with_extra`` on a 100-turn and a 100 000-turn transcript: the ratio should stay near 1
  (the view copies nothing), while ``copy()`` grows with the length.
- ``to_bundle`` + ``from_bundle`` per turn, for plain and for escaped content, and with a
  ten times longer transcript (the ratio should stay near 1: the writer is linear).
- ``save`` of a transcript whose one message is 1 MB, as ``.lmmlz`` and ``.lmml``, over
  ``lmml_mdit.parse`` of that message in the same run (goal: at most 2.0 for ordinary
  Markdown; the writer parses what it writes once and hands that parse to the bundle).
  Contents that must be escaped (forged references, role headings) cost a parse more.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import timeit
from collections.abc import Callable

from goals import exit_status

import lmml_mdit
from lmml_mdit.transcript import Message, Transcript

SAVE_GOAL = 2.0
MESSAGE_BYTES = 1_000_000

# One screen of an ordinary long answer: prose with inline markup, a list, a code fence,
# an ordinary heading and a reference to a carried asset.
ORDINARY = (
    "### Build notes\n\n"
    "The *parser* reads `tokens` once; see [the guide](https://example.org/guide) and "
    "the chart @chart.png for the **numbers**.\n\n"
    "- first point, with `code`\n- second point\n\n"
    "```python\nprint('hello')\n```\n\n"
)
# Needs escaping: headings that would open turns, and mentions no asset answers.
RISKY = "## user\nping @bob about @gone.txt\n<!-- assistant -->\n\n"


def build(turns: int, content: str = "hello @chart.png") -> Transcript:
    messages = (Message("alice" if i % 2 else "bob", content) for i in range(turns))
    return Transcript(messages, assets={"chart.png": b"\x89PNG"})


def per_call(statement: object, number: int) -> float:
    return timeit.timeit(statement, number=number) / number  # type: ignore[arg-type]


def best(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def save_ratios(repeat: int) -> list[str]:
    """Print the 1 MB save over the parse of its message, for each content and kind; return
    the rows that miss their goal."""
    missed: list[str] = []
    folder = tempfile.mkdtemp()
    for label, block in (("ordinary", ORDINARY), ("escaped", RISKY)):
        content = block * (MESSAGE_BYTES // len(block))
        transcript = Transcript(assets={"chart.png": b"\x89PNG"})
        transcript.append("assistant", content)
        parsing = best(lambda: lmml_mdit.parse(content), repeat)  # noqa: B023
        for extension in (".lmmlz", ".lmml"):
            if extension == ".lmml":
                transcript.remove_asset("chart.png")
                transcript.add_asset("chart.png", b"not an image\n")
            path = os.path.join(folder, "session" + extension)
            saving = best(lambda: transcript.save(path), repeat)  # noqa: B023
            goal = f" (goal <= {SAVE_GOAL})" if label == "ordinary" else ""
            if label == "ordinary" and saving / parsing > SAVE_GOAL:
                missed.append(f"save {label} {extension}")
                goal += " MISSED"
            print(
                f"save 1 MB {label:8} {extension:6}: {saving / parsing:.2f}x parse{goal} "
                f"[parse {parsing:.2f} s, save {saving:.2f} s]"
            )
    return missed


def main() -> int:
    small, large = build(100), build(100_000)
    extra = Message("carol", "what if?")
    # A call takes about a microsecond: one batch of 2,000 is at the mercy of the allocator
    # and the scheduler (it gave 0.2x to 6x), so take the best of several larger batches.
    view_small = min(per_call(lambda: small.with_extra(extra), 20_000) for _ in range(5))
    view_large = min(per_call(lambda: large.with_extra(extra), 20_000) for _ in range(5))
    copy_small = per_call(small.copy, 20)
    copy_large = per_call(large.copy, 3)
    print(f"with_extra 100k/100 turns: {view_large / view_small:.2f}x")
    print(f"copy       100k/100 turns: {copy_large / copy_small:.0f}x")

    plain, risky = build(200), build(200, "## user\n<!-- assistant -->\n@@@x\n@@@")
    rt_plain = per_call(lambda: Transcript.from_bundle(plain.to_bundle("b")), 3) / 200
    rt_risky = per_call(lambda: Transcript.from_bundle(risky.to_bundle("b")), 3) / 200
    print(
        f"round trip per turn: plain {rt_plain * 1e6:.0f} us, escaped {rt_risky * 1e6:.0f} us "
        f"({rt_risky / rt_plain:.1f}x)"
    )
    # A mention of a name no asset has (``@bob``) is escaped like risky content.
    mentions = build(200, "ping @bob")
    rt_mention = per_call(lambda: Transcript.from_bundle(mentions.to_bundle("b")), 3) / 200
    print(f"round trip per turn with an @mention: {rt_mention / rt_plain:.1f}x plain")
    longer = build(2000)
    rt_long = per_call(lambda: Transcript.from_bundle(longer.to_bundle("b")), 1) / 2000
    print(f"round trip per turn, 2000 vs 200 turns: {rt_long / rt_plain:.2f}x")
    return exit_status(save_ratios(int(sys.argv[1]) if len(sys.argv) > 1 else 3))


if __name__ == "__main__":
    sys.exit(main())
