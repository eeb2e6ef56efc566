"""The keys a real payload sets on a part come back on that part: an image's ``detail``
(Chat Completions, Responses), an Anthropic block's ``cache_control`` (system, text, image,
document, tool use, tool result) and a result's ``is_error``. Each travels as a ``part`` or
``message`` fence, and leaves with a warning when the target is another provider."""

from __future__ import annotations

import base64
import copy
import warnings
from typing import Any

import pytest
from _messages_support import png
from test_bridge_roundtrip import exported, validate_with_sdk

from lmml_mdit import NativeItemDroppedWarning, import_messages
from lmml_mdit.errors import ImportFormatError

DATA_URI = "data:image/png;base64," + base64.b64encode(png()).decode()
EPHEMERAL = {"type": "ephemeral"}


def _round_trip(body: dict[str, Any], fmt: str) -> dict[str, Any]:
    bundle = import_messages(copy.deepcopy(body), fmt)
    assert bundle.validate() == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeItemDroppedWarning)
        sent: dict[str, Any] = exported(bundle, fmt)
    validate_with_sdk(fmt, sent, bundle.settings)
    return sent


@pytest.mark.parametrize("detail", ["low", "high", "auto"])
def test_a_chat_image_keeps_its_detail(detail: str) -> None:
    image = {"type": "image_url", "image_url": {"url": DATA_URI, "detail": detail}}
    remote = {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
    body = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}, image, remote]}],
    }
    assert _round_trip(body, "openai")["messages"] == body["messages"]


@pytest.mark.parametrize("detail", ["low", "high"])
def test_a_responses_image_keeps_its_detail(detail: str) -> None:
    image = {"type": "input_image", "image_url": DATA_URI, "detail": detail}
    body = {
        "model": "gpt-4o",
        "input": [{"type": "message", "role": "user", "content": [image]}],
    }
    assert _round_trip(body, "openai-responses")["input"] == body["input"]


def test_anthropic_caching_breakpoints_and_error_flags_come_back() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 512,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": EPHEMERAL}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": "image/png",
                            "data": DATA_URI.partition(",")[2],
                        },
                        "cache_control": EPHEMERAL,
                    },
                    {
                        "type": "text",
                        "text": "Weather?",
                        "cache_control": {**EPHEMERAL, "ttl": "1h"},
                    },
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "weather",
                        "input": {"city": "Paris"},
                        "cache_control": EPHEMERAL,
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_1",
                        "content": [{"type": "text", "text": "service down"}],
                        "is_error": True,
                        "cache_control": EPHEMERAL,
                    }
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "Sorry."}]},
        ],
    }
    sent = _round_trip(body, "anthropic")
    assert sent["system"] == body["system"]
    assert sent["messages"] == body["messages"]


def test_the_keys_leave_with_a_warning_for_another_provider() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 512,
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Hi", "cache_control": EPHEMERAL}],
            }
        ],
    }
    bundle = import_messages(body, "anthropic")
    with pytest.warns(NativeItemDroppedWarning, match=r"anthropic\.part\.1\.json"):
        sent = exported(bundle, "openai")
    assert sent["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]


def test_a_system_block_of_another_type_is_refused() -> None:
    body = {
        "system": [{"type": "thinking", "thinking": "x", "signature": "s"}],
        "messages": [{"role": "user", "content": "Hi"}],
    }
    with pytest.raises(ImportFormatError, match="system block type"):
        import_messages(body, "anthropic")


@pytest.mark.parametrize(
    "block",
    [
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "eA=="}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}},
    ],
)
def test_an_image_or_document_in_the_system_is_refused(block: dict[str, Any]) -> None:
    """The API's system takes text blocks only: such a bundle could never go back."""
    body = {
        "system": [{"type": "text", "text": "Be terse."}, block],
        "messages": [{"role": "user", "content": "Hi"}],
    }
    with pytest.raises(ImportFormatError, match=r"system block type '\w+'") as refused:
        import_messages(body, "anthropic")
    assert refused.value.name == "system[1]"
