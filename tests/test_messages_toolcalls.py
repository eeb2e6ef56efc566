"""The tool-call convention: reading calls and results, writing fences, validation issues."""

from __future__ import annotations

import json

import pytest

from lmml_mdit import ToolCall, parse, tool_call_fence, tool_call_issues
from lmml_mdit.errors import InvalidToolCallError
from lmml_mdit.narrative import (
    call_slug,
    tool_calls,
    tool_result_call,
    tool_result_reference,
)

CONVERSATION = """## Turn 1 -- user
Weather in Paris?

## Turn 2 -- assistant
Let me check.

@@@call_1.tool_call.json
{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}, "type": "function"}
@@@

## Turn 3 -- tool

@call_1.tool_call.json

Sunny, 21 C. @chart.png
"""


def test_calls_and_results_are_read() -> None:
    narrative = parse(CONVERSATION)
    [call] = tool_calls(narrative)
    assert call == ToolCall(
        id="call_1",
        name="get_weather",
        arguments={"city": "Paris"},
        embed_name="call_1.tool_call.json",
        line=7,
        extra={"type": "function"},
    )
    assert call.arguments_json == '{"city": "Paris"}'
    tool_turn = narrative.turns[2]
    assert tool_result_call(tool_turn, narrative) == call
    assert tool_result_call(narrative.turns[0], narrative) is None
    assert tool_call_issues(narrative) == []


@pytest.mark.parametrize(
    ("call_id", "slug"),
    [
        ("call_1", "call_1"),
        ("toolu_01A", "toolu_01A"),
        ("call 9/x", "call_9_x"),
        ("_hidden", "call__hidden"),
        ("", "call_"),
        ("é1", "call__1"),
    ],
)
def test_call_slug(call_id: str, slug: str) -> None:
    assert call_slug(call_id) == slug


def test_fence_round_trips_through_the_parser() -> None:
    name, fence = tool_call_fence("id 7", "f", {"q": "a@b"}, extra={"type": "function"})
    assert name == "id_7.tool_call.json"
    narrative = parse(f"## assistant\n{fence}\n## tool\n@{name}\n\nresult\n")
    [call] = tool_calls(narrative)
    assert (call.id, call.name, call.arguments, dict(call.extra)) == (
        "id 7",
        "f",
        {"q": "a@b"},
        {"type": "function"},
    )
    assert tool_result_call(narrative.turns[1], narrative) == call


def test_string_arguments_are_kept() -> None:
    _, fence = tool_call_fence("k", "f", "{broken")
    [call] = tool_calls(parse(f"## assistant\n{fence}"))
    assert call.arguments == "{broken" and call.arguments_json == "{broken"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("{nope", "not valid JSON"),
        ("[1]", "not a JSON object"),
        ('{"id": "a", "name": "f"}', "lacks 'arguments'"),
        ('{"id": 1, "name": "f", "arguments": {}}', "must be strings"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ],
    ids=["json", "object", "key", "types", "deep"],
)
def test_malformed_calls(body: str, message: str) -> None:
    narrative = parse(f"## assistant\n@@@a.tool_call.json\n{body}\n@@@\n")
    with pytest.raises(InvalidToolCallError, match=message) as error:
        tool_calls(narrative)
    assert error.value.line == 2 and error.value.name == "a.tool_call.json"
    [issue] = [i for i in tool_call_issues(narrative) if i.kind == "invalid_tool_call"]
    assert issue.line == 2


def test_unanswered_and_unknown_ids() -> None:
    text = (
        "## assistant\n"
        + tool_call_fence("a", "f", {})[1]
        + tool_call_fence("b", "g", {})[1]
        + "\n## tool\n@a.tool_call.json\n\nok\n"
        + "\n## tool\n@zzz.tool_call.json\n\nlost\n"
        + "\n## tool\nno reference here\n"
    )
    issues = tool_call_issues(parse(text))
    assert [(i.kind, i.name, i.line) for i in issues] == [
        ("unanswered_tool_call", "b.tool_call.json", 5),
        ("unknown_tool_call_id", "zzz.tool_call.json", 15),
        ("unknown_tool_call_id", "", 19),
    ]
    assert "@b.tool_call.json" in issues[0].message


def test_reference_must_be_alone_on_the_first_line() -> None:
    narrative = parse(
        "## assistant\n"
        + tool_call_fence("a", "f", {})[1]
        + "## tool\nsee @a.tool_call.json\n\n## tool\n    @a.tool_call.json\n"
    )
    assert tool_result_call(narrative.turns[1], narrative) is None
    # An indented code block is not a reference, even if it looks like one.
    assert tool_result_call(narrative.turns[2], narrative) is None
    kinds = [issue.kind for issue in tool_call_issues(narrative)]
    assert kinds == ["unanswered_tool_call", "unknown_tool_call_id", "unknown_tool_call_id"]


def test_result_reference_names_the_call_and_its_line() -> None:
    narrative = parse(CONVERSATION)
    # Turn 3's region starts with a blank line: the reference stands on line 13.
    assert tool_result_reference(narrative.turns[2], narrative) == ("call_1.tool_call.json", 13)
    assert tool_result_reference(narrative.turns[1], narrative) is None  # not a tool turn


@pytest.mark.parametrize(
    "first_line",
    [
        "@a.tool_call.json.",  # trailing punctuation is not part of the name
        "@a.tool_call.json and more",
        "`@a.tool_call.json`",  # a code span holds no reference
        "```\n@a.tool_call.json\n```",  # nor does a fenced code block
        "@chart.png",  # a reference, but not to a call
        "\\@a.tool_call.json",  # an escaped sigil
    ],
    ids=["punctuation", "more", "span", "fenced", "asset", "escaped"],
)
def test_result_reference_needs_a_lone_call_reference(first_line: str) -> None:
    narrative = parse(
        "## assistant\n" + tool_call_fence("a", "f", {})[1] + f"## tool\n\n{first_line}\n"
    )
    assert tool_result_reference(narrative.turns[1], narrative) is None


def test_empty_tool_turn_answers_nothing() -> None:
    narrative = parse("## tool\n\n## user\nhi\n")
    assert tool_result_reference(narrative.turns[0], narrative) is None


def test_calls_only_count_in_assistant_turns() -> None:
    narrative = parse(
        '## user\n@@@a.tool_call.json\n{"id": "a", "name": "f", "arguments": {}}\n@@@\n'
    )
    assert tool_calls(narrative) == []
    assert json.loads(tool_call_fence("x", "f", {"k": [1]})[1].splitlines()[1])["arguments"] == {
        "k": [1]
    }
