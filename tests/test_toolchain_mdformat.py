"""The mdformat plugin and ``lmml fmt``: Markdown formatted, every LMML construct kept.

For every fixture, every shipped example and a generated corpus: the formatted text has
the same turns, the same embeds with the same bytes, the same references and the same
escapes as the input, and formatting it again changes nothing. mdformat itself is run
through its API and its command line, finding the plugin by its entry point.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import zipfile
from pathlib import Path

import mdformat
import mdformat.plugins
import pytest
from _installed import ROOT, entry_points_text, metadata_folder, subprocess_env
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_fixtures import load

import lmml_mdit
from lmml_mdit import FormatError, parse
from lmml_mdit.cli import main
from lmml_mdit.toolchain import format_text, formatter, outline

EXAMPLES = sorted((ROOT / "examples").glob("*.lmml"))
FIXTURE_CASES = [
    (f"{name}:{case_id}", text)
    for name in ("syntax.md", "embeds.md", "turns.md", "rules.md")
    for case_id, text, _ in load(name)
]


def assert_kept(text: str, formatted: str) -> None:
    before, after = parse(text), parse(formatted)
    assert outline(after) == outline(before)
    assert [(t.role, t.heading) for t in after.turns] == [(t.role, t.heading) for t in before.turns]
    assert [(e.kind, e.name, e.content) for e in after.embeds] == [
        (e.kind, e.name, e.content) for e in before.embeds
    ]
    assert len(after.escapes) == len(before.escapes)
    assert format_text(formatted) == formatted


@pytest.mark.parametrize(("case", "text"), FIXTURE_CASES, ids=[case for case, _ in FIXTURE_CASES])
def test_every_fixture_keeps_its_conversation(case: str, text: str) -> None:
    assert_kept(text, format_text(text))


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.name for path in EXAMPLES])
def test_every_example_keeps_its_conversation(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert_kept(text, format_text(text))


def test_the_shipped_archive_keeps_its_conversation() -> None:
    with lmml_mdit.open(ROOT / "examples" / "sales-review.lmmlz") as bundle:
        text = bundle.narrative.text
        assert_kept(text, format_text(text, known_names=frozenset(bundle.entries)))


def test_markdown_is_formatted_and_lmml_kept_byte_for_byte() -> None:
    text = (
        "---\ntitle: x\n---\n"
        "User\n====\n"
        "Look at \\@chart.png and @report.pdf_   and __bold__.\n"
        "* one\n* two\n\n"
        "@@@  notes.txt  \n  spaced *not* markdown  \n\n# assistant\n@@@   \n"
        "> quoted\n> @@@q.txt\n>   kept  \n> @@@\n"
        "<!--   assistant   -->\n"
        "Text\n    @@@lazy.txt\n"
    )
    formatted = format_text(text)
    assert formatted == (
        "---\ntitle: x\n---\n\n"
        "# User\n\n"
        "Look at \\@chart.png and @report.pdf_ and __bold__.\n\n"
        "- one\n- two\n\n"
        "@@@  notes.txt  \n  spaced *not* markdown  \n\n# assistant\n@@@   \n\n"
        "> quoted\n>\n> @@@q.txt\n>   kept  \n> @@@\n\n"
        "<!--   assistant   -->\n\n"
        "Text\n    @@@lazy.txt\n"
    )
    assert_kept(text, formatted)


def test_mdformat_alone_would_damage_what_the_plugin_keeps() -> None:
    # The reason for the plugin: plain mdformat drops the LMML escape (a reference appears)
    # and reflows a fence's content as Markdown.
    text = "# user\n\nSee \\@chart.png.\n\n@@@a.txt\n* x\n@@@\n"
    plain = mdformat.text(text)
    assert outline(parse(plain)) != outline(parse(text))
    assert format_text(text) == text


def test_a_change_to_the_conversation_is_refused_with_its_line() -> None:
    # A multi-line setext heading becomes one ATX line, which is a delimiter.
    text = "Intro\n\nTurn 1\n-- user\n======\n"
    with pytest.raises(FormatError) as caught:
        format_text(text, name="odd.lmml")
    assert "would change" in str(caught.value)
    assert str(caught.value).startswith("odd.lmml")


def test_a_lost_escape_is_refused_at_the_escape() -> None:
    # mdformat makes the setext heading "## ## user", dropping the LMML escape's backslash:
    # the refusal points at that backslash, not at the turn's first line.
    text = "intro\n\nmore\n\n\\## user\n---\n"
    with pytest.raises(FormatError) as caught:
        format_text(text, name="esc.lmml")
    assert (caught.value.line, caught.value.column) == (5, 1)
    assert str(caught.value).startswith("esc.lmml:5:1: ")
    assert "the LMML escapes would keep '' instead of '#'" in str(caught.value)


_LEFT_OPEN = [
    # A code fence a tab in after a list opens inside its item; the code's line, less
    # indented, ends the item and leaves the fence unclosed.
    (
        "## user\n\n- item\n\n\t~~~\n x = 1\n\t~~~\n\nafter\n",
        5,
        "~~~",
        "the same tabs and spaces",
        "## user\n\n- item\n\n\t~~~\n\t x = 1\n\t~~~\n\nafter\n",
        "## user\n\n- item\n\n~~~\n x = 1\n~~~\n\nafter\n",
    ),
    (
        "## user\n\n1. item\n\n   @@@a.txt\nq\n   @@@\n\nafter\n",
        5,
        "@@@a.txt",
        "3 spaces",
        "## user\n\n1. item\n\n   @@@a.txt\n   q\n   @@@\n\nafter\n",
        "## user\n\n1. item\n\n@@@a.txt\nq\n@@@\n\nafter\n",
    ),
]


@pytest.mark.parametrize(("text", "line", "opening", "indent", "kept", "apart"), _LEFT_OPEN)
def test_a_fence_left_open_in_a_list_item_is_refused_saying_what_to_write(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    text: str,
    line: int,
    opening: str,
    indent: str,
    kept: str,
    apart: str,
) -> None:
    with pytest.raises(FormatError) as caught:
        format_text(text, name="open.lmml")
    said = str(caught.value)
    assert said.startswith(f"open.lmml:{line}: formatting would change the conversation")
    assert f"the fence {opening} at line {line} is inside a list item" in said
    assert f"as line {line} is ({indent})" in said
    assert f"put a blank line before it and start {opening} at the line's start" in said
    # Each way the message gives formats, the conversation unchanged.
    for fixed in (kept, apart):
        assert_kept(fixed, format_text(fixed))
    path = tmp_path / "open.lmml"
    path.write_text(text, encoding="utf-8")
    assert main(["fmt", str(path)]) == 2
    assert f"the fence {opening} at line {line} is inside a list item" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == text


def test_an_entity_that_would_make_or_break_a_reference_stays() -> None:
    # Decoded, "&#95;" would glue "_" to the "@" (no reference) and "&#64;" would be one.
    text = "&#95;@chart.png and &#64;report.pdf and &amp; &copy;\n"
    assert format_text(text) == "&#95;@chart.png and &#64;report.pdf and & ©\n"
    assert_kept(text, format_text(text))


def test_wrapping_never_makes_a_fence() -> None:
    text = "# user\n\nwords words @@@notafence.txt more words here\n"
    for width in (5, 12, 30):
        formatted = format_text(text, options={"wrap": width})
        assert_kept(text, formatted)
        assert format_text(formatted, options={"wrap": width}) == formatted


# --------------------------------------------------------------------------- generated corpus

_words = st.sampled_from(
    [
        "words",
        "the",
        "chart",
        "*em*",
        "__strong__",
        "`code @z.png`",
        "[link](u)",
        "a_b",
        "bob@example.com",
        "@alice",
        "x@@y",
        "#tag",
        "<b>",
        "&amp;",
        "2.",
        "\\*",
        "--",
        "&#95;@chart.png",
        "&#64;chart.png",
        "_em_@chart.png",
        "[see @chart.png](u)",
    ]
)
_refs = st.sampled_from(["@chart.png", "@data.tar.gz", "@a_b.txt", "@scope/pkg.js", "@r.pdf."])
_escapes = st.sampled_from(["\\@chart.png", "\\@@@x.txt", "\\@alice"])
_line = st.lists(st.one_of(_words, _refs, _escapes), min_size=1, max_size=8).map(" ".join)
_paragraph = st.lists(_line, min_size=1, max_size=3).map("\n".join)
_delimiter = st.sampled_from(
    [
        "## Turn 1 -- user",
        "# assistant",
        "<!-- system -->",
        "<!--  tool  -->",
        "user\n====",
        "### Assistant",
        "## alice — user",
        "### System requirements",
        "## Turn 2 - user",
    ]
)
_escaped_line = st.sampled_from(["\\## user", "\\<!-- user -->"])
_content_line = st.sampled_from(
    [
        "plain",
        "  indented",
        "",
        "* star",
        "# user",
        "<!-- user -->",
        "@ref.png",
        "\\@x",
        "```",
        "\ttab",
        "trailing  ",
        "1. one",
        "> q",
        "@@@ not closing here x",
        "mid @@@ mark",
    ]
)
_content = st.lists(_content_line, max_size=5).map(
    lambda lines: "".join(f"{line}\n" for line in lines)
)
_name = st.sampled_from(["a.txt", "notes.md", "settings.yaml", "x.json", "deep/path.py"])


@st.composite
def _fence(draw: st.DrawFn) -> str:
    name = draw(_name)
    content = draw(_content)
    opener = draw(st.sampled_from(["@@@", "@@@ ", " @@@"])) + name
    if content and draw(st.booleans()):
        return f"{opener}\n{content[:-1]}@@@"  # the tail close: content without a final LF
    return f"{opener}\n{content}@@@"


def _quoted(block: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in block.split("\n"))


def _item(block: str) -> str:
    lines = block.split("\n")
    # The first line's own indentation would move the item's content column.
    return "\n".join(
        ["- " + lines[0].lstrip(" "), *(f"  {line}" if line else "" for line in lines[1:])]
    )


_inner = st.one_of(_paragraph, _fence())
_block = st.one_of(
    _paragraph,
    _fence(),
    _delimiter,
    _escaped_line.map(lambda line: "text\n" + line),
    _inner.map(_quoted),
    _inner.map(_item),
    _content.map(lambda content: f"```py\n{content}```"),
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(_block, max_size=8))
    separator = draw(st.sampled_from(["\n\n", "\n\n\n"]))
    text = separator.join(blocks)
    if draw(st.booleans()):
        text += "\n\n@@@open.txt\nnever closed\n"  # an unclosed fence runs to the end
    return text + "\n"


_UNCLOSED_CODE = (
    "words\n\n```py\n```\n```\n\n- @@@a.txt\n  ```\n  * star\n  @@@ not closing here x\n  @@@\n"
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
@example(_UNCLOSED_CODE)
def test_generated_documents_keep_their_conversation(text: str) -> None:
    """Formatted, a document keeps its conversation; where mdformat would change it (a
    code fence the generator leaves open, closed by a deeper line, as in the example), the
    file is refused whole and left as it is: never a silent change."""
    try:
        formatted = format_text(text)
    except FormatError as refused:
        assert "formatting would change the conversation" in str(refused)
        return
    assert_kept(text, formatted)


_TRICKY = st.sampled_from(
    [
        "&#95;@a.png",
        "_a_@b.png",
        "[see @a.png](u)",
        "![alt @a.png](x.png)",
        "## see @a.png",
        "text  \nhard",
        "1) one",
        "> > deep @q.png",
        "- > quote",
        "***",
        "text\n---",
        "<span>@h.png</span>",
        "<div>\n@x.png\n</div>",
        "a\n@@@f.txt\nc\n@@@\nafter",
        "x\n<!-- user -->\ny",
        "user\n---",
        "# user #",
        "\\\\@a.png",
        "@@x.png",
        "(@p.png)",
        "**@s.png**",
        "@a.png@b.png",
        "~~@d.png~~",
        "    indented code @i.png",
        "<https://x/@a.png>",
        "https://m.social/@alice",
        "\t@tab.png",
        "@@@ spaced.txt \n content \n @@@ ",
        "- a\n\n  b @l.png",
        "## Turn 1: user",
        "text \\\n more",
        "@x.png_y",
    ]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_TRICKY, min_size=1, max_size=6), st.sampled_from(["\n", "\n\n"]))
def test_tricky_neighbours_keep_their_conversation(parts: list[str], separator: str) -> None:
    text = separator.join(parts) + "\n"
    assert_kept(text, format_text(text))


# --------------------------------------------------------------------------- through mdformat


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wheel's metadata first on the path, mdformat's plugin table read afresh."""
    monkeypatch.syspath_prepend(str(metadata_folder()))
    importlib.invalidate_caches()
    for cached in ("PARSER_EXTENSIONS", "_PARSER_EXTENSION_DISTS"):
        monkeypatch.delattr(mdformat.plugins, cached, raising=False)


def test_the_wheel_declares_the_entry_point() -> None:
    text = entry_points_text()
    assert "[mdformat.parser_extension]\nlmml = lmml_mdit.toolchain.formatter\n" in text


def test_mdformat_finds_the_plugin_by_its_entry_point(installed: None) -> None:
    assert mdformat.plugins.PARSER_EXTENSIONS["lmml"] is formatter
    assert "lmml-mdit" in {
        name.replace("_", "-") for name in mdformat.plugins._PARSER_EXTENSION_DISTS
    }
    text = "# user\n\nSee \\@chart.png.\n\n@@@a.txt\n* x\n@@@\n\n* item\n"
    formatted = mdformat.text(text, extensions={"lmml"})
    assert formatted == "# user\n\nSee \\@chart.png.\n\n@@@a.txt\n* x\n@@@\n\n- item\n"


def test_mdformat_command_line_formats_with_the_plugin(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text("# user\n\nSee \\@chart.png.\n\n@@@a.txt\n* x\n@@@\n\n* item\n")
    run = subprocess.run(
        [sys.executable, "-m", "mdformat", "--extensions", "lmml", str(path)],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert path.read_text() == "# user\n\nSee \\@chart.png.\n\n@@@a.txt\n* x\n@@@\n\n- item\n"


# --------------------------------------------------------------------------- lmml fmt


def test_lmml_fmt_check_then_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    messy = tmp_path / "messy.lmml"
    messy.write_text("# user\n* a\n* b\n\n@@@x.txt\n  keep   me\n@@@\n")
    tidy = tmp_path / "tidy.lmml"
    tidy.write_text("# user\n\n- a\n")
    before = messy.read_bytes()
    assert main(["fmt", "--check", str(messy), str(tidy)]) == 1
    assert messy.read_bytes() == before
    assert "messy.lmml: would be reformatted" in capsys.readouterr().err
    assert main(["fmt", str(tmp_path)]) == 0
    assert messy.read_text() == "# user\n\n- a\n- b\n\n@@@x.txt\n  keep   me\n@@@\n"
    assert main(["fmt", "--check", str(messy), str(tidy)]) == 0


def test_lmml_fmt_walks_a_folder_tree_of_any_depth_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # 1,200 nested folders used to end in "internal error (RecursionError ...)" from os.walk.
    (tmp_path / "b.lmml").write_text("# user\n* b\n")
    (tmp_path / "A.LMML").write_text("# user\n* a\n")
    (tmp_path / ".hidden.lmml").write_text("# user\n* h\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.lmml").write_text("# user\n* x\n")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "c.lmml").write_text("# user\n* c\n")
    (tmp_path / "link").symlink_to(tmp_path / "c")
    monkeypatch.chdir(tmp_path)
    deep = Path("c")
    for _ in range(1200):
        deep = deep / "d"
        deep.mkdir()
    (deep / "z.lmml").write_text("# user\n* z\n")
    try:
        assert main(["fmt", "--check", "."]) == 1
        said = [line.split(":")[0] for line in capsys.readouterr().err.splitlines()]
        assert said == ["./A.LMML", "./b.lmml", "./c/c.lmml", f"./{deep.as_posix()}/z.lmml"]
    finally:  # removed bottom up: Python 3.11's rmtree recurses once per folder
        (deep / "z.lmml").unlink()
        while deep != Path("c"):
            deep.rmdir()
            deep = deep.parent


def test_lmml_fmt_rewrites_the_narrative_inside_an_archive(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmmlz"
    narrative = "# user\n* look at @Dockerfile\n\n# assistant\nok\n"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("chat.lmml", narrative)
        archive.writestr("Dockerfile", b"FROM scratch\n")
        archive.writestr("img.png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    assert main(["fmt", "--check", str(path)]) == 1
    assert main(["fmt", str(path)]) == 0
    with lmml_mdit.open(path) as bundle:
        assert bundle.narrative.text == "# user\n\n- look at @Dockerfile\n\n# assistant\n\nok\n"
        assert bundle.read("Dockerfile") == b"FROM scratch\n"
        assert bundle.read("img.png") == b"\x89PNG\r\n\x1a\n" + bytes(range(256))
        assert [embed.name for embed in bundle.narrative.embeds] == ["Dockerfile"]
    assert main(["fmt", "--check", str(path)]) == 0


def test_lmml_fmt_refuses_a_change_and_leaves_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "odd.lmml"
    path.write_text("Intro\n\nTurn 1\n-- user\n======\n")
    before = path.read_bytes()
    assert main(["fmt", str(path)]) == 2
    assert path.read_bytes() == before
    err = capsys.readouterr().err
    assert err.startswith(f"lmml: error: {path}:")
    assert "would change the conversation" in err
    assert "Traceback" not in err


# --------------------------------------------------------------------------- mdformat's meaning


def _mdformat_cli(path: Path, *options: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    """mdformat's own command line (its console script's function), in-process, on *path*:
    the exit status and what it wrote to stderr."""
    import io

    import mdformat.__main__

    monkeypatch.setattr(sys, "argv", ["mdformat", *options, "--extensions", "lmml", str(path)])
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with pytest.raises(SystemExit) as exited:
        mdformat.__main__.run()
    code = exited.value.code
    assert isinstance(code, int)
    return code, err.getvalue()


TABLE = "# user\n\n| a | b |\n|---|---|\n| one two three | four |\n"


@pytest.mark.parametrize("wrap", ["no", 5, 80])
def test_mdformat_wrapping_keeps_a_table_a_table(wrap: str | int) -> None:
    # mdformat's core has no tables: wrapping would join the rows into one line.
    assert mdformat.text(TABLE, options={"wrap": wrap}, extensions={"lmml"}) == TABLE
    text = "# user\n\nSee:\n| a | b |\n|---|---|\n| 1 | 2 |\n\nlong words after the table\n"
    formatted = mdformat.text(text, options={"wrap": wrap}, extensions={"lmml"})
    assert "See:\n| a | b |\n|---|---|\n| 1 | 2 |\n\n" in formatted
    assert outline(parse(formatted)) == outline(parse(text))


def test_mdformat_keeps_an_escaped_pipe_in_a_table() -> None:
    # "\|" is no escape to CommonMark, which mdformat alone drops: the cell would split.
    text = "| a \\| b | c |\n|---|---|\n"
    assert mdformat.text(text, extensions={"lmml"}) == text
    assert format_text(text) == text


@pytest.mark.parametrize("wrap", ["no", 80])
def test_mdformat_wrapping_makes_no_placeholder(wrap: str | int) -> None:
    # Two lines are no placeholder; joined, "{{ name }}" would be one, filled when sent.
    text = "# user\n\nHi {{\nname }} there and {{ kept }} {{\nnot.one\n}}\n"
    formatted = mdformat.text(text, options={"wrap": wrap}, extensions={"lmml"})
    assert outline(parse(formatted)) == outline(parse(text))
    assert "{{\nname }}" in formatted
    assert format_text(text, options={"wrap": wrap}) == formatted


def test_mdformat_leaves_a_file_whose_conversation_would_change(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # mdformat drops a link definition no link uses: the context turn holding it alone
    # would disappear. The HTML is the same, so mdformat's own check passes.
    text = "[d]: https://example.com\n\n# user\n* hello\n"
    with caplog.at_level("WARNING", logger="mdformat.renderer"):
        assert mdformat.text(text, extensions={"lmml"}) == text
    (message,) = [record.getMessage() for record in caplog.records]
    assert "formatting would change the conversation: it would have 1 turns instead of 2" in (
        message
    )
    assert "left as it is" in message
    with pytest.raises(FormatError, match="1 turns instead of 2"):
        format_text(text)


def test_mdformat_command_line_never_changes_the_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tmp_path / "table.lmml"
    table.write_text(TABLE)
    assert _mdformat_cli(table, "--wrap", "no", monkeypatch=monkeypatch) == (0, "")
    assert table.read_text() == TABLE
    placeholder = tmp_path / "placeholder.lmml"
    placeholder.write_text("# user\n\nHi {{\nname }} there\n")
    assert _mdformat_cli(placeholder, "--wrap", "no", monkeypatch=monkeypatch) == (0, "")
    assert placeholder.read_text() == "# user\n\nHi {{\nname }} there\n"
    defined = tmp_path / "defined.lmml"
    defined.write_text("[d]: https://example.com\n\n# user\n* hello\n")
    status, err = _mdformat_cli(defined, "--wrap", "no", monkeypatch=monkeypatch)
    assert status == 0
    assert err.startswith(f"Warning: {defined}:1: formatting would change the conversation")
    assert defined.read_text() == "[d]: https://example.com\n\n# user\n* hello\n"
    # From standard input, the text comes back as it was, the warning naming <stdin>.
    import io

    stdin = io.TextIOWrapper(io.BytesIO(defined.read_bytes()))
    written = io.BytesIO()
    stdout = io.TextIOWrapper(written)
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    status, err = _mdformat_cli(Path("-"), monkeypatch=monkeypatch)
    assert status == 0
    assert err.startswith("Warning: <stdin>:1: formatting would change the conversation")
    assert written.getvalue() == defined.read_bytes()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(documents(), st.lists(_TRICKY, min_size=1, max_size=6).map("\n".join)),
    st.sampled_from(["keep", "no", 12, 40]),
)
def test_mdformat_with_the_plugin_never_changes_the_conversation(
    text: str, wrap: str | int
) -> None:
    formatted = mdformat.text(text, options={"wrap": wrap}, extensions={"lmml"})
    assert outline(parse(formatted)) == outline(parse(text))


@pytest.mark.parametrize("line", ["\\<!-- user -->", "\\## Turn 2 -- assistant"])
def test_wrapping_keeps_an_escaped_delimiter_line_whole(line: str) -> None:
    # Split at its spaces, "\<!--" is no delimiter-shaped line: the escape would be lost.
    text = f"words\n\ntext\n{line}\n"
    assert format_text(text, options={"wrap": 12}) == text
    assert mdformat.text(text, options={"wrap": 12}, extensions={"lmml"}) == text


# --------------------------------------------------------------------------- .mdformat.toml

MESSY = "# user\n* one two three four five six seven\n\n3. x\n3. y\n\n@@@x.txt\n  keep   me\n@@@\n"


def test_lmml_fmt_reads_mdformat_toml_as_mdformat_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The configuration of the nearest folder up from the file's, as mdformat finds it.
    (tmp_path / ".mdformat.toml").write_text('wrap = 20\nnumber = true\nend_of_line = "crlf"\n')
    folder = tmp_path / "chats" / "deep"
    folder.mkdir(parents=True)
    ours, theirs = folder / "ours.lmml", folder / "theirs.lmml"
    ours.write_text(MESSY)
    theirs.write_text(MESSY)
    assert main(["fmt", str(ours)]) == 0
    assert _mdformat_cli(theirs, monkeypatch=monkeypatch) == (0, "")
    assert (
        ours.read_bytes()
        == theirs.read_bytes()
        == (
            b"# user\r\n\r\n- one two three four\r\n  five six seven\r\n\r\n3. x\r\n4. y\r\n\r\n"
            b"@@@x.txt\r\n  keep   me\r\n@@@\r\n"
        )
    )
    assert main(["fmt", "--check", str(ours)]) == 0


def test_lmml_fmt_keeps_line_endings_when_mdformat_toml_says_keep(tmp_path: Path) -> None:
    (tmp_path / ".mdformat.toml").write_text('end_of_line = "keep"\n')
    path = tmp_path / "chat.lmml"
    path.write_bytes(b"# user\r\n* a\r\n")
    assert main(["fmt", str(path)]) == 0
    assert path.read_bytes() == b"# user\r\n\r\n- a\r\n"


def test_lmml_fmt_refuses_a_bad_mdformat_toml_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / ".mdformat.toml"
    path = tmp_path / "chat.lmml"
    path.write_text(MESSY)
    for text, said in (
        ("wrapp = 20\n", "unknown key 'wrapp'"),
        ("wrap = 0\n", "invalid 'wrap' value 0"),
        ("wrap = [\n", "invalid TOML"),
    ):
        config.write_text(text)
        assert main(["fmt", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"lmml: error: {config}")
        assert said in err and "Traceback" not in err
        assert path.read_text() == MESSY


def test_lmml_fmt_leaves_out_what_mdformat_toml_excludes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".mdformat.toml").write_text('exclude = ["drafts/**"]\n')
    (tmp_path / "drafts").mkdir()
    kept, formatted = tmp_path / "drafts" / "kept.lmml", tmp_path / "done.lmml"
    kept.write_text(MESSY)
    formatted.write_text(MESSY)
    status = main(["fmt", str(tmp_path)])
    if sys.version_info < (3, 13):  # mdformat refuses the key there too
        assert status == 2
        assert "'exclude' patterns need Python 3.13" in capsys.readouterr().err
        assert formatted.read_text() == MESSY
    else:
        assert status == 0
        assert formatted.read_text() != MESSY
    assert kept.read_text() == MESSY


def test_every_shipped_example_is_already_formatted(capsys: pytest.CaptureFixture[str]) -> None:
    # What the docs show `lmml fmt --check examples/...` print holds for every example.
    assert main(["fmt", "--check", str(ROOT / "examples")]) == 0, capsys.readouterr().err
    assert "already formatted" in capsys.readouterr().err


def test_mdformat_on_a_folder_passes_lmml_files_by_and_lmml_fmt_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The limit docs/toolchain.md names: given a folder, mdformat looks for *.md files only.
    narrative = tmp_path / "chat.lmml"
    narrative.write_text("# user\n* a\n")
    markdown = tmp_path / "notes.md"
    markdown.write_text("* a\n")
    code, _ = _mdformat_cli(tmp_path, monkeypatch=monkeypatch)
    assert code == 0
    assert markdown.read_text() == "- a\n"
    assert narrative.read_text() == "# user\n* a\n"  # left as it was
    monkeypatch.undo()
    assert main(["fmt", "-q", str(tmp_path)]) == 0
    assert narrative.read_text() == "# user\n\n- a\n"
