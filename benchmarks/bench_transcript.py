"""Transcript timings, printed as ratios (no assertions; run by hand).

- ``with_extra`` on a 100-turn and a 100 000-turn transcript: the ratio should stay near 1
  (the view copies nothing), while ``copy()`` grows with the length.
- ``to_bundle`` + ``from_bundle`` per turn, for plain and for escaped content, and with a
  ten times longer transcript (the ratio should stay near 1: the writer is linear).
"""

from __future__ import annotations

import timeit

from lmml_mdit.transcript import Message, Transcript


def build(turns: int, content: str = "hello @chart.png") -> Transcript:
    messages = (Message("alice" if i % 2 else "bob", content) for i in range(turns))
    return Transcript(messages, assets={"chart.png": b"\x89PNG"})


def per_call(statement: object, number: int) -> float:
    return timeit.timeit(statement, number=number) / number  # type: ignore[arg-type]


def main() -> None:
    small, large = build(100), build(100_000)
    extra = Message("carol", "what if?")
    view_small = per_call(lambda: small.with_extra(extra), 2000)
    view_large = per_call(lambda: large.with_extra(extra), 2000)
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


if __name__ == "__main__":
    main()
