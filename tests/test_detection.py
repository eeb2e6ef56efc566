"""Detection: each chat format brings its own signals, weighed strongest first; a format
registered from outside the package is detected like a built-in one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import lmml_mdit
from lmml_mdit.chat.providers import FORMATS, ChatFormat, Detection
from lmml_mdit.cli import main
from lmml_mdit.conversation import ChatTurn, ImportedConversation, Text
from lmml_mdit.jsontypes import JSONMapping

NAMED = "openai, openai-responses, anthropic, gemini or sharegpt"
EXPECTED = "expected messages, input, contents or conversations"
WITH_TOY = "openai, openai-responses, anthropic, gemini, sharegpt or toy"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        # A body's own keys decide alone, whatever its messages show.
        ({"conversations": [{"role": "tool", "content": "x"}]}, "sharegpt"),
        ({"contents": "not even a list"}, "gemini"),
        ({"systemInstruction": {"parts": []}, "messages": []}, "gemini"),
        ({"instructions": "x", "messages": [{"role": "tool", "content": "x"}]}, "openai-responses"),
        # A top-level system beside messages: Anthropic, unless the messages say otherwise.
        ({"system": "s", "messages": [{"role": "user", "content": "hi"}]}, "anthropic"),
        # A message that shows ShareGPT or Gemini is not looked at for weaker formats.
        ([{"from": "human", "value": "x", "parts": [], "tool_calls": [{}]}], "sharegpt"),
        ([{"role": "model", "content": [{"type": "image_url"}]}], "gemini"),
        ([{"role": "user", "parts": [{"text": "x"}]}], "gemini"),
        ([{"type": "message", "role": "system", "content": "x"}], "openai-responses"),
        ([{"role": "user", "content": [{"type": "input_text", "text": "x"}]}], "openai-responses"),
        ([{"role": "user", "content": [{"type": "thinking", "thinking": "x"}]}], "anthropic"),
        ([{"role": "user", "content": [{"type": "image", "source": {}}]}], "anthropic"),
        ({"messages": [{"role": "assistant", "tool_calls": [{}]}]}, "openai"),
        ([{"role": "user", "content": [{"type": "refusal"}]}], "openai"),
        # No signal: a plain list of user and assistant messages is taken as OpenAI.
        ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}], "openai"),
        ([{"role": "user", "content": [{"type": "image"}]}], "openai"),
        ([], "openai"),
        ({"messages": []}, "openai"),
    ],
)
def test_each_built_in_format_is_detected_by_its_signals(data: Any, expected: str) -> None:
    assert lmml_mdit.detect_format(data) == expected


@pytest.mark.parametrize(
    ("data", "message", "hint"),
    [
        (
            {"conversations": [], "contents": []},
            "ambiguous chat format: an object with keys contents, conversations looks like "
            "gemini and sharegpt",
            "pass format= to choose one",
        ),
        (
            {"system": "s", "messages": [{"role": "tool", "content": "x"}]},
            "ambiguous chat format: an object with keys messages, system looks like "
            "anthropic and openai",
            "pass format= to choose one",
        ),
        (
            {"foo": 1},
            "cannot tell the chat format of an object with keys foo",
            f"{EXPECTED}; pass format= ({NAMED})",
        ),
        (
            [{"role": "human", "content": "x"}],
            "cannot tell the chat format of a list of 1 items",
            f"pass format= ({NAMED})",
        ),
        (
            {"messages": "x"},
            "cannot tell the chat format of an object with keys messages",
            f"pass format= ({NAMED})",
        ),
        (42, "cannot import a int", "give a JSON object or list of messages"),
    ],
)
def test_what_is_refused_and_how_it_is_said(data: Any, message: str, hint: str) -> None:
    with pytest.raises(lmml_mdit.ImportFormatError) as info:
        lmml_mdit.detect_format(data)
    assert (info.value.message, info.value.hint) == (message, hint)


def _read_lines(data: object) -> ImportedConversation:
    lines = data.get("lines") if isinstance(data, dict) else data
    if not isinstance(lines, list):
        raise lmml_mdit.ImportFormatError("a toy chat is a list of lines", hint="give a list")
    return ImportedConversation([ChatTurn(line["who"], [Text(line["say"])]) for line in lines])


def _says(message: JSONMapping) -> bool:
    return "say" in message


TOY = ChatFormat(
    name="toy",
    title="Toy Lines",
    description="a toy chat",
    read=_read_lines,
    detection=Detection(
        body_keys=frozenset({"lines"}), messages_key="lines", message=_says, exclusive=True
    ),
)
LINES = [{"who": "user", "say": "Hello there."}, {"who": "assistant", "say": "Hi."}]


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy format registered as an entry point registers it."""
    monkeypatch.setitem(FORMATS, TOY.name, TOY)


@pytest.mark.usefixtures("toy")
def test_a_registered_format_is_detected_by_import_messages() -> None:
    assert lmml_mdit.detect_format({"lines": LINES}) == "toy"
    assert lmml_mdit.detect_format(LINES) == "toy"
    bundle = lmml_mdit.import_messages({"model": "m", "lines": LINES})
    turns = bundle.narrative.turns
    assert [(turn.role, turn.text) for turn in turns] == [
        ("user", "Hello there."),
        ("assistant", "Hi."),
    ]
    # The built-in formats are detected as before beside it.
    assert lmml_mdit.detect_format([{"role": "user", "content": "hi"}]) == "openai"
    assert lmml_mdit.detect_format([{"from": "human", "value": "x"}]) == "sharegpt"


@pytest.mark.usefixtures("toy")
def test_the_command_line_imports_a_registered_format_without_format(tmp_path: Path) -> None:
    source = tmp_path / "chat.json"
    source.write_text(json.dumps({"lines": LINES}), encoding="utf-8")
    out = tmp_path / "chat.lmml"
    assert main(["import", str(source), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "Hello there." in text and "Hi." in text


@pytest.mark.usefixtures("toy")
def test_its_signals_beside_a_built_in_format_are_ambiguous() -> None:
    data = [{"who": "user", "say": "x"}, {"role": "tool", "content": "r"}]
    with pytest.raises(lmml_mdit.ImportFormatError, match="looks like openai and toy"):
        lmml_mdit.detect_format(data)
    with pytest.raises(lmml_mdit.ImportFormatError) as info:
        lmml_mdit.detect_format({"foo": 1})
    assert info.value.hint == (
        f"expected messages, input, contents, conversations or lines; pass format= ({WITH_TOY})"
    )


def test_a_format_without_detection_is_imported_only_when_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    silent = ChatFormat(name="toy", title="Toy Lines", description="a toy chat", read=_read_lines)
    monkeypatch.setitem(FORMATS, silent.name, silent)
    with pytest.raises(lmml_mdit.ImportFormatError) as info:
        lmml_mdit.import_messages({"lines": LINES})
    assert info.value.hint == f"{EXPECTED}; pass format= ({WITH_TOY})"
    assert len(lmml_mdit.import_messages({"lines": LINES}, "toy").narrative.turns) == 2


def test_a_refusal_of_a_detected_format_says_it_was_detected() -> None:
    # An Anthropic body of plain user and assistant text looks like an OpenAI chat; its
    # Anthropic-only key is then refused, and the hint says how the format was chosen.
    cited = {"type": "char_location", "cited_text": "blue", "document_index": 0}
    said = {"type": "text", "text": "Blue.", "citations": [cited]}
    body = {
        "model": "claude",
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [said]},
        ],
    }
    with pytest.raises(lmml_mdit.ImportFormatError) as refused:
        lmml_mdit.import_messages(body)
    assert "unsupported key 'citations'" in refused.value.message
    assert refused.value.hint is not None
    assert "it was read as openai, judged by its shape" in refused.value.hint
    assert "pass format= (openai-responses, anthropic, gemini, sharegpt)" in refused.value.hint
    assert "--format" in (refused.value.cli_hint or "")
    with pytest.raises(lmml_mdit.ImportFormatError) as named:
        lmml_mdit.import_messages(body, "openai")  # named: nothing to add
    assert "judged by its shape" not in str(named.value)
    assert lmml_mdit.import_messages(body, "anthropic").messages("anthropic")
