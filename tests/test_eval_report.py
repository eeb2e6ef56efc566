"""The report page: every cell present, hostile answers escaped, no script anywhere."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmml_mdit.eval import report_html


def _row(case: int, target: str, answer: str, passed: bool) -> dict[str, object]:
    verdict = {"kind": "contains", "passed": passed, "reason": f"no {answer!r}"}
    return {
        "case": case,
        "target": target,
        "answer": answer,
        "calls": [],
        "assertions": [verdict],
        "passed": passed,
    }


def test_a_grid_of_cases_by_targets_with_the_rates() -> None:
    rows = [
        _row(1, "openai:a", "yes", True),
        _row(1, "anthropic:b", "no", False),
        _row(2, "openai:a", "yes", True),
    ]
    page = report_html(rows)
    assert page.count("<details") == 3 and page.count("<td>–</td>") == 1
    assert "2/2 (100%)" in page and "0/1 (0%)" in page and "2/3 (67%)" in page
    assert page.count('class="fail"') == 1


def test_the_run_s_targets_only_the_others_named_as_left_out() -> None:
    rows = [
        _row(1, "openai:a", "yes", True),
        _row(1, "anthropic:b", "no", False),
        _row(2, "anthropic:b", "no", False),
    ]
    page = report_html(rows, targets=["openai:a"])
    assert page.count("<details") == 1 and "anthropic:b</th>" not in page
    assert "1/1 (100%)" in page and 'class="fail"' not in page
    assert "Left out: 2 row(s) of the results for targets this run does not name" in page
    assert "left out" not in report_html(rows, targets=["openai:a", "anthropic:b"]).lower()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from("<>&\"'/script=on x\n"), max_size=60))
def test_hostile_answers_are_text(answer: str) -> None:
    page = report_html([_row(1, "openai:<b>", answer, False)])
    assert "<script" not in page.lower() and "<b>" not in page.replace("<b>contains", "")
