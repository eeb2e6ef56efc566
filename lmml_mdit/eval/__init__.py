"""Evaluation: cases checked against the assertions of their ``expect`` lists."""

from __future__ import annotations

from .assertions import (
    KINDS,
    Answer,
    Assertion,
    Call,
    Judge,
    Verdict,
    check,
    judge_prompt,
    judge_verdict,
    read_expect,
)
from .runner import Summary, aevaluate
from .targets import Target

__all__ = [
    "KINDS",
    "Answer",
    "Assertion",
    "Call",
    "Judge",
    "Summary",
    "Target",
    "Verdict",
    "aevaluate",
    "check",
    "judge_prompt",
    "judge_verdict",
    "read_expect",
]
