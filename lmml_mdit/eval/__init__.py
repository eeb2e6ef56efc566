"""Evaluation: cases checked against the assertions of their ``expect`` lists.

The modules are private; every name is imported from here. The report's names
(:func:`report_html`, :func:`write_report`) are imported on first use, so the preview's
stylesheet loads only with a report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes
from ._assertions import (
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
from ._cache import AnswerCache, request_key
from ._cases import HF_PREFIX, iter_bundle_cases, iter_cases
from ._jobs import Job, Summary, case_expect, count_cases, default_expect, plan_jobs
from ._results import ResultsWriter, done_rows, journal_path, write_parquet_results
from ._runner import Evaluator, Pace, Waits, aevaluate
from ._targets import Target

if TYPE_CHECKING:
    from ._report import report_html, write_report

__all__ = [
    "HF_PREFIX",
    "KINDS",
    "Answer",
    "AnswerCache",
    "Assertion",
    "Call",
    "Evaluator",
    "Job",
    "Judge",
    "Pace",
    "ResultsWriter",
    "Summary",
    "Target",
    "Verdict",
    "Waits",
    "aevaluate",
    "case_expect",
    "check",
    "count_cases",
    "default_expect",
    "done_rows",
    "iter_bundle_cases",
    "iter_cases",
    "journal_path",
    "judge_prompt",
    "judge_verdict",
    "plan_jobs",
    "read_expect",
    "report_html",
    "request_key",
    "write_parquet_results",
    "write_report",
]

__getattr__ = lazy_attributes(__name__, {"report_html": "._report", "write_report": "._report"})
