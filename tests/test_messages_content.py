"""How turns become content: segments, placement, reserved embeds, context, budget, handlers."""

from __future__ import annotations

import base64
import dataclasses
import json
import warnings
from typing import Any

import pytest
from _messages_support import jpeg_header, pdf, png, text_bundle, wav, zip_bundle

from lmml_mdit import (
    Asset,
    DefectWarning,
    EmbedOmittedWarning,
    ImagePart,
    TextPart,
    register_handler,
    render_payload,
    render_turns,
    to_request,
    unregister_handler,
)
from lmml_mdit.chat import (
    EmbedSegment,
    TextSegment,
    bundle_state,
    messages,
    registered_handlers,
    turn_segments,
)
from lmml_mdit.chat.providers import PROVIDERS
from lmml_mdit.errors import DefectError, EmbedBudgetError, LmmlError, UnsupportedContentError
from lmml_mdit.media import media_type_for, sniff


def _texts(message: dict[str, Any]) -> list[str]:
    return [part["text"] for part in message["content"] if part["type"] == "text"]


def test_embed_part_follows_the_block_that_mentions_it() -> None:
    text = "## user\nFirst paragraph with @a.png here.\n\nSecond paragraph.\n\nThird @b.png.\n"
    bundle = zip_bundle(text, {"a.png": png(seed=1), "b.png": png(seed=2)})
    [message] = messages(bundle)
    kinds = [part["type"] for part in message["content"]]
    assert kinds == ["text", "image_url", "text", "image_url"]
    assert message["content"][0]["text"] == "First paragraph with @a.png here."
    assert message["content"][2]["text"] == "Second paragraph.\n\nThird @b.png."


def test_embed_in_a_list_goes_after_the_whole_list() -> None:
    text = "## user\n- one @a.png\n- two\n\nafter\n"
    bundle = zip_bundle(text, {"a.png": png()})
    [message] = messages(bundle)
    assert [part["type"] for part in message["content"]] == ["text", "image_url", "text"]
    assert message["content"][0]["text"] == "- one @a.png\n- two"


def test_inline_fence_reaches_the_model_once() -> None:
    text = "## user\nData:\n\n@@@t.csv\nx,y\n1,2\n@@@\n\nThoughts?\n"
    [message] = messages(text_bundle(text))
    joined = "\n".join(_texts(message))
    assert joined.count("x,y") == 1
    assert "@@@" not in joined
    assert _texts(message) == ["Data:", "t.csv:\n```csv\nx,y\n1,2\n```", "Thoughts?"]


def test_a_text_asset_s_byte_order_mark_is_not_sent() -> None:
    """A CSV saved by a spreadsheet opens with a UTF-8 byte order mark: the model gets the
    text without it, in every format, and ``Asset.text()`` leaves it out."""
    bundle = zip_bundle("## user\nData @t.csv\n", {"t.csv": b"\xef\xbb\xbfx,y\n1,2\n"})
    for provider in PROVIDERS:
        payload = render_payload(bundle, provider)
        body = json.dumps([payload.messages, payload.system], ensure_ascii=False)
        assert "\ufeff" not in body and "x,y" in body, provider
    [message] = messages(bundle)
    assert _texts(message)[1] == "t.csv:\n```csv\nx,y\n1,2\n```"


def test_an_lmml_content_fence_is_sent_without_its_own_lines() -> None:
    """A code fence of info ``lmml-content`` holds a turn's text as it is (the Transcript
    writes one around a content no escape makes safe): the model is sent what it holds,
    blank lines and all, in every format; an unclosed one loses only its opening line, and
    any other code fence, or one inside a list, stays whole."""
    text = (
        "## user\n\n````lmml-content\nHere is code:\n```python\nprint(1)\n````\n\n"
        "## assistant\n\nbefore\n\n```lmml-content \n\nx\n```\n\nafter\n\n"
        "```py\nkept\n```\n\n- ```lmml-content\n  listed\n  ```\n\n"
        "## user\n\n~~~lmml-content\nopen to the end\n"
    )
    bundle = text_bundle(text)
    sent = [_texts(message) for message in messages(bundle)]
    assert sent == [
        ["Here is code:\n```python\nprint(1)"],
        ["before\n\n\nx\n\nafter\n\n```py\nkept\n```\n\n- ```lmml-content\n  listed\n  ```"],
        ["open to the end"],
    ]
    for provider in PROVIDERS:
        payload = render_payload(bundle, provider)
        body = json.dumps([payload.messages, payload.system])
        assert "print(1)" in body and "````" not in body, provider


def test_repeated_fence_becomes_a_reference_line() -> None:
    text = "## user\n@@@n.txt\nhello\n@@@\n\n## user\nagain:\n\n@@@n.txt\nhello\n@@@\n"
    first, second = messages(text_bundle(text))
    assert _texts(first) == ["n.txt:\n```txt\nhello\n```"]
    assert _texts(second) == ["again:\n\n@n.txt"]


def test_reserved_embeds_are_never_sent_and_their_fences_leave_the_text() -> None:
    text = (
        "Preamble.\n\n@@@settings.yaml\ntemperature: 1\n@@@\n\n"
        "## user\nsee @manifest.json and @settings.yaml\n"
    )
    bundle = zip_bundle(text, {"manifest.json": b"{}"})
    payload = messages(bundle)
    dumped = repr(payload)
    assert "temperature" not in dumped
    assert payload[0] == {"role": "system", "content": [{"type": "text", "text": "Preamble."}]}
    assert _texts(payload[1]) == ["see @manifest.json and @settings.yaml"]
    assert len(payload[1]["content"]) == 1


@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_a_block_left_out_between_paragraphs_leaves_one_blank_line(ending: str) -> None:
    """The paragraphs around a reserved fence (or a paragraph of reserved references) are
    sent one blank line apart; blank lines the author wrote elsewhere are sent as written."""
    text = (
        "intro\n\n@@@settings.yaml\nmodel: m\n@@@\n\nmore\n\n"
        "## user\nhi\n\n\n\nthere\n\n@manifest.json\n\n\nafter\n"
    ).replace("\n", ending)
    bundle = zip_bundle(text, {"manifest.json": b"{}"})
    system, user = messages(bundle)
    assert _texts(system) == ["intro\n\nmore"]
    assert _texts(user) == ["hi\n\n\n\nthere\n\nafter"]


def test_delimiter_line_embed_opens_its_turn() -> None:
    bundle = zip_bundle("## about @a.png -- user\nwords\n", {"a.png": png()})
    [message] = messages(bundle)
    assert [part["type"] for part in message["content"]] == ["image_url", "text"]


def test_embed_seen_in_an_earlier_turn_is_not_sent_again() -> None:
    text = "## user\nlook @a.png\n\n## assistant\nok\n\n## user\nagain @a.png\n"
    payload = messages(zip_bundle(text, {"a.png": png()}))
    assert sum(part["type"] == "image_url" for m in payload for part in m["content"] or []) == 1
    assert _texts(payload[2]) == ["again @a.png"]


@pytest.mark.parametrize(
    ("context", "expected"),
    [("system", ["system", "user"]), ("user", ["user", "user"]), ("drop", ["user"])],
)
def test_context_turn_option(context: str, expected: list[str]) -> None:
    bundle = text_bundle("Be brief.\n\n## user\nhi\n")
    assert [m["role"] for m in messages(bundle, context=context)] == expected


def test_segments_keep_source_lines() -> None:
    bundle = zip_bundle("## user\n\nalpha @a.png\n\nbeta\n", {"a.png": png()})
    turn = bundle.narrative.turns[0]
    segments = turn_segments(bundle.narrative, turn)
    assert segments[0] == TextSegment("alpha @a.png", 3)
    assert isinstance(segments[1], EmbedSegment)
    assert segments[2] == TextSegment("beta", 5)


def test_a_segment_after_a_line_left_out_names_its_own_line() -> None:
    bundle = text_bundle("## user\n\nleft out\n\nsent\nas well\n")
    turn = bundle.narrative.turns[0]
    segments = turn_segments(bundle.narrative, turn, skip_lines=frozenset({3}))
    assert segments == [TextSegment("sent\nas well", 5)]


@pytest.mark.parametrize(
    "text",
    [
        "## user\n\nalpha @a.png\n\nbeta\n",
        "Be brief.\n\n## user\n\n\n@a.png @b.png\n\nafter\n\n\n## assistant\nok\n",
        "## user\n- one @a.png\n- two\n\n> quote @b.png\n\n## user\n@a.png\n",
        "## user\nsee @b.png and @a.png on one line\n  indented\n\n",
        "## user\n\n\n\n## assistant\n\n",
    ],
)
def test_a_plain_turn_is_cut_as_the_line_by_line_walk_cuts_it(text: str) -> None:
    """A turn with nothing to leave out or edit is cut from slices of its lines; a line to
    skip outside every turn sends it through the walk line by line instead."""
    bundle = zip_bundle(text, {"a.png": png(), "b.png": png(seed=1)})
    narrative = bundle.narrative
    elsewhere = frozenset({len(narrative.lines) + 10})
    for turn in narrative.turns:
        sliced = turn_segments(narrative, turn)
        assert sliced == turn_segments(narrative, turn, skip_lines=elsewhere)


@pytest.mark.parametrize(
    "text",
    [
        "## user\n\nalpha @a.png\n\nbeta\n",
        "Be brief.\n\n## user\n\n\n@a.png @b.png\n\nafter\n\n\n## assistant\nok\n",
        "## user\n- one @a.png\n- two\n\n> quote @b.png\n\n## user\n@a.png\n",
    ],
)
@pytest.mark.parametrize("filled", ["", "   ", "a value", "  padded", "two\nlines", "\n", "a\n\n"])
def test_a_turn_with_finished_lines_is_cut_as_the_line_by_line_walk_cuts_it(
    text: str, filled: str
) -> None:
    """A template's finished lines (one line, or several from a value's newlines) go into
    the slices; the walk line by line, which a line to skip outside every turn forces, cuts
    the same segments, at the same source lines."""
    bundle = zip_bundle(text, {"a.png": png(), "b.png": png(seed=1)})
    narrative = bundle.narrative
    elsewhere = frozenset({len(narrative.lines) + 10})
    for turn in narrative.turns:
        lines = range(turn.start_line - 1, max(turn.end_line, turn.start_line - 1))
        everywhere = dict.fromkeys(range(len(narrative.lines)), filled)  # every turn's
        for edited in [*({line: filled} for line in lines), everywhere]:
            sliced = turn_segments(narrative, turn, fills=edited)
            assert sliced == turn_segments(narrative, turn, skip_lines=elsewhere, fills=edited)


def test_budget_omits_and_warns() -> None:
    text = "## user\n@a.png @b.png\n"
    big, small = png(40, 40, 1), png(1, 1, 2)
    bundle = zip_bundle(text, {"a.png": big, "b.png": small})
    with pytest.warns(EmbedOmittedWarning, match=r"\.lmmlz:2:1: a\.png \("):
        payload = render_payload(bundle, max_embed_bytes=len(small) + 10)
    assert [part["type"] for part in payload.messages[0]["content"]] == ["text", "image_url"]
    assert len(payload.warnings) == 1 and "a.png" in payload.warnings[0]


def test_budget_is_per_message() -> None:
    text = "## user\n@a.png\n\n## user\n@b.png\n"
    image = png()
    bundle = zip_bundle(text, {"a.png": image, "b.png": png(seed=3)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        payload = messages(bundle, max_embed_bytes=len(image) + 5)
    assert all(m["content"][-1]["type"] == "image_url" for m in payload)


def test_budget_raise_option() -> None:
    bundle = zip_bundle("## user\n@a.png\n", {"a.png": png()})
    with pytest.raises(EmbedBudgetError) as error:
        messages(bundle, max_embed_bytes=3, on_omit="raise")
    assert error.value.name == "a.png" and error.value.line == 2


def test_unknown_option_and_bad_value() -> None:
    bundle = text_bundle("## user\nhi\n")
    with pytest.raises(TypeError, match="unknown option"):
        messages(bundle, colour="red")
    with pytest.raises(ValueError, match="context"):
        messages(bundle, context="nowhere")


def test_unknown_provider() -> None:
    with pytest.raises(ValueError, match="unknown provider 'cohere'"):
        messages(text_bundle("## user\nhi\n"), "cohere")


# --- handlers ------------------------------------------------------------------------------


def test_sniffing_beats_the_extension() -> None:
    assert media_type_for("photo.png", jpeg_header()) == "image/jpeg"
    assert media_type_for("notes.png", b"just text\n") == "text/plain"
    assert media_type_for("table.csv", b"a,b\n") == "text/csv"
    assert media_type_for("blob.bin", b"\x00\x01\x02\xff") == "application/octet-stream"
    assert sniff(b"<svg xmlns='http://www.w3.org/2000/svg'/>") == "image/svg+xml"
    bmp = b"BM" + (70).to_bytes(4, "little") + bytes(4) + (54).to_bytes(4, "little")
    assert sniff(bmp + (40).to_bytes(4, "little") + bytes(40)) == "image/bmp"
    assert sniff(b"BMW service history\n") is None  # text that starts with "BM"
    assert media_type_for("cars.txt", b"BMW service history\n") == "text/plain"


def test_png_holding_jpeg_is_sent_as_jpeg() -> None:
    bundle = zip_bundle("## user\n@photo.png\n", {"photo.png": jpeg_header()})
    [message] = messages(bundle)
    assert message["content"][-1]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    anthropic = messages(bundle, "anthropic")
    assert anthropic[0]["content"][-1]["source"]["media_type"] == "image/jpeg"


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("logo.svg", b"<svg xmlns='http://www.w3.org/2000/svg'></svg>"),
        (
            "scan.bmp",
            b"BM"
            + (70).to_bytes(4, "little")
            + bytes(4)
            + (54).to_bytes(4, "little")
            + (40).to_bytes(4, "little")
            + bytes(40),
        ),
        ("scan.tiff", b"II*\x00" + b"\x00" * 20),
        ("favicon.ico", b"\x00\x00\x01\x00" + b"\x00" * 20),
    ],
)
def test_refused_image_types(name: str, data: bytes) -> None:
    bundle = zip_bundle(f"## user\nsee\n@{name}\n", {name: data})
    with pytest.raises(UnsupportedContentError, match="accept no") as error:
        messages(bundle)
    assert error.value.name == name and error.value.line == 3
    assert f"cannot take {name} (image/" in error.value.message
    assert error.value.hint and "register a handler" in error.value.hint
    assert error.value.hint.startswith("convert it to PNG")


def test_binary_without_handler_is_refused() -> None:
    bundle = zip_bundle("## user\n@blob.bin\n", {"blob.bin": b"\x00\x01\x02\xfe"})
    with pytest.raises(UnsupportedContentError, match="no handler for application/octet"):
        messages(bundle)


def test_registered_and_per_call_handlers() -> None:
    bundle = zip_bundle(
        "## user\n@tool.py\n@logo.svg\n", {"tool.py": b"print(1)\n", "logo.svg": b"<svg/>"}
    )

    def as_summary(asset: Asset) -> TextPart:
        return TextPart(f"[{asset.name}: {len(asset.data)} bytes of {asset.media_type}]")

    register_handler(".py", as_summary)
    try:
        [message] = messages(bundle, handlers={"image/svg+xml": as_summary})
    finally:
        unregister_handler(".py")
    # The attachment paragraph leaves the text; its parts stand in its place.
    assert _texts(message) == [
        "[tool.py: 9 bytes of text/x-python]",
        "[logo.svg: 6 bytes of image/svg+xml]",
    ]
    # Once unregistered, the built-in text handler is back.
    [message] = messages(bundle, handlers={"svg": as_summary})
    assert _texts(message)[0] == "tool.py:\n```py\nprint(1)\n```"


def test_each_asset_is_encoded_once_for_all_providers() -> None:
    text = "Sys.\n\n## user\n@a.png @b.png @r.pdf\n"
    bundle = zip_bundle(text, {"a.png": png(seed=1), "b.png": png(seed=2), "r.pdf": pdf()})
    for provider in PROVIDERS:
        to_request(bundle, provider, model="m", settings={"max_tokens": 5})
        to_request(bundle, provider, model="m", settings={"max_tokens": 5})
    assert bundle_state(bundle).base64.encodes == 3


def test_a_handler_converted_copy_is_sent_as_converted_whatever_was_encoded_before() -> None:
    # A handler's converted copy (dataclasses.replace) keeps the asset's name and the
    # bundle's base64 cache: the bytes sent are the copy's, never the earlier encoding.
    original, small = png(seed=1), png(2, 2, seed=5)

    def shrink(asset: Asset) -> ImagePart:
        return ImagePart(dataclasses.replace(asset, data=small), "image/png")

    def sent(message: dict[str, Any]) -> bytes:
        url = message["content"][0]["image_url"]["url"]
        return base64.b64decode(url.split(",", 1)[1])

    bundle = zip_bundle("## user\n@a.png\n", {"a.png": original})
    assert sent(messages(bundle)[0]) == original
    assert sent(messages(bundle, handlers={"image/png": shrink})[0]) == small
    assert sent(messages(bundle)[0]) == original
    assert bundle_state(bundle).base64.encodes == 3


def test_audio_parts() -> None:
    bundle = zip_bundle("## user\nlisten @a.wav\n", {"a.wav": wav()})
    [message] = messages(bundle)
    assert message["content"][-1]["input_audio"]["format"] == "wav"
    [content] = messages(bundle, "gemini")
    assert content["parts"][-1]["inline_data"]["mime_type"] == "audio/wav"


def test_fence_inside_a_block_quote_goes_after_the_quote() -> None:
    bundle = text_bundle("## user\n> quoted\n> @@@q.txt\n> inside\n> @@@\n> more\n\nafter\n")
    [message] = messages(bundle)
    assert _texts(message) == ["> quoted\n> more", "q.txt:\n```txt\ninside\n```", "after"]


def test_unclosed_fence_is_sent_once() -> None:
    bundle = text_bundle("## user\nunclosed:\n\n@@@u.txt\nline1\nline2\n")
    with pytest.raises(DefectError, match="unclosed_embed"):
        messages(bundle)  # an unclosed fence stops the send unless strict=False
    with pytest.warns(DefectWarning, match=r"t\.lmml:4:1: unclosed_embed: "):
        [message] = messages(bundle, strict=False)
    assert _texts(message) == ["unclosed:", "u.txt:\n```txt\nline1\nline2\n```"]


def test_unresolvable_reference_is_an_error_with_its_line() -> None:
    with pytest.raises(LmmlError) as error:
        messages(text_bundle("## user\nhello\n\nping @bob.png now\n"))
    assert error.value.name == "bob.png" and error.value.line == 4


def test_a_mention_without_extension_is_text() -> None:
    [message] = messages(text_bundle("## user\nping @bob and @types/node now\n"))
    assert _texts(message) == ["ping @bob and @types/node now"]


def test_attachment_lines_are_dropped_by_default_and_kept_on_request() -> None:
    bundle = zip_bundle(
        "## user\nWhat is this?\n\n@a.png\n\nAnd @b.png here.\n\n@c.png\n\nlater @a.png\n",
        {"a.png": png(), "b.png": png(), "c.png": png()},
    )
    kept = messages(bundle, "openai", attachment_lines="keep")[0]
    assert _texts(kept) == ["What is this?\n\n@a.png", "And @b.png here.", "@c.png", "later @a.png"]
    assert messages(bundle, "openai") == messages(bundle, "openai", attachment_lines="drop")
    dropped = messages(bundle, "openai")[0]
    # Only paragraphs made of references whose parts land right after them leave the text;
    # a mention inside a sentence, and a repeat mention, stay readable.
    assert _texts(dropped) == ["What is this?", "And @b.png here.", "later @a.png"]
    assert [part["type"] for part in dropped["content"]] == [
        "text",
        "image_url",
        "text",
        "image_url",
        "image_url",
        "text",
    ]


def test_attachment_lines_option_is_checked() -> None:
    with pytest.raises(ValueError, match="attachment_lines"):
        messages(text_bundle("hi"), "openai", attachment_lines="sometimes")


def test_fence_after_its_first_reference_reaches_the_model_once() -> None:
    bundle = text_bundle(
        "## user\nRead @notes.txt please.\n\n@@@notes.txt\nhello\n@@@\n\nThanks.\n"
    )
    [message] = messages(bundle, "openai")
    texts = _texts(message)
    # The part sits after the reference; the fence leaves the text, adding no "@notes.txt".
    assert texts == ["Read @notes.txt please.", "notes.txt:\n```txt\nhello\n```", "Thanks."]


@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_refused_content_names_the_provider(provider: str) -> None:
    bundle = zip_bundle("## user\nsee\n@logo.svg\n", {"logo.svg": b"<svg/>"})
    with pytest.raises(UnsupportedContentError) as error:
        render_payload(bundle, provider)
    assert error.value.name == "logo.svg" and error.value.line == 3
    # It names the embed, its media type, the provider and the fix (issue 26).
    assert f"({provider}) cannot take logo.svg (image/svg+xml): " in error.value.message
    assert error.value.hint is not None and error.value.hint.startswith("convert it to PNG")
    blob = zip_bundle("## user\n@blob.bin\n", {"blob.bin": b"\x00\x01\xfe"})
    with pytest.raises(UnsupportedContentError, match=rf"\({provider}\) cannot take"):
        messages(blob, provider)


def test_render_turns_names_openai_in_refusals() -> None:
    bundle = zip_bundle("## user\n@logo.svg\n", {"logo.svg": b"<svg/>"})
    with pytest.raises(UnsupportedContentError, match=r"\(openai\) cannot take"):
        render_turns(bundle)


def test_text_extension_with_bytes_that_are_not_utf8() -> None:
    bundle = zip_bundle("## user\n@notes.txt\n", {"notes.txt": "café".encode("latin-1")})
    with pytest.raises(UnsupportedContentError, match="text/plain but its bytes are not UTF-8"):
        messages(bundle)


@pytest.mark.parametrize("result", [None, "text", b"bytes", 3, [TextPart("ok"), 3]])
def test_handler_returning_no_parts_is_a_clear_type_error(result: Any) -> None:
    bundle = zip_bundle("## user\n@t.py\n", {"t.py": b"print()\n"})
    with pytest.raises(TypeError, match=r"handler for 't\.py' returned .*, not a part"):
        messages(bundle, handlers={".py": lambda asset: result})


def test_budget_left_out_inline_fence_leaves_its_reference() -> None:
    bundle = text_bundle("## user\nRead this:\n\n@@@a.txt\nhello\n@@@\n\nThanks.\n")
    with pytest.warns(EmbedOmittedWarning, match=r":4:1: a\.txt \(6 bytes\) left out"):
        listed = messages(bundle, max_embed_bytes=2)
    assert _texts(listed[0]) == ["Read this:", "@a.txt", "Thanks."]
    assert listed.warnings == [
        f"{bundle.file_name}:4:1: a.txt (6 bytes) left out: the message already holds 0 of its "
        "2-byte embed budget"
    ]


def test_budget_counts_each_message_separately_across_roles() -> None:
    text = "## user\n@a.png @b.png\n\n## assistant\nok\n\n## user\n@c.png\n"
    images = {"a.png": png(seed=1), "b.png": png(seed=2), "c.png": png(seed=3)}
    bundle = zip_bundle(text, images)
    budget = len(images["a.png"]) + 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        listed = messages(bundle, "anthropic", max_embed_bytes=budget)
    assert [str(w.message).split(" ")[1] for w in caught] == ["b.png"]
    kinds = [[block["type"] for block in m["content"]] for m in listed]
    # The attachment lines left the text; the left-out b.png keeps an "@b.png" line.
    assert kinds == [["image", "text"], ["text"], ["image"]]
    assert listed[0]["content"][1]["text"] == "@b.png"


def test_option_types_are_checked() -> None:
    bundle = text_bundle("## user\nhi\n")
    with pytest.raises(TypeError, match="settings must be a mapping, not str"):
        to_request(bundle, settings="temperature=1")
    with pytest.raises(TypeError, match="handlers must be a mapping"):
        messages(bundle, handlers=[".py"])
    with pytest.raises(ValueError, match="max_embed_bytes"):
        messages(bundle, max_embed_bytes=True)


def test_paragraph_of_reserved_references_leaves_the_text() -> None:
    bundle = zip_bundle(
        "Settings: see below.\n\n@settings.yaml\n\n## user\nHi @settings.yaml.\n",
        {"settings.yaml": b"temperature: 0.1\n"},
    )
    system, user = messages(bundle, "openai")
    # The line refers to nothing the model receives; a mention inside a sentence stays.
    assert _texts(system) == ["Settings: see below."]
    assert _texts(user) == ["Hi @settings.yaml."]


def test_refusals_carry_the_embed_column_and_a_handler_can_refuse_the_same_way() -> None:
    bundle = zip_bundle("## user\nsee the logo @logo.svg\n", {"logo.svg": b"<svg/>"})
    with pytest.raises(UnsupportedContentError) as error:
        messages(bundle, "anthropic")
    assert (error.value.name, error.value.line, error.value.column) == ("logo.svg", 2, 14)
    assert error.value.message.startswith("Anthropic Messages (anthropic) cannot take")

    def refuse(asset: Asset) -> TextPart:
        raise asset.unsupported("no CSV today", hint="send it as text")

    refused = zip_bundle("## user\nA\n  B @notes.csv\n", {"notes.csv": b"a,b\n"})
    with pytest.raises(UnsupportedContentError, match="no CSV today") as error:
        messages(refused, handlers={".csv": refuse})
    assert (error.value.name, error.value.line, error.value.column) == ("notes.csv", 3, 5)
    assert error.value.hint == "send it as text"


def test_bundle_state_is_kept_per_bundle_and_freed_with_it() -> None:
    import gc
    import weakref

    text = "## user\nhi @a.png\n"
    bundle = zip_bundle(text, {"a.png": png(seed=1)})
    state = bundle_state(bundle)
    messages(bundle, "openai")
    messages(bundle, "anthropic")
    # One state (one layout, one base64 cache) for every call on this bundle ...
    assert bundle_state(bundle) is state and state.base64.encodes == 1
    # ... and a fresh one for another bundle of the same text.
    other = zip_bundle(text, {"a.png": png(seed=1)})
    assert bundle_state(other) is not state
    freed = weakref.ref(state)
    del bundle, state
    gc.collect()
    assert freed() is None


def test_a_kept_attachment_line_gets_no_second_name_for_an_omitted_embed() -> None:
    # @b.png is first named in turn 1, so turn 2's line stays in the text; @a.png, left out
    # by the budget, is named there already and gets no extra @a.png line.
    image_a, image_b = png(60), png(61)
    bundle = zip_bundle(
        "## user\nsee @b.png\n\n## user\n@a.png @b.png\n", {"a.png": image_a, "b.png": image_b}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sent = messages(bundle, max_embed_bytes=len(image_a) - 1)
    assert [part.get("text") for part in sent[1]["content"]] == ["@a.png @b.png"]


def test_a_refusal_in_an_assistant_message_reads_as_english() -> None:
    bundle = zip_bundle("## user\nhi\n\n## assistant\nhear @a.wav\n", {"a.wav": wav()})
    with pytest.raises(UnsupportedContentError) as error:
        messages(bundle, "openai")
    assert "cannot take a.wav, audio (wav), in an assistant message" in error.value.message


def test_a_refusal_in_a_user_message_reads_as_english() -> None:
    bundle = zip_bundle("## user\nhear @a.wav\n", {"a.wav": wav()})
    with pytest.raises(UnsupportedContentError) as error:
        messages(bundle, "openai-responses")
    assert "cannot take a.wav, audio (wav), in a user message" in error.value.message


_MIDWAY = "## user\nhi\n\n## assistant\nhello\n\n## system\nListen: @a.wav\n\n## user\nok\n"


@pytest.mark.parametrize(
    ("provider", "text", "hint"),
    [
        # a provider that takes the part in no message says so, whatever the role
        ("anthropic", "## system\nListen: @a.wav\n", "(Anthropic takes no audio input)"),
        ("anthropic", _MIDWAY, "(Anthropic takes no audio input)"),
        ("anthropic", "## user\nhi\n\n## assistant\n@a.wav\n", "(Anthropic takes no audio"),
        ("openai-responses", "## user\nhi\n\n## assistant\n@a.wav\n", "takes no audio input"),
        # one that takes it in a user message says to move it there
        ("gemini", _MIDWAY, "(move it to a user turn, pick another provider"),
        ("openai", "## system\nListen: @a.wav\n", "(move it to a user turn, pick another"),
        ("gemini", "## system\nListen: @a.wav\n", "(a system instruction holds text only)"),
    ],
)
def test_a_refused_part_s_hint_says_what_would_take_it(provider: str, text: str, hint: str) -> None:
    bundle = zip_bundle(text, {"a.wav": wav()})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(UnsupportedContentError) as refused:
            bundle.messages(provider)
    assert hint in str(refused.value)
    # a midway system turn is not said to be sent as user text before it is refused
    assert not [w for w in caught if "sent at its place" in str(w.message)]


@pytest.mark.parametrize("provider", list(PROVIDERS))
@pytest.mark.parametrize("media_type", ["image/svg+xml", "image/bmp"])
def test_a_handler_image_of_a_type_the_provider_refuses_is_refused(
    provider: str, media_type: str
) -> None:
    bundle = zip_bundle("## user\nsee the logo @logo.svg\n", {"logo.svg": b"<svg/>"})

    def as_image(asset: Asset) -> ImagePart:
        return ImagePart(asset, media_type)

    with pytest.raises(UnsupportedContentError) as error:
        messages(bundle, provider, handlers={".svg": as_image})
    assert (error.value.name, error.value.line, error.value.column) == ("logo.svg", 2, 14)
    assert f"({provider}) cannot take logo.svg, an image ({media_type}): " in error.value.message
    assert "image/png" in error.value.message
    assert error.value.hint is not None and error.value.hint.startswith("convert it to PNG")


@pytest.mark.parametrize(
    "text",
    [
        "## user\nhi\n\n## assistant\nthe logo @logo.svg\n",
        "## assistant\nOn it.\n\n"
        '@@@call_1.tool_call.json\n{"id": "call_1", "name": "plot", "arguments": {}}\n@@@\n\n'
        "## tool\n@call_1.tool_call.json\n\nthe logo @logo.svg\n",
    ],
    ids=["assistant", "tool"],
)
def test_a_handler_image_the_provider_refuses_is_refused_in_every_role(text: str) -> None:
    bundle = zip_bundle(text, {"logo.svg": b"<svg/>"})
    for provider in PROVIDERS:
        with pytest.raises(UnsupportedContentError, match=r"logo\.svg") as error:
            messages(bundle, provider, handlers={".svg": lambda a: ImagePart(a, "image/svg+xml")})
        assert error.value.hint is not None and "PNG" in error.value.hint, provider


def test_gemini_takes_heic_images_the_others_refuse() -> None:
    bundle = zip_bundle("## user\n@photo.heic\n", {"photo.heic": b"\x00\x00\x00\x18ftypheic"})
    handlers = {".heic": lambda asset: ImagePart(asset, "image/heic")}
    [message] = messages(bundle, "gemini", handlers=handlers)
    assert message["parts"][0]["inline_data"]["mime_type"] == "image/heic"
    for provider in ("openai", "openai-responses", "anthropic"):
        with pytest.raises(UnsupportedContentError, match=r"photo\.heic, an image \(image/heic\)"):
            messages(bundle, provider, handlers=handlers)


def test_fence_in_a_later_turn_than_its_first_reference_keeps_a_reference_line() -> None:
    """The part goes with the turn that names the embed first; the later turn that holds
    the fence keeps an ``@name`` line where it stood, never an unmarked hole."""
    text = (
        "## user\nPlease read @later.txt first.\n\n"
        "## assistant\nHere it is:\n\n@@@later.txt\nthe body\n@@@\n\nDone.\n"
    )
    first, second = messages(text_bundle(text), "openai")
    assert _texts(first) == ["Please read @later.txt first.", "later.txt:\n```txt\nthe body\n```"]
    assert _texts(second) == ["Here it is:\n\n@later.txt\n\nDone."]


@pytest.mark.parametrize("provider", list(PROVIDERS))
@pytest.mark.parametrize(
    ("text", "options"),
    [
        ("Context: see @a.png.\n\n## user\nHere @a.png is.\n", {"context": "drop"}),
        ("## system\nsee @a.png\n\n## user\nHere @a.png is.\n", {"system": "drop"}),
    ],
)
def test_a_dropped_turn_does_not_take_a_later_turns_embed_along(
    provider: str, text: str, options: dict[str, Any]
) -> None:
    """An embed first named in a turn left out goes with the next turn naming it."""
    image = png(seed=3)
    payload = render_payload(zip_bundle(text, {"a.png": image}), provider, **options)
    body = json.dumps(payload.messages)
    assert base64.b64encode(image).decode() in body, provider
    assert body.count(base64.b64encode(image).decode()) == 1


def test_a_dropped_turn_does_not_take_a_later_fences_content_along() -> None:
    text = "Context: see @n.txt.\n\n## user\nHere:\n\n@@@n.txt\nthe body\n@@@\n"
    [message] = messages(text_bundle(text), "openai", context="drop")
    assert _texts(message) == ["Here:", "n.txt:\n```txt\nthe body\n```"]
    [first, second] = messages(text_bundle(text), "openai", context="user")
    assert _texts(first) == ["Context: see @n.txt.", "n.txt:\n```txt\nthe body\n```"]
    assert _texts(second) == ["Here:\n\n@n.txt"]


@pytest.mark.parametrize("key", ["*.py", ".tar.gz", "image/*", "text/csv; charset=utf-8", "a b"])
def test_a_handler_key_no_asset_can_match_is_refused(key: str) -> None:
    with pytest.raises(ValueError, match="handler key"):
        register_handler(key, lambda asset: TextPart("x"))
    with pytest.raises(ValueError, match="handler key"):
        messages(text_bundle("## user\nhi\n"), handlers={key: lambda asset: TextPart("x")})
    assert key.strip().lower() not in {k.lstrip(".") for k in registered_handlers()}


@pytest.mark.parametrize("key", ["py", ".PY", " .py ", "Text/X-Python"])
def test_handler_keys_in_any_case_with_or_without_the_dot_still_match(key: str) -> None:
    bundle = zip_bundle("## user\n@t.py\n", {"t.py": b"print()\n"})
    [message] = messages(bundle, handlers={key: lambda asset: TextPart("handled")})
    assert _texts(message) == ["handled"]


@pytest.mark.parametrize("provider", ["anthropic", "gemini"])
def test_midway_system_drop_names_the_embeds_it_takes_along(provider: str) -> None:
    """A system turn dropped mid-conversation takes its embeds with it; the warning names
    them, since a later turn naming one sends no copy."""
    text = "## user\nhi\n\n## system\nNote @a.png.\n\n## user\nAgain @a.png.\n"
    bundle = zip_bundle(text, {"a.png": png(seed=4)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        payload = render_payload(bundle, provider, midway_system="drop")
    assert base64.b64encode(png(seed=4)).decode() not in json.dumps(payload.messages)
    [warning] = [str(w.message) for w in caught if "midway_system='drop'" in str(w.message)]
    assert "a.png" in warning, warning


@pytest.mark.parametrize("provider", list(PROVIDERS))
@pytest.mark.parametrize("name", ["empty.png", "empty.pdf", "empty.wav"])
def test_an_empty_file_named_as_binary_content_is_refused(provider: str, name: str) -> None:
    """No bytes to sniff: an empty '.png' is refused, not sent as an empty text file."""
    bundle = zip_bundle("## user\nsee\n@" + name + "\n", {name: b""})
    with pytest.raises(UnsupportedContentError, match="holds no bytes") as error:
        render_payload(bundle, provider)
    assert error.value.name == name and error.value.line == 3


def test_an_empty_text_file_is_still_sent() -> None:
    bundle = zip_bundle("## user\nsee\n@empty.txt\n", {"empty.txt": b""})
    [message] = messages(bundle)
    assert _texts(message)[-1] == "empty.txt:\n```txt\n\n```"
