"""Provider capability rules, tool-call export and settings mapping."""

from __future__ import annotations

import base64
import json
import warnings
from pathlib import Path

import pytest
from _messages_support import pdf, png, text_bundle, wav, zip_bundle

import lmml_mdit
from lmml_mdit import (
    Bundle,
    MessageList,
    MissingSettingWarning,
    SystemContentWarning,
    UnknownSettingWarning,
    render_payload,
    render_turns,
    to_request,
)
from lmml_mdit.chat import messages
from lmml_mdit.chat.providers import PROVIDERS
from lmml_mdit.chat.providers.anthropic import DEFAULT_MAX_TOKENS
from lmml_mdit.errors import (
    DefectError,
    InvalidSettingsError,
    InvalidToolCallError,
    UnsupportedContentError,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

ASSETS = {"a.png": png(), "r.pdf": pdf(), "s.wav": wav()}
CALL = '@@@c1.tool_call.json\n{"id": "c1", "name": "f", "arguments": {"x": 1}}\n@@@\n'


def _bundle(role: str, name: str) -> tuple[Bundle, int]:
    if role == "tool":
        text = f"## user\nq\n\n## assistant\n{CALL}\n## tool\n@c1.tool_call.json\n\nres @{name}\n"
        line = 12
    else:
        text = f"## user\nq\n\n## {role}\nhere @{name}\n"
        line = 5
    return zip_bundle(text, ASSETS), line


# (provider, role, embed) pairs that must raise; every other pair in the grid must not.
REFUSED = {
    ("openai", "system", "a.png"),
    ("openai", "system", "r.pdf"),
    ("openai", "system", "s.wav"),
    ("openai", "assistant", "a.png"),
    ("openai", "assistant", "r.pdf"),
    ("openai", "assistant", "s.wav"),
    ("openai-responses", "system", "a.png"),
    ("openai-responses", "system", "r.pdf"),
    ("openai-responses", "system", "s.wav"),
    ("openai-responses", "assistant", "a.png"),
    ("openai-responses", "assistant", "r.pdf"),
    ("openai-responses", "assistant", "s.wav"),
    ("openai-responses", "user", "s.wav"),
    ("openai-responses", "tool", "s.wav"),
    ("anthropic", "system", "a.png"),
    ("anthropic", "system", "r.pdf"),
    ("anthropic", "system", "s.wav"),
    ("anthropic", "assistant", "a.png"),
    ("anthropic", "assistant", "r.pdf"),
    ("anthropic", "assistant", "s.wav"),
    ("anthropic", "user", "s.wav"),
    ("anthropic", "tool", "s.wav"),
    ("gemini", "system", "a.png"),
    ("gemini", "system", "r.pdf"),
    ("gemini", "system", "s.wav"),
}


@pytest.mark.parametrize("provider", list(PROVIDERS))
@pytest.mark.parametrize("role", ["system", "user", "assistant", "tool"])
@pytest.mark.parametrize("name", ["a.png", "r.pdf", "s.wav"])
def test_capability_grid(provider: str, role: str, name: str) -> None:
    bundle, line = _bundle(role, name)
    if (provider, role, name) in REFUSED:
        with pytest.raises(UnsupportedContentError) as error:
            render_payload(bundle, provider)
        assert error.value.name == name
        assert error.value.line == line
        assert f"({provider})" in error.value.message
        # FILE:LINE:COL names the narrative; the message names the embed.
        assert str(error.value).startswith(f"{bundle.file_name}:{line}:")
        assert name in error.value.message
        assert role in error.value.message
    else:
        payload = render_payload(bundle, provider)
        # Nothing dropped: the asset's bytes are somewhere in the payload.
        dumped = json.dumps([payload.messages, payload.system])
        assert base64.b64encode(ASSETS[name]).decode() in dumped


def test_openai_tool_result_image_policy() -> None:
    bundle, _ = _bundle("tool", "a.png")
    payload = messages(bundle)
    assert [m["role"] for m in payload] == ["user", "assistant", "tool", "user"]
    assert payload[2] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": [{"type": "text", "text": "res @a.png"}],
    }
    assert payload[3]["content"][0]["text"].startswith("Attachments of the result of tool call c1")
    assert payload[3]["content"][1]["type"] == "image_url"
    with pytest.raises(UnsupportedContentError, match="tool message") as error:
        messages(bundle, tool_result_images="error")
    assert error.value.name == "a.png" and error.value.line == 12


def test_parallel_tool_results_keep_the_user_message_after_them() -> None:
    text = (
        "## assistant\n"
        '@@@a.tool_call.json\n{"id": "a", "name": "f", "arguments": {}}\n@@@\n'
        '@@@b.tool_call.json\n{"id": "b", "name": "g", "arguments": {}}\n@@@\n'
        "## tool\n@a.tool_call.json\n\none @p.png\n"
        "## tool\n@b.tool_call.json\n\ntwo\n"
        "## user\nthanks\n"
    )
    bundle = zip_bundle(text, {"p.png": png()})
    roles = [m["role"] for m in messages(bundle)]
    assert roles == ["assistant", "tool", "tool", "user", "user"]
    anthropic = messages(bundle, "anthropic")
    assert [m["role"] for m in anthropic] == ["assistant", "user"]
    assert [block["type"] for block in anthropic[1]["content"]] == [
        "tool_result",
        "tool_result",
        "text",
    ]
    gemini = messages(bundle, "gemini")
    assert [c["role"] for c in gemini] == ["model", "user"]
    kinds = [next(iter(part)) for part in gemini[1]["parts"]]
    assert kinds == ["function_response", "inline_data", "function_response", "text"]


def test_tool_calls_in_each_provider() -> None:
    text = (
        "## user\nweather?\n\n## assistant\nChecking.\n\n"
        '@@@call_9.tool_call.json\n{"id": "call 9", "name": "w", "arguments": {"c": "P"}}\n@@@\n\n'
        "## tool\n@call_9.tool_call.json\n\n"
        '{"temp": 21}\n'
    )
    bundle = text_bundle(text)
    chat = messages(bundle)
    assert chat[1]["tool_calls"] == [
        {"id": "call 9", "type": "function", "function": {"name": "w", "arguments": '{"c": "P"}'}}
    ]
    assert chat[2]["tool_call_id"] == "call 9"
    responses = messages(bundle, "openai-responses")
    assert responses[2] == {
        "type": "function_call",
        "call_id": "call 9",
        "name": "w",
        "arguments": '{"c": "P"}',
    }
    assert responses[3] == {
        "type": "function_call_output",
        "call_id": "call 9",
        "output": '{"temp": 21}',
    }
    anthropic = messages(bundle, "anthropic")
    assert anthropic[1]["content"][1] == {
        "type": "tool_use",
        "id": "call 9",
        "name": "w",
        "input": {"c": "P"},
    }
    assert anthropic[2]["content"][0]["tool_use_id"] == "call 9"
    gemini = messages(bundle, "gemini")
    assert gemini[1]["parts"][1] == {
        "function_call": {"id": "call 9", "name": "w", "args": {"c": "P"}}
    }
    assert gemini[2]["parts"][0]["function_response"]["response"] == {"temp": 21}


def test_string_arguments_go_verbatim_to_openai_and_raise_for_anthropic() -> None:
    text = (
        "## assistant\n"
        '@@@k.tool_call.json\n{"id": "k", "name": "f", "arguments": "{not json"}\n@@@\n'
        "## tool\n@k.tool_call.json\n\nok\n"
    )
    bundle = text_bundle(text)
    assert messages(bundle)[0]["tool_calls"][0]["function"]["arguments"] == "{not json"
    with pytest.raises(InvalidToolCallError, match="JSON object") as error:
        messages(bundle, "anthropic")
    assert error.value.line == 2


def test_tool_turn_without_a_call_reference_raises() -> None:
    # A defect validate reports as an error: the send is refused with it (issue 26).
    with pytest.raises(DefectError, match="does not start with a reference") as error:
        bundle = text_bundle("## user\nq\n\n## tool\nsome result\n")
        messages(bundle)
    assert (error.value.line, error.value.column) == (4, 1)
    assert error.value.kind == "unknown_tool_call_id"
    assert str(error.value).startswith(
        f"{bundle.file_name}:4:1: unknown_tool_call_id: turn 2 (tool) "
    )
    with pytest.raises(DefectError, match="no earlier assistant turn defines") as error:
        messages(text_bundle("## user\nq\n\n## tool\n@zz.tool_call.json\n\nres\n"))
    assert (error.value.line, error.value.column) == (5, 1)


def test_malformed_call_fence_raises() -> None:
    text = "## assistant\n@@@k.tool_call.json\n[1, 2]\n@@@\n"
    with pytest.raises(DefectError, match="invalid_tool_call: tool call is not a JSON object"):
        messages(text_bundle(text))


def test_tool_call_fence_outside_assistant_is_a_plain_json_embed() -> None:
    text = '## user\n@@@k.tool_call.json\n{"id": "k"}\n@@@\n'
    [message] = messages(text_bundle(text))
    assert message["content"][0]["text"].startswith("k.tool_call.json:\n```json")


SYSTEM_TEXT = "Intro.\n\n## system\nBe brief.\n\n## user\nhi\n"


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_messages_keeps_system_separate_by_default(provider: str) -> None:
    # Both shipped examples have system content: messages() must still give the list.
    bundle = lmml_mdit.open(EXAMPLES / "sales-review.lmmlz")
    with pytest.warns(SystemContentWarning, match=rf"\({provider}\) keeps system content"):
        listed = bundle.messages(provider=provider)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an explicit choice silences the warning
        assert bundle.messages(provider=provider, system="separate") == listed
        assert messages(text_bundle("## user\nhi\n"), provider) is not None  # no system
    assert isinstance(listed, list) and isinstance(listed, MessageList)
    assert listed and all(m["role"] in ("user", "assistant", "model") for m in listed)
    request = to_request(bundle, provider, model="m", settings={"max_tokens": 9})
    if provider == "anthropic":
        assert listed == request["messages"]
        assert listed.system == request["system"]
        assert "careful sales analyst" in listed.system[1]["text"]
    else:
        assert listed == request["contents"]
        assert listed.system == request["config"]["system_instruction"]
    assert listed.provider == provider and listed.warnings == []
    assert json.loads(json.dumps(listed)) == request.get("messages", request.get("contents"))


def test_messages_system_option() -> None:
    bundle = text_bundle(SYSTEM_TEXT)
    # "user": the system content reaches the list as user content, in source order.
    anthropic = messages(bundle, "anthropic", system="user")
    assert anthropic == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Intro."},
                {"type": "text", "text": "Be brief."},
                {"type": "text", "text": "hi"},
            ],
        }
    ]
    assert anthropic.system is None
    gemini = messages(bundle, "gemini", system="user")
    assert [part["text"] for part in gemini[0]["parts"]] == ["Intro.", "Be brief.", "hi"]
    assert [m["role"] for m in messages(bundle, "openai", system="user")] == ["user"] * 3
    # "drop": left out everywhere, the preamble included (it is system content).
    for provider in PROVIDERS:
        dropped = messages(bundle, provider, system="drop")
        assert "Be brief." not in json.dumps(dropped) and "Intro." not in json.dumps(dropped)
        assert dropped.system is None
    # context="user" takes the preamble out of the system content first.
    kept = messages(bundle, "anthropic", system="drop", context="user")
    assert [block["text"] for block in kept[0]["content"]] == ["Intro.", "hi"]
    # "separate" for OpenAI: the list is where system content goes (and no warning).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [m["role"] for m in messages(bundle, "openai")] == ["system", "system", "user"]
    request = to_request(bundle, "anthropic", model="m", settings={"max_tokens": 9}, system="user")
    assert "system" not in request


def test_messages_system_raise_names_provider_and_line() -> None:
    bundle = text_bundle(SYSTEM_TEXT)
    for provider in ("anthropic", "gemini"):
        with pytest.raises(UnsupportedContentError, match="outside the messages list") as error:
            messages(bundle, provider, system="raise")
        assert f"({provider})" in error.value.message and error.value.line == 1
    with pytest.raises(UnsupportedContentError) as error:
        messages(bundle, "anthropic", system="raise", context="drop")
    assert error.value.line == 3
    assert len(messages(bundle, "openai", system="raise")) == 3  # the list carries it
    assert messages(text_bundle("## user\nhi\n"), "gemini", system="raise").system is None
    with pytest.raises(ValueError, match="system"):
        messages(bundle, "anthropic", system="top")


def test_to_request_maps_settings_per_provider() -> None:
    settings = b"temperature: 0.5\ntop_p: 0.9\nmax_tokens: 64\nstop: END\nseed: 3\nmodel: m1\n"
    bundle = zip_bundle("## user\nhi\n", {"settings.yaml": settings})
    chat = to_request(bundle)
    assert chat["model"] == "m1"
    assert {
        k: chat[k] for k in ("temperature", "top_p", "max_completion_tokens", "stop", "seed")
    } == {
        "temperature": 0.5,
        "top_p": 0.9,
        "max_completion_tokens": 64,
        "stop": "END",
        "seed": 3,
    }
    responses = to_request(bundle, "openai-responses", model="m2")
    assert responses["model"] == "m2" and responses["max_output_tokens"] == 64
    anthropic = to_request(bundle, "anthropic")
    assert anthropic["max_tokens"] == 64 and anthropic["stop_sequences"] == ["END"]
    gemini = to_request(bundle, "gemini")
    assert gemini["config"]["max_output_tokens"] == 64
    assert gemini["config"]["stop_sequences"] == ["END"]


def test_unknown_settings_pass_or_raise() -> None:
    bundle = zip_bundle(
        "## user\nhi\n", {"settings.json": b'{"model": "m", "top_k": 5, "wibble": 1}'}
    )
    assert to_request(bundle, "openai", unknown_settings="pass")["wibble"] == 1
    assert to_request(bundle, "gemini")["config"]["top_k"] == 5
    with pytest.raises(InvalidSettingsError, match="'top_k'") as error:
        to_request(bundle, "openai", unknown_settings="error")
    assert error.value.name == "top_k"
    with pytest.raises(InvalidSettingsError, match="'wibble'"):
        to_request(bundle, "gemini", unknown_settings="error")


def test_unknown_setting_error_names_where_the_setting_is_written() -> None:
    """Like the warning, the error gives the line and column of the key's value."""
    text = "@@@settings.yaml\nmodel: m\nwibble: 1\n@@@\n\n## user\nhi\n"
    with pytest.warns(UnknownSettingWarning, match=r"^chat\.lmml:3:9: setting 'wibble'"):
        to_request(text_bundle(text, "chat"), "openai")
    with pytest.raises(InvalidSettingsError) as error:
        to_request(text_bundle(text, "chat"), "openai", unknown_settings="error")
    assert (error.value.file, error.value.line, error.value.column) == ("chat.lmml", 3, 9)
    assert str(error.value).startswith("chat.lmml:3:9: OpenAI Chat Completions (openai) has no")
    given = zip_bundle("## user\nhi\n", {"settings.json": b'{"model": "m"}'})
    with pytest.raises(InvalidSettingsError, match="'zap'") as error:
        to_request(given, "openai", unknown_settings="error", settings={"zap": 1})
    assert error.value.line is None and error.value.name == "zap"


def test_unknown_settings_are_left_out_with_a_warning_by_default() -> None:
    bundle = zip_bundle(
        "## user\nhi\n", {"settings.json": b'{"model": "m", "top_k": 5, "wibble": 1}'}
    )
    with pytest.warns(UnknownSettingWarning) as caught:
        body = to_request(bundle, "openai")
    assert "wibble" not in body and "top_k" not in body
    named = sorted(str(warning.message).split("'")[1] for warning in caught.list)
    assert named == ["top_k", "wibble"]
    with pytest.warns(UnknownSettingWarning, match="'wibble' left out: Gemini"):
        gemini = to_request(bundle, "gemini")
    assert gemini["config"] == {"top_k": 5}


def test_anthropic_max_tokens_defaults_with_a_warning() -> None:
    with pytest.warns(MissingSettingWarning, match="requires max_tokens") as caught:
        body = to_request(text_bundle("## user\nhi\n"), "anthropic", model="m")
    assert body["max_tokens"] == DEFAULT_MAX_TOKENS == 4096
    assert f"max_tokens={DEFAULT_MAX_TOKENS}" in str(caught.list[0].message)
    assert "settings={'max_tokens': N}" in str(caught.list[0].message)


def test_a_missing_model_is_an_error_where_the_create_call_requires_it() -> None:
    bundle = text_bundle("## user\nhi\n")
    for provider in ("openai", "anthropic", "gemini"):
        with pytest.raises(InvalidSettingsError, match="requires a model") as error:
            to_request(bundle, provider, settings={"max_tokens": 5})
        assert error.value.name == "model" and "model=" in (error.value.hint or "")
    with pytest.warns(MissingSettingWarning, match="no model given"):
        body = to_request(bundle, "openai-responses")
    assert "model" not in body
    # The settings' model counts, and model= wins over it.
    named = text_bundle("## user\nhi\n\n@@@settings.yaml\nmodel: from-settings\n@@@\n")
    assert to_request(named, "openai")["model"] == "from-settings"
    assert to_request(named, "gemini", model="given")["model"] == "given"


def test_render_turns_seed_shape() -> None:
    bundle = zip_bundle(
        "Intro.\n\n## user\nsee @a.png\n\n## assistant\n"
        + CALL
        + "\n## tool\n@c1.tool_call.json\n\nok\n",
        {"a.png": png()},
    )
    turns = render_turns(bundle)
    assert [t["role"] for t in turns] == ["system", "user", "assistant", "tool"]
    assert turns[1]["content"][1]["type"] == "image_url"
    assert turns[2]["tool_calls"][0]["function"]["arguments"] == '{"x": 1}'
    assert turns[2]["content"] == []
    assert turns[3] == {
        "role": "tool",
        "content": [{"type": "text", "text": "ok"}],
        "tool_call_id": "c1",
    }


def test_text_embeds_option() -> None:
    # "@t.csv" alone is an attachment line: the part takes its place (index 0).
    bundle = zip_bundle("## user\n@t.csv\n", {"t.csv": b"a,b\n1,2\n"})
    assert messages(bundle, "anthropic")[0]["content"][0]["type"] == "document"
    assert messages(bundle, "anthropic", text_embeds="text")[0]["content"][0]["type"] == "text"
    item = messages(bundle, "openai-responses", text_embeds="document")[0]["content"][0]
    assert item["type"] == "input_file" and item["file_data"].startswith("data:text/csv;base64,")
    part = messages(bundle, "gemini", text_embeds="document")[0]["parts"][0]
    assert part["inline_data"]["mime_type"] == "text/csv"


def test_unknown_settings_warn_leaves_them_out() -> None:
    bundle = zip_bundle("## user\nhi\n", {"settings.yaml": b"max_tokens: 5\ntemperature: 1\n"})
    with pytest.warns(UnknownSettingWarning, match="'temperature' left out"):
        request = bundle.to_request("anthropic", model="claude", unknown_settings="warn")
    assert "temperature" not in request and request["max_tokens"] == 5


def test_bundle_methods_delegate() -> None:
    bundle = zip_bundle("## user\nhi @a.png\n", {"a.png": png()})
    assert bundle.messages("gemini") == messages(bundle, "gemini")
    assert bundle.to_request("openai", model="x")["model"] == "x"
