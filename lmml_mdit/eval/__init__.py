"""Evaluation: cases checked against the assertions of their ``expect`` lists.

The modules are private; every name is imported from here. The report's names
(:func:`report_html`, :func:`write_report`) are imported on first use, so the preview's
stylesheet loads only with a report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes, public_names
from ._assertions import KINDS as KINDS
from ._assertions import Answer as Answer
from ._assertions import Assertion as Assertion
from ._assertions import Call as Call
from ._assertions import Judge as Judge
from ._assertions import Verdict as Verdict
from ._assertions import check as check
from ._assertions import judge_prompt as judge_prompt
from ._assertions import judge_verdict as judge_verdict
from ._assertions import read_expect as read_expect
from ._cache import AnswerCache as AnswerCache
from ._cache import request_key as request_key
from ._cases import HF_PREFIX as HF_PREFIX
from ._cases import BundleFailure as BundleFailure
from ._cases import iter_bundle_cases as iter_bundle_cases
from ._cases import iter_cases as iter_cases
from ._jobs import Job as Job
from ._jobs import Summary as Summary
from ._jobs import case_expect as case_expect
from ._jobs import check_template as check_template
from ._jobs import count_cases as count_cases
from ._jobs import default_expect as default_expect
from ._jobs import plan_jobs as plan_jobs
from ._results import ResultsWriter as ResultsWriter
from ._results import done_rows as done_rows
from ._results import journal_path as journal_path
from ._results import write_parquet_results as write_parquet_results
from ._runner import Evaluator as Evaluator
from ._runner import Pace as Pace
from ._runner import Waits as Waits
from ._runner import aevaluate as aevaluate
from ._targets import Target as Target
from ._targets import check_targets as check_targets

if TYPE_CHECKING:
    from ._report import report_html as report_html
    from ._report import write_report as write_report

_NAMES = {"report_html": "._report", "write_report": "._report"}
__getattr__ = lazy_attributes(__name__, _NAMES)

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names(
        [
            *_NAMES,
            "HF_PREFIX",
            "KINDS",
            "Answer",
            "AnswerCache",
            "Assertion",
            "BundleFailure",
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
            "check_targets",
            "check_template",
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
            "request_key",
            "write_parquet_results",
        ]
    )
