"""``BodyWriter``: the one writer of a message's LMML body, read back by the parser."""

from __future__ import annotations

import pytest

import lmml_mdit
from lmml_mdit.chat import BodyWriter, turn_heading
from lmml_mdit.conversation import (
    ChatMessage,
    ImportedAsset,
    NativeItem,
    RemoteAsset,
    TextPart,
    ToolCall,
)
from lmml_mdit.errors import ImportFormatError
from lmml_mdit.syntax import turn_label


def _named(part: ImportedAsset | RemoteAsset) -> str:
    return "chart.png" if isinstance(part, ImportedAsset) else "cat.png.remote.json"


def _text(*messages: ChatMessage, writer: BodyWriter) -> str:
    sections = [writer.section(number, message) for number, message in enumerate(messages, 1)]
    return "\n\n".join(sections) + "\n"


def test_each_part_becomes_a_block_that_reads_back() -> None:
    writer = BodyWriter(frozenset({"chart.png"}), _named)
    call = ToolCall("call 1", "lookup", {"q": "x"})
    text = _text(
        ChatMessage("user", [TextPart("see @chart.png inline"), ImportedAsset(b"png", "x/y")]),
        ChatMessage("assistant", [TextPart("Looking."), call, NativeItem("gemini", "part", {})]),
        ChatMessage("tool", [TextPart("found")], call),
        writer=writer,
    )
    assert "see \\@chart.png inline\n\n@chart.png" in text
    assert "@@@call_1.tool_call.json\n" in text
    assert "@@@gemini.part.1.json\n" in text
    assert "## Turn 3 -- tool\n\n@call_1.tool_call.json\n\nfound" in text
    assert writer.calls == {"call_1.tool_call.json": "call 1"}
    bundle = lmml_mdit.Bundle.from_zip("c", text, {"chart.png": b"png"})
    assert [turn.role for turn in bundle.narrative.turns] == ["user", "assistant", "tool"]
    assert bundle.narrative.turns[0].text.startswith("see \\@chart.png inline")


def test_provider_items_are_numbered_after_those_already_written() -> None:
    writer = BodyWriter((), _named, natives=2)
    blocks = writer.blocks(ChatMessage("assistant", [NativeItem("gemini", "part", {"a": 1})]))
    assert blocks[0].startswith("@@@gemini.part.3.json\n")
    assert writer.natives == 3


def test_a_section_is_the_turn_heading_then_the_blocks() -> None:
    writer = BodyWriter(frozenset({"chart.png"}), _named)
    message = ChatMessage("user", [TextPart("see @chart.png"), ImportedAsset(b"png", "x/y")])
    assert writer.section(4, message) == "## Turn 4 -- user\n\nsee \\@chart.png\n\n@chart.png"
    assert writer.section(5, ChatMessage("assistant", [])) == turn_heading(5, "assistant")


@pytest.mark.parametrize(
    ("messages", "message"),
    [
        ([ChatMessage("tool", [TextPart("r")], ToolCall("x", "", None))], "which no earlier"),
        ([ChatMessage("tool", [TextPart("r")])], "which no earlier"),
        ([ChatMessage("user", [ToolCall("x", "f", {})])], "outside an assistant turn"),
        (
            [ChatMessage("assistant", [ToolCall("a b", "f", {}), ToolCall("a_b", "f", {})])],
            "share the fence name",
        ),
    ],
    ids=["unknown-call", "no-call", "call-outside-assistant", "clashing-ids"],
)
def test_what_no_body_can_hold_is_refused(messages: list[ChatMessage], message: str) -> None:
    writer = BodyWriter((), _named)
    with pytest.raises(ImportFormatError, match=message):
        for each in messages:
            writer.blocks(each)


def test_a_tool_result_answers_a_call_the_file_already_made() -> None:
    writer = BodyWriter((), _named, calls={"x.tool_call.json": "x"})
    blocks = writer.blocks(ChatMessage("tool", [TextPart("r")], ToolCall("x", "f", {})))
    assert blocks == ["@x.tool_call.json", "r"]


def test_an_asset_the_hook_refuses_stops_the_writer() -> None:
    def refuse(part: ImportedAsset | RemoteAsset) -> str:
        raise ImportFormatError("no assets here")

    writer = BodyWriter((), refuse)
    with pytest.raises(ImportFormatError, match="no assets here"):
        writer.blocks(ChatMessage("user", [ImportedAsset(b"x", "image/png")]))


def test_every_writer_numbers_a_turn_the_same_way() -> None:
    assert turn_label(3, "tool") == "Turn 3 -- tool"
    assert turn_heading(3, "tool") == "## Turn 3 -- tool"
    assert turn_label(2, "user", "\u2013") == "Turn 2 \u2013 user"
