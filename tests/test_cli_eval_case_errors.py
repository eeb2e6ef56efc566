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
