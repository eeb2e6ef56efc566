"""``lmml eval --base-dir DIR``: the folder a case's ``image``, ``file`` and ``messages``
paths are held inside, as ``lmml render --base-dir`` holds a cases file's paths (by
default the cases file's own folder); a path leading out of it is still that case's error.
With no ``--cases``, the folder every bare ``.lmml`` of PATH resolves its references
against. Run in-process against the loopback server."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
from _wire_server import Said, WireServer, openai_chat

from lmml_mdit.cli import main

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

TEMPLATE = """\
---
inputs:
  city: string
  photo: image
expect:
  - contains: Paris
---
## user

What is the capital of {{ city }}?
{{ photo }}
"""

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")


def _folders(tmp_path: Path) -> None:
    """``t.lmml``; ``shots/p.png`` and ``shots/leak.png`` (a link to ``secret.png``, out
    of ``shots``); ``cases/cases.jsonl`` naming both, beside a link ``cases/p.png`` to
    ``shots/p.png`` (out of ``cases``)."""
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    (tmp_path / "secret.png").write_bytes(PNG)
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "p.png").write_bytes(PNG)
    (shots / "leak.png").symlink_to(tmp_path / "secret.png")
    cases = tmp_path / "cases"
    cases.mkdir()
    (cases / "p.png").symlink_to(shots / "p.png")
    lines = [{"city": "France", "photo": "p.png"}, {"city": "Peru", "photo": "leak.png"}]
    (cases / "cases.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )


def _eval(tmp_path: Path, server: WireServer, out: str, *more: str) -> int:
    return main(
        [
            "eval",
            str(tmp_path / "t.lmml"),
            "--cases",
            str(tmp_path / "cases" / "cases.jsonl"),
            "--target",
            f"openai:m@{server.url}/v1",
            "--concurrency",
            "1",
            "--no-cache",
            "--out",
            str(tmp_path / out),
            *more,
        ]
    )


def test_a_case_path_is_held_inside_the_cases_folder_or_base_dir(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _folders(tmp_path)
    # Without --base-dir: p.png beside the cases file leads out of their folder.
    assert _eval(tmp_path, server, "a.jsonl") == 1
    said = capsys.readouterr().err
    assert "cases.jsonl:1:" in said and "'p.png' is refused: it leads outside" in said
    assert "cases.jsonl:2:" in said and "leak.png" in said
    assert server.requests == []
    # With --base-dir naming the images' folder: p.png there is read and sent; leak.png,
    # a link leading out of that folder, is still refused.
    server.script(openai_chat(Said(["Paris"]), stream=False))
    assert _eval(tmp_path, server, "b.jsonl", "--base-dir", str(tmp_path / "shots")) == 1
    said = capsys.readouterr().err
    assert "cases.jsonl:1:" not in said
    assert "cases.jsonl:2:" in said and "leak.png" in said
    [request] = server.requests
    content = request.body["messages"][0]["content"]
    assert [part["type"] for part in content] == ["text", "image_url"]
    assert base64.b64encode(PNG).decode() in content[1]["image_url"]["url"]
    rows = (tmp_path / "b.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(row)["case"] for row in rows] == [1]


def test_eval_help_says_what_base_dir_holds(capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status: object = main(["eval", "--help"])
    except SystemExit as done:
        status = done.code
    assert status == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "hold an image, file or messages path of a --cases file inside DIR" in text


def test_a_folder_of_bundles_resolves_its_references_against_base_dir(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """With no --cases, --base-dir is the folder every bare .lmml of PATH resolves its
    references against, as for ``lmml render --base-dir``: ``runs/a.lmml`` names
    ``p.png``, beside it only a link leading out of ``runs`` to ``shots/p.png``."""
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "p.png").write_bytes(PNG)
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "p.png").symlink_to(shots / "p.png")
    (runs / "a.lmml").write_text(
        "---\nexpect:\n  - contains: Paris\n---\n## user\n\nWhat is this?\n\n@p.png\n",
        encoding="utf-8",
    )

    def run(out: str, *more: str) -> int:
        return main(
            [
                "eval",
                str(runs),
                "--target",
                f"openai:m@{server.url}/v1",
                "--no-cache",
                "--out",
                str(tmp_path / out),
                *more,
            ]
        )

    # Without --base-dir: the link leads out of the bundle's own folder, and is refused.
    assert run("a.jsonl") == 1
    said = capsys.readouterr().err
    assert (
        f"lmml: error: {runs / 'a.lmml'}:9:1: openai:m@{server.url}/v1: missing_reference: " in said
    )
    assert "'p.png' leads outside the folder" in said and f"{runs}:1: " not in said
    assert server.requests == []
    # With --base-dir naming the images' folder: p.png there is read and sent.
    server.script(openai_chat(Said(["Paris"]), stream=False))
    assert run("b.jsonl", "--base-dir", str(shots)) == 0
    assert "error" not in capsys.readouterr().err
    [request] = server.requests
    content = request.body["messages"][0]["content"]
    assert [part["type"] for part in content] == ["text", "image_url"]
    assert base64.b64encode(PNG).decode() in content[1]["image_url"]["url"]
    rows = (tmp_path / "b.jsonl").read_text(encoding="utf-8").splitlines()
    assert [(json.loads(row)["bundle"], json.loads(row)["passed"]) for row in rows] == [
        ("a.lmml", True)
    ]


def test_a_base_dir_that_is_no_folder_is_refused_with_a_folder_of_bundles(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    nowhere = tmp_path / "nowhere"
    argv = ["eval", str(runs), "--target", f"openai:m@{server.url}/v1", "--base-dir"]
    assert main([*argv, str(nowhere)]) == 2
    said = capsys.readouterr().err
    assert f"--base-dir {nowhere}: not a folder" in said
    assert server.requests == []
