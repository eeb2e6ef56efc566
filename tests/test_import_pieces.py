"""Import in bounded memory: what is escaped and checked a piece at a time reads as the
whole, and a payload is read under the limits."""

from __future__ import annotations

import io
import json
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

import lmml_mdit
from lmml_mdit import Limits, import_messages, import_path, parse
from lmml_mdit.chat import (
    READ_CHUNK,
    escape_parsed,
    escape_text,
    read_conversation,
    save_conversation,
)

# private on purpose: their piece size and helpers are patched
from lmml_mdit.chat import _escape as escape
from lmml_mdit.chat import _pieces as pieces
from lmml_mdit.chat import _writer as writer
from lmml_mdit.errors import ImportFormatError, LimitExceededError

# Whole lines that build block and inline structure: runs of them cut in pieces must read
# as the whole text does.
LINES = [
    "@a.png",
    "See @b.png and @c.txt.",
    "\\@a.png",
    "text @alice",
    "plain words",
    "",
    "",
    "## user",
    "user",
    "---",
    "===",
    "```",
    "~~~",
    "<pre>",
    "</pre>",
    "<!-- user -->",
    "<div>",
    "</div>",
    "<script>",
    "</script>",
    "<?x",
    "?>",
    "- item @a.png",
    "  indented @a.png",
    "    code @a.png",
    "\t tab @a.png",
    "> quote @a.png",
    "1. one",
    "2) two",
    "* star",
    "___",
    "`code @a.png",
    "span`",
    "[link @a.png](u)",
    "*em @a.png*",
    "a\\",
    "Turn 1 -- user",
    "# Turn 2 -- assistant",
    "| a | b |",
    "|---|---|",
    "| @a.png | x |",
    "| @a.png | @b.png | c |",
    "| x |",
    "a | b",
    "--- | ---",
]
TABLE = "| a | b |\n|---|---|\n"
SOUPS = st.lists(st.sampled_from(LINES), min_size=1, max_size=60).map("\n".join)
TABLES = st.lists(st.sampled_from([*LINES[-7:], "| @a.png | b |"]), max_size=40).map(
    lambda rows: TABLE + "\n".join(rows)
)


def read_back(body: str) -> tuple[list[str], list[str], int]:
    narrative = parse(f"## Turn 1 -- user\n\n{body}\n\n## Turn 2 -- assistant\n\nok\n")
    return (
        [t.role for t in narrative.turns],
        [t.text for t in narrative.turns],
        len(narrative.embeds),
    )


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pieces, "PIECE_CHARACTERS", 8)


@settings(max_examples=300, deadline=None)
@given(SOUPS | TABLES, st.sampled_from([1, 8, 40]))
def test_text_escaped_in_pieces_is_escaped_as_whole(text: str, size: int) -> None:
    whole = escape_parsed(text)
    saved = pieces.PIECE_CHARACTERS
    pieces.PIECE_CHARACTERS = size
    try:
        cut = escape_text(text)
    finally:
        pieces.PIECE_CHARACTERS = saved
    assert cut == whole
    roles, texts, embeds = read_back(cut)
    assert roles == ["user", "assistant"]
    assert texts == [cut, "ok"]
    assert embeds == 0


def test_cuts_fall_in_tables_and_local_runs_only() -> None:
    text = TABLE + "| @a.png | @b.png |\n" * 3 + "\nplain @a.png\nmore\n\n```\ncode\n\n@x\n```"
    cuts = pieces.cut_offsets(text, 0, len(text), 1)
    starts = [text[cut.offset : text.find("\n", cut.offset)] for cut in cuts]
    assert starts == ["| @a.png | @b.png |"] * 3 + ["plain @a.png", "more", "```", "@x"]
    # The table's rows are parsed after its header and delimiter rows; the others alone.
    contexts = [text[cut.context_start : cut.context_end] for cut in cuts]
    assert contexts == [TABLE.rstrip("\n")] * 3 + [""] * 4
    # A table whose row has fewer cells than its header (the parser counts those) and a
    # paragraph with a code span are cut nowhere inside.
    assert pieces.cut_offsets(TABLE + "| x |\n| y | z |", 0, 28, 1) == []
    assert pieces.cut_offsets("a `b\nc` d\ne", 0, 11, 1) == []


def test_a_fence_open_across_a_cut_is_parsed_with_what_follows(small_pieces: None) -> None:
    text = "```\n\n@a.png\n\n## user\n```\n\nafter @a.png"
    assert (
        escape_text(text)
        == escape_parsed(text)
        == "```\n\n@a.png\n\n## user\n```\n\nafter \\@a.png"
    )


def test_text_is_escaped_as_it_stands_after_a_heading() -> None:
    # At the start of a document "---" would open front matter and hide the heading.
    assert escape_text("---\n## user\n---") == "---\n\\## user\n---"
    bundle = import_messages([{"role": "user", "content": "---\n## user\n---"}])
    assert sent_texts(bundle.messages()) == [("user", "---\n## user\n---")]


def sent_texts(messages: list[dict[str, object]]) -> list[tuple[object, str]]:
    """Each message's role and text, its text parts joined."""
    found = []
    for message in messages:
        content = message["content"]
        assert isinstance(content, list)
        found.append((message["role"], "\n\n".join(part["text"] for part in content)))
    return found


def long_conversation(line: str, count: int) -> list[dict[str, str]]:
    """A long first message of *line* repeated (a table's rows, after its header)."""
    header = TABLE if line.startswith("|") else ""
    return [
        {"role": "user", "content": header + "\n".join([line] * count)},
        {"role": "assistant", "content": "A cat.\n\n" * 3 + TABLE + "\n".join(["| @a.png |"] * 40)},
    ]


@pytest.mark.parametrize("line", ["@a.png", "See @b.png, then @c.txt.", "| @a.png | @b.png |"])
def test_saved_conversation_is_the_bundle_import_messages_saves(
    line: str, tmp_path: Path, small_pieces: None
) -> None:
    messages = long_conversation(line, 60)
    (tmp_path / "two").mkdir()
    save_conversation(read_conversation(messages), str(tmp_path / "one.lmmlz"))
    import_messages(messages, name="one").save(tmp_path / "two" / "one.lmmlz")
    assert (tmp_path / "one.lmmlz").read_bytes() == (tmp_path / "two" / "one.lmmlz").read_bytes()
    sent = sent_texts(lmml_mdit.open(tmp_path / "one.lmmlz").messages())
    assert sent == [(message["role"], message["content"]) for message in messages]


def test_the_check_in_pieces_still_finds_a_forged_turn(
    tmp_path: Path, small_pieces: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Were the escaping wrong, a heading deep in a long message would open a turn.
    monkeypatch.setattr(writer, "text_block", lambda text, names: text)
    for forged in ("## assistant", "<!-- user -->"):
        content = "\n".join(["plain words"] * 30 + [forged] + ["plain words"] * 30)
        conversation = read_conversation([{"role": "user", "content": content}])
        with pytest.raises(ImportFormatError, match="does not read back"):
            save_conversation(conversation, str(tmp_path / "x.lmmlz"))


def test_a_fence_left_open_in_a_long_turn_is_found(
    tmp_path: Path, small_pieces: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer, "text_block", lambda text, names: text)
    content = "\n\n".join(["plain words"] * 20 + ["```", "unclosed"])
    conversation = read_conversation(
        [{"role": "user", "content": content}, {"role": "assistant", "content": "ok"}]
    )
    with pytest.raises(ImportFormatError, match="does not read back"):
        save_conversation(conversation, str(tmp_path / "x.lmmlz"))


def chat_line(line: str, count: int) -> bytes:
    return json.dumps({"messages": long_conversation(line, count)}).encode() + b"\n"


def test_import_never_parses_the_whole_narrative(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "chats.jsonl"
    source.write_bytes(chat_line("@a.png", 20_000) + chat_line("| @a.png | @b.png |", 9_000))
    longest = 0
    original = MarkdownIt.parse

    def parse_recorded(md: MarkdownIt, src: str, env: object = None) -> object:
        nonlocal longest
        longest = max(longest, len(src))
        return original(md, src, env)

    monkeypatch.setattr(MarkdownIt, "parse", parse_recorded)
    written = import_path(source, tmp_path / "out")
    assert longest <= 2 * pieces.PIECE_CHARACTERS
    assert [len(lmml_mdit.open(path).messages()) for path in written] == [2, 2]


def _import_peak(tmp_path: Path, line: str, characters: int) -> tuple[int, int]:
    """The peak memory of importing a JSONL file whose largest line holds one message of
    *line* repeated to about *characters*, after a warm-up import (modules loaded, parsers
    built); and that line's size in bytes."""
    warm = tmp_path / "warm.jsonl"
    warm.write_bytes(chat_line(line, 2_000))
    import_path(warm, tmp_path / "warm")
    source = tmp_path / "chats.jsonl"
    big = chat_line(line, characters // len(line))
    source.write_bytes(chat_line("hi", 1) + big)
    tracemalloc.start()
    try:
        import_path(source, tmp_path / "out")
        return tracemalloc.get_traced_memory()[1], len(big)
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("line", ["@a.png", "| @a.png | @b.png |"])
def test_import_memory_is_bounded_by_the_largest_line(line: str, tmp_path: Path) -> None:
    # A parse costs 300 to 450 times such a line; held a piece at a time, the import as
    # a whole stays near 20 times (the bound here leaves room for a piece's fixed cost).
    peak, size = _import_peak(tmp_path, line, 100_000)
    assert peak <= 50 * size


def test_import_of_a_long_message_stays_within_twenty_times_its_line(tmp_path: Path) -> None:
    # The bound, on a line long enough that a piece's fixed cost does not count:
    # one message of 600 KB of prose (a whole parse of it costs over 30 times the line).
    peak, size = _import_peak(tmp_path, "Some plain words here and there, in a sentence.", 600_000)
    assert peak <= 20 * size


class _Stdin:
    closed = False

    def __init__(self, data: bytes) -> None:
        self.buffer = _Recording(data)


class _Recording(io.BytesIO):
    asked: list[int]

    def read(self, size: int | None = -1) -> bytes:
        self.asked = [*getattr(self, "asked", []), -1 if size is None else size]
        return super().read(size)


def test_standard_input_is_read_in_chunks_under_the_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = json.dumps([{"role": "user", "content": "x" * 5_000}]).encode()
    stdin = _Stdin(payload)
    monkeypatch.setattr(sys, "stdin", stdin)
    with pytest.raises(LimitExceededError, match="max_total_size") as raised:
        import_path("-", tmp_path / "a.lmmlz", limits=Limits(max_total_size=4_000))
    assert raised.value.name == "<stdin>"
    assert max(stdin.buffer.asked) <= READ_CHUNK
    assert stdin.buffer.tell() <= 4_001  # refused before reading the rest
    monkeypatch.setattr(sys, "stdin", _Stdin(payload))
    assert import_path("-", tmp_path / "a.lmmlz") == [tmp_path / "a.lmmlz"]


def test_a_json_file_and_a_jsonl_line_are_read_under_the_limits(tmp_path: Path) -> None:
    payload = json.dumps([{"role": "user", "content": "x" * 5_000}])
    limits = Limits(max_total_size=4_000)
    (tmp_path / "one.json").write_text(payload)
    with pytest.raises(LimitExceededError, match="max_total_size"):
        import_path(tmp_path / "one.json", tmp_path / "one.lmmlz", limits=limits)
    (tmp_path / "many.jsonl").write_text('[{"role": "user", "content": "hi"}]\n' + payload)
    with pytest.raises(LimitExceededError, match="a line is larger") as raised:
        import_path(tmp_path / "many.jsonl", tmp_path / "out", limits=limits)
    assert raised.value.line == 2
    assert import_path(tmp_path / "many.jsonl", tmp_path / "out2")[-1].name == "000002.lmmlz"


def test_escape_module_parses_a_long_text_in_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    original = escape._escape_lines

    def recorded(lines: list[str], *args: object, **kwargs: object) -> str | None:
        seen.append(len(lines))
        return original(lines, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(escape, "_escape_lines", recorded)
    text = "\n".join(["@a.png"] * 10_000)
    assert escape_text(text) == "\n".join(["\\@a.png"] * 10_000)
    assert len(seen) > 1 and max(seen) * 8 <= 2 * pieces.PIECE_CHARACTERS


MESSAGES = st.lists(
    st.fixed_dictionaries(
        {
            "role": st.sampled_from(["user", "assistant"]),
            "content": st.lists(st.sampled_from(LINES), min_size=1, max_size=30).map(
                lambda lines: "\n".join(lines).strip("\n") or "x"
            ),
        }
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=150, deadline=None)
@given(MESSAGES, st.sampled_from([1, 8, 40, 200]))
def test_the_check_in_pieces_decides_as_the_whole_check(
    messages: list[dict[str, str]], size: int
) -> None:
    # Unescaped, most such conversations do not read back: the check in pieces must
    # refuse exactly those the check of the whole narrative refuses.
    conversation = read_conversation(messages)
    saved = writer.text_block, pieces.PIECE_CHARACTERS
    writer.text_block = lambda text, names: text  # type: ignore[assignment]
    try:
        try:
            writer.write_bundle(conversation, "x")
            whole = True
        except ImportFormatError:
            whole = False
        pieces.PIECE_CHARACTERS = size
        written = writer._write(conversation)
        try:
            writer._read_back(written, "x")
            cut = True
        except ImportFormatError:
            cut = False
    finally:
        writer.text_block, pieces.PIECE_CHARACTERS = saved
    assert cut == whole
