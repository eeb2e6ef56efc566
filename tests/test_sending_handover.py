"""How a request body is handed to an SDK method (``split_known``): lists through the SDK's
``extra_body`` so the SDK does not convert the conversation, everything else as keyword
arguments; a method without ``extra_body`` (a client of the user's own) gets plain keywords.
The bytes on the wire are checked against ``to_request`` in tests/test_run.py."""

from __future__ import annotations

import pytest

from lmml_mdit.chat.providers.sending import split_known

BODY = {
    "model": "m",
    "messages": [{"role": "user", "content": "hi"}],
    "temperature": 0.5,
    "stop": ["x"],
    "custom_flag": True,
}


def test_the_openai_sdk_gets_the_lists_untouched_in_extra_body() -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9/v1")
    handed = split_known(client.chat.completions.create, BODY)
    assert handed["model"] == "m" and handed["temperature"] == 0.5
    assert handed["messages"] is openai.NOT_GIVEN  # required, so named, and not converted
    assert handed["extra_body"] == {
        "messages": BODY["messages"],
        "stop": ["x"],
        "custom_flag": True,  # no parameter of its own: passed through as before
    }
    assert "stop" not in handed


def test_the_anthropic_sdk_keeps_the_values_it_reads_as_keywords() -> None:
    anthropic = pytest.importorskip("anthropic")
    client = anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9")
    body = {
        "model": "m",
        "max_tokens": 5,
        "messages": [],
        "system": [{"type": "text", "text": "s"}],
        "thinking": {"type": "enabled", "budget_tokens": 10},
    }
    handed = split_known(client.messages.create, body)
    assert (handed["model"], handed["max_tokens"]) == ("m", 5)
    assert handed["thinking"] == body["thinking"]
    assert handed["messages"] is anthropic.NOT_GIVEN
    assert handed["extra_body"] == {"messages": [], "system": body["system"]}


def test_a_method_without_extra_body_gets_plain_keywords() -> None:
    def create(*, model: str, messages: list[object], temperature: float = 1.0) -> None:
        del model, messages, temperature

    handed = split_known(create, {"model": "m", "messages": [], "temperature": 0.1})
    assert handed == {"model": "m", "messages": [], "temperature": 0.1}


def test_a_method_of_a_package_without_not_given_keeps_required_lists() -> None:
    def create(*, model: str, messages: list[object], extra_body: object = None) -> None:
        del model, messages, extra_body

    handed = split_known(create, {"model": "m", "messages": [1], "tools": [2]})
    assert handed == {"model": "m", "messages": [1], "extra_body": {"tools": [2]}}
