"""Import: each format into a bundle (turns, assets, tool calls), detection and errors."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from lmml_mdit import (
    DefectWarning,
    detect_format,
    export_sharegpt,
    import_messages,
    import_path,
    to_request,
    tool_call_issues,
)
from lmml_mdit import open as open_bundle
from lmml_mdit.chat import export_bundle
from lmml_mdit.errors import ImportFormatError
from lmml_mdit.narrative import tool_calls, tool_result_call

CORPUS = Path(__file__).parent / "bridge_corpus"
FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "sharegpt")


def load(relative: str) -> Any:
    return json.loads((CORPUS / relative).read_text(encoding="utf-8"))


def roles(bundle: Any) -> list[str]:
    return [turn.role for turn in bundle.narrative.turns]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)


@pytest.mark.parametrize(
    "path", sorted(p for fmt in FORMATS for p in (CORPUS / fmt).glob("*.json")), ids=str
)
def test_detects_every_corpus_file(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert detect_format(data) == path.parent.name
    bundle = import_messages(data)
    assert bundle.validate() == []
    assert tool_call_issues(bundle.narrative) == []


def test_openai_multiturn_with_system_and_image() -> None:
    bundle = import_messages(load("openai/multiturn_request.json"))
    assert roles(bundle) == ["system", "user", "assistant", "user", "assistant"]
    turns = bundle.narrative.turns
    assert turns[0].text == "You are a careful vision assistant."
    image = PNG
    name = hashlib.sha256(image).hexdigest()[:16] + ".png"
    assert bundle.entries == (name, "settings.json")
    assert bundle.read(name) == image
    assert turns[3].text == f"What colour is this?\n\n@{name}"
    assert bundle.settings == {"model": "gpt-4o", "temperature": 0.2}


@pytest.mark.parametrize(
    "quoted",
    [
        "Transcript below\n\nUser:\nhi there\n\nAssistant:\nhello",
        "User: what is 2+2?\nAssistant: 4",
        "**Assistant (GPT-4):**\nsure",
        "## Turn 2 -- asistant\nx",
    ],
)
def test_a_message_quoting_a_chat_is_fenced_so_the_bundle_warns_of_nothing(
    quoted: str,
) -> None:
    """Written as it was, such a text read back the same but every command warned that a
    turn may be missing: an imported chat never has one."""
    bundle = import_messages(
        {"messages": [{"role": "user", "content": quoted}, {"role": "assistant", "content": "ok"}]}
    )
    assert bundle.validate() == []
    assert bundle.narrative.turns[0].text.startswith("```lmml-content\n")
    assert bundle.narrative.turns[1].text == "ok"  # only the text that needs it
    with warnings.catch_warnings():
        warnings.simplefilter("error", DefectWarning)
        sent = bundle.messages("openai")
    assert sent[0]["content"] == [{"type": "text", "text": quoted}]
    assert export_sharegpt(bundle)["conversations"][0]["value"] == quoted


def test_asset_names_are_stable_content_hashes() -> None:
    data = load("openai/multimodal_messages.json")
    first = import_messages(data)
    second = import_messages(json.dumps(data))
    assert first.entries == second.entries
    assert first.narrative.text == second.narrative.text
    extensions = sorted(name.rsplit(".", 1)[1] for name in first.entries)
    assert extensions == ["gif", "pdf", "png", "wav"]
    for name in first.entries:
        digest = hashlib.sha256(first.read(name)).hexdigest()
        assert name.startswith(digest[:16])


def test_same_bytes_in_one_place_make_one_entry() -> None:
    url = "data:image/png;base64," + b64(PNG)
    part = {"type": "image_url", "image_url": {"url": url}}
    first = import_messages([{"role": "user", "content": [part]}])
    second = import_messages([{"role": "user", "content": [part]}])
    assert list(first.entries) == list(second.entries) and len(first.entries) == 1


@pytest.mark.parametrize("detail", [None, "low"])
def test_an_image_given_again_later_is_sent_again(detail: str | None) -> None:
    # An embed is sent at its first reference only: the same bytes at a later place (a
    # screenshot attached again, a tool returning the same image) get an entry of their
    # own, so the export sends the image at every place the payload had it.
    url = "data:image/png;base64," + b64(PNG)
    image: dict[str, Any] = {"type": "image_url", "image_url": {"url": url}}
    again = {"type": "image_url", "image_url": {"url": url, "detail": detail}} if detail else image
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "A"}, image, image]},
            {"role": "assistant", "content": [{"type": "text", "text": "B"}]},
            {"role": "user", "content": [{"type": "text", "text": "again"}, again]},
        ],
    }
    bundle = import_messages(body, "openai")
    digest = hashlib.sha256(PNG).hexdigest()[:16]
    images = sorted(name for name in bundle.entries if name.endswith(".png"))
    assert images == [f"{digest}-2.png", f"{digest}-3.png", f"{digest}.png"]
    assert export_bundle(bundle, "openai") == body


def test_openai_tool_calls_follow_the_convention() -> None:
    bundle = import_messages(load("openai/tool_calls.json"))
    assert roles(bundle) == ["system", "user", "assistant", "tool", "tool", "assistant", "tool"]
    calls = tool_calls(bundle.narrative)
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_abc123", "get_weather", {"city": "Paris"}),
        ("call_def456", "get_weather", {"city": "Tokyo", "unit": "c"}),
        ("call_x:9", "log", "not json"),  # invalid JSON arguments kept as a string
    ]
    assert calls[2].embed_name == "call_x_9.tool_call.json"
    tool_turns = [t for t in bundle.narrative.turns if t.role == "tool"]
    answered = [tool_result_call(t, bundle.narrative) for t in tool_turns]
    assert [c.id for c in answered if c] == ["call_abc123", "call_def456", "call_x:9"]
    assert tool_turns[0].text == "@call_abc123.tool_call.json\n\nSunny, 21 C"


def test_anthropic_tool_result_with_image_and_following_text() -> None:
    bundle = import_messages(load("anthropic/tool_result_image.json"))
    assert roles(bundle) == ["system", "user", "assistant", "tool", "user", "assistant"]
    tool = bundle.narrative.turns[3]
    image = [e.name for e in tool.embeds if e.name.endswith(".png")]
    assert len(image) == 1
    assert tool.text == f"@toolu_01A.tool_call.json\n\nScreenshot taken.\n\n@{image[0]}"
    assert bundle.read(image[0]).startswith(b"\x89PNG")
    assert bundle.narrative.turns[4].text == "What do you see?"


def test_anthropic_text_document_becomes_a_text_asset() -> None:
    data = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "document",
                        "source": {
                            "type": "text",
                            "media_type": "text/plain",
                            "data": "a,b\n1,2\n",
                        },
                    },
                    {"type": "text", "text": "Sum column b."},
                ],
            }
        ],
        "system": "Be exact.",
    }
    bundle = import_messages(data)
    (name,) = (entry for entry in bundle.entries if entry != "settings.json")
    assert name.endswith(".txt")
    assert bundle.read(name) == b"a,b\n1,2\n"
    # The document form is recorded, so every export sends it as a document again.
    assert bundle.settings == {"text_embeds": "document"}


def test_responses_function_calls_join_the_assistant_turn() -> None:
    bundle = import_messages(load("openai-responses/tools_with_image_result.json"))
    assert roles(bundle) == ["system", "user", "assistant", "tool", "assistant"]
    assert bundle.narrative.turns[0].text == "You can call tools. Be brief."
    tool = bundle.narrative.turns[3]
    assert tool.text.startswith("@call_chart1.tool_call.json\n\nChart rendered.\n\n@")


def test_responses_string_input() -> None:
    bundle = import_messages({"input": "Say hi."})
    assert [(t.role, t.text) for t in bundle.narrative.turns] == [("user", "Say hi.")]


def test_gemini_calls_without_ids_get_generated_ids_matched_by_name() -> None:
    bundle = import_messages(load("gemini/snake_case_calls_without_ids.json"))
    assert roles(bundle) == ["system", "user", "assistant", "tool", "tool", "assistant"]
    calls = tool_calls(bundle.narrative)
    assert [(c.id, c.name) for c in calls] == [("call_1", "get_weather"), ("call_2", "get_time")]
    tools = [t for t in bundle.narrative.turns if t.role == "tool"]
    assert [tool_result_call(t, bundle.narrative).id for t in tools] == ["call_1", "call_2"]  # type: ignore[union-attr]
    assert tools[0].text.endswith('{"temp_c": 21, "sky": "clear"}')
    media = sorted(name.rsplit(".", 1)[1] for name in bundle.entries)
    assert media == ["pdf", "png", "wav"]


def test_gemini_generated_ids_skip_ids_in_use() -> None:
    data = {
        "contents": [
            {"role": "model", "parts": [{"function_call": {"name": "a", "args": {}}}]},
            {
                "role": "model",
                "parts": [{"function_call": {"name": "b", "args": {}, "id": "call_1"}}],
            },
        ]
    }
    ids = [c.id for c in tool_calls(import_messages(data).narrative)]
    assert ids == ["call_2", "call_1"]


def test_gemini_camel_case_and_sdk_config() -> None:
    camel = import_messages(load("gemini/camel_case_with_ids.json"))
    assert camel.narrative.turns[0].text == "Answer in French."
    assert [c.id for c in tool_calls(camel.narrative)] == ["fc-7"]
    sdk = import_messages(load("gemini/sdk_config_body.json"))
    assert sdk.narrative.turns[0].text == "Be kind."
    assert sdk.settings == {"model": "gemini-2.5-flash", "temperature": 0.5}


def test_sharegpt_function_calls_and_observations() -> None:
    bundle = import_messages(load("sharegpt/function_calls.json"))
    assert roles(bundle) == ["user", "assistant", "tool", "assistant"]
    (call,) = tool_calls(bundle.narrative)
    assert (call.id, call.name) == ("call_1", "convert")
    assert call.arguments == {"amount": 100, "from": "USD", "to": "EUR"}
    assert bundle.narrative.turns[1].text.startswith("Let me look up the rate.\n\n@@@call_1")
    # Dataset fields are not request parameters: kept in the manifest, never sent.
    assert bundle.settings is None
    assert bundle.manifest == {
        "sharegpt": {"tools": '[{"name": "convert", "description": "Currency conversion"}]'}
    }
    assert "tools" not in export_bundle(bundle, "openai")


@pytest.mark.parametrize("system", ["", None])
def test_sharegpt_empty_system_field_comes_back_as_given(system: str | None) -> None:
    # Many datasets give every record a "system" field, empty when there is none: it adds
    # no turn, and the record written back keeps it.
    record = {"conversations": [{"from": "human", "value": "hi"}], "system": system}
    bundle = import_messages(record, "sharegpt")
    assert roles(bundle) == ["user"]
    assert export_sharegpt(bundle) == record


# -- detection ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([{"role": "user", "content": "hi"}], "openai"),
        ({"messages": [{"role": "user", "content": "hi"}], "system": "s"}, "anthropic"),
        ({"input": [{"role": "system", "content": "x"}]}, "openai-responses"),
        (
            [{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}],
            "openai-responses",
        ),
        ([{"role": "model", "parts": [{"text": "x"}]}], "gemini"),
        ([{"from": "human", "value": "x"}], "sharegpt"),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}],
                }
            ],
            "anthropic",
        ),
    ],
)
def test_detect_format(data: Any, expected: str) -> None:
    assert detect_format(data) == expected


def test_ambiguous_format_names_what_it_saw() -> None:
    data = [
        {"role": "tool", "tool_call_id": "x", "content": "r"},
        {"role": "user", "content": [{"type": "image", "source": {"type": "base64"}}]},
    ]
    with pytest.raises(ImportFormatError, match=r"ambiguous.*anthropic and openai") as info:
        detect_format(data)
    assert "format=" in (info.value.hint or "")


@pytest.mark.parametrize("data", [{"foo": 1}, 42, [{"x": 1}], "not json"])
def test_unknown_format(data: Any) -> None:
    with pytest.raises(ImportFormatError):
        import_messages(data)


# -- errors -------------------------------------------------------------------------------


def test_invalid_base64_names_its_place() -> None:
    data = [
        {
            "role": "user",
            "content": [{"type": "input_audio", "input_audio": {"data": "***", "format": "wav"}}],
        }
    ]
    with pytest.raises(ImportFormatError, match="invalid base64") as info:
        import_messages(data, "openai")
    assert info.value.name == "messages[0].content[0]"


def test_remote_urls_are_recorded_not_fetched() -> None:
    # A URL imports as a remote asset (its entry records the URL); a malformed one is
    # refused, naming its place.
    part = {"type": "image_url", "image_url": {"url": "https://x/a.png"}}
    bundle = import_messages([{"role": "user", "content": [part]}])
    (name,) = [entry for entry in bundle.entries if entry.endswith(".remote.json")]
    assert json.loads(bundle.embed(name)) == {"kind": "image", "url": "https://x/a.png"}
    part["image_url"]["url"] = "https://x/\n.png"
    with pytest.raises(ImportFormatError, match="control characters") as info:
        import_messages([{"role": "user", "content": [part]}])
    assert info.value.name == "messages[0].content[0]"


def test_tool_result_without_its_call() -> None:
    data = [{"role": "tool", "tool_call_id": "nope", "content": "r"}]
    with pytest.raises(ImportFormatError, match="'nope'"):
        import_messages(data)


def test_duplicate_call_ids_refused() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    data = [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "a"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
    ]
    with pytest.raises(ImportFormatError, match="share the fence name"):
        import_messages(data)


def test_unknown_key_is_refused_not_dropped() -> None:
    # A message's name is kept (a provider-specific item); a key no API defines is refused.
    with pytest.raises(ImportFormatError, match="unsupported key 'nickname'"):
        import_messages([{"role": "user", "content": "hi", "nickname": "alice"}], "openai")


def test_unknown_format_name() -> None:
    with pytest.raises(ImportFormatError, match="unknown import format"):
        import_messages([], "llama")


def test_invalid_json_text() -> None:
    with pytest.raises(ImportFormatError, match="not valid JSON") as info:
        import_messages('{"messages": [}')
    assert info.value.line == 1


def test_anthropic_is_error_result_is_kept() -> None:
    data = {
        "system": "s",
        "messages": [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t", "content": "boom", "is_error": True}
                ],
            },
        ],
    }
    bundle = import_messages(data)
    assert "@@@anthropic.message.1.json" in bundle.narrative.text
    assert bundle.validate() == []
    result = bundle.messages("anthropic")[-1]["content"][0]
    assert result["is_error"] is True
    assert result["content"] == [{"type": "text", "text": "boom"}]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "nests too deeply"),
        ('{"messages": [], "seed": 1' + "0" * 5000 + "}", "more than 4300 characters"),
        ('{"messages": [], "temperature": NaN}', "NaN is not a JSON number"),
        (b'{"messages": ["\xff"]}', "not UTF-8"),
    ],
    ids=["deep", "long-integer", "nan", "not-utf-8"],
)
def test_unreadable_json_is_an_import_error(data: str | bytes, message: str) -> None:
    with pytest.raises(ImportFormatError, match=message) as info:
        import_messages(data)
    assert info.value.hint


def _call(arguments: Any) -> list[dict[str, Any]]:
    return [
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}
            ],
        },
        {"role": "tool", "tool_call_id": "c", "content": "ok"},
    ]


@pytest.mark.parametrize(
    ("data", "fmt", "where"),
    [
        (_call({"a": 1}), "openai", "messages[0].tool_calls[0].arguments"),
        (
            [{"type": "function_call", "call_id": "c", "name": "f", "arguments": {"a": 1}}],
            "openai-responses",
            "input[0].arguments",
        ),
        (
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": "x"}],
                }
            ],
            "anthropic",
            "messages[0].content[0].input",
        ),
        (
            [{"role": "model", "parts": [{"function_call": {"name": "f", "args": "x"}}]}],
            "gemini",
            "contents[0].parts[0].args",
        ),
        (
            [
                {"role": "model", "parts": [{"function_call": {"name": "f", "args": {}}}]},
                {"role": "user", "parts": [{"function_response": {"name": "f", "response": "x"}}]},
            ],
            "gemini",
            "contents[1].parts[0].response",
        ),
    ],
    ids=["openai", "responses", "anthropic", "gemini-args", "gemini-response"],
)
def test_call_arguments_must_have_the_formats_type(data: Any, fmt: str, where: str) -> None:
    # Chat/Responses send arguments as JSON text, Anthropic input and Gemini args/response
    # as objects; anything else would not export back to the same shape.
    with pytest.raises(ImportFormatError) as info:
        import_messages(data, fmt)
    assert info.value.name == where


@pytest.mark.parametrize(
    ("part", "fmt", "key"),
    [
        ({"type": "text", "text": "hi", "cache": 1}, "openai", "cache"),
        ({"type": "image_url", "image_url": {"url": "data:,x", "alt": "a"}}, "openai", "alt"),
        (
            {"type": "input_audio", "input_audio": {"data": "", "format": "wav", "x": 1}},
            "openai",
            "x",
        ),
        ({"type": "input_text", "text": "hi", "extra": 1}, "openai-responses", "extra"),
        ({"type": "input_image", "image_url": "data:,x", "crop": [1]}, "openai-responses", "crop"),
    ],
)
def test_unread_part_keys_are_refused_not_dropped(part: Any, fmt: str, key: str) -> None:
    data: Any = [{"role": "user", "content": [part]}]
    if fmt == "openai-responses":
        data = {"input": [{"type": "message", **data[0]}]}
    with pytest.raises(ImportFormatError, match=f"unsupported key '{key}'"):
        import_messages(data, fmt)


def test_replayed_output_text_with_empty_logprobs_is_read() -> None:
    part = {"type": "output_text", "text": "Hi.", "annotations": [], "logprobs": []}
    item = {"type": "message", "role": "assistant", "content": [part]}
    assert roles(import_messages({"input": [item]})) == ["assistant"]


def test_replayed_output_text_logprobs_are_kept() -> None:
    """A field the API reference documents on the part comes back as it was given."""
    logprobs = [{"token": "Hi", "bytes": [72, 105], "logprob": -0.1, "top_logprobs": []}]
    part = {"type": "output_text", "text": "Hi.", "annotations": [], "logprobs": logprobs}
    item = {"type": "message", "role": "assistant", "content": [part]}
    body = to_request(import_messages({"input": [item]}), "openai-responses")
    assert body["input"][0]["content"] == [part]


def test_gemini_unread_fields_are_refused_not_dropped() -> None:
    call = {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}
    response = {"name": "f", "response": {"ok": True}, "unknownField": 1}
    data = {"contents": [call, {"role": "user", "parts": [{"functionResponse": response}]}]}
    with pytest.raises(ImportFormatError, match="unsupported key 'unknownField'") as info:
        import_messages(data)
    assert info.value.name == "contents[1].parts[0]"
    blob = {"mime_type": "image/png", "data": b64(PNG), "label": "x.png"}
    with pytest.raises(ImportFormatError, match="label"):
        import_messages({"contents": [{"role": "user", "parts": [{"inline_data": blob}]}]})
    inside = {"name": "f", "response": {}, "parts": [{"text": "t"}]}
    data = {"contents": [call, {"role": "user", "parts": [{"functionResponse": inside}]}]}
    with pytest.raises(ImportFormatError, match="inline_data or file_data"):
        import_messages(data)


@pytest.mark.parametrize(
    ("data", "key", "where"),
    [
        # A message written in another format's shape: its text was dropped without a word.
        (
            [{"role": "user", "content": "hi"}, {"role": "model", "parts": [{"text": "x"}]}],
            "content",
            "contents[0]",
        ),
        ({"contents": [{"role": "user", "text": "hi"}]}, "text", "contents[0]"),
        (
            {"contents": [{"role": "user", "parts": [{"text": "a"}], "foo": 1}]},
            "foo",
            "contents[0]",
        ),
        (
            {"contents": ["a"], "systemInstruction": {"parts": [{"text": "s"}], "note": "x"}},
            "note",
            "system_instruction",
        ),
    ],
)
def test_gemini_content_keys_are_refused_not_dropped(data: Any, key: str, where: str) -> None:
    with pytest.raises(ImportFormatError, match=f"unsupported key '{key}'") as info:
        import_messages(data, "gemini")
    assert info.value.name == where


def test_gemini_system_instruction_role_is_read() -> None:
    # The SDK's model_dump() of a config writes the instruction's Content with its role,
    # which the API ignores: read, not refused (normalisation 6).
    body = {"contents": ["hi"], "config": {"system_instruction": {"role": "user", "parts": ["s"]}}}
    assert roles(import_messages(body)) == ["system", "user"]


def _gemini_reply(*parts: Any) -> dict[str, Any]:
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "Hi"}]},
            {"role": "model", "parts": list(parts)},
        ]
    }


def test_gemini_a_part_that_is_no_thought_is_a_part_like_any_other() -> None:
    # thought false is the default, and null is what the SDK's model_dump() writes for
    # every field not set: neither makes the part hold two fields
    data = _gemini_reply({"text": "Hello.", "thought": False, "thought_signature": "QUJD"})
    data["contents"][0]["parts"][0].update(thought=None, inline_data=None)
    bundle = import_messages(data, "gemini")
    assert [turn.text for turn in bundle.narrative.turns] == [
        "Hi",
        'Hello.\n\n@@@gemini.part.1.json\n{"thought_signature": "QUJD"}\n@@@',
    ]
    contents = export_bundle(bundle, "gemini")["contents"]
    assert [content["parts"] for content in contents] == [
        [{"text": "Hi"}],
        [{"text": "Hello.", "thought_signature": "QUJD"}],
    ]


def test_gemini_a_signature_alone_is_kept_whole_where_it_stands() -> None:
    # a stream's last chunk may carry a signature and nothing else; it is never moved onto
    # another part
    data = _gemini_reply({"text": "Hello."}, {"thoughtSignature": "QUJD"}, {"text": "Bye."})
    bundle = import_messages(data, "gemini")
    assert "@@@gemini.thought_signature.1.json\n" in bundle.narrative.text
    parts = export_bundle(bundle, "gemini")["contents"][1]["parts"]
    assert parts == [{"text": "Hello."}, {"thoughtSignature": "QUJD"}, {"text": "Bye."}]


@pytest.mark.parametrize(
    ("part", "message"),
    [
        ({}, "a part holds no content field$"),
        ({"text": None, "thought": False}, "a part holds no content field$"),
        ({"video_metadata": {"fps": 1}}, "a part holds no content field, only video_metadata$"),
        ({"text": "a", "inline_data": {}}, "a part must hold exactly one field"),
    ],
)
def test_gemini_a_part_without_one_content_field_is_refused_saying_so(
    part: Any, message: str
) -> None:
    with pytest.raises(ImportFormatError) as info:
        import_messages(_gemini_reply(part), "gemini")
    assert re.search(message, info.value.message)
    assert info.value.name == "contents[1].parts[0]"


def test_arguments_too_deep_to_parse_are_kept_verbatim() -> None:
    arguments = "[" * 100_000 + "]" * 100_000
    bundle = import_messages(_call(arguments), "openai")
    [call] = tool_calls(bundle.narrative)
    assert call.arguments == arguments
    body = export_bundle(bundle, "openai")
    assert body["messages"][0]["tool_calls"][0]["function"]["arguments"] == arguments


# -- files --------------------------------------------------------------------------------


def test_import_path_json_to_lmmlz(tmp_path: Path) -> None:
    out = tmp_path / "chat.lmmlz"
    written = import_path(CORPUS / "anthropic" / "tool_result_image.json", out)
    assert written == [out]
    with open_bundle(out) as bundle:
        assert bundle.narrative_name == "chat.lmml"
        assert roles(bundle) == ["system", "user", "assistant", "tool", "user", "assistant"]
        assert bundle.validate() == []


def test_import_path_text_only_to_lmml(tmp_path: Path) -> None:
    out = tmp_path / "talk.lmml"
    import_path(CORPUS / "sharegpt" / "function_calls.json", out)
    with open_bundle(out) as bundle:
        assert bundle.kind == "text"
        assert roles(bundle) == ["user", "assistant", "tool", "assistant"]
        assert bundle.manifest is not None


def test_text_bundle_with_inlined_manifest_exports_to_sharegpt(tmp_path: Path) -> None:
    # Saving as .lmml inlines manifest.json as a fence in the last turn; ShareGPT export
    # must neither refuse it as an asset nor send its lines as text.
    source = CORPUS / "sharegpt" / "multiturn.json"
    out = tmp_path / "talk.lmml"
    import_path(source, out)
    assert "@@@manifest.json" in out.read_text(encoding="utf-8")
    with open_bundle(out) as bundle:
        assert export_sharegpt(bundle) == load("sharegpt/multiturn.json")


def test_import_path_into_a_folder(tmp_path: Path) -> None:
    written = import_path(CORPUS / "openai" / "tool_calls.json", tmp_path)
    assert written == [tmp_path / "tool_calls.lmmlz"]


def test_import_jsonl_one_bundle_per_line(tmp_path: Path) -> None:
    seen: list[tuple[int, Any]] = []
    written = import_path(
        CORPUS / "sharegpt" / "dataset.jsonl",
        tmp_path / "out",
        progress=lambda done, total, detail: seen.append((done, detail)),
    )
    assert [p.name for p in written] == [
        "000001.lmmlz",
        "000002.lmmlz",
        "000003.lmmlz",
        "000005.lmmlz",
    ]
    assert [done for done, _ in seen] == [1, 2, 3, 4]
    with open_bundle(written[3]) as bundle:
        assert [t.text for t in bundle.narrative.turns] == ["Last?", "Yes."]


def test_import_jsonl_bad_line_names_file_and_line(tmp_path: Path) -> None:
    source = tmp_path / "data.jsonl"
    source.write_text('[{"role": "user", "content": "ok"}]\n{"nope": 1}\n', encoding="utf-8")
    with pytest.raises(ImportFormatError) as info:
        import_path(source, tmp_path / "out")
    assert info.value.name == str(source)
    assert info.value.line == 2


@pytest.mark.parametrize("out", ["taken", "taken/sub"])
def test_a_jsonl_import_over_a_file_is_refused_with_a_library_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], out: str
) -> None:
    # The folder was made with Path.mkdir, whose FileExistsError / NotADirectoryError
    # escaped import_path, and the command line printed "lmml: error: taken: File exists".
    from lmml_mdit import LmmlError, import_path
    from lmml_mdit.cli import main

    source = tmp_path / "chats.jsonl"
    source.write_text(json.dumps([{"role": "user", "content": "Hi"}]) + "\n")
    (tmp_path / "taken").write_text("keep me")
    with pytest.raises(LmmlError) as raised:
        import_path(source, tmp_path / out)
    assert str(raised.value).startswith(f"{tmp_path / out}: ")
    assert "imports into a folder" in str(raised.value)
    assert main(["import", str(source), "-o", str(tmp_path / out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"lmml: error: {tmp_path / out}: "), err
    # (the command line's own check of the folders an output needs may say it first)
    assert "imports into a folder" in err or "taken is not a folder" in err, err
    assert "File exists" not in err and "Not a directory" not in err
    assert (tmp_path / "taken").read_text() == "keep me"
