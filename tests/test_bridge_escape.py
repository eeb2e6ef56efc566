"""Escaping: message text placed in a turn reads back as exactly itself, forging nothing."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmml_mdit import export_sharegpt, import_messages, parse
from lmml_mdit.chat import escape_parsed, escape_text, normalize_text

# Characters that build LMML and Markdown structure, plus plain letters.
STRUCTURE = st.sampled_from(
    [
        "@",
        "@@@",
        "#",
        "## ",
        "<!--",
        "-->",
        "user",
        "assistant",
        "tool",
        "system",
        "`",
        "```",
        "~~~",
        "<pre>",
        "<div>",
        "-",
        "=",
        "---",
        "===",
        ">",
        "\\",
        " ",
        "    ",
        "\n",
        "\n\n",
        "a",
        "x.png",
        "*",
        "1.",
        "[",
        "]",
        "(",
        ")",
        "\t",
        "\r\n",
        "<?",
        "<![CDATA[",
    ]
)
TEXTS = st.lists(STRUCTURE, max_size=40).map("".join)


def read_back(body: str) -> tuple[list[str], list[str], int]:
    document = f"## Turn 1 -- user\n\n{body}\n\n## Turn 2 -- assistant\n\nok\n"
    narrative = parse(document)
    return (
        [t.role for t in narrative.turns],
        [t.text for t in narrative.turns],
        len(narrative.embeds),
    )


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_escaped_text_reads_back_exactly(text: str) -> None:
    escaped = escape_text(text)
    roles, texts, embeds = read_back(escaped)
    assert roles == ["user", "assistant"]
    assert texts == [escaped, "ok"]
    assert embeds == 0


PLAIN_MARKDOWN = st.lists(
    st.sampled_from(
        [
            "a",
            "user",
            "System",
            " ",
            "\n",
            "\n\n",
            "    ",
            ">",
            "*",
            "+",
            "1.",
            "[x]: /u",
            "|",
            "_",
            "___",
            "\t",
            "!",
            "&amp;",
            "\\",
            "tool",
            "assistant",
            ":",
            "***",
            "> - 1)",
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(PLAIN_MARKDOWN | st.text(alphabet=st.characters(blacklist_characters="@#=-<`~")))
def test_text_without_structure_is_only_normalised(text: str) -> None:
    # The shortcut in escape_text is sound: the parsing path finds nothing to escape either.
    assert escape_parsed(text) == normalize_text(text) == escape_text(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ping @alice", "ping @alice"),  # a mention, no reference
        ("ping @alice.png", "ping \\@alice.png"),
        ("see https://x.io/@a.png", "see https://x.io/@a.png"),
        ("mail bob@example.com", "mail bob@example.com"),
        ("`@code` and \\@done", "`@code` and \\@done"),
        ("## Turn 3 -- assistant", "\\## Turn 3 -- assistant"),
        ("# Notes", "# Notes"),  # a heading with no role word is no delimiter
        ("<!-- tool -->", "\\<!-- tool -->"),
        ("@@@x.json\n{}\n@@@", "\\@@@x.json\n{}\n@@@"),
        ("System\n======", "System\n\\======"),
        ("```\nopen fence", "```\nopen fence\n```"),
        ("~~~~py\nx = 1", "~~~~py\nx = 1\n~~~~"),
        ("<!--\nnever closed", "<!--\nnever closed\n-->"),
        ("<pre>\nraw", "<pre>\nraw\n</pre>"),
        ("\r\n\r\nwindows\r\nlines\r\n\r\n", "windows\nlines"),
        ("", ""),
        ("   \n\n", ""),
    ],
)
def test_escape_examples(text: str, expected: str) -> None:
    assert escape_text(text) == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["human", "gpt"]), TEXTS), min_size=1, max_size=6))
def test_written_conversation_keeps_every_turn(entries: list[tuple[str, str]]) -> None:
    data = {"conversations": [{"from": who, "value": value} for who, value in entries]}
    bundle = import_messages(data, "sharegpt")
    turns = bundle.narrative.turns
    assert [t.role for t in turns] == [
        "user" if who == "human" else "assistant" for who, _ in entries
    ]
    assert [t.text for t in turns] == [escape_text(value) for _, value in entries]
    assert bundle.narrative.embeds == ()
    record = export_sharegpt(bundle)
    # The escapes are LMML escapes: the export leaves them out, so the text comes back as
    # given (normalised), unless a closing line had to be added to an unclosed block, or
    # the text itself held a backslash (a "\\@" of its own reads as an LMML escape).
    for entry, (_, value) in zip(record["conversations"], entries, strict=True):
        escaped = escape_text(value)
        same_lines = escaped.count("\n") == normalize_text(value).count("\n")
        if same_lines and "\\" not in value:
            assert entry["value"] == normalize_text(value)
        assert not re.search(r"(?<!\\)\\@", entry["value"]) or "\\@" in value


def test_a_backslash_before_an_at_sign_is_an_lmml_escape() -> None:
    """Markdown shows ``\\@`` as ``@``, and so does every text LMML sends."""
    data = {"conversations": [{"from": "human", "value": "literal \\@x"}]}
    record = export_sharegpt(import_messages(data))
    assert record["conversations"][0]["value"] == "literal @x"


def test_sharegpt_mention_round_trips_unescaped() -> None:
    value = "Write a haiku about @mentions and @notes.txt."
    data = {"conversations": [{"from": "human", "value": value}]}
    bundle = import_messages(data)
    assert "@mentions and \\@notes.txt" in bundle.narrative.text  # only the reference
    record = export_sharegpt(bundle)
    assert record["conversations"][0]["value"] == value


@pytest.mark.parametrize(
    "value", ["user\n-\n-", "user\n=\n=", "## user\nfoo\n---", "user\n-\n-\n-"]
)
def test_an_escape_a_setext_heading_swallowed_is_still_an_lmml_escape(value: str) -> None:
    """Escaping a role underline can make its line part of a setext heading (the next line
    underlines both); the backslash is still the parser's, so the text comes back as given."""
    bundle = import_messages({"conversations": [{"from": "human", "value": value}]}, "sharegpt")
    assert [turn.role for turn in bundle.narrative.turns] == ["user"]
    assert bundle.narrative.escapes
    assert export_sharegpt(bundle)["conversations"][0]["value"] == value
