"""The conversation model: one class per idea, the same for import, export and running."""

from __future__ import annotations

import importlib

import pytest

import lmml_mdit
from lmml_mdit import conversation
from lmml_mdit.chat import read_conversation
from lmml_mdit.narrative import tool_calls

PAYLOAD = {
    "model": "gpt-4o",
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "18 C"},
    ],
}


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("lmml_mdit.narrative.toolcalls", "ToolCall"),
        ("lmml_mdit.narrative", "ToolCall"),  # docs/toolcalls.md's API section names it there
        ("lmml_mdit.narrative.native", "NativeItem"),
        ("lmml_mdit.narrative.native", "PART_KEYS"),
        ("lmml_mdit.bundle.remote", "RemoteAsset"),
        ("lmml_mdit.bundle.remote", "FILE_ID_PROVIDERS"),
        ("lmml_mdit.chat.handlers", "Asset"),
        ("lmml_mdit.chat.handlers", "Base64Cache"),
        ("lmml_mdit.chat.handlers", "TextPart"),
        ("lmml_mdit.chat.handlers", "RemotePart"),
        ("lmml_mdit.chat.content", "OutgoingMessage"),
        ("lmml_mdit.chat.content", "OutgoingConversation"),
        ("lmml_mdit.chat.content", "MessageRole"),
        ("lmml_mdit.chat.imported", "ChatTurn"),
        ("lmml_mdit.chat.imported", "ImportedConversation"),
        ("lmml_mdit.chat.imported", "ImportedAsset"),
        ("lmml_mdit.chat.imported", "Call"),
        ("lmml_mdit.chat.imported", "Native"),
        ("lmml_mdit.chat.imported", "Text"),
    ],
)
def test_every_old_path_names_the_model_class(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is getattr(conversation, name)


def test_the_package_surface_is_the_model() -> None:
    for name in ("ToolCall", "Asset", "TextPart", "ImagePart", "RemotePart", "VideoPart"):
        assert getattr(lmml_mdit, name) is getattr(conversation, name)


def test_the_import_names_are_the_merged_classes() -> None:
    assert conversation.Call is conversation.ToolCall
    assert conversation.Native is conversation.NativeItem
    assert conversation.Text is conversation.TextPart


def test_an_imported_call_is_the_call_its_fence_reads_back() -> None:
    """The payload's call and the call read from the LMML it was written to are one class,
    equal but for the fence's place."""
    imported = read_conversation(PAYLOAD, "openai")
    [call] = [
        part
        for turn in imported.turns
        for part in turn.parts
        if isinstance(part, conversation.ToolCall)
    ]
    assert (call.embed_name, call.line) == ("", 0)

    bundle = lmml_mdit.import_messages(PAYLOAD, "openai")
    [read] = tool_calls(bundle.narrative)
    assert isinstance(read, conversation.ToolCall)
    assert (read.id, read.name, read.arguments) == (call.id, call.name, call.arguments)
    assert read.embed_name == "call_1.tool_call.json" and read.line > 0


def test_a_native_item_without_a_fence_describes_itself() -> None:
    item = conversation.Native("anthropic", "thinking", {"type": "thinking"})
    assert item == conversation.NativeItem("anthropic", "thinking", {"type": "thinking"}, "", 0, 0)
    assert item.describe == "anthropic thinking"
    keys = conversation.Native("gemini", "part", {"thought_signature": "c2ln"})
    assert keys.describe == "gemini part key 'thought_signature'"
