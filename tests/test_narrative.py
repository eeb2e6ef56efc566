"""The narrative model and the plugin's contract: tokens, env results, rendering, presets."""

from __future__ import annotations

import codecs
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

import lmml_mdit
import lmml_mdit.cli
from lmml_mdit import (
    MESSAGE_ROLES,
    ROLES,
    Embed,
    LmmlError,
    LmmlSyntaxError,
    Narrative,
    Turn,
    lmml_plugin,
    parse,
)
from lmml_mdit.errors import MissingPluginError
from lmml_mdit.narrative import decode_narrative, default_parser
from lmml_mdit.syntax import DELIMITERS_KEY, EMBEDS_KEY, SOURCE_KEY, comment_role, role_word

CONVERSATION = (
    "Shared context @ctx.md\n"
    "\n"
    "## Turn 1 -- user\n"
    "Look at @photo.png and @data/table.csv.\n"
    "\n"
    "@@@notes.txt\n"
    "first\n"
    "@@@\n"
    "\n"
    "<!-- assistant -->\n"
    "I see @photo.png.\n"
    "\n"
    "# Tool\n"
)


def _walk(tokens: Sequence[Token]) -> list[Token]:
    found: list[Token] = []
    for token in tokens:
        found.append(token)
        if token.children:
            found.extend(_walk(token.children))
    return found


# -- the model values (reference E1-E6, G1) ---------------------------------------------


def test_roles() -> None:
    """G1: the roles, ``context`` first, and the message roles."""
    assert ROLES == ("context", "user", "assistant", "system", "tool")
    assert MESSAGE_ROLES == ("user", "assistant", "system", "tool")


def test_embed_values() -> None:
    """E1, E2, E4-E6: inline and external embeds (entry-name indirection, E3/E7/E8, has no
    counterpart: an external embed's name is its entry name)."""
    inline = Embed("settings.yaml", "inline", b"key: value", 1, 1)
    external = Embed("image.png", "external", None, 2, 5)
    assert inline.is_inline and not external.is_inline
    assert inline.content == b"key: value"
    assert external.content is None
    assert inline.closed and external.closed


# -- Narrative fields --------------------------------------------------------------------


def test_narrative_fields() -> None:
    narrative = parse(CONVERSATION)
    assert isinstance(narrative, Narrative)
    assert narrative.text == CONVERSATION
    assert narrative.source == CONVERSATION
    assert narrative.lines == tuple(CONVERSATION.split("\n")[:-1])
    assert narrative.lines is narrative.lines  # split once
    assert narrative.tokens and all(isinstance(token, Token) for token in narrative.tokens)
    assert [(e.name, e.kind) for e in narrative.embeds] == [
        ("ctx.md", "external"),
        ("photo.png", "external"),
        ("data/table.csv", "external"),
        ("notes.txt", "inline"),
        ("photo.png", "external"),
    ]
    assert narrative.embed_names == ("ctx.md", "photo.png", "data/table.csv", "notes.txt")
    assert list(narrative.first_embeds) == list(narrative.embed_names)
    photo = narrative.embed("photo.png")
    assert photo is not None and (photo.line, photo.column) == (4, 9)
    notes = narrative.embed("notes.txt")
    assert notes is not None and notes.content == b"first\n" and notes.line == 6
    assert narrative.embed("missing.png") is None  # D9


def test_turns() -> None:
    turns = parse(CONVERSATION).turns
    assert all(isinstance(turn, Turn) for turn in turns)
    assert [turn.role for turn in turns] == ["context", "user", "assistant", "tool"]
    context, user, assistant, tool = turns
    assert context.text == "Shared context @ctx.md"
    assert (context.start_line, context.end_line, context.delimiter_line) == (1, 2, None)
    assert [e.name for e in context.embeds] == ["ctx.md"]
    assert user.text == "Look at @photo.png and @data/table.csv.\n\n@@@notes.txt\nfirst\n@@@"
    assert [e.name for e in user.embeds] == ["photo.png", "data/table.csv", "notes.txt"]
    assert (user.start_line, user.end_line, user.delimiter_line) == (4, 9, 3)
    assert user.heading == "Turn 1 -- user"
    assert assistant.text == "I see @photo.png."
    assert assistant.embeds == ()  # photo.png was first named in the user turn
    assert assistant.heading is None
    assert tool.text == "" and tool.heading == "Tool"
    assert (tool.start_line, tool.end_line) == (14, 13)  # an empty turn at the end


def test_whitespace_preamble_gives_no_context_turn() -> None:
    assert [turn.role for turn in parse(" \n\t\n# user\nx\n").turns] == ["user"]
    assert parse("").turns == ()
    assert parse("  \n").turns == ()
    assert [turn.role for turn in parse("x").turns] == ["context"]


def test_consecutive_same_role_delimiters_and_empty_turns() -> None:
    turns = parse("# user\n<!-- user -->\n\n# user\nhi").turns
    assert [(t.role, t.text, t.start_line, t.end_line) for t in turns] == [
        ("user", "", 2, 1),
        ("user", "", 3, 3),
        ("user", "hi", 5, 5),
    ]


def test_embed_first_named_on_a_delimiter_line() -> None:
    turns = parse("intro\n# asks about @a.png -- user\nmore @a.png\n").turns
    assert [e.name for e in turns[0].embeds] == []
    assert [e.name for e in turns[1].embeds] == ["a.png"]
    assert turns[1].embeds[0].line == 2


# -- input forms ---------------------------------------------------------------------------


def test_bytes_input() -> None:
    assert parse(CONVERSATION.encode("utf-8")) == parse(CONVERSATION)


def test_bom_is_skipped() -> None:
    plain = parse("# user\nhi @a.png\n")
    for text in (
        codecs.BOM_UTF8 + b"# user\nhi @a.png\n",
        "\ufeff# user\nhi @a.png\n",
    ):
        narrative = parse(text)
        assert narrative.text == "# user\nhi @a.png\n"
        assert narrative.turns == plain.turns
        assert narrative.embeds == plain.embeds


@pytest.mark.parametrize(
    ("data", "offset", "line"),
    [
        (b"\xff\xfe\xfd", 0, 1),  # D7 (differs: raises instead of returning an error)
        (b"ok\nline two \xc3(\n", 12, 2),
        (codecs.BOM_UTF8 + b"ab\x80", 5, 1),  # offsets count the BOM
        (b"truncated \xe2\x82", 10, 1),
    ],
)
def test_invalid_utf8(data: bytes, offset: int, line: int) -> None:
    with pytest.raises(LmmlSyntaxError) as caught:
        parse(data, name="chat.lmml")
    error = caught.value
    assert isinstance(error, LmmlError)
    assert f"byte offset {offset}" in str(error)
    assert error.line == line
    assert error.name == "chat.lmml"
    assert error.hint


@pytest.mark.parametrize(
    ("codec", "offset"),
    [
        ("utf-16", 0),  # a byte order mark: already refused, now named for what it is
        ("utf-32", 0),
        ("utf-16-le", 1),  # no byte order mark: was read as text with U+FFFD between letters
        ("utf-16-be", 0),
    ],
)
def test_utf16_bytes_are_refused_as_utf16(codec: str, offset: int) -> None:
    data = "## user\nhello @a.png\n".encode(codec)
    with pytest.raises(LmmlSyntaxError) as caught:
        parse(data, name="chat.lmml")
    error = caught.value
    assert f"byte offset {offset}" in str(error)
    assert "UTF-16" in str(error) or "UTF-32" in str(error)
    assert (error.name, error.line, error.hint) == ("chat.lmml", 1, "save the narrative as UTF-8")


def test_utf16_file_is_refused_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chat.lmml"
    path.write_bytes("## user\nhi\n".encode("utf-16-le"))
    assert lmml_mdit.cli.main(["turns", str(path)]) == 2
    said = capsys.readouterr().err
    assert f"{path}:1:2: invalid UTF-8 at byte offset 1 (the bytes are UTF-16" in said


def test_text_with_a_few_nul_bytes_is_still_text() -> None:
    narrative = parse(b"## user\na\0b\n")
    assert narrative.turns[0].text == "a\ufffdb"


def test_decode_narrative() -> None:
    assert decode_narrative(codecs.BOM_UTF8 + "é".encode()) == "é"
    with pytest.raises(LmmlSyntaxError):
        decode_narrative(b"\xc0")


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("x\ud800", 1, 2),
        ("\ufeffx\ud800", 1, 2),  # the BOM is no column
        ("# user\r\nab\udfff", 2, 3),  # counted in the normalized lines
        ("@@@a.txt\nbad \udc80 bytes\n@@@\n", 2, 5),  # would have no UTF-8 content
    ],
)
def test_lone_surrogate_in_text(text: str, line: int, column: int) -> None:
    """A str that no UTF-8 file can hold is refused up front, with its position."""
    with pytest.raises(LmmlSyntaxError) as caught:
        parse(text, name="chat.lmml")
    error = caught.value
    assert (error.name, error.line, error.column) == ("chat.lmml", line, column)
    assert "surrogate" in str(error) and error.hint


def test_lone_surrogate_in_fence_via_plugin() -> None:
    """Straight through ``md.parse`` the plugin names the fence holding the surrogate."""
    md = MarkdownIt("commonmark").use(lmml_plugin)
    with pytest.raises(LmmlSyntaxError) as caught:
        md.parse("intro\n\n@@@a.txt\n\ud800\n@@@\n", {})
    assert (caught.value.name, caught.value.line) == ("a.txt", 3)


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_crlf_and_cr_parse_like_lf(newline: str) -> None:
    lf = parse(CONVERSATION)
    other = parse(CONVERSATION.replace("\n", newline))
    assert other.source == lf.source
    assert other.embeds == lf.embeds
    assert other.turns == lf.turns
    assert other.text == CONVERSATION.replace("\n", newline)  # the text as given


def test_nul_becomes_replacement_character() -> None:
    narrative = parse("# user\na\0b @x.md\n")
    assert narrative.turns[0].text == "a\ufffdb @x.md"
    assert narrative.embeds[0].column == 5


# -- errors ----------------------------------------------------------------------------------


def test_errors_derive_from_lmml_error() -> None:
    for name in dir(lmml_mdit.errors):
        value = getattr(lmml_mdit.errors, name)
        if isinstance(value, type) and issubclass(value, Warning):
            assert issubclass(value, lmml_mdit.LmmlWarning), name  # the warnings live here too
        elif isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, LmmlError), name


def test_parser_without_plugin() -> None:
    with pytest.raises(MissingPluginError) as caught:
        parse("x", md=MarkdownIt("commonmark"))
    assert isinstance(caught.value, LmmlError) and isinstance(caught.value, TypeError)


# -- tokens and env ------------------------------------------------------------------------


def test_tokens_carry_positions() -> None:
    text = "# user\n\n> see @a.png\n\n@@@b.txt\nx\n@@@\n\n<!-- assistant -->\n"
    tokens = _walk(parse(text).tokens)
    ref = next(t for t in tokens if t.type == "lmml_ref")
    assert (ref.content, ref.meta["name"], ref.markup) == ("a.png", "a.png", "@")
    assert (ref.meta["line"], ref.meta["column"], ref.map) == (3, 7, [2, 3])
    fence = next(t for t in tokens if t.type == "lmml_embed")
    assert (fence.info, fence.meta["name"], fence.content) == ("b.txt", "b.txt", "x\n")
    assert fence.meta["closed"] is True and fence.block
    assert (fence.meta["line"], fence.meta["column"], fence.map) == (5, 1, [4, 7])
    role = next(t for t in tokens if t.type == "lmml_role")
    assert (role.info, role.meta["lmml_role"], role.map) == ("assistant", "assistant", [8, 9])
    heading = next(t for t in tokens if t.type == "heading_open")
    assert heading.meta["lmml_role"] == "user"
    assert heading.meta["lmml_heading"] == "user"
    assert heading.map == [0, 1]


def test_env_results() -> None:
    env: dict[str, Any] = {}
    md = MarkdownIt("commonmark").use(lmml_plugin, references="any")
    md.parse("a\r\n# user\r\n@x @@@no\r\n@@@f.txt\r\ny\r\n@@@\r\n", env)
    assert [(e.name, e.kind, e.line) for e in env[EMBEDS_KEY]] == [
        ("x", "external", 3),
        ("f.txt", "inline", 4),
    ]
    assert [d.meta["lmml_role"] for d in env[DELIMITERS_KEY]] == ["user"]
    assert env[SOURCE_KEY] == "a\n# user\n@x @@@no\n@@@f.txt\ny\n@@@\n"
    assert not [key for key in env if key.startswith("_lmml")]  # scratch keys removed


def test_env_results_are_per_parse() -> None:
    md = default_parser()
    first: dict[str, Any] = {}
    second: dict[str, Any] = {}
    md.parse("@a.md", first)
    md.parse("plain", second)
    assert [e.name for e in first[EMBEDS_KEY]] == ["a.md"]
    assert second[EMBEDS_KEY] == [] and second[DELIMITERS_KEY] == []


def test_unclosed_fence_is_recorded() -> None:
    (embed,) = parse("@@@a.txt\nx\n").embeds
    assert embed.closed is False and embed.content == b"x\n"
    (embed,) = parse("@@@n.txt\nhello@@@").embeds  # the reference inliner's form
    assert embed.closed is True and embed.content == b"hello"
    (embed,) = parse("@@@a.txt\nx\n@@@").embeds
    assert embed.content == b"x\n"


# -- rendering -------------------------------------------------------------------------------


def test_default_rendering() -> None:
    md = MarkdownIt("commonmark").use(lmml_plugin, references="any")
    assert md.render("@a&b") == '<p><span class="lmml-ref" data-lmml-name="a">@a</span>&amp;b</p>\n'
    assert md.render("@@@x\n<&>\n@@@") == (
        '<figure class="lmml-embed" data-lmml-name="x"><figcaption>x</figcaption>'
        "<pre><code>&lt;&amp;&gt;\n</code></pre></figure>\n"
    )
    assert md.render("@@@x\n") == (
        '<figure class="lmml-embed lmml-unclosed" data-lmml-name="x"><figcaption>x'
        "</figcaption><pre><code></code></pre></figure>\n"
    )
    assert md.render("<!-- tool -->") == '<div class="lmml-role" data-lmml-role="tool">tool</div>\n'


def test_render_rules_can_be_overridden() -> None:
    def ref(
        self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return f"[{tokens[idx].content}]"

    def fence(
        self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return f"<file {tokens[idx].info}>\n"

    def role(
        self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return f"<hr data-role={tokens[idx].info}>\n"

    md = MarkdownIt("commonmark").use(lmml_plugin)
    md.add_render_rule("lmml_ref", ref)
    md.add_render_rule("lmml_embed", fence)
    md.add_render_rule("lmml_role", role)
    assert md.render("see @a.png\n\n@@@b\nx\n@@@\n<!-- user -->") == (
        "<p>see [a.png]</p>\n<file b>\n<hr data-role=user>\n"
    )


# -- presets and options -------------------------------------------------------------------

SAMPLE = "# user\nhi @a.png ~~x~~\n\n@@@b.txt\nx\n@@@\n\n<!-- assistant -->\nok @c.md\n"


def _summary(md: MarkdownIt) -> tuple[list[str], list[str], list[str]]:
    narrative = parse(SAMPLE, md=md)
    return (
        [t.role for t in narrative.turns],
        [t.text for t in narrative.turns],
        [e.name for e in narrative.embeds],
    )


EXPECTED_SUMMARY = (
    ["user", "assistant"],
    ["hi @a.png ~~x~~\n\n@@@b.txt\nx\n@@@", "ok @c.md"],
    ["a.png", "b.txt", "c.md"],
)


@pytest.mark.parametrize(
    "md",
    [
        pytest.param(MarkdownIt("commonmark"), id="commonmark"),
        pytest.param(MarkdownIt("gfm-like"), id="gfm-like"),
        pytest.param(MarkdownIt("commonmark", {"html": False}), id="commonmark-html-off"),
        pytest.param(MarkdownIt("zero").enable(["heading", "lheading"]), id="zero"),
        pytest.param(MarkdownIt("js-default"), id="js-default"),
    ],
)
def test_presets(md: MarkdownIt) -> None:
    md.use(lmml_plugin)
    assert _summary(md) == EXPECTED_SUMMARY


def test_gfm_like_rendering() -> None:
    md = MarkdownIt("gfm-like").use(lmml_plugin, references="any")
    html = md.render("| a | b |\n|---|---|\n| @x | `@y` |\n\n~~@z~~ www.example.com\n")
    assert '<td><span class="lmml-ref" data-lmml-name="x">@x</span></td>' in html
    assert "<td><code>@y</code></td>" in html
    assert '<s><span class="lmml-ref" data-lmml-name="z">@z</span></s>' in html
    assert '<a href="http://www.example.com">' in html
    env: dict[str, Any] = {}
    md.parse("| a | b |\n|---|---|\n| @x | @x |\n", env)
    assert [(e.line, e.column) for e in env[EMBEDS_KEY]] == [(3, 3), (3, 8)]


def test_html_off_role_comment() -> None:
    md = MarkdownIt("commonmark", {"html": False}).use(lmml_plugin)
    assert md.render("<!-- user -->\n<!-- other -->") == (
        '<div class="lmml-role" data-lmml-role="user">user</div>\n<p>&lt;!-- other --&gt;</p>\n'
    )
    assert [t.role for t in parse("- item\n<!-- user -->\nx", md=md).turns] == ["context", "user"]


def test_plugin_options() -> None:
    text = "@@@a\nx\n@@@\n\n@b.md\n\n<!-- user -->\n# assistant\n"
    no_fences = parse(text, md=MarkdownIt("commonmark").use(lmml_plugin, fences=False))
    assert [e.kind for e in no_fences.embeds] == ["external"]
    no_refs = parse(text, md=MarkdownIt("commonmark").use(lmml_plugin, references=False))
    assert [e.kind for e in no_refs.embeds] == ["inline"]
    no_roles = parse(text, md=MarkdownIt("commonmark").use(lmml_plugin, roles=False))
    assert [t.role for t in no_roles.turns] == ["context", "assistant"]


def test_role_words() -> None:
    assert role_word("Turn 1 -- user") == "user"
    assert role_word("the Assistant and the user") == "assistant"
    assert role_word("users and tooling") is None
    assert role_word("user1") == "user"
    assert comment_role("<!-- USER -->") == "user"
    assert comment_role("<!--tool-->") == "tool"
    assert comment_role("<!-- ask the user -->") is None
    assert comment_role("<!---->") is None


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("Notes for the system user", "system"),
        ("SYSTEM tool", "system"),
        ("user_x", "user"),
        ("a-tool-b", "tool"),
        ("résumé user", "user"),
        ("xuser", None),
        ("éuser", None),  # a non-ASCII letter is part of the word
        ("useré", None),
        ("\u017fystem", None),  # long s: case-insensitive matching folds it, lower() does not
        ("Message 12 from the reviewer", None),
    ],
)
def test_role_word_whole_words(text: str, role: str | None) -> None:
    assert role_word(text) == role


_ROLE_PIECES = [
    "user",
    "USER",
    "tool",
    "system",
    "Assistant",
    "s",
    "é",
    "\u017f",
    "_",
    "1",
    " ",
    "-",
]


@given(st.lists(st.sampled_from(_ROLE_PIECES), max_size=8).map("".join))
def test_role_word_is_the_first_letter_run_naming_a_role(text: str) -> None:
    """The fast path agrees with the definition: split into runs of letters, take the
    first run that lowercases to a role."""
    words = re.findall(r"[^\W\d_]+", text)
    expected = next((w.lower() for w in words if w.lower() in MESSAGE_ROLES), None)
    assert role_word(text) == expected


GFM_CHAT = """\
## Turn 1 -- assistant

| Tool | Version | Notes |
|------|---------|-------|
| pip  | ~~23~~ 24 | see @pip.png and @pip.png |
| uv   | 0.4 | 0.4 \\| 0.5: @uv.png, \\@maintainer @uv-log.txt |
> | quoted | @q.png |
> |---|---|
"""


def test_the_default_parser_reads_gfm_tables_and_strikethrough() -> None:
    narrative = lmml_mdit.parse(GFM_CHAT)
    types = [token.type for token in narrative.tokens]
    assert "table_open" in types and "td_open" in types
    inline = [token for token in narrative.tokens if token.type == "inline"]
    assert any(child.type == "s_open" for token in inline for child in token.children or ())
    # The plugin itself enables nothing: a bare commonmark parser keeps pipes as text.
    plain = MarkdownIt("commonmark").use(lmml_mdit.lmml_plugin)
    assert "table_open" not in [token.type for token in plain.parse(GFM_CHAT)]


def test_reference_positions_inside_table_cells() -> None:
    narrative = lmml_mdit.parse(GFM_CHAT)
    lines = GFM_CHAT.split("\n")
    found = [(embed.name, embed.line, embed.column) for embed in narrative.embeds]
    assert [name for name, _, _ in found] == [
        "pip.png", "pip.png", "uv.png", "uv-log.txt", "q.png"
    ]  # fmt: skip
    for name, line, column in found:
        assert lines[line - 1][column - 1 :].startswith("@" + name), (name, line, column)
    # Both occurrences on one line are told apart; the escaped pipe does not shift columns.
    assert found[0][2] < found[1][2]
    assert narrative.escapes == ((6, lines[5].index("\\@") + 1),)


def test_an_escaped_heading_with_a_long_run_of_white_space_is_read_in_one_pass() -> None:
    """Whether a backslash escapes a delimiter is read from the heading line in one pass:
    a 400 KB line of white space after ``\\#`` (quadratic before, minutes) parses at once,
    and the heading's text is read as CommonMark reads it."""
    long_line = "\\# a" + " \t" * 200_000 + "#x"
    narrative = parse(f"## user\n{long_line}\n")
    assert narrative.escapes == () and [turn.role for turn in narrative.turns] == ["user"]
    for heading, escaped in [
        ("\\# user", True),
        ("\\##   user   ###  ", True),
        ("\\# user #x", False),
        ("\\# user\t#", True),
        ("\\####### user", False),
        ("\\#user", False),
        ("\\# #", False),
    ]:
        narrative = parse(f"## assistant\nok\n\n{heading}\n")
        assert bool(narrative.escapes) is escaped, heading
