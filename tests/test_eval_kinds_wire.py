"""Every assertion kind, passing and failing, on answers the real OpenAI and Anthropic
SDKs read from the loopback server, through ``lmml eval`` (the kinds themselves are
checked one by one in tests/test_eval_assertions.py): each row holds its kind's verdict
with a reason, and a ``judge`` is asked through the SDK too."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from _eval_template import TEMPLATE
from _wire_server import Answer, Said, WireServer, anthropic, base_url, openai_chat

from lmml_mdit.cli import main

SCHEMA = {"type": "object", "required": ["a"]}
NEEDS_CITY = {"type": "object", "required": ["city"]}
WEATHER = [("c1", "weather", {"city": "Paris"})]

KINDS: list[tuple[dict[str, object], Said, Said]] = [
    # (the assertion, an answer it passes, an answer it fails)
    ({"equals": "Paris"}, Said(["Paris"]), Said(["Lima"])),
    ({"contains": "ari"}, Said(["Paris"]), Said(["Lima"])),
    ({"not-contains": "Lima"}, Said(["Paris"]), Said(["Lima"])),
    ({"regex": "^P"}, Said(["Paris"]), Said(["Lima"])),
    ({"json": True}, Said(['{"a": 1}']), Said(["Paris"])),
    ({"json-schema": SCHEMA}, Said(['{"a": 1}']), Said(['{"b": 1}'])),
    (
        {"tool-call": {"name": "weather", "arguments": {"city": "Paris"}}},
        Said(calls=WEATHER),
        Said(calls=[("c1", "weather", {"city": "Lima"})]),
    ),
    (
        {"tool-call": {"name": "weather", "schema": NEEDS_CITY}},
        Said(calls=WEATHER),
        Said(calls=[("c1", "weather", {})]),
    ),
    ({"tool-call": "weather"}, Said(calls=WEATHER), Said(["Paris"])),
    ({"max-latency": 60}, Said(["Paris"]), None),  # fails below: max-latency 0
    ({"max-tokens": 7}, Said(["Paris"], output_tokens=7), Said(["Paris"], output_tokens=8)),
    ({"judge": "Names the capital."}, Said(["Paris"]), Said(["Lima"])),
]


@pytest.mark.parametrize(("provider", "reply"), [("openai", openai_chat), ("anthropic", anthropic)])
def test_every_kind_passes_and_fails_on_answers_the_sdk_read(
    tmp_path: Path,
    server: WireServer,
    provider: str,
    reply: Callable[..., Answer],
) -> None:
    cases: list[dict[str, object]] = []
    for kind, passing, failing in KINDS:
        for said, verdict in ((passing, "PASS"), (failing, "FAIL")):
            expect = kind if failing is not None or verdict == "PASS" else {"max-latency": 0}
            cases.append({"city": "France", "expect": [expect]})
            server.script(reply(said or passing, stream=False))
            if "judge" in kind:  # the judge (the first target) answers right after
                server.script(reply(Said([f"{verdict}\nas asked"]), stream=False))
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(case) + "\n" for case in cases), encoding="utf-8")
    target = f"{provider}:m@{base_url(server, provider)}"
    out = tmp_path / "out.jsonl"
    arguments = ["eval", str(tmp_path / "t.lmml"), "--cases", str(path), "--target", target]
    arguments += ["--out", str(out), "--concurrency", "1", "--no-cache", "--retries", "0"]
    assert main([*arguments, "--set", "max_tokens=50", "-q"]) == 1
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == len(cases) == len(server.requests) - 2  # and the two judge prompts
    for row, case in zip(rows, cases, strict=True):
        (verdict,) = row["assertions"]
        (expect,) = case["expect"]  # type: ignore[misc]
        assert verdict["kind"] == next(iter(expect)) and verdict["reason"], row
        assert verdict["passed"] is (row["case"] % 2 == 1) is row["passed"], row
    judged = [request for request in server.requests if "Names the capital." in str(request.body)]
    assert len(judged) == 2  # the rubric went to the judge, through the SDK
