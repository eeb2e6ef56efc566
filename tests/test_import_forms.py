"""The input forms the chat APIs accept, mid-conversation system turns, video and text
documents: each imported, saved, reopened and exported (``tests/bridge_corpus/forms``)."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bridge_roundtrip import normalise, validate_with_sdk

from lmml_mdit import Bundle, SystemContentWarning, export_sharegpt, import_messages, to_request
from lmml_mdit import open as open_bundle
from lmml_mdit.chat import MIDWAY_SYSTEM_MARKER, export_bundle, messages
from lmml_mdit.errors import ImportFormatError, UnsupportedContentError
from lmml_mdit.media import VIDEO_TYPES, media_type_for, sniff

FORMS = Path(__file__).parent / "bridge_corpus" / "forms"
PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini")
BODIES = sorted(p for p in FORMS.glob("*/*.json") if not p.name.endswith(".canonical.json"))
PAIRS = [p for p in BODIES if p.with_name(p.stem + ".canonical.json").exists()]


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def reopened(bundle: Bundle, tmp_path: Path) -> Bundle:
    """*bundle* saved as an archive and opened again."""
    path = tmp_path / "b.lmmlz"
    bundle.save(path)
    return open_bundle(path)


def same_bundle(a: Bundle, b: Bundle) -> None:
    assert a.narrative.text == b.narrative.text
    assert sorted(a.entries) == sorted(b.entries)
    for name in a.entries:
        assert a.read(name) == b.read(name), name


def test_the_corpus_holds_at_least_twenty_bodies() -> None:
    assert len(BODIES) >= 20
    assert {p.parent.name for p in BODIES} == {*PROVIDERS, "sharegpt"}


@pytest.mark.parametrize("path", BODIES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_body_survives_save_reopen_and_export(path: Path, tmp_path: Path) -> None:
    fmt = path.parent.name
    source = load(path)
    bundle = reopened(import_messages(source, fmt), tmp_path)
    assert all(issue.severity != "error" for issue in bundle.validate())
    # Native tool lists are converted between providers elsewhere; here, their own one.
    for provider in [fmt] if '"tools"' in json.dumps(source) else PROVIDERS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SystemContentWarning)
            try:
                body = export_bundle(bundle, provider)
            except UnsupportedContentError as error:
                assert error.name and error.hint
                assert provider != fmt, "a body refused by its own provider"
                continue
        validate_with_sdk(provider, body, bundle.settings)


@pytest.mark.parametrize("path", PAIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_accepted_form_imports_as_its_canonical_form(path: Path) -> None:
    fmt = path.parent.name
    canonical = path.with_name(path.stem + ".canonical.json")
    same_bundle(import_messages(load(path), fmt), import_messages(load(canonical), fmt))


# -- hypothesis: key spellings and base64 alphabets ---------------------------------------


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


CONFIG = {
    "max_output_tokens": 256,
    "stop_sequences": ["END"],
    "temperature": 0.2,
    "response_modalities": ["TEXT"],
    "top_k": 4,
}


@settings(max_examples=60, deadline=None)
@given(
    data=st.binary(min_size=1, max_size=64),
    spell=st.lists(st.booleans(), min_size=12, max_size=12),
    url_safe=st.booleans(),
    padded=st.booleans(),
    rest=st.booleans(),
)
def test_any_spelling_and_alphabet_imports_the_same(
    data: bytes, spell: list[bool], url_safe: bool, padded: bool, rest: bool
) -> None:
    def key(name: str, i: int) -> str:
        return camel(name) if spell[i] else name

    encoded = base64.b64encode(data).decode()
    if url_safe:
        encoded = base64.urlsafe_b64encode(data).decode()
        if not padded:
            encoded = encoded.rstrip("=")
    blob = {key("mime_type", 0): "application/octet-stream", "data": encoded}
    config = {key(name, i + 1): value for i, (name, value) in enumerate(CONFIG.items())}
    system = {"parts": [{"text": "Be brief."}]}
    body: dict[str, Any] = {
        "contents": [{"role": "user", "parts": [{key("inline_data", 6): blob}, {"text": "?"}]}],
        key("safety_settings", 7): [{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "OFF"}],
    }
    if rest:  # the REST body: systemInstruction and generationConfig at the top
        body[key("system_instruction", 8)] = system
        body["generationConfig" if spell[9] else "generation_config"] = config
    else:  # the SDK keywords: config holding both
        body["config"] = {key("system_instruction", 8): system, **config}
    canonical = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {
                        "inline_data": {
                            "mime_type": "application/octet-stream",
                            "data": base64.b64encode(data).decode(),
                        }
                    },
                    {"text": "?"},
                ],
            }
        ],
        "config": {
            "system_instruction": system,
            "safety_settings": [{"category": "HARM_CATEGORY_HATE_SPEECH", "threshold": "OFF"}],
            **CONFIG,
        },
    }
    imported = import_messages(body, "gemini")
    expected = import_messages(canonical, "gemini")
    assert imported.narrative.text == expected.narrative.text
    assert imported.settings == expected.settings
    assert {n: imported.read(n) for n in imported.entries} == {
        n: expected.read(n) for n in expected.entries
    }


def test_mixed_base64_alphabets_and_double_spellings_are_refused() -> None:
    with pytest.raises(ImportFormatError, match="mixes"):
        import_messages(
            {
                "contents": [
                    {"parts": [{"inline_data": {"mime_type": "image/png", "data": "ab+_"}}]}
                ]
            },
            "gemini",
        )
    with pytest.raises(ImportFormatError, match="given twice"):
        import_messages(
            {"contents": "hi", "generationConfig": {"maxOutputTokens": 1, "max_output_tokens": 2}},
            "gemini",
        )


def test_rest_camel_case_settings_export_as_the_sdk_config() -> None:
    bundle = import_messages(load(FORMS / "gemini" / "rest_camel_case_config.json"))
    body = to_request(bundle, "gemini", model="m")
    config = body["config"]
    assert config["max_output_tokens"] == 800
    assert config["stop_sequences"] == ["Title"]
    assert config["response_modalities"] == ["TEXT"]
    assert config["thinking_config"] == {"thinking_budget": 0}
    assert config["system_instruction"] == {
        "parts": [{"text": "You are a cat. Your name is Neko."}]
    }
    validate_with_sdk("gemini", body)


def test_schemas_keep_their_own_key_spelling() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"maxItems": {"type": "integer"}},
    }
    body = {"contents": "hi", "generationConfig": {"responseJsonSchema": schema}}
    assert import_messages(body, "gemini").settings == {"response_json_schema": schema}


# -- mid-conversation system turns ---------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "openai/mid_conversation_system.json",
        "openai/mid_conversation_developer.json",
        "openai-responses/mid_conversation_system.json",
    ],
)
def test_mid_conversation_system_keeps_its_place(name: str, tmp_path: Path) -> None:
    path = FORMS / name
    fmt = path.parent.name
    source = load(path)
    bundle = reopened(import_messages(source, fmt), tmp_path)
    roles = [turn.role for turn in bundle.narrative.turns]
    assert "system" in roles[roles.index("user") :]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        body = to_request(bundle, fmt)
    validate_with_sdk(fmt, body, bundle.settings)
    if fmt == "openai":
        assert normalise(fmt, body, source=source) == normalise(fmt, source, source=source)
    else:  # developer is system; string content a typed message (bridge.md, "Round trip")
        assert [item.get("role") for item in body["input"]] == [
            "system" if item["role"] == "developer" else item["role"] for item in source["input"]
        ]


def test_sharegpt_mid_conversation_system_round_trips(tmp_path: Path) -> None:
    source = load(FORMS / "sharegpt" / "mid_conversation_system.json")
    bundle = reopened(import_messages(source, "sharegpt"), tmp_path)
    assert [t.role for t in bundle.narrative.turns][3] == "system"
    assert export_sharegpt(bundle)["conversations"] == source["conversations"]


MIDWAY = """## Turn 1 -- system

Be brief.

## Turn 2 -- user

Hello.

## Turn 3 -- assistant

Hi.

## Turn 4 -- system

Answer in French now.

## Turn 5 -- user

Thanks.
"""


def midway_bundle() -> Bundle:
    return Bundle.from_zip("chat", MIDWAY, {})


def texts_of(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_midway_default_sends_marked_user_text_at_its_place(provider: str) -> None:
    with pytest.warns(SystemContentWarning, match=r"chat\.lmmlz:13:1: turn 4 \(system\)"):
        body = to_request(midway_bundle(), provider, model="m", settings={"max_tokens": 5})
    validate_with_sdk(provider, body)
    listed = body["messages"] if provider == "anthropic" else body["contents"]
    dumped = texts_of(listed)
    assert dumped.index("Hi.") < dumped.index(f"{MIDWAY_SYSTEM_MARKER}\\nAnswer in French now.")
    assert dumped.index("Answer in French") < dumped.index("Thanks.")
    system = body["system"] if provider == "anthropic" else body["config"]["system_instruction"]
    assert "Answer in French" not in texts_of(system)


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_midway_hoist_moves_it_up_front_with_a_warning(provider: str) -> None:
    with pytest.warns(SystemContentWarning, match="moved up front"):
        body = to_request(
            midway_bundle(), provider, midway_system="hoist", settings={"max_tokens": 5}, model="m"
        )
    validate_with_sdk(provider, body)
    system = body["system"] if provider == "anthropic" else body["config"]["system_instruction"]
    assert texts_of(system).index("Be brief.") < texts_of(system).index("Answer in French now.")
    listed = body["messages"] if provider == "anthropic" else body["contents"]
    assert "French" not in texts_of(listed)


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_midway_drop_leaves_it_out_with_a_warning(provider: str) -> None:
    with pytest.warns(SystemContentWarning, match="left out") as caught:
        body = to_request(
            midway_bundle(), provider, midway_system="drop", settings={"max_tokens": 5}, model="m"
        )
    assert len(caught) == 1
    assert "French" not in texts_of(body)
    validate_with_sdk(provider, body)


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_midway_raise_names_the_turn(provider: str) -> None:
    with pytest.raises(UnsupportedContentError) as caught:
        to_request(
            midway_bundle(), provider, model="m", midway_system="raise", settings={"max_tokens": 5}
        )
    assert caught.value.line == 13
    assert "turn 4 (system)" in str(caught.value)


@pytest.mark.parametrize("provider", ["openai", "openai-responses"])
def test_providers_with_in_list_system_keep_it_in_place(provider: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        listed = messages(midway_bundle(), provider)
    assert [m["role"] for m in listed][3] == "system"


def test_midway_system_option_is_checked() -> None:
    with pytest.raises(ValueError, match="midway_system"):
        to_request(midway_bundle(), "anthropic", model="m", midway_system="top")


def test_system_user_still_sends_every_system_turn_as_user() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        listed = messages(midway_bundle(), "anthropic", system="user")
    assert MIDWAY_SYSTEM_MARKER not in texts_of(listed)
    assert "Answer in French" in texts_of(listed)


def test_cli_midway_system(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text(MIDWAY, encoding="utf-8")
    run = [
        sys.executable,
        "-m",
        "lmml_mdit",
        "render",
        str(path),
        "--provider",
        "gemini",
        "--request",
        "--model",
        "m",
    ]
    done = subprocess.run([*run, "--midway-system", "hoist"], capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert "French" in texts_of(body["config"]["system_instruction"])
    assert b"turn 4 (system)" in done.stderr
    failed = subprocess.run([*run, "--midway-system", "raise"], capture_output=True, check=False)
    assert failed.returncode != 0
    assert b"chat.lmml:13:1" in failed.stderr


# -- video ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "media_type"),
    [("video_mp4", "video/mp4"), ("video_webm", "video/webm"), ("video_mov", "video/quicktime")],
)
def test_video_is_sniffed_sent_to_gemini_and_refused_elsewhere(
    name: str, media_type: str, tmp_path: Path
) -> None:
    source = load(FORMS / "gemini" / f"{name}.json")
    bundle = reopened(import_messages(source, "gemini"), tmp_path)
    (asset,) = (name for name in bundle.entries if name != "settings.json")
    data = bundle.read(asset)
    assert sniff(data) == media_type == media_type_for(asset, data)
    assert media_type in VIDEO_TYPES
    body = to_request(bundle, "gemini", model="m")
    validate_with_sdk("gemini", body)
    assert body["contents"] == source["contents"]
    for provider in ("openai", "openai-responses", "anthropic"):
        with pytest.raises(UnsupportedContentError, match="video") as caught:
            to_request(bundle, provider, model="m", settings={"max_tokens": 5})
        assert caught.value.name == asset


def test_not_every_iso_media_file_is_video() -> None:
    assert sniff(b"\x00\x00\x00\x18ftypM4A \x00\x00\x00\x00") is None
    assert sniff(b"\x1a\x45\xdf\xa3\x9f\x42\x82\x88matroska") is None
    assert sniff(b"hello ftypisom") is None


# -- text documents ---------------------------------------------------------------------------


def test_text_documents_export_as_documents_to_their_own_provider(tmp_path: Path) -> None:
    gemini = reopened(import_messages(load(FORMS / "gemini" / "text_document.json")), tmp_path)
    parts = to_request(gemini, "gemini", model="m")["contents"][0]["parts"]
    assert parts[0]["inline_data"]["mime_type"] == "text/plain"
    chat = import_messages(load(FORMS / "openai" / "text_file.json"), "openai")
    part = to_request(chat, "openai", model="m")["messages"][0]["content"][0]
    assert part["type"] == "file"
    assert part["file"]["file_data"].startswith("data:text/plain;base64,")
    responses = import_messages(load(FORMS / "openai-responses" / "text_input_file.json"))
    item = to_request(responses, "openai-responses", model="m")["input"][0]["content"][0]
    assert item["type"] == "input_file"
    assert item["file_data"].startswith("data:text/markdown;base64,")
    anthropic = import_messages(load(FORMS / "anthropic" / "text_document_titled.json"))
    block = to_request(anthropic, "anthropic", model="m")["messages"][0]["content"][0]
    assert block["type"] == "document"
    assert block["source"] == {
        "type": "text",
        "media_type": "text/plain",
        "data": "The grass is green. The sky is blue.",
    }


def test_the_text_embeds_option_overrides_the_recorded_form() -> None:
    chat = import_messages(load(FORMS / "openai" / "text_file.json"), "openai")
    part = to_request(chat, "openai", model="m", text_embeds="text")["messages"][0]["content"][0]
    assert part["type"] == "text"
    assert "text_embeds" not in to_request(chat, "openai", model="m")


def test_an_invalid_text_embeds_setting_is_refused() -> None:
    from lmml_mdit.errors import InvalidSettingsError

    body = {"messages": [{"role": "user", "content": "hi"}], "text_embeds": "pdf"}
    with pytest.raises(InvalidSettingsError, match="text_embeds") as raised:
        to_request(import_messages(body, "openai"), "openai")
    assert "must be 'text' or 'document', not 'pdf'" in str(raised.value)
    assert raised.value.hint == "give text or document, or remove it"


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_midway_round_trip_is_a_fixed_point(provider: str) -> None:
    # Anthropic and Gemini have no system message in their lists: the marked user text
    # comes back as user text (never promoted to system, which would let user text forge
    # a system prompt), and the second export is the first.
    with pytest.warns(SystemContentWarning):
        first = to_request(midway_bundle(), provider, model="m", settings={"max_tokens": 5})
    again = import_messages(first, provider)
    assert [turn.role for turn in again.narrative.turns].count("system") == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = to_request(again, provider, model="m")
    # Up to normalisation 3: the marked text and the next user text are one run of blocks.
    assert joined(normalise(provider, second, source=first)) == joined(
        normalise(provider, first, source=first)
    )


def joined(body: dict[str, Any]) -> dict[str, Any]:
    """*body* with adjacent text-only parts of each Gemini content joined by a blank line."""
    for content in body.get("contents", []):
        parts: list[Any] = []
        for part in content["parts"]:
            if parts and set(part) == {"text"} == set(parts[-1]):
                parts[-1] = {"text": parts[-1]["text"] + "\n\n" + part["text"]}
            else:
                parts.append(part)
        content["parts"] = parts
    return body


def test_sharegpt_system_field_and_midway_system() -> None:
    source = load(FORMS / "sharegpt" / "system_field_and_midway_system.json")
    bundle = import_messages(source, "sharegpt")
    assert [t.role for t in bundle.narrative.turns] == [
        "system",
        "user",
        "assistant",
        "system",
        "user",
        "assistant",
    ]
    record = export_sharegpt(bundle)
    assert record["conversations"][3] == source["conversations"][2]
    assert record["id"] == "conv-0042"


def test_gemini_contents_mix_content_objects_strings_and_parts() -> None:
    mixed = {
        "contents": [
            "Look:",
            {"text": "two parts, one user content"},
            {"role": "model", "parts": {"text": "Seen."}},
            "Thanks.",
        ],
        "config": {"system_instruction": ["Be kind.", {"text": "Be brief."}]},
    }
    canonical = {
        "contents": [
            {"role": "user", "parts": [{"text": "Look:"}, {"text": "two parts, one user content"}]},
            {"role": "model", "parts": [{"text": "Seen."}]},
            {"role": "user", "parts": [{"text": "Thanks."}]},
        ],
        "config": {"system_instruction": {"parts": [{"text": "Be kind."}, {"text": "Be brief."}]}},
    }
    same_bundle(import_messages(mixed, "gemini"), import_messages(canonical, "gemini"))


@pytest.mark.parametrize("parts", ["x", 5, None, [["x"]]])
def test_a_content_s_parts_must_be_part_objects(parts: object) -> None:
    with pytest.raises(ImportFormatError):
        import_messages({"contents": [{"role": "user", "parts": parts}]}, "gemini")


def test_video_part_is_public() -> None:
    import lmml_mdit
    from lmml_mdit import conversation
    from lmml_mdit.chat import handlers  # the old path, on purpose

    assert "VideoPart" in lmml_mdit.__all__
    assert lmml_mdit.VideoPart is conversation.VideoPart is handlers.VideoPart


def test_export_folder_reports_the_midway_system_turn(tmp_path: Path) -> None:
    from lmml_mdit import export_folder

    (tmp_path / "chat.lmml").write_text(MIDWAY, encoding="utf-8")
    out = tmp_path / "out.jsonl"
    report = export_folder(str(tmp_path), "anthropic", str(out), workers=1)
    assert report.ok and report.written == 1
    ((path, text),) = report.warnings
    assert path.endswith("chat.lmml")
    assert "chat.lmml:13:1: turn 4 (system)" in text
    line = json.loads(out.read_text(encoding="utf-8"))
    assert f"{MIDWAY_SYSTEM_MARKER}\\nAnswer in French now." in json.dumps(line["messages"])


def _carriers(encoded: str) -> dict[str, Any]:
    """One body per format where base64 appears, holding *encoded* PNG-typed bytes."""
    uri = "data:image/png;base64," + encoded
    return {
        "openai": {
            "messages": [
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": uri}}]}
            ]
        },
        "openai-audio": {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_audio", "input_audio": {"data": encoded, "format": "wav"}}
                    ],
                }
            ]
        },
        "openai-responses": {
            "input": [
                {
                    "role": "user",
                    "content": [{"type": "input_image", "image_url": uri, "detail": "auto"}],
                }
            ]
        },
        "anthropic": {
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "image",
                            "source": {
                                "type": "base64",
                                "media_type": "image/png",
                                "data": encoded,
                            },
                        }
                    ],
                }
            ]
        },
        "gemini": {
            "contents": [
                {
                    "role": "user",
                    "parts": [{"inline_data": {"mime_type": "image/png", "data": encoded}}],
                }
            ]
        },
    }


@settings(max_examples=40, deadline=None)
@given(data=st.binary(min_size=1, max_size=48), padded=st.booleans())
def test_url_safe_base64_is_read_in_every_format(data: bytes, padded: bool) -> None:
    url_safe = base64.urlsafe_b64encode(data).decode()
    if not padded:
        url_safe = url_safe.rstrip("=")
    standard = _carriers(base64.b64encode(data).decode())
    for key, body in _carriers(url_safe).items():
        fmt = key.removesuffix("-audio")
        imported = import_messages(body, fmt)
        same_bundle(imported, import_messages(standard[key], fmt))
        assert [imported.read(n) for n in imported.entries] == [data]
