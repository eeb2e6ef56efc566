"""One message class and one conversation class for export, import and running; the names
each direction used before build the same values."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

import lmml_mdit
from lmml_mdit import conversation
from lmml_mdit.chat.content import OutgoingConversation, OutgoingMessage
from lmml_mdit.chat.imported import ChatTurn, ImportedConversation, Text
from lmml_mdit.chat.importer import read_conversation
from lmml_mdit.chat.providers import FORMATS, PROVIDERS, Payload, Provider
from lmml_mdit.conversation import (
    ChatConversation,
    ChatMessage,
    ImportedAsset,
    TextPart,
    ToolCall,
    sendable,
)
from lmml_mdit.errors import UnsupportedContentError

CALL = ToolCall("call_1", "weather", {"city": "Paris"})

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


def _turn() -> lmml_mdit.Turn:
    return lmml_mdit.parse("## user\nhi\n").turns[0]


def test_the_package_and_the_model_export_the_one_classes() -> None:
    assert lmml_mdit.ChatMessage is conversation.ChatMessage is ChatMessage
    assert lmml_mdit.ChatConversation is conversation.ChatConversation is ChatConversation
    assert conversation.OutgoingMessage is OutgoingMessage
    assert conversation.OutgoingConversation is OutgoingConversation
    assert conversation.ImportedConversation is ImportedConversation


def test_the_export_constructor_builds_a_message_with_its_fields() -> None:
    turn = _turn()
    message = OutgoingMessage("tool", [TextPart("18 C")], turn, CALL)
    assert type(message) is ChatMessage
    assert (message.role, message.parts, message.call, message.turn) == (
        "tool",
        [TextPart("18 C")],
        CALL,
        turn,
    )
    assert message.items is message.parts
    assert message.call_id == "call_1"
    assert message == ChatMessage("tool", [TextPart("18 C")], call=CALL, turn=turn)
    assert OutgoingMessage("user", [], turn).call is None


def test_the_import_constructor_builds_a_message_with_its_fields() -> None:
    message = ChatTurn("tool", [Text("18 C")], "call_1")
    assert type(message) is ChatMessage
    assert (message.role, message.parts, message.turn) == ("tool", [TextPart("18 C")], None)
    assert message.call == ToolCall("call_1", "", None)
    assert message.call_id == "call_1"
    assert message == ChatMessage("tool", [TextPart("18 C")], ToolCall("call_1", "", None))
    empty = ChatTurn("user")
    assert (empty.parts, empty.call, empty.call_id) == ([], None, None)
    assert empty == ChatMessage("user") != ChatTurn("assistant")
    assert dataclasses.replace(message, role="user").call_id == "call_1"


def test_equality_holds_across_constructors_and_looks_at_every_field() -> None:
    turn = _turn()
    built = ChatMessage("user", [TextPart("hi")], turn=turn)
    assert OutgoingMessage("user", [TextPart("hi")], turn) == built
    assert ChatTurn("user", [TextPart("hi")]) != built  # no source turn
    assert ChatTurn("user", [TextPart("hi")]) == ChatMessage("user", [TextPart("hi")])
    assert ChatTurn("tool", [], "call_1") != ChatMessage("tool", [], CALL)  # name unknown


def test_every_message_is_an_instance_of_the_kept_names() -> None:
    message = ChatMessage("assistant", [TextPart("hi")])
    assert isinstance(message, OutgoingMessage) and isinstance(message, ChatTurn)
    assert isinstance(ImportedConversation(), ChatConversation)
    assert isinstance(ChatConversation(), ImportedConversation)
    assert isinstance(ChatConversation(), OutgoingConversation)
    assert not isinstance(TextPart("hi"), ChatTurn)

    class Mine(ChatTurn):
        pass

    assert isinstance(Mine("user"), ChatTurn) and not isinstance(message, Mine)


def test_the_item_list_is_the_part_list() -> None:
    message = ChatMessage("user", [TextPart("a")])
    message.items.append(TextPart("b"))
    assert message.parts == [TextPart("a"), TextPart("b")]
    message.items = [TextPart("c")]
    assert message.parts == [TextPart("c")]


def test_the_conversation_constructors_build_one_class() -> None:
    turns = [ChatTurn("user", [Text("hi")])]
    imported = ImportedConversation(turns, {"model": "m"}, {"sharegpt": {"id": "7"}})
    assert type(imported) is ChatConversation
    assert type(OutgoingConversation(turns)) is ChatConversation
    assert imported.messages is turns and imported.turns is turns
    assert (imported.warnings, imported.settings, imported.metadata) == (
        [],
        {"model": "m"},
        {"sharegpt": {"id": "7"}},
    )
    assert imported == ChatConversation(
        turns, settings={"model": "m"}, metadata={"sharegpt": {"id": "7"}}
    )
    assert ImportedConversation(turns=turns, settings={"model": "m"}).settings == {"model": "m"}
    outgoing = OutgoingConversation(turns, ["left out"])
    assert (outgoing.messages, outgoing.warnings, outgoing.settings) == (turns, ["left out"], {})
    assert outgoing != imported
    assert OutgoingConversation(turns) == ChatConversation(turns) == ImportedConversation(turns)
    fresh = ChatConversation()
    fresh.turns.append(ChatMessage("user"))
    assert fresh.messages == [ChatMessage("user")]


def test_an_imported_tool_result_answers_the_assistants_call_by_name() -> None:
    imported = read_conversation(PAYLOAD, "openai")
    assert isinstance(imported, ChatConversation)
    user, assistant, tool = imported.messages
    [made] = [part for part in assistant.parts if isinstance(part, ToolCall)]
    assert tool.call == made
    assert (tool.call_id, tool.call.name, tool.call.arguments) == (
        "call_1",
        "weather",
        {"city": "Paris"},
    )
    assert (user.call, assistant.call, user.turn) == (None, None, None)


def test_a_tool_result_without_its_call_in_the_payload_keeps_the_id_alone() -> None:
    lone = {"messages": [{"role": "tool", "tool_call_id": "call_9", "content": "18 C"}]}
    [tool] = read_conversation(lone, "openai").messages
    assert tool.call == ToolCall("call_9", "", None)


def test_an_imported_part_is_not_sendable() -> None:
    message = ChatMessage("user", [TextPart("see"), ImportedAsset(b"\x89PNG", "image/png")])
    with pytest.raises(UnsupportedContentError, match="ImportedAsset"):
        sendable(message)
    assert sendable(ChatMessage("assistant", [TextPart("hi"), CALL])) == [TextPart("hi"), CALL]


def _old_write(conversation: Any, options: Any) -> Payload:
    """A plugin's writer written against 0.3: ``message.items``, ``message.call``."""
    lines: list[dict[str, Any]] = []
    for message in conversation.messages:
        assert isinstance(message, OutgoingMessage)
        line: dict[str, Any] = {"who": message.role}
        said = "".join(item.text for item in message.items if isinstance(item, TextPart))
        if said:
            line["say"] = said
        calls = [item for item in message.items if isinstance(item, ToolCall)]
        if calls:
            line["calls"] = [{"id": c.id, "fn": c.name, "args": c.arguments} for c in calls]
        if message.call is not None:
            line["answers"] = [message.call.id, message.call.name]
        lines.append(line)
    return Payload("toy", lines, warnings=list(conversation.warnings))


def _old_read(data: object) -> ImportedConversation:
    """A plugin's reader written against 0.3: ``ChatTurn`` and ``ImportedConversation``."""
    assert isinstance(data, dict)
    turns: list[ChatTurn] = []
    for line in data["lines"]:
        parts: list[Any] = [Text(line["say"])] if "say" in line else []
        parts += [ToolCall(c["id"], c["fn"], c["args"]) for c in line.get("calls", [])]
        turns.append(ChatTurn(line["who"], parts, line.get("answers")))
    settings = {key: value for key, value in data.items() if key != "lines"}
    return ImportedConversation(turns, settings=settings)


TOY = Provider(
    name="toy",
    title="Toy Lines",
    description="a toy chat",
    read=_old_read,
    write=_old_write,
    request=lambda payload, model, parameters: {"model": model, "lines": payload.messages},
    settings={},
    native_settings=frozenset(),
)

LINES = [
    {"who": "user", "say": "Weather in Paris?"},
    {"who": "assistant", "calls": [{"id": "call_1", "fn": "weather", "args": {"city": "Paris"}}]},
    {"who": "tool", "say": "18 C", "answers": "call_1"},
    {"who": "assistant", "say": "It is 18 C."},
]


def test_a_provider_written_against_the_old_names_works_end_to_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(PROVIDERS, TOY.name, TOY)
    monkeypatch.setitem(FORMATS, TOY.name, TOY)
    read = read_conversation({"lines": LINES}, "toy")
    assert read.turns[2].call == ToolCall("call_1", "weather", {"city": "Paris"})

    bundle = lmml_mdit.import_messages({"lines": LINES}, "toy")
    assert [turn.role for turn in bundle.narrative.turns] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    sent = bundle.to_request("toy", model="m")["lines"]
    assert sent == [
        {"who": "user", "say": "Weather in Paris?"},
        {
            "who": "assistant",
            "calls": [{"id": "call_1", "fn": "weather", "args": {"city": "Paris"}}],
        },
        {"who": "tool", "say": "18 C", "answers": ["call_1", "weather"]},
        {"who": "assistant", "say": "It is 18 C."},
    ]
    # The same bundle goes to a built-in provider as well.
    chat = bundle.messages("openai")
    assert (chat[2]["role"], chat[2]["tool_call_id"]) == ("tool", "call_1")
