"""``lmml eval`` and ``aevaluate`` on a template: an error-level defect of the template is
refused once, before anything is sent, named by the path as given (``--force`` /
``strict=False`` send anyway); ``--set`` / ``settings=`` reach every request; every line
is worded for the caller: the command line's flags on the command line, Python's in
Python. Run against the loopback server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from _wire_server import Said, WireServer, anthropic, openai_chat

from lmml_mdit import open as open_bundle
from lmml_mdit.cli import main
from lmml_mdit.errors import DefectError, ExpectError
from lmml_mdit.eval import Target, aevaluate

BROKEN = """\
---
inputs:
  n: integer
expect:
  - contains: Paris
---
## user

Look at @missing.png: what is {{ n }}?
"""

PLAIN = """\
---
inputs:
  n: integer
expect:
  - contains: Paris
---
## user

What is {{ n }}?
"""


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with ``sub/broken.lmml``, ``sub/plain.lmml`` and two cases."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "broken.lmml").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "sub" / "plain.lmml").write_text(PLAIN, encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text('{"n": 1}\n{"n": 2}\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _eval(template: str, target: str, *extra: str) -> int:
    return main(
        [
            "eval",
            template,
            "--cases",
            "cases.jsonl",
            "--target",
            target,
            "--concurrency",
            "1",
            "--no-cache",
            "--retries",
            "0",
            *extra,
        ]
    )


def test_a_defect_of_the_template_is_refused_once_before_anything_is_sent(
    folder: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _eval("sub/broken.lmml", f"openai:m@{server.url}/v1")
    assert code == 2
    said = capsys.readouterr().err.splitlines()
    assert said == [
        f"lmml: error: sub/broken.lmml:9:9: missing_reference: no file 'missing.png' in the "
        f"folder {folder / 'sub'}; add it or fix the name; if it is not meant as an asset, "
        "escape the mention as \\@missing.png (fix it, or add --force to send anyway)"
    ]
    assert server.requests == []
    assert not (folder / "cases.results.jsonl").exists()


def test_force_sends_each_case_and_warns_the_defect_once(
    folder: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    server.script(
        openai_chat(Said(["Paris"]), stream=False), openai_chat(Said(["Paris"]), stream=False)
    )
    target = f"openai:m@{server.url}/v1"
    assert _eval("sub/broken.lmml", target, "--force") == 0
    said = capsys.readouterr().err.splitlines()
    warned = [line for line in said if "missing_reference" in line]
    assert warned == [
        f"lmml: warning: cases.jsonl:1: {target}: sub/broken.lmml:9:9: missing_reference: "
        f"no file 'missing.png' in the folder {folder / 'sub'}; add it or fix the name; if "
        "it is not meant as an asset, escape the mention as \\@missing.png"
    ]
    assert len(server.requests) == 2
    assert said[-1].startswith("2 row(s): 2 passed")


def test_a_case_error_at_the_template_names_the_path_as_given(
    folder: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "cases.jsonl").write_text('{"n": "abc"}\n', encoding="utf-8")
    target = f"openai:m@{server.url}/v1"
    assert _eval("sub/plain.lmml", target) == 1
    said = capsys.readouterr().err.splitlines()
    assert said[0] == (
        f"lmml: error: cases.jsonl:1: {target}: sub/plain.lmml:3:6: invalid_input: the "
        "value of the integer input 'n' is a string, not an integer (give a value of the "
        "declared type)"
    )
    assert server.requests == []


def test_set_reaches_every_request_and_the_warning_names_the_flag(
    folder: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"anthropic:m@{server.url}"
    server.script(*[anthropic(Said(["Paris"]), stream=False)] * 2)
    assert _eval("sub/plain.lmml", target) == 0
    said = capsys.readouterr().err
    assert "(add --set max_tokens=N, or max_tokens to the settings embed)" in said
    assert "settings={" not in said  # Python's wording stays out of the command line's
    assert [request.body["max_tokens"] for request in server.requests] == [4096, 4096]

    server.requests.clear()
    server.script(*[anthropic(Said(["Paris"]), stream=False)] * 2)
    code = _eval(
        "sub/plain.lmml", target, "--set", "max_tokens=20", "--out", "second.results.jsonl"
    )
    assert code == 0
    assert "max_tokens" not in capsys.readouterr().err
    assert [request.body["max_tokens"] for request in server.requests] == [20, 20]


def test_the_library_refuses_the_template_and_takes_strict_and_settings(
    folder: Path, server: WireServer
) -> None:
    broken = open_bundle("sub/broken.lmml")
    target = Target.parse(f"anthropic:m@{server.url}")
    with pytest.raises(DefectError) as refused:
        asyncio.run(aevaluate(broken, "cases.jsonl", [target], "out.jsonl", retries=0))
    assert "(fix it, or pass strict=False to send anyway)" in str(refused.value)
    assert server.requests == []

    server.script(*[anthropic(Said(["Paris"]), stream=False)] * 2)
    summary = asyncio.run(
        aevaluate(
            broken,
            "cases.jsonl",
            [target],
            "out.jsonl",
            retries=0,
            strict=False,
            settings={"max_tokens": 7},
            label="sub/broken.lmml",
        )
    )
    assert summary.rows == summary.passed == 2
    assert [request.body["max_tokens"] for request in server.requests] == [7, 7]
    assert [line.split(": ", 2)[2][:22] for line in summary.warnings] == ["sub/broken.lmml:9:9: m"]
    rows = [json.loads(line) for line in (folder / "out.jsonl").read_text().splitlines()]
    assert sorted(row["case"] for row in rows) == [1, 2]  # in the order they finished


def test_a_target_given_twice_is_refused_before_anything_is_sent(
    folder: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    target = f"openai:m@{server.url}/v1"
    assert _eval("sub/plain.lmml", target, "--target", target) == 2
    assert capsys.readouterr().err == (
        f"lmml: error: lmml eval: the target {target} is given twice; give each target once\n"
    )
    with pytest.raises(ValueError, match="given twice"):
        plain = open_bundle("sub/plain.lmml")
        twice = [Target.parse(target)] * 2
        asyncio.run(aevaluate(plain, "cases.jsonl", twice, "out.jsonl"))
    assert server.requests == [] and not (folder / "out.jsonl").exists()


def test_a_template_front_matter_that_does_not_parse_is_said_as_render_says_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As ``lmml render --cases`` says it, with or without ``--force``: at the template's
    path as given (``--force`` said it at the bare file name, ``t.lmml:2:13``) and without
    offering ``--force`` (which cannot send it: no input is declared); nothing is sent."""
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    template = prompts / "t.lmml"
    template.write_text("---\ntitle: [oops\n---\n## user\n\nhi\n", encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"x": 1}\n', encoding="utf-8")
    for force in ([], ["--force"]):
        assert main(["render", str(template), "--cases", str(cases), *force]) == 2
        rendered = capsys.readouterr().err
        assert rendered.startswith(f"lmml: error: {template}:2:13: invalid_front_matter: ")
        target = "openai:m@http://127.0.0.1:9/v1"
        argv = ["eval", str(template), "--cases", str(cases), "--target", target]
        status = main([*argv, "--out", str(tmp_path / "r.jsonl"), "--no-cache", *force])
        assert (status, capsys.readouterr().err) == (2, rendered)


def test_a_malformed_default_expect_is_said_at_the_templates_line_as_given(
    folder: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The template's front matter ``expect:`` is checked before anything is sent, and
    refused at its key's line and column in the template named as given (it was said at
    the bare file name with no line: ``plain.lmml: unknown assertion ...``), from the
    command line and from Python, as a malformed case's ``expect`` names its line."""
    (folder / "sub" / "plain.lmml").write_text(
        PLAIN.replace("- contains: Paris", "- contanes: Paris"), encoding="utf-8"
    )
    assert _eval("sub/plain.lmml", f"openai:m@{server.url}/v1") == 2
    said = capsys.readouterr().err
    assert said.startswith("lmml: error: sub/plain.lmml:4:1: unknown assertion 'contanes'"), said
    with pytest.raises(ExpectError) as raised:
        plain = open_bundle("sub/plain.lmml")
        target = Target.parse(f"openai:m@{server.url}/v1")
        asyncio.run(aevaluate(plain, "cases.jsonl", [target], "out.jsonl"))
    assert raised.value.place() == ("plain.lmml", 4, 1)
    assert server.requests == [] and not (folder / "out.jsonl").exists()


@pytest.mark.parametrize("given", ["0", "-2"])
def test_a_concurrency_under_one_is_refused_as_a_bad_command_line(
    folder: Path, server: WireServer, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    """``--concurrency 0`` was an internal error (``ValueError``) after the cases were read."""
    assert _eval("sub/plain.lmml", f"openai:m@{server.url}/v1", "--concurrency", given) == 2
    said = capsys.readouterr().err
    assert "argument --concurrency: must be 1 or more" in said and "internal" not in said, said
    assert server.requests == []


@pytest.mark.parametrize(
    ("rate", "says"),
    [(0.0, "over 0, not 0.0"), (-5.0, "over 0"), (float("nan"), "over 0"), (None, "no target")],
)
def test_aevaluate_refuses_a_rate_that_is_none_or_names_no_target(
    folder: Path, server: WireServer, rate: float | None, says: str
) -> None:
    """As ``--rate`` is refused on the command line: a rate of 0 was a ZeroDivisionError,
    and a negative one, NaN or one naming no target was silently no limit at all."""
    target = Target.parse(f"openai:m@{server.url}/v1")
    rates = {"openai:other": 10.0} if rate is None else {str(target): rate}
    with pytest.raises(ValueError, match=says):
        plain = open_bundle("sub/plain.lmml")
        asyncio.run(aevaluate(plain, "cases.jsonl", [target], "out.jsonl", rates=rates))
    assert server.requests == [] and not (folder / "out.jsonl").exists()
