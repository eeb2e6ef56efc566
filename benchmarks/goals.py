"""What a benchmark script says at its end about its goals, and its exit status."""

from __future__ import annotations

from collections.abc import Sequence


def exit_status(missed: Sequence[str], success: str | None = None) -> int:
    """Print the goals *missed* (their names), or *success* when none was; return the
    script's exit status: 1 when a goal was missed, else 0."""
    if missed:
        print(f"missed {len(missed)} goals: {', '.join(missed)}")
        return 1
    if success is not None:
        print(success)
    return 0
