"""``expect`` lists: read (every kind, every refusal with its file and line) and checked
(every kind passing and failing, with its reason)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from lmml_mdit import ExpectError, LmmlError
from lmml_mdit.eval import KINDS, Answer, Call, Verdict, check, judge_verdict, read_expect

PERSON = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}


def verdicts(expect: object, answer: Answer, judge: object = None) -> list[Verdict]:
    return asyncio.run(check(read_expect(expect), answer, judge))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("expect", "passing", "failing"),
    [
        ({"equals": "Paris"}, Answer(" Paris\n"), Answer("paris")),
        ({"contains": "Par"}, Answer("It is Paris."), Answer("Lyon")),
        ({"not-contains": "sorry"}, Answer("Paris"), Answer("I am sorry")),
        ({"regex": r"^\d{4}$"}, Answer("1889"), Answer("year 1889")),
        ({"json": True}, Answer('{"a": 1}'), Answer("{a: 1}")),
        ({"json-schema": PERSON}, Answer('{"name": "Ada"}'), Answer('{"name": 3}')),
        (
            {"tool-call": {"name": "weather", "arguments": {"city": "Paris"}}},
            Answer(
                "", (Call("c", "clock", {}), Call("c", "weather", {"city": "Paris", "days": 2}))
            ),
            Answer("", (Call("c", "weather", {"city": "Lyon"}),)),
        ),
        (
            {"tool-call": {"name": "weather", "schema": PERSON}},
            Answer("", (Call("c", "weather", {"name": "x"}),)),
            Answer("", (Call("c", "weather", {}),)),
        ),
        ({"tool-call": "weather"}, Answer("", (Call("c", "weather", {}),)), Answer("no call")),
        ({"max-latency": 1.5}, Answer("x", latency=1.5), Answer("x", latency=1.6)),
        ({"max-tokens": 10}, Answer("x", tokens=10), Answer("x", tokens=11)),
    ],
)
def test_every_kind_passes_and_fails_with_a_reason(
    expect: dict[str, object], passing: Answer, failing: Answer
) -> None:
    (good,) = verdicts([expect], passing)
    (bad,) = verdicts([expect], failing)
    assert good.passed and not bad.passed
    assert good.kind == bad.kind == next(iter(expect))
    assert good.reason and bad.reason


def test_failure_reasons_say_what_was_found() -> None:
    schema, call, tokens = verdicts(
        [
            {"json-schema": PERSON},
            {"tool-call": {"name": "weather", "arguments": {"city": "Paris"}}},
            {"max-tokens": 5},
        ],
        Answer('{"name": 3}', (Call("c", "weather", {"city": "Lyon"}),)),
    )
    assert "name" in schema.reason and "string" in schema.reason
    assert "'Lyon'" in call.reason
    assert tokens.reason == "the provider reported no output token count"


def test_a_judge_gets_the_rubric_and_the_answer_and_its_reply_decides() -> None:
    asked: list[tuple[str, str | None]] = []

    async def judge(prompt: str, target: str | None) -> str:
        asked.append((prompt, target))
        return "PASS\npolite" if "Paris" in prompt else "**FAIL**: rude"

    expect = [{"judge": {"rubric": "Is it polite?", "target": "openai:judge"}}]
    assert verdicts(expect, Answer("Paris"), judge) == [Verdict("judge", True, "polite")]
    assert verdicts(expect, Answer("Lyon"), judge) == [Verdict("judge", False, "rude")]
    assert "Is it polite?" in asked[0][0] and asked[0][1] == "openai:judge"
    with pytest.raises(ValueError, match="needs a judge"):
        verdicts([{"judge": "polite?"}], Answer("x"))


@pytest.mark.parametrize(
    ("reply", "passed"),
    [("PASS", True), ("pass - fine", True), ("Fail.", False), ("maybe", False), ("", False)],
)
def test_judge_replies(reply: str, passed: bool) -> None:
    assert judge_verdict(reply)[0] is passed


@pytest.mark.parametrize(
    ("expect", "says"),
    [
        ([{"contain": "x"}], "unknown assertion 'contain'"),
        ("contains", "expect is a list"),
        ([{"contains": "x", "equals": "y"}], "one key"),
        ([{"contains": 3}], "contains wants a string"),
        ([{"regex": "("}], "does not compile"),
        ([{"json": False}], "json takes true"),
        ([{"json-schema": {"type": "nothing"}}], "not a valid JSON Schema"),
        ([{"json-schema": "object"}], "wants a JSON Schema"),
        ([{"tool-call": {"arguments": {}}}], "tool-call wants a name"),
        ([{"tool-call": {"name": "f", "arguments": {}, "schema": {}}}], "not both"),
        ([{"tool-call": {"name": "f", "args": {}}}], "not ['args']"),
        ([{"max-latency": -1}], "at least 0"),
        ([{"max-latency": True}], "at least 0"),
        ([{"max-tokens": 2.5}], "whole number"),
        ([{"judge": {"target": "openai:x"}}], "judge wants a rubric"),
        ([{"judge": {"rubric": "r", "target": 3}}], "PROVIDER:MODEL"),
        ([{"judge": {"rubric": "r", "target": "gpt-4o"}}], "judge's target: a target is"),
        ([{"judge": {"rubric": "r", "target": "nobody:m"}}], "no sender for provider 'nobody'"),
        ([{"judge": {"rubric": "r", "target": "openai:m@host:1"}}], "starts with http://"),
    ],
)
def test_malformed_expect_names_the_file_and_line(expect: object, says: str) -> None:
    with pytest.raises(ExpectError, match=r"^cases\.jsonl:7: ") as raised:
        read_expect(expect, file="cases.jsonl", line=7)
    assert says in str(raised.value)
    assert isinstance(raised.value, LmmlError)


def test_a_mapping_reads_as_its_items_in_order() -> None:
    kinds = [a.kind for a in read_expect({"contains": "a", "max-tokens": 3})]
    assert kinds == ["contains", "max-tokens"]


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.dictionaries(st.sampled_from([*KINDS, "other"]), _JSON, max_size=2), max_size=3))
def test_any_expect_reads_or_raises_an_expect_error(expect: list[dict[str, object]]) -> None:
    try:
        read_expect(expect, file="c.jsonl", line=1)
    except ExpectError as error:
        assert str(error).startswith("c.jsonl:1: ")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=40), st.text(max_size=10))
def test_contains_and_not_contains_are_opposites(answer: str, needle: str) -> None:
    contains, missing = verdicts([{"contains": needle}, {"not-contains": needle}], Answer(answer))
    assert contains.passed is (needle in answer) is not missing.passed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_JSON)
def test_json_passes_exactly_when_the_answer_parses(value: object) -> None:
    text = json.dumps(value)
    assert verdicts([{"json": True}], Answer(text))[0].passed
    assert not verdicts([{"json": True}], Answer(text + "}"))[0].passed


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("NaN", "NaN is not a JSON number"),
        ('{"t": Infinity}', "Infinity is not a JSON number"),
        ('{"a": 1, "a": 2}', "the key 'a' appears twice"),
    ],
)
def test_json_is_strict_json(answer: str, why: str) -> None:
    # Python's json module reads these; no other JSON reader does.
    for expect in ({"json": True}, {"json-schema": {"type": ["object", "number"]}}):
        (verdict,) = verdicts([expect], Answer(answer))
        assert not verdict.passed and why in verdict.reason


def test_the_docs_table_has_a_row_for_every_kind() -> None:
    """docs/eval.md's assertion table, rendered as Sphinx's MyST renders tables: a row
    for each kind (text between its rows ends the table, and the rows after it are
    plain text)."""
    page = Path(__file__).resolve().parent.parent / "docs" / "eval.md"
    html = MarkdownIt("commonmark").enable("table").render(page.read_text(encoding="utf-8"))
    for kind in KINDS:
        assert f"<td><code>{kind}:" in html, kind
