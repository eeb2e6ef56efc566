"""``lmml eval``: a case that gets no row is reported once a target, as
``lmml: error: CASES:N: TARGET: reason``, the cases file and line said once though the
reason (a refused path, a failed send) names them too. Run in-process against the
loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _wire_server import Json, Said, WireServer, error_body, openai_chat

from lmml_mdit.cli import main

TEMPLATE = """\
---
inputs:
  city: string
  photo:
    type: image
    required: false
expect:
  - contains: Paris
---
## user

What is the capital of {{ city }}?
{{ photo }}
"""


def test_a_refused_case_and_a_failed_send_name_the_case_once(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    lines = [
        {"city": "France"},
        {"city": "Spain"},
        {"city": "Peru", "photo": "../secret.png"},
    ]
    cases.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    target = f"openai:m@{server.url}/v1"
    server.script(
        openai_chat(Said(["Paris"]), stream=False),
        Json(error_body("openai", 400, "no such model"), status=400),
    )
    code = main(
        [
            "eval",
            str(tmp_path / "t.lmml"),
            "--cases",
            str(cases),
            "--target",
            target,
            "--concurrency",
            "1",
            "--no-cache",
            "--out",
            str(tmp_path / "out.jsonl"),
        ]
    )
    assert code == 1
    said = capsys.readouterr().err.splitlines()
    assert said[:2] == [
        f"lmml: error: {cases}:2: {target}: openai refused the request (400): no such model",
        f"lmml: error: {cases}:3: {target}: invalid_input: the 'photo' path '../secret.png' "
        "is refused: the name has a '..' segment; a path in a values file names a file "
        f"inside '{tmp_path}' (write it relative to the values file's folder (or "
        "--base-dir), or give the file itself with --input NAME=@PATH)",
    ]
    assert said[2].startswith("1 row(s): 1 passed")


def test_with_every_case_refused_there_is_no_rate_to_say(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"city": 3}) + "\n", encoding="utf-8")
    argv = ["eval", str(tmp_path / "t.lmml"), "--cases", str(cases), "--no-cache"]
    target = f"openai:m@{server.url}/v1"
    out = str(tmp_path / "out.jsonl")
    assert main([*argv, "--target", target, "--out", out, "--fail-under", "0.5"]) == 1
    said = capsys.readouterr().err.splitlines()
    assert said[-1].startswith("0 row(s): 0 passed") and said[-1].endswith("; no row to rate")
    assert "pass rate" not in said[-1] and server.requests == []


def _eval_folder(folder: Path, out: Path, target: str, *more: str) -> int:
    argv = ["eval", str(folder), "--target", target, "--concurrency", "1", "--no-cache"]
    return main([*argv, "--out", str(out), *more])


def test_a_bundle_of_a_folder_that_fails_is_reported_under_its_own_path(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no --cases, a bundle that opens but does not render is named by its own path,
    line and column (as ``lmml export`` names it), and one whose send fails by its path;
    never by the folder and the case's number."""
    runs = tmp_path / "runs"
    (runs / "sub").mkdir(parents=True)
    (runs / "a.lmml").write_text("## user\n\nCapital of France?\n", encoding="utf-8")
    (runs / "sub" / "b.lmml").write_text("## user\n\nping @someone\n", encoding="utf-8")
    target = f"openai:m@{server.url}/v1"
    server.script(Json(error_body("openai", 400, "no such model"), status=400))
    # --references any reads @someone as a reference, which names no file.
    assert _eval_folder(runs, tmp_path / "out.jsonl", target, "--references", "any") == 1
    said = capsys.readouterr().err.splitlines()
    assert said[:2] == [
        f"lmml: error: {runs / 'a.lmml'}: {target}: openai refused the request (400): "
        "no such model",
        f"lmml: error: {runs / 'sub' / 'b.lmml'}:3:6: {target}: missing_reference: no file "
        f"'someone' in the folder {runs / 'sub'}; add it or fix the name; if it is not meant "
        "as an asset, escape the mention as \\@someone (fix it, or add --force to send "
        "anyway)",
    ]
    assert f"{runs}:" not in "\n".join(said)
    assert len(server.requests) == 1


def test_a_folder_of_bundles_is_parsed_with_delimiters_and_references(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no --cases, --delimiters and --references reach every bundle of the folder,
    as they reach those of ``lmml export``."""
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.lmml").write_text("### Question from the user\n\nping @someone\n", "utf-8")
    target = f"openai:m@{server.url}/v1"
    server.script(openai_chat(Said(["pong"]), stream=False))
    assert _eval_folder(runs, tmp_path / "strict.jsonl", target) == 0
    server.script(openai_chat(Said(["pong"]), stream=False))
    assert _eval_folder(runs, tmp_path / "loose.jsonl", target, "--delimiters", "loose") == 0
    strict, loose = (request.body["messages"] for request in server.requests)
    assert [message["role"] for message in strict] == ["system"]  # no delimiter
    assert [message["role"] for message in loose] == ["user"]  # the heading opens a turn
    assert "ping @someone" in json.dumps(loose)
    capsys.readouterr()
    # --references any: @someone is a reference, to no file: the case gets no row.
    assert _eval_folder(runs, tmp_path / "any.jsonl", target, "--references", "any") == 1
    assert f"{runs / 'a.lmml'}:3:6: {target}: missing_reference:" in capsys.readouterr().err
    assert len(server.requests) == 2
