"""The report: a self-contained, script-free HTML page of a results file.

A grid of cases by targets, each cell a ``details`` that opens the answer as a turn card
(the preview's styles) and the failed assertions with their reasons; above it the pass
rate of each target and of each assertion kind. Every value from the results is escaped.
"""

from __future__ import annotations

import html
import json
import os
from collections import defaultdict
from collections.abc import Sequence

from ..atomic import atomic_write_bytes
from ..errors import LmmlError
from ..preview import PREVIEW_CSS

__all__ = ["report_html", "write_report"]

_CSS = """
.lmml-eval table { border-collapse: collapse; width: 100%; }
.lmml-eval th, .lmml-eval td { border: 1px solid #d1d5db; padding: .3rem .5rem;
  vertical-align: top; text-align: left; }
.lmml-eval .pass > summary { color: #047857; }
.lmml-eval .fail > summary { color: #b91c1c; font-weight: 600; }
.lmml-eval pre { white-space: pre-wrap; overflow-wrap: anywhere; }
"""


def _rate(passed: int, total: int) -> str:
    return f"{passed}/{total} ({passed / total:.0%})" if total else "–"


def _cell(row: dict[str, object]) -> str:
    passed = row.get("passed") is True
    word = "pass" if passed else "fail"
    calls = row.get("calls") or []
    shown = html.escape(str(row.get("answer", "")))
    if calls:
        shown += "\n" + html.escape(json.dumps(calls, ensure_ascii=False, indent=1))
    failed = [
        item
        for item in row.get("assertions") or []  # type: ignore[attr-defined]
        if isinstance(item, dict) and item.get("passed") is not True
    ]
    reasons = "".join(
        f"<li><b>{html.escape(str(item.get('kind')))}</b>: "
        f"{html.escape(str(item.get('reason')))}</li>"
        for item in failed
    )
    return (
        f'<details class="{word}"><summary>{word.upper()}</summary>'
        '<section class="lmml-turn lmml-turn-assistant" data-lmml-role="assistant">'
        '<header class="lmml-turn-header"><h2><span class="lmml-role-badge">assistant</span>'
        "</h2></header>"
        f'<div class="lmml-turn-body"><pre>{shown}</pre></div></section>'
        f"{f'<ul>{reasons}</ul>' if reasons else ''}</details>"
    )


def _named(name: object) -> str:
    """A bundle case's name after its number (cases from a cases file have none)."""
    return f": {html.escape(str(name))}" if name else ""


def _left_out(rows: list[dict[str, object]], targets: Sequence[str]) -> str:
    """The note naming the rows of targets outside *targets* (none: no note)."""
    others = [str(row["target"]) for row in rows if str(row["target"]) not in targets]
    if not others:
        return ""
    named = ", ".join(html.escape(target) for target in dict.fromkeys(others))
    return (
        f'<p class="lmml-eval-left-out">Left out: {len(others)} row(s) of the results '
        f"for targets this run does not name ({named}).</p>"
    )


def report_html(
    rows: list[dict[str, object]],
    title: str = "Evaluation",
    *,
    targets: Sequence[str] | None = None,
) -> str:
    """The page for *rows* (results rows, as written by the evaluation).

    :param targets: the run's targets, as text: the rates and the grid show only their rows,
        in this order, and a note counts the rows left out (None: every target of *rows*).
    """
    note = ""
    if targets is not None:
        note = _left_out(rows, targets)
        chosen = set(targets)
        rows = [row for row in rows if str(row["target"]) in chosen]
    else:
        targets = list(dict.fromkeys(str(row["target"]) for row in rows))
    cases = sorted({int(str(row["case"])) for row in rows})
    grid = {(int(str(row["case"])), str(row["target"])): row for row in rows}
    names = {int(str(row["case"])): row.get("bundle") for row in rows}
    by_target: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        count = by_target[str(row["target"])]
        count[0] += row.get("passed") is True
        count[1] += 1
        for item in row.get("assertions") or []:  # type: ignore[attr-defined]
            if isinstance(item, dict):
                count = by_kind[str(item.get("kind"))]
                count[0] += item.get("passed") is True
                count[1] += 1
    head = "".join(f"<th>{html.escape(target)}</th>" for target in targets)
    rates = "".join(f"<td>{_rate(*by_target[target])}</td>" for target in targets)
    body = "".join(
        f"<tr><th>case {case}{_named(names.get(case))}</th>"
        + "".join(
            f"<td>{_cell(grid[(case, target)])}</td>" if (case, target) in grid else "<td>–</td>"
            for target in targets
        )
        + "</tr>"
        for case in cases
    )
    kinds = "".join(
        f"<tr><th>{html.escape(kind)}</th><td>{_rate(*count)}</td></tr>"
        for kind, count in sorted(by_kind.items())
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">"
        f"<title>{html.escape(title)}</title><style>{PREVIEW_CSS}{_CSS}</style></head>"
        f'<body><main class="lmml-preview lmml-eval"><h1>{html.escape(title)}</h1>{note}'
        f"<h2>Pass rate by target</h2><table><tr><th></th>{head}</tr>"
        f"<tr><th>passed</th>{rates}</tr></table>"
        f"<h2>Pass rate by assertion</h2><table>{kinds}</table>"
        f"<h2>Cases</h2><table><tr><th></th>{head}</tr>{body}</table>"
        "</main></body></html>\n"
    )


def write_report(
    results: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    targets: Sequence[str] | None = None,
) -> None:
    """Write the page of the results file *results* to *out*, atomically.

    :param targets: the run's targets, as text, as :func:`report_html` takes them (None:
        every target of the results).
    :raises LmmlError: when *results* cannot be read, or a line of it is no results row of
        ``lmml eval`` (named with its line).
    """
    rows = _rows(os.fspath(results))
    title = f"Evaluation: {os.path.basename(os.fspath(results))}"
    # a lone surrogate of an answer (no UTF-8 page holds one) is shown as its escape
    atomic_write_bytes(
        out, report_html(rows, title, targets=targets).encode("utf-8", "backslashreplace")
    )


def _rows(path: str) -> list[dict[str, object]]:
    """The rows of the results file *path*, each checked to be one ``lmml eval`` wrote."""
    rows: list[dict[str, object]] = []
    try:
        with open(path, encoding="utf-8") as stream:
            for number, line in enumerate(stream, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError:
                    row = None
                if not isinstance(row, dict) or "case" not in row or "target" not in row:
                    raise LmmlError(
                        "not a results row of lmml eval",
                        name=path,
                        line=number,
                        hint="name the results file lmml eval wrote (its --out)",
                    )
                rows.append(row)
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise LmmlError(
            f"cannot read the results: {reason or error}",
            name=path,
            hint="name the results file lmml eval wrote (its --out)",
        ) from None
    return rows
