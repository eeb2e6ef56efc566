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
from .jobs import Job, Summary, case_expect, count_cases, default_expect, plan_jobs
from .runner import Evaluator, Pace, Waits, aevaluate
from .targets import Target

__all__ = [
    "KINDS",
    "Answer",
    "Assertion",
    "Call",
    "Evaluator",
    "Job",
    "Judge",
    "Pace",
    "Summary",
    "Target",
    "Verdict",
    "Waits",
    "aevaluate",
    "case_expect",
    "check",
    "count_cases",
    "default_expect",
    "judge_prompt",
    "judge_verdict",
    "plan_jobs",
    "read_expect",
]
