"""Flattening for strict chat templates: pure, idempotent, flag-selected."""

from __future__ import annotations

import copy
import re
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lmml_mdit.chat import (
    OPENING_USER_PLACEHOLDER,
    FlattenFlags,
    detect_template_flags,
    ensure_user_first,
    flatten,
    fold_system,
    fold_tools,
    merge_same_role,
)
from lmml_mdit.errors import ChatTemplateError, TranscriptTypeError


def msg(role: str, content: Any, author: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": content}
    if author is not None:
        message["author"] = author
    return message


def roles(messages: list[dict[str, Any]]) -> list[str]:
    return [message["role"] for message in messages]


def alternates(messages: list[dict[str, Any]]) -> bool:
    body = messages[1:] if messages and messages[0]["role"] == "system" else messages
    return (
        bool(body)
        and body[0]["role"] == "user"
        and all(a["role"] != b["role"] for a, b in pairwise(body))
    )


GEMMA2 = {"fold_system": True, "merge": True, "user_first": True}
GEMMA3 = {"fold_system": False, "merge": True, "user_first": True}

OPENER = [
    msg("system", "SYS rules + your private sheet"),
    msg("assistant", "my round-1 proposal"),
    msg("user", "[Blake] counter\n\n[Casey] walk\n\nYour turn (round 2)."),
]


# --- fold_system -------------------------------------------------------------------------


def test_fold_system_into_the_opening_user_turn() -> None:
    out = fold_system([msg("system", "SYS"), msg("user", "hi", "bob"), msg("assistant", "yo")])
    assert out == [msg("user", "SYS\n\nhi"), msg("assistant", "yo")]


def test_fold_system_prepends_when_the_view_opens_on_the_model() -> None:
    out = fold_system(OPENER)
    assert out[0] == msg("user", "SYS rules + your private sheet")
    assert out[1:] == OPENER[1:]


def test_fold_system_joins_several_leading_system_messages_and_drops_empty_ones() -> None:
    out = fold_system([msg("system", "A"), msg("system", ""), msg("system", "B"), msg("user", "u")])
    assert out == [msg("user", "A\n\nB\n\nu")]


def test_fold_system_with_only_empty_system_text_keeps_the_rest() -> None:
    assert fold_system([msg("system", ""), msg("user", "u")]) == [msg("user", "u")]


def test_fold_system_turns_a_later_system_message_into_user() -> None:
    out = fold_system([msg("user", "u"), msg("system", "late", "x")])
    assert out == [msg("user", "u"), msg("user", "late")]


def test_fold_system_of_only_system_text() -> None:
    assert fold_system([msg("system", "S")]) == [msg("user", "S")]
    assert fold_system([]) == []


# --- merge_same_role ---------------------------------------------------------------------


def test_merge_labels_a_run_with_several_authors() -> None:
    out = merge_same_role([msg("user", "vote left", "bob"), msg("user", "vote right", "carol")])
    assert out == [msg("user", "bob: vote left\n\ncarol: vote right")]


def test_merge_does_not_label_a_run_with_one_author() -> None:
    out = merge_same_role([msg("assistant", "my proposal", "a"), msg("assistant", "my vote", "a")])
    assert out == [msg("assistant", "my proposal\n\nmy vote")]


def test_merge_leaves_unlabelled_parts_bare() -> None:
    out = merge_same_role([msg("user", "GO"), msg("user", "B1", "b"), msg("user", "C1", "c")])
    assert out == [msg("user", "GO\n\nb: B1\n\nc: C1")]


def test_merge_without_labels() -> None:
    out = merge_same_role([msg("user", "x", "bob"), msg("user", "y", "carol")], label_authors=False)
    assert out == [msg("user", "x\n\ny")]


def test_merge_never_joins_tool_or_system_messages() -> None:
    view = [msg("tool", "r1"), msg("tool", "r2"), msg("system", "a"), msg("system", "b")]
    assert merge_same_role(view) == view


def test_merge_concatenates_part_lists() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:x"}}
    out = merge_same_role([msg("user", [image], "a"), msg("user", "words", "b")])
    assert out == [
        msg(
            "user",
            [
                {"type": "text", "text": "a: "},
                image,
                {"type": "text", "text": "\n\n"},
                {"type": "text", "text": "b: words"},
            ],
        )
    ]


# --- ensure_user_first -------------------------------------------------------------------


def test_user_first_inserts_the_placeholder_after_a_system_message() -> None:
    out = ensure_user_first(OPENER)
    assert roles(out) == ["system", "user", "assistant", "user"]
    assert out[1] == msg("user", OPENING_USER_PLACEHOLDER)
    assert out[2] == OPENER[1]


def test_user_first_without_system() -> None:
    out = ensure_user_first([msg("assistant", "my turn"), msg("user", "go")])
    assert out == [
        msg("user", OPENING_USER_PLACEHOLDER),
        msg("assistant", "my turn"),
        msg("user", "go"),
    ]


def test_user_first_leaves_empty_and_system_only_lists() -> None:
    assert ensure_user_first([]) == []
    assert ensure_user_first([msg("system", "s")]) == [msg("system", "s")]


def test_user_first_custom_placeholder() -> None:
    out = ensure_user_first([msg("assistant", "a")], placeholder="Go on.")
    assert out[0] == msg("user", "Go on.")


# --- flatten (the interlens vectors, quirks fixed) ---------------------------------------


def test_gemma2_folds_system_and_merges_without_a_label_on_system_text() -> None:
    view = [
        msg("system", "SYS"),
        msg("user", "moderator Q", "moderator"),
        msg("user", "alice turn", "alice"),
        msg("assistant", "bob turn", "bob"),
    ]
    out = flatten(view, **GEMMA2)
    assert roles(out) == ["user", "assistant"]
    # interlens gave "moderator: SYS\n\n..." here; system text never carries a label.
    assert out[0]["content"] == "SYS\n\nmoderator: moderator Q\n\nalice: alice turn"


def test_gemma2_worked_example() -> None:
    view = [
        msg("system", "ALICE-SYS\n\nSHARED-SYS"),
        msg("user", "BRIEF", "moderator"),
        msg("user", "TOPIC", "moderator"),
        msg("user", "bob1", "bob"),
        msg("assistant", "alice1", "alice"),
        msg("user", "bob2", "bob"),
    ]
    assert flatten(view, **GEMMA2) == [
        msg("user", "ALICE-SYS\n\nSHARED-SYS\n\nmoderator: BRIEF\n\nmoderator: TOPIC\n\nbob: bob1"),
        msg("assistant", "alice1"),
        msg("user", "bob2"),
    ]


def test_three_party_strict() -> None:
    view = [
        msg("user", "GO", "moderator"),
        msg("user", "B1", "b"),
        msg("assistant", "A1", "a"),
        msg("user", "C1", "c"),
        msg("user", "B2", "b"),
    ]
    assert flatten(view, merge=True, user_first=True) == [
        msg("user", "moderator: GO\n\nb: B1"),
        msg("assistant", "A1"),
        msg("user", "c: C1\n\nb: B2"),
    ]


def test_own_turn_first_strict_with_system_support() -> None:
    view = [msg("assistant", "X1"), msg("user", "Y1")]
    assert flatten(view, **GEMMA3) == [
        msg("user", OPENING_USER_PLACEHOLDER),
        msg("assistant", "X1"),
        msg("user", "Y1"),
    ]


def test_own_turn_first_without_system_support_needs_no_placeholder() -> None:
    view = [msg("system", "SYS"), msg("assistant", "X1"), msg("user", "Y1")]
    assert flatten(view, **GEMMA2) == [
        msg("user", "SYS"),
        msg("assistant", "X1"),
        msg("user", "Y1"),
    ]


def test_gemma3_keeps_system_and_gemma2_folds_it() -> None:
    gemma3 = flatten(OPENER, **GEMMA3)
    gemma2 = flatten(OPENER, **GEMMA2)
    assert roles(gemma3)[:2] == ["system", "user"]
    assert roles(gemma2)[:2] == ["user", "assistant"]
    assert "SYS rules" in gemma3[0]["content"]
    assert gemma2[0] == msg("user", "SYS rules + your private sheet")
    assert alternates(gemma3) and alternates(gemma2)


def test_speaks_twice_in_a_row() -> None:
    view = [
        msg("system", "s"),
        msg("user", "u"),
        msg("assistant", "my proposal"),
        msg("assistant", "my vote"),
        msg("user", "next"),
    ]
    out = flatten(view, **GEMMA3)
    assert out[2] == msg("assistant", "my proposal\n\nmy vote")
    assert alternates(out)


def test_strict_turns_a_mid_view_system_message_into_user() -> None:
    view = [msg("system", "s"), msg("user", "u"), msg("system", "protocol"), msg("assistant", "a")]
    out = flatten(view, **GEMMA3)
    assert out == [msg("system", "s"), msg("user", "u\n\nprotocol"), msg("assistant", "a")]


def test_strict_joins_several_leading_system_messages() -> None:
    out = flatten([msg("system", "a"), msg("system", "b"), msg("user", "u")], **GEMMA3)
    assert out == [msg("system", "a\n\nb"), msg("user", "u")]


def test_permissive_flags_change_nothing_but_drop_authors() -> None:
    view = [msg("assistant", "X1", "x"), msg("user", "Y1", "y"), msg("user", "Y2", "y")]
    assert flatten(view) == [msg("assistant", "X1"), msg("user", "Y1"), msg("user", "Y2")]


def test_a_well_formed_view_is_untouched() -> None:
    view = [msg("system", "s"), msg("user", "u"), msg("assistant", "a"), msg("user", "v")]
    assert flatten(view, **GEMMA3) == view


def test_flatten_does_not_change_its_input() -> None:
    view = [msg("system", "S"), msg("user", ["x"], "a"), msg("user", "y", "b")]
    before = copy.deepcopy(view)
    flatten(view, **GEMMA2)
    fold_system(view)
    merge_same_role(view)
    ensure_user_first(view)
    assert view == before


ROLE = st.sampled_from(["system", "user", "assistant", "tool"])
AUTHOR = st.one_of(st.none(), st.sampled_from(["alice", "bob", "moderator"]))
MESSAGES = st.lists(
    st.builds(msg, ROLE, st.text(max_size=8), AUTHOR),
    max_size=8,
)
FLAGS = st.fixed_dictionaries(
    {"fold_system": st.booleans(), "merge": st.booleans(), "user_first": st.booleans()}
)


@given(MESSAGES, FLAGS)
def test_flatten_is_idempotent(view: list[dict[str, Any]], flags: dict[str, bool]) -> None:
    once = flatten(view, **flags)
    assert flatten(once, **flags) == once
    assert all("author" not in message for message in once)


@given(MESSAGES)
def test_each_step_is_idempotent(view: list[dict[str, Any]]) -> None:
    for step in (fold_system, merge_same_role, ensure_user_first):
        once = step(view)
        assert step(once) == once


@given(MESSAGES)
def test_strict_flags_give_alternation_without_tools(view: list[dict[str, Any]]) -> None:
    view = [message for message in view if message["role"] != "tool"]
    out = flatten(view, **GEMMA2)
    assert "system" not in roles(out)
    assert not out or alternates(out)
    out3 = flatten(view, **GEMMA3)
    assert "system" not in roles(out3)[1:]
    assert len(out3) <= 1 or alternates(out3)


# --- detect_template_flags ---------------------------------------------------------------


class _Template:
    def __init__(self, *, system: bool, strict: bool) -> None:
        self.system = system
        self.strict = strict
        self.calls: list[dict[str, Any]] = []

    def apply_chat_template(self, messages: list[dict[str, Any]], **kwargs: Any) -> str:
        self.calls.append(kwargs)
        if not self.system and any(m["role"] == "system" for m in messages):
            raise ValueError("System role not supported")
        if self.strict and any(a["role"] == b["role"] for a, b in pairwise(messages)):
            raise ValueError("Conversation roles must alternate user/assistant/user/assistant")
        return "".join(m["content"] for m in messages)


@pytest.mark.parametrize(
    ("system", "strict"), [(False, True), (True, True), (True, False), (False, False)]
)
def test_detect_template_flags(system: bool, strict: bool) -> None:
    tokenizer = _Template(system=system, strict=strict)
    # The stand-in shows no tool calls (it joins the contents, so it takes no list of
    # parts either), and a system message midway whenever it takes one at all.
    assert detect_template_flags(tokenizer) == FlattenFlags(
        system,
        strict,
        supports_tool_calls=False,
        supports_system_midway=system,
        supports_content_parts=False,
    )
    # every probe asks for text; one renders a finished conversation, without the opening
    # of the model's next turn
    assert all(call.keys() == {"tokenize", "add_generation_prompt"} for call in tokenizer.calls)
    assert all(call["tokenize"] is False for call in tokenizer.calls)
    assert sum(not call["add_generation_prompt"] for call in tokenizer.calls) == int(system)


@pytest.mark.parametrize("step", [flatten, fold_system, merge_same_role, ensure_user_first])
@pytest.mark.parametrize(
    ("messages", "pattern"),
    [
        ("user: hi", "must be a list of dicts, not str"),
        ([1], "message 0 must be a dict with a string role"),
        ([{"content": "x"}], "message 0 must be a dict with a string role"),
        ([{"role": "user", "content": "a"}, {"role": "user", "content": 3}], "message 1 content"),
    ],
)
def test_bad_messages_are_refused_clearly(step: Any, messages: Any, pattern: str) -> None:
    with pytest.raises(TranscriptTypeError, match=pattern):
        step(messages)


class _Rendering:
    """A tokenizer stand-in rendering with a fixed function."""

    def __init__(self, render: Any) -> None:
        self.render = render

    def apply_chat_template(self, messages: list[dict[str, Any]], **_: Any) -> str:
        return str(self.render(messages))


def test_a_template_that_drops_the_system_text_gets_it_folded() -> None:
    # Renders a system message without error but writes a fixed prompt in its place.
    overriding = _Rendering(
        lambda ms: "".join(
            "<sys>You are a helpful assistant.</sys>" if m["role"] == "system" else m["content"]
            for m in ms
        )
    )
    keeping = _Rendering(lambda ms: "".join(f"<{m['role']}>{m['content']}" for m in ms))
    # Neither shows a tool call's name (only contents), so both get their tools folded;
    # the first joins contents as strings, the second prints a list of parts whole.
    assert detect_template_flags(overriding) == FlattenFlags(
        False,
        False,
        supports_tool_calls=False,
        supports_system_midway=False,
        supports_content_parts=False,
    )
    assert detect_template_flags(keeping) == FlattenFlags(
        True, False, supports_tool_calls=False, supports_content_parts=False
    )


def test_tool_calls_and_a_later_system_message_are_detected() -> None:
    def shows_all(ms: list[dict[str, Any]]) -> str:
        return "".join(
            f"<{m['role']}>{m['content']}{m.get('tool_calls', '')}{m.get('name', '')}" for m in ms
        )

    def first_system_only(ms: list[dict[str, Any]]) -> str:
        system = [m["content"] for m in ms if m["role"] == "system"][-1:]  # the last one wins
        return "".join(system) + "".join(m["content"] for m in ms if m["role"] != "system")

    # it prints a list of parts whole, so contents are given to it as strings
    assert detect_template_flags(_Rendering(shows_all)) == FlattenFlags(
        supports_content_parts=False
    )
    flags = detect_template_flags(_Rendering(first_system_only))
    assert flags.supports_system_role and not flags.supports_system_midway
    view = flatten(TOOL_CONVERSATION, flags=flags)
    assert [m["role"] for m in view] == ["system", "user", "assistant", "user", "user", "assistant"]
    assert view[3]["content"].startswith("[tool result get_weather]")


TOOL_CONVERSATION = [
    msg("system", "You check the weather."),
    msg("user", "Weather in Paris?"),
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "type": "function",
                "function": {"name": "get_weather", "arguments": {"city": "Paris"}},
            }
        ],
    },
    {"role": "tool", "name": "get_weather", "content": "18C and sunny"},
    msg("system", "Answer in French."),
    msg("assistant", "Il fait 18 degres."),
]


def test_fold_tools_writes_calls_and_results_as_text() -> None:
    out = fold_tools(TOOL_CONVERSATION)
    assert out[2] == msg("assistant", '[tool call get_weather: {"city": "Paris"}]')
    assert out[3] == msg("user", "[tool result get_weather]\n18C and sunny")
    assert fold_tools(out) == out  # idempotent
    assert TOOL_CONVERSATION[3]["role"] == "tool"  # the input is not changed


def test_a_strict_template_without_a_tool_role_renders_every_text() -> None:
    strict = _Template(system=False, strict=True)  # refuses system, needs alternation
    view = flatten(
        TOOL_CONVERSATION, fold_tools=True, fold_system=True, merge=True, user_first=True
    )
    assert all(m["role"] in ("user", "assistant") for m in view)
    assert all(a["role"] != b["role"] for a, b in pairwise(view)) and view[0]["role"] == "user"
    prompt = strict.apply_chat_template(view)
    for text in ("You check the weather.", "Weather in Paris?", "get_weather", '"Paris"',
                 "18C and sunny", "Answer in French.", "Il fait 18 degres."):  # fmt: skip
        assert text in prompt


def test_text_content_joins_the_text_parts_and_refuses_an_image() -> None:
    parts = [{"type": "text", "text": "Look "}, {"type": "text", "text": "here."}]
    view = flatten([{"role": "user", "content": parts}], text_content=True)
    assert view == [{"role": "user", "content": "Look here."}]
    assert flatten([{"role": "user", "content": parts}])[0]["content"] == parts  # kept
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}
    refused = "message 0 of the view holds a part of type 'image_url'; the template"
    with pytest.raises(ChatTemplateError, match=re.escape(refused)):
        flatten([{"role": "user", "content": [parts[0], image]}], text_content=True)
    # a template found to take no list of parts gets strings
    flags = FlattenFlags(supports_content_parts=False)
    assert flatten([{"role": "user", "content": parts}], flags=flags)[0]["content"] == "Look here."


def test_call_arguments_given_as_json_text_are_given_as_their_object() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}
    odd = {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "not json"}}
    messages = [{"role": "assistant", "content": "", "tool_calls": [call, odd]}]
    (view,) = flatten(messages)
    assert view["tool_calls"][0]["function"]["arguments"] == {"a": 1}
    assert view["tool_calls"][1] == odd  # left as it is
    assert call["function"]["arguments"] == '{"a": 1}'  # the input is not changed
    assert flatten([view]) == [view]  # idempotent


def test_arguments_nested_past_the_json_parsers_depth_are_left_as_they_are() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": deep}}
    (view,) = flatten([{"role": "assistant", "content": "", "tool_calls": [call]}])
    assert view["tool_calls"] == [call]
