"""Provider-specific items travel in the bundle: back unchanged to their provider, dropped
with a warning naming each for another (docs/bridge.md, "Provider-specific items")."""

from __future__ import annotations

import base64
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bridge_roundtrip import exported, normalise, validate_with_sdk

import lmml_mdit
from lmml_mdit import (
    Bundle,
    NativeItemDroppedWarning,
    detect_format,
    export_sharegpt,
    import_messages,
    render_html,
    render_turns,
    to_request,
)
from lmml_mdit.chat.providers import PROVIDERS
from lmml_mdit.errors import UnsupportedContentError
from lmml_mdit.narrative import (
    NATIVE_PROVIDERS,
    TOOL_CALL_SUFFIX,
    is_native_name,
    native_name,
    parse_native,
)

CORPUS = Path(__file__).parent / "bridge_corpus" / "native"
BODIES = sorted(CORPUS.glob("*.json"))


def source_format(path: Path) -> str:
    return path.name.split("--", 1)[0]


def native_fences(bundle: Bundle) -> list[str]:
    return [embed.name for embed in bundle.narrative.embeds if is_native_name(embed.name)]


def test_the_corpus_covers_each_provider() -> None:
    assert {source_format(path) for path in BODIES} == NATIVE_PROVIDERS


def test_native_providers_are_the_registry_providers() -> None:
    assert set(PROVIDERS) == NATIVE_PROVIDERS


@pytest.mark.parametrize("path", BODIES, ids=lambda path: path.name)
def test_same_provider_round_trip(path: Path, tmp_path: Path) -> None:
    fmt = source_format(path)
    source = json.loads(path.read_text(encoding="utf-8"))
    bundle = import_messages(source, fmt)
    assert native_fences(bundle), "the body carries provider-specific items"
    saved = tmp_path / "chat.lmmlz"
    bundle.save(saved)
    reopened = lmml_mdit.open(saved)
    assert [issue for issue in reopened.validate()] == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", NativeItemDroppedWarning)
        body = exported(reopened, fmt)
    validate_with_sdk(fmt, body, reopened.settings)
    if fmt == "openai-responses":  # top-level items: compared in place, then set aside
        body, source = without_items(body, source)
    assert normalise(fmt, body, source=source) == normalise(fmt, source, source=source)


PORTABLE_ITEMS = {"message", "function_call", "function_call_output"}


def without_items(body: dict[str, Any], source: dict[str, Any]) -> tuple[Any, Any]:
    """The Responses bodies without their provider-specific items, once these are shown to
    stand at the same places, equal."""
    mine = [
        (i, item)
        for i, item in enumerate(body["input"])
        if item.get("type", "message") not in PORTABLE_ITEMS
    ]
    theirs = [
        (i, item)
        for i, item in enumerate(source["input"])
        if item.get("type", "message") not in PORTABLE_ITEMS
    ]
    assert mine == theirs
    kept = [item for _, item in mine]
    return (
        {**body, "input": [item for item in body["input"] if item not in kept]},
        {**source, "input": [item for item in source["input"] if item not in kept]},
    )


@pytest.mark.parametrize("path", BODIES, ids=lambda path: path.name)
@pytest.mark.parametrize("target", sorted(PROVIDERS))
def test_other_providers_drop_each_item_with_a_warning(path: Path, target: str) -> None:
    fmt = source_format(path)
    if target == fmt:
        return
    bundle = import_messages(json.loads(path.read_text(encoding="utf-8")), fmt)
    fences = native_fences(bundle)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body = to_request(bundle, target, model="m")
    dropped = [str(w.message) for w in caught if w.category is NativeItemDroppedWarning]
    assert len(dropped) == len(fences)
    for name, message in zip(fences, dropped, strict=True):
        assert f"({name})" in message and "left out" in message
    validate_with_sdk(target, body, bundle.settings)
    assert not any(fence in json.dumps(body) for fence in fences)


def test_sharegpt_export_drops_each_item_with_a_warning() -> None:
    path = CORPUS / "anthropic--thinking-tool-use.json"
    bundle = import_messages(json.loads(path.read_text(encoding="utf-8")), "anthropic")
    with pytest.warns(NativeItemDroppedWarning) as caught:
        record = export_sharegpt(bundle)
    assert len([w for w in caught if w.category is NativeItemDroppedWarning]) == 2
    assert "thinking" not in json.dumps(record["conversations"])


def test_render_turns_drops_each_item_with_a_warning() -> None:
    path = CORPUS / "openai--message-name.json"
    bundle = import_messages(json.loads(path.read_text(encoding="utf-8")), "openai")
    with pytest.warns(NativeItemDroppedWarning):
        turns = render_turns(bundle)
    assert all("name" not in json.dumps(turn) for turn in turns)


def test_names_follow_the_convention() -> None:
    assert native_name("anthropic", "thinking", 1) == "anthropic.thinking.1.json"
    assert native_name("openai-responses", "web search", 12) == (
        "openai-responses.web_search.12.json"
    )
    assert is_native_name("gemini.part.3.json")
    for name in ("chart.data.1.json", "gemini.part.0.json", "gemini.part.json", "x.png"):
        assert not is_native_name(name)
    assert not is_native_name("call_1" + TOOL_CALL_SUFFIX)
    with pytest.raises(ValueError):
        native_name("sharegpt", "x", 1)
    with pytest.raises(ValueError):
        native_name("gemini", "x", 0)


def test_the_fence_is_readable_json_in_the_narrative() -> None:
    path = CORPUS / "anthropic--web-search-citations.json"
    source = json.loads(path.read_text(encoding="utf-8"))
    bundle = import_messages(source, "anthropic")
    text = bundle.narrative.source
    assert "@@@anthropic.thinking.1.json\n{" in text
    embed = next(e for e in bundle.narrative.embeds if e.name == "anthropic.thinking.1.json")
    item = parse_native(embed)
    assert item.value == source["messages"][1]["content"][0]
    assert (item.provider, item.kind) == ("anthropic", "thinking")
    html = render_html(bundle)
    assert "anthropic.thinking.1.json" in html and "signature" in html


def _bundle(text: str) -> Bundle:
    return Bundle.from_zip("chat", text, {})


def test_a_fence_that_is_not_an_object_is_refused_where_it_stands() -> None:
    bundle = _bundle(
        "## user\n\nHi\n\n## assistant\n\n@@@anthropic.thinking.1.json\n[1, 2]\n@@@\n\nHello\n"
    )
    with pytest.raises(UnsupportedContentError) as raised:
        to_request(bundle, "anthropic", model="m")
    assert raised.value.line == 7
    assert "anthropic.thinking.1.json" in str(raised.value)


def test_part_keys_need_a_part_before_them() -> None:
    bundle = _bundle('## user\n\nHi\n\n## assistant\n\n@@@gemini.part.1.json\n{"a": 1}\n@@@\n')
    with pytest.raises(UnsupportedContentError, match="there is none"):
        to_request(bundle, "gemini", model="m")


def test_a_hand_written_fence_goes_where_it_stands() -> None:
    bundle = _bundle(
        "## user\n\nHi\n\n## assistant\n\nFirst.\n\n"
        '@@@anthropic.thinking.1.json\n{"type": "thinking", "thinking": "t", "signature": "s"}\n'
        "@@@\n\nSecond.\n"
    )
    body: dict[str, Any] = to_request(bundle, "anthropic", model="m")
    assert body["messages"][1]["content"] == [
        {"type": "text", "text": "First."},
        {"type": "thinking", "thinking": "t", "signature": "s"},
        {"type": "text", "text": "Second."},
    ]


def test_cli_export_warns_naming_each_item(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lmml_mdit.cli import main

    path = CORPUS / "openai-responses--reasoning-function-call.json"
    bundle_path = tmp_path / "chat.lmmlz"
    assert main(["import", str(path), "-o", str(bundle_path), "--format", "openai-responses"]) == 0
    out = tmp_path / "out.jsonl"
    assert main(["export", str(tmp_path), "--provider", "openai", "--jsonl", str(out)]) == 0
    err = capsys.readouterr().err
    assert "lmml: warning:" in err and "openai-responses.reasoning.1.json" in err
    same = tmp_path / "same.jsonl"
    assert (
        main(
            [
                "export",
                str(tmp_path),
                "--provider",
                "openai-responses",
                "--jsonl",
                str(same),
                "--workers",
                "1",
            ]
        )
        == 0
    )
    line = json.loads(same.read_text(encoding="utf-8"))
    assert line["input"][1]["type"] == "reasoning"


def test_thinking_blocks_are_detected_as_anthropic() -> None:
    path = CORPUS / "anthropic--thinking-tool-use.json"
    source = json.loads(path.read_text(encoding="utf-8"))
    assert detect_format(source["messages"]) == "anthropic"
    reasoning = CORPUS / "openai-responses--reasoning-web-search.json"
    items = json.loads(reasoning.read_text(encoding="utf-8"))["input"]
    assert detect_format([item for item in items if item["type"] != "message"]) == (
        "openai-responses"
    )


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=60, deadline=None)
@given(
    kind=st.from_regex(r"[a-z][a-z_]{0,15}", fullmatch=True).filter(
        lambda kind: kind not in {"text", "image", "document", "tool_use", "tool_result"}
    ),
    extra=st.dictionaries(
        st.text(min_size=1, max_size=8).filter(lambda key: key != "type"), JSON_VALUES, max_size=4
    ),
    text=st.text(max_size=40),
)
def test_any_unknown_block_comes_back_byte_for_byte(
    kind: str, extra: dict[str, Any], text: str
) -> None:
    block = {"type": kind, **extra}
    body = {
        "max_tokens": 5,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [block, {"type": "text", "text": "ok"}]},
        ],
    }
    bundle = import_messages(body, "anthropic")
    again = Bundle.from_zip("chat", bundle.narrative.source, {})  # the text alone carries it
    sent = to_request(again, "anthropic", model="m")
    assert json.dumps(sent["messages"][1]["content"][0]) == json.dumps(block)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        other = to_request(again, "gemini", model="m")
    assert [w.category for w in caught] == [NativeItemDroppedWarning]
    assert other["contents"][1]["parts"] == [{"text": "ok"}]


def test_cli_render_and_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lmml_mdit.cli import main

    path = CORPUS / "gemini--thought-signature-rest.json"
    bundle_path = tmp_path / "g.lmmlz"
    assert main(["import", str(path), "-o", str(bundle_path)]) == 0
    assert main(["validate", str(bundle_path)]) == 0
    capsys.readouterr()
    assert main(["render", str(bundle_path), "--provider", "gemini", "--request"]) == 0
    captured = capsys.readouterr()
    body = json.loads(captured.out)
    assert body["contents"][1]["parts"][1]["thought_signature"].startswith("CiUB")
    assert "left out" not in captured.err
    assert main(["render", str(bundle_path), "--provider", "openai", "--request"]) == 0
    err = capsys.readouterr().err
    for name in ("gemini.thought.1.json", "gemini.part.2.json", "gemini.text.4.json"):
        assert name in err


def test_a_signature_on_a_function_response_comes_back_on_it() -> None:
    contents = [
        {"role": "user", "parts": [{"text": "Go"}]},
        {"role": "model", "parts": [{"function_call": {"id": "c1", "name": "f", "args": {}}}]},
        {
            "role": "user",
            "parts": [
                {
                    "function_response": {"id": "c1", "name": "f", "response": {"ok": 1}},
                    "thought_signature": "AA",
                }
            ],
        },
    ]
    bundle = import_messages({"contents": contents}, "gemini")
    assert "@@@gemini.message.1.json" in bundle.narrative.text
    assert bundle.validate() == []
    body = to_request(bundle, "gemini", model="m")
    assert body["contents"][2]["parts"] == contents[2]["parts"]
    with pytest.warns(NativeItemDroppedWarning, match=r"gemini\.message\.1\.json"):
        to_request(bundle, "openai", model="m")


def test_a_video_clip_s_metadata_comes_back_beside_its_video() -> None:
    # Gemini's video understanding clips a video with video_metadata beside the part; the
    # video goes to Gemini only, its clip with it.
    video = {"file_uri": "https://www.youtube.com/watch?v=9hE5-98ZeCg", "mime_type": "video/mp4"}
    clip = {"start_offset": "1250s", "end_offset": "1570s", "fps": 2}
    parts = [{"file_data": video, "videoMetadata": clip}, {"text": "Summarise the clip."}]
    bundle = import_messages({"contents": [{"role": "user", "parts": parts}]}, "gemini")
    assert "@@@gemini.part.1.json" in bundle.narrative.text
    assert bundle.validate() == []
    body = to_request(bundle, "gemini", model="m")
    assert body["contents"][0]["parts"][0] == {"file_data": video, "video_metadata": clip}
    with pytest.raises(UnsupportedContentError, match="video/mp4"):
        to_request(bundle, "anthropic", model="m")


@pytest.mark.parametrize("key", ["thought_signature", "thoughtSignature"])
def test_a_server_side_tool_part_comes_back_with_its_signature(key: str) -> None:
    call = {"tool_call": {"id": "t1", "tool_type": "GOOGLE_SEARCH_WEB", "args": {"q": "x"}}}
    answer = {"tool_response": {"id": "t1", "tool_type": "GOOGLE_SEARCH_WEB", "response": {}}}
    contents = [
        {"role": "user", "parts": [{"text": "Search x"}]},
        {"role": "model", "parts": [{**call, key: "AA"}, answer, {"text": "Found."}]},
    ]
    bundle = import_messages({"model": "m", "contents": contents}, "gemini")
    assert "@@@gemini.tool_call.1.json" in bundle.narrative.text
    assert "@@@gemini.tool_response.2.json" in bundle.narrative.text
    body = to_request(bundle, "gemini")
    assert body["contents"][1]["parts"] == contents[1]["parts"]
    with pytest.warns(NativeItemDroppedWarning, match=r"gemini\.tool_call\.1\.json"):
        assert "tool_type" not in json.dumps(to_request(bundle, "openai"))


def test_a_packed_item_is_still_an_item() -> None:
    item = {"type": "thinking", "thinking": "t", "signature": "s"}
    bundle = Bundle.from_zip(
        "chat",
        "## user\n\nHi\n\n## assistant\n\n@anthropic.thinking.1.json\n\nOk.\n",
        {"anthropic.thinking.1.json": json.dumps(item).encode()},
    )
    assert bundle.validate() == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the max_tokens default
        body = to_request(bundle, "anthropic", model="m")
    assert body["messages"][1]["content"] == [item, {"type": "text", "text": "Ok."}]
    with pytest.warns(NativeItemDroppedWarning, match=r"anthropic\.thinking\.1\.json"):
        other = to_request(bundle, "openai", model="m")
    assert other["messages"][1]["content"] == [{"type": "text", "text": "Ok."}]


@pytest.mark.parametrize(
    ("path", "target", "item"),
    [
        ("openai--message-name.json", "anthropic", "openai message key 'name'"),
        ("gemini--thought-signature-sdk.json", "openai", "gemini part key 'thought_signature'"),
        ("anthropic--web-search-citations.json", "gemini", "anthropic part key 'citations'"),
    ],
)
def test_a_dropped_key_is_named_itself(path: str, target: str, item: str) -> None:
    source = CORPUS / path
    bundle = import_messages(json.loads(source.read_text(encoding="utf-8")), source_format(source))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        to_request(bundle, target, model="m")
    dropped = [str(w.message) for w in caught if w.category is NativeItemDroppedWarning]
    assert any(f"{item} (" in message and "left out" in message for message in dropped), dropped


def test_a_gemini_marker_holding_no_value_is_left_out_without_a_warning() -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(40)).decode()
    result = {
        "name": "get_chart",
        "response": {"status": "ok"},
        "parts": [{"inlineData": {"mimeType": "image/png", "data": png}}],
    }
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "Show me the chart"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "get_chart", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": result}]},
        ]
    }
    bundle = lmml_mdit.import_messages(body)
    assert '{"function_response": {"parts": []}}' in bundle.narrative.text
    for provider in ("openai", "anthropic", "openai-responses"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", lmml_mdit.NativeItemDroppedWarning)
            request = bundle.to_request(provider, model="m", settings={"max_tokens": 5})
            sent = json.dumps(request)
        assert png[:40] in sent  # the parts the marker stood for go as the tool result's
    kept = bundle.to_request("gemini", model="m")["contents"][2]["parts"][0]
    assert kept["function_response"]["parts"][0]["inline_data"]["data"] == png
