"""Cases in every form ``lmml eval`` reads (CSV, Parquet, ``hf:`` datasets, a folder of
bundles), run through the real OpenAI SDK against the loopback server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from _wire_server import Answer, Said, WireServer, openai_chat

import lmml_mdit
from lmml_mdit import ExpectError
from lmml_mdit.cli import main
from lmml_mdit.errors import InputError
from lmml_mdit.eval import Summary, Target, aevaluate, iter_cases, write_report

TEMPLATE = """\
---
inputs:
  city: string
---
## user

What is the capital of {{ city }}?
"""

CSV = """\
city,expect
France,"[{""contains"": ""Paris""}]"
Peru,"- equals: Lima
- max-tokens: 5"
Chile,
"""


def _said(text: str) -> Answer:
    return openai_chat(Said([text]), stream=False)


def _run(
    tmp_path: Path, cases: str | Path, server: WireServer
) -> tuple[Summary, list[dict[str, Any]]]:
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    summary = asyncio.run(
        aevaluate(
            lmml_mdit.open(tmp_path / "t.lmml"),
            cases,
            [Target("openai", "m", server.url + "/v1")],
            out,
            retries=0,
            concurrency=1,
        )
    )
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return summary, rows


def test_csv_cases_with_expect_as_json_or_yaml_text(tmp_path: Path, server: WireServer) -> None:
    (tmp_path / "cases.csv").write_text(CSV, encoding="utf-8")
    server.script(_said("Paris"), _said("Lima"), _said("Santiago"))
    summary, rows = _run(tmp_path, tmp_path / "cases.csv", server)
    assert (summary.rows, summary.passed) == (3, 2)
    assert [row["case"] for row in rows] == [2, 4, 5]  # the line each row ends on
    assert [row["inputs"] for row in rows] == [{"city": c} for c in ("France", "Peru", "Chile")]
    assert [a["kind"] for a in rows[1]["assertions"]] == ["equals", "max-tokens"]
    assert rows[2]["assertions"] == []  # an empty cell: no expect


def test_csv_problems_name_the_file_and_line(tmp_path: Path, server: WireServer) -> None:
    path = tmp_path / "cases.csv"
    path.write_text('city,expect\nFrance,"[{contain: x}]"\n', encoding="utf-8")
    with pytest.raises(ExpectError, match=r"cases\.csv:2: unknown assertion 'contain'"):
        _run(tmp_path, path, server)
    path.write_text('city,expect\nFrance,"[{a: b"\n', encoding="utf-8")
    with pytest.raises(ExpectError, match=r"cases\.csv:2: the expect cell is neither JSON"):
        _run(tmp_path, path, server)
    path.write_text("city\nFrance,extra\n", encoding="utf-8")
    assert list(iter_cases(path)) == [(2, "more cells than the header names")]
    assert server.requests == []
    with pytest.raises(InputError, match="no such cases file"):
        list(iter_cases(tmp_path / "none.csv"))


TYPED = """\
---
inputs:
  city: string
  count:
    type: integer
    default: 2
  formal: boolean
  extra:
    type: object
    required: false
---
## user

Name {{ count }} sights of {{ city }} (formal: {{ formal }}, {{ extra.tone }}).
"""


def test_csv_cells_are_read_as_the_inputs_declared_types(
    tmp_path: Path, server: WireServer
) -> None:
    """``3`` fills an integer input, ``true`` a boolean, JSON an object; an empty cell of a
    typed input is not given (its default applies); a cell that is not of its type is that
    case's error, with the column, and gets no row."""
    (tmp_path / "t.lmml").write_text(TYPED, encoding="utf-8")
    path = tmp_path / "cases.csv"
    path.write_text(
        'city,count,formal,extra\nRome,3,true,"{""tone"": ""dry""}"\n,,false,\nOslo,three,true,\n',
        encoding="utf-8",
    )
    bundle = lmml_mdit.open(tmp_path / "t.lmml")
    from lmml_mdit.templates import declared_inputs

    read = list(iter_cases(path, declared_inputs(bundle)))
    assert read[0] == (2, {"city": "Rome", "count": 3, "formal": True, "extra": {"tone": "dry"}})
    assert read[1] == (3, {"city": "", "formal": False})  # a string cell stays, even empty
    assert read[2] == (
        4,
        "column 'count': 'three' is not a JSON integer (write 3, true or {\"key\": \"value\"})",
    )
    assert next(iter_cases(path))[1] == {  # without declarations: text as read
        "city": "Rome",
        "count": "3",
        "formal": "true",
        "extra": '{"tone": "dry"}',
    }
    server.script(_said("Colosseum"), _said("none"))
    out = tmp_path / "out.jsonl"
    summary = asyncio.run(
        aevaluate(bundle, path, [Target("openai", "m", server.url + "/v1")], out, retries=0)
    )
    assert summary.rows == 2 and len(summary.errors) == 1
    assert "cases.csv:4" in summary.errors[0] and "'three'" in summary.errors[0]
    # The two cases are sent concurrently, so in either order.
    sent = sorted(json.dumps(request.body) for request in server.requests)
    assert len(sent) == 2
    assert "Name 2 sights of  (formal: false" in sent[0]
    assert "Name 3 sights of Rome (formal: true, dry)" in sent[1]


def test_parquet_cases_stream_by_row_batches(tmp_path: Path, server: WireServer) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    cities = [f"c{n}" for n in range(150)]
    expects = ['[{"contains": "Paris"}]'] + [None] * 149
    table = pa.table({"city": cities, "expect": expects})
    pq.write_table(table, tmp_path / "cases.parquet", row_group_size=50)
    read = list(iter_cases(tmp_path / "cases.parquet"))
    assert [number for number, _ in read] == list(range(1, 151))
    assert read[0][1] == {"city": "c0", "expect": [{"contains": "Paris"}]}
    assert read[149][1] == {"city": "c149"}
    pq.write_table(table.slice(0, 2), tmp_path / "two.parquet")
    server.script(_said("Paris"), _said("Lima"))
    summary, rows = _run(tmp_path, tmp_path / "two.parquet", server)
    assert (summary.rows, summary.passed, [row["case"] for row in rows]) == (2, 2, [1, 2])
    bad = pa.table({"city": ["x", "y"], "expect": [None, "[{regex: '('}]"]})
    pq.write_table(bad, tmp_path / "bad.parquet")
    with pytest.raises(ExpectError, match=r"bad\.parquet:2: "):
        _run(tmp_path, tmp_path / "bad.parquet", server)
    (tmp_path / "not.parquet").write_bytes(b"not parquet")
    with pytest.raises(InputError, match="not a Parquet file"):
        list(iter_cases(tmp_path / "not.parquet"))
    assert len(server.requests) == 2


def test_hf_cases_from_a_saved_dataset_and_a_folder_of_data_files(
    tmp_path: Path, server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    rows = {"city": ["France", "Peru"], "expect": [[{"contains": "Paris"}], None]}
    datasets.Dataset.from_dict(rows).save_to_disk(str(tmp_path / "saved"))
    read = list(iter_cases(f"hf:{tmp_path / 'saved'}"))
    assert read == [
        (1, {"city": "France", "expect": [{"contains": "Paris"}]}),
        (2, {"city": "Peru"}),
    ]
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "train.jsonl").write_text(
        '{"city": "France"}\n{"city": "Chile"}\n', encoding="utf-8"
    )
    assert [case for _, case in iter_cases(f"hf:{tmp_path / 'files'}")] == [
        {"city": "France"},
        {"city": "Chile"},
    ]
    server.script(_said("Paris"), _said("Lima"))
    summary, _ = _run(tmp_path, f"hf:{tmp_path / 'saved'}", server)
    assert (summary.rows, summary.passed) == (2, 2)


def test_an_hf_datasets_expect_column_may_hold_json_or_yaml_text_as_a_files_does(
    tmp_path: Path, server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    rows = {
        "city": ["France", "Peru", "Chile"],
        "expect": ['[{"contains": "Paris"}]', "- equals: Lima", None],
    }
    datasets.Dataset.from_dict(rows).save_to_disk(str(tmp_path / "saved"))
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "train.csv").write_text(CSV, encoding="utf-8")
    want = [
        (1, {"city": "France", "expect": [{"contains": "Paris"}]}),
        (2, {"city": "Peru", "expect": [{"equals": "Lima"}]}),
        (3, {"city": "Chile"}),
    ]
    assert list(iter_cases(f"hf:{tmp_path / 'saved'}")) == want
    read = list(iter_cases(f"hf:{tmp_path / 'files'}"))
    assert read[0] == want[0] and read[1][1]["expect"] == [{"equals": "Lima"}, {"max-tokens": 5}]
    server.script(_said("Paris"), _said("Lima"), _said("Santiago"))
    summary, _ = _run(tmp_path, f"hf:{tmp_path / 'saved'}", server)
    assert (summary.rows, summary.passed, summary.errors) == (3, 3, [])


def test_a_folder_of_bundles_is_one_case_each(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "bundles"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.lmml").write_text(
        "---\nexpect:\n  - contains: Paris\n---\n## user\n\nCapital of France?\n", encoding="utf-8"
    )
    (folder / "sub" / "b.lmml").write_text("## user\n\nCapital of Peru?\n", encoding="utf-8")
    server.script(_said("Paris"), _said("Lima"))
    out = tmp_path / "out.jsonl"
    target = f"openai:m@{server.url}/v1"
    args = ["eval", str(folder), "--target", target, "--concurrency", "1", "--out", str(out)]
    assert main(args) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(row["case"], row["bundle"]) for row in rows] == [(1, "a.lmml"), (2, "sub/b.lmml")]
    assert "Capital of Peru?" in json.dumps(rows[1]["request"])
    assert rows[0]["assertions"][0]["passed"] is True and rows[1]["assertions"] == []
    assert main(args) == 0 and len(server.requests) == 2  # resumed: nothing sent
    assert main(["eval", str(tmp_path / "out.jsonl"), "--target", target]) == 2
    assert "a folder of bundles" in capsys.readouterr().err


def test_parquet_results_are_written_whole_from_a_resumable_journal(
    tmp_path: Path, server: WireServer
) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    (tmp_path / "cases.csv").write_text(CSV, encoding="utf-8")
    out = tmp_path / "results.parquet"
    args = [
        "eval",
        str(tmp_path / "t.lmml"),
        "--cases",
        str(tmp_path / "cases.csv"),
        "--target",
        f"openai:m@{server.url}/v1",
        "--concurrency",
        "1",
        "--retries",
        "0",
        "--out",
        str(out),
    ]
    server.script(_said("Paris"), _said("Lima"))  # the third send finds no answer: no row
    assert main(args) == 1
    journal = tmp_path / "results.parquet.journal.jsonl"
    assert pq.read_table(out).num_rows == 2 and len(journal.read_text().splitlines()) == 2
    server.script(_said("Santiago"))
    report = tmp_path / "report.html"
    # resumed: only case 5 sent, and it passes; case 4's failure, written before, still counts
    assert main([*args, "--report", str(report)]) == 1
    assert len(server.requests) == 4  # 2, the failed one, then only the missing case
    table = pq.read_table(out)
    assert table.column("case").to_pylist() == [2, 4, 5]
    assert json.loads(table.column("inputs")[2].as_py()) == {"city": "Chile"}
    assert table.column("assertions")[1].as_py()[1] == {
        "kind": "max-tokens",
        "passed": False,
        "reason": "7 tokens > 5",
    }
    assert table.column("bundle").null_count == 3
    assert report.read_text(encoding="utf-8").count("<details") == 3


@pytest.mark.parametrize("cases", ["capitals.cases.jsonl", "capitals.cases.csv"])
def test_the_worked_example(
    tmp_path: Path, server: WireServer, cases: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """examples/capitals.lmml and its cases, as docs/eval.md runs them."""
    examples = Path(__file__).resolve().parent.parent / "examples"
    server.script(
        _said("Paris"),
        _said("Lima, of course"),  # 7 tokens: fails max-tokens 5
        _said("Tokyo."),
        _said("Sydney"),
        _said("FAIL\nit names Sydney"),  # the judge's reply
        _said("Rome"),
    )
    out = tmp_path / "results.jsonl"
    url = f"{server.url}/v1"
    args = [
        "eval",
        str(examples / "capitals.lmml"),
        "--cases",
        str(examples / cases),
        "--target",
        f"openai:small@{url}",
        "--judge",
        f"openai:judge@{url}",
        "--concurrency",
        "1",
        "--cache",
        str(tmp_path / "cache"),
        "--out",
        str(out),
        "--report",
        str(tmp_path / "report.html"),
    ]
    assert main(args) == 1
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    verdicts = [[(a["kind"], a["passed"]) for a in row["assertions"]] for row in rows]
    assert verdicts == [
        [("equals", True)],
        [("contains", True), ("max-tokens", False)],
        [("regex", True), ("not-contains", True)],
        [("judge", False), ("not-contains", False)],
        [("max-latency", True)],
    ]
    assert "5 row(s): 3 passed, 2 failed" in capsys.readouterr().err
    assert server.requests[4].body["model"] == "judge"


def test_a_parquet_file_of_bundles_is_one_case_each(tmp_path: Path, server: WireServer) -> None:
    pytest.importorskip("pyarrow")
    from lmml_mdit.dataset import write_parquet
    from lmml_mdit.eval import write_report

    folder = tmp_path / "bundles"
    folder.mkdir()
    (folder / "a.lmml").write_text(
        "---\nexpect: [{contains: Paris}]\n---\n## user\n\nCapital of France?\n", encoding="utf-8"
    )
    (folder / "b.lmml").write_text("## user\n\nCapital of <Peru>?\n", encoding="utf-8")
    write_parquet(folder, tmp_path / "bundles.parquet")
    server.script(_said("Paris"), _said("Lima"))
    out = tmp_path / "out.jsonl"
    summary = asyncio.run(
        aevaluate(
            tmp_path / "bundles.parquet",
            None,
            [Target("openai", "m", server.url + "/v1")],
            out,
            concurrency=1,
        )
    )
    assert (summary.rows, summary.passed, summary.errors) == (2, 2, [])
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(row["case"], row["bundle"]) for row in rows] == [(1, "a.lmml"), (2, "b.lmml")]
    assert "Capital of <Peru>?" in json.dumps(rows[1]["request"])
    write_report(out, tmp_path / "report.html")
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<th>case 1: a.lmml</th>" in page and "<th>case 2: b.lmml</th>" in page


def test_the_job_plan_skips_written_rows_and_reports_unreadable_cases(tmp_path: Path) -> None:
    """``plan_jobs``, which ``aevaluate`` and ``eval_batches`` both run: each readable case
    against each target, a row already written skipped and counted with its verdict, an
    unreadable case an error; every case's own ``expect`` or the template's."""
    from _eval_template import TEMPLATE as EXPECTING  # its front matter expects Paris

    from lmml_mdit.eval import Job, count_cases, plan_jobs

    (tmp_path / "t.lmml").write_text(EXPECTING, encoding="utf-8")
    bundle = lmml_mdit.open(tmp_path / "t.lmml")
    cases = tmp_path / "cases.jsonl"
    lines = ['{"city": "France"}', "not json", '{"city": "Peru", "expect": [{"equals": "Lima"}]}']
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    first, second = Target("openai", "a"), Target("anthropic", "b")
    summary = Summary()
    done = {(1, str(first)): True, (3, str(second)): False}
    jobs = list(plan_jobs(bundle, cases, [first, second], done, summary))
    assert [(job.number, job.target) for job in jobs] == [(1, second), (3, first)]
    assert all(isinstance(job, Job) and job.bundle is bundle for job in jobs)
    assert jobs[1].inputs == {"city": "Peru"}
    assert [a.kind for a in jobs[0].expect] == ["contains"]  # the template's
    assert [a.kind for a in jobs[1].expect] == ["equals"]  # its own
    assert (summary.skipped, summary.skipped_passed, summary.rows) == (2, 1, 0)
    assert len(summary.errors) == 1 and summary.errors[0].startswith(f"{cases}:2: ")
    assert count_cases(bundle, cases) == 3


def test_the_check_pass_finds_an_expect_however_a_jsonl_line_spells_it(tmp_path: Path) -> None:
    """The check before sending reads only the JSONL lines that may hold an ``expect``: one
    whose key is spelled with escapes, or wrapped beside ``inputs``, is still read and a
    malformed one refused at its line; ``expect`` as a mere value, blank lines and lines
    that are no JSON are counted as cases all the same."""
    from lmml_mdit.eval import count_cases

    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    bundle = lmml_mdit.open(tmp_path / "t.lmml")
    cases = tmp_path / "cases.jsonl"
    good = ['{"city": "expect"}', "", "not json", '{"city": "Lima"}', "\xff"]
    cases.write_text("\n".join(good) + "\n", encoding="utf-8")
    assert count_cases(bundle, cases) == 5
    for bad in (
        '{"city": "Lima", "\\u0065xpect": [{"contain": "x"}]}',
        '{"inputs": {"city": "Lima"}, "expect": [{"contain": "x"}]}',
        '{"city": "Lima", "expect": 5}',
    ):
        cases.write_text('{"city": "Paris"}\n' + bad + "\n", encoding="utf-8")
        with pytest.raises(ExpectError, match=r"cases\.jsonl:2: "):
            count_cases(bundle, cases)
    with pytest.raises(InputError, match="no such cases file"):
        count_cases(bundle, tmp_path / "none.jsonl")


def test_cases_read_ahead_come_in_order_up_to_a_reading_error(tmp_path: Path) -> None:
    """The cases are read some at a time while sending; each job still comes in the file's
    order, and a file that fails partway gives every case before the failure first."""
    from lmml_mdit.eval import plan_jobs

    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    bundle = lmml_mdit.open(tmp_path / "t.lmml")
    cases = tmp_path / "cases.csv"
    rows = [f"{n:03} " + "x" * 96 for n in range(200)]  # bytes past the reader's first block
    cases.write_bytes(("city\n" + "\n".join(rows) + "\n").encode() + b"\xff\n")
    before = []  # what reading without a plan gives before the error
    with pytest.raises(InputError, match=r"cases\.csv"):
        for _, case in iter_cases(cases):
            assert isinstance(case, dict)
            before.append(case["city"])
    assert 64 < len(before) < 200
    jobs = plan_jobs(bundle, cases, [Target("openai", "m")], {}, Summary())
    seen = []
    with pytest.raises(InputError, match=r"cases\.csv"):
        for job in jobs:
            seen.append(job.inputs["city"])
    assert seen == before == rows[: len(before)]


def test_a_warning_is_noted_once_a_target_at_its_lowest_numbered_case() -> None:
    """Cases run at once (or in Ray's batches) finish in any order; the warning is said at
    the first case that gives it all the same."""
    summary = Summary()
    summary.warn("cases.jsonl:3", "openai:m", "setting 'x' left out", 3)
    summary.warn("cases.jsonl:1", "openai:m", "setting 'x' left out", 1)
    summary.warn("cases.jsonl:2", "openai:m", "setting 'x' left out", 2)
    summary.warn("cases.jsonl:2", "anthropic:m", "setting 'x' left out", 2)
    assert summary.warnings == [
        "cases.jsonl:1: openai:m: setting 'x' left out",
        "cases.jsonl:2: anthropic:m: setting 'x' left out",
    ]


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('{"case": 0, "target": "openai:m"}\n{"case": 1, "targ\n', 2),
        ('{"case": 0, "target": "openai:m"}\n\n[1, 2]\n', 3),
        ('{"answer": "no case or target"}\n', 1),
    ],
    ids=["cut-json", "not-an-object", "not-a-row"],
)
def test_write_report_names_a_line_that_is_no_results_row(
    tmp_path: Path, text: str, line: int
) -> None:
    # Called from Python, a bad line raised json's own JSONDecodeError (or a KeyError).
    results = tmp_path / "results.jsonl"
    results.write_text(text, encoding="utf-8")
    with pytest.raises(lmml_mdit.LmmlError, match="not a results row of lmml eval") as raised:
        write_report(results, tmp_path / "report.html")
    assert (raised.value.name, raised.value.line) == (str(results), line)
    assert not (tmp_path / "report.html").exists()
    with pytest.raises(lmml_mdit.LmmlError, match="cannot read the results"):
        write_report(tmp_path / "gone.jsonl", tmp_path / "report.html")
