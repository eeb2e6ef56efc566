"""The syntax options (``delimiters``, ``references``, ``known_names``), LMML escapes and
front matter, from the plugin, :func:`lmml_mdit.parse`, :func:`lmml_mdit.open`, bundles and
the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

import lmml_mdit
from lmml_mdit import Bundle, cli, lmml_plugin, parse, to_markdown
from lmml_mdit.chat import TextSegment, turn_segments
from lmml_mdit.errors import InvalidSettingsError, LmmlError
from lmml_mdit.syntax import (
    EMBEDS_KEY,
    ESCAPES_KEY,
    KNOWN_NAMES_KEY,
    corrected_heading,
    could_be_strict_delimiter,
    delimiter_issues,
    has_extension,
    heading_role,
    may_hold_label,
    strict_heading_role,
    suspicious_heading,
    writes_as_reference,
)

CHAT = "## Turn 1 -- user\ncc @alice, see @chart.png\n\n### System requirements\n\nok\n"


def _names(md: MarkdownIt, text: str, env: dict[str, Any] | None = None) -> list[str]:
    env = {} if env is None else env
    md.parse(text, env)
    return [embed.name for embed in env[EMBEDS_KEY]]


def test_plugin_reference_modes() -> None:
    text = "cc @bob and @a.png"
    assert _names(MarkdownIt().use(lmml_plugin), text) == ["a.png"]
    assert _names(MarkdownIt().use(lmml_plugin, references="assets"), text) == ["a.png"]
    assert _names(MarkdownIt().use(lmml_plugin, references="any"), text) == ["bob", "a.png"]
    assert _names(MarkdownIt().use(lmml_plugin, references=False), text) == []


def test_plugin_known_names_option_and_env_key() -> None:
    md = MarkdownIt().use(lmml_plugin, known_names={"bob"})
    assert _names(md, "cc @bob and @carol") == ["bob"]
    # The env key wins over the option, per parse; any container works.
    assert _names(md, "cc @bob and @carol", {KNOWN_NAMES_KEY: ["carol"]}) == ["carol"]
    assert _names(md, "cc @bob and @carol") == ["bob"]  # nothing leaks between parses


def test_plugin_rejects_unknown_option_values() -> None:
    with pytest.raises(ValueError, match="delimiters"):
        MarkdownIt().use(lmml_plugin, delimiters="lenient")
    with pytest.raises(ValueError, match="references"):
        MarkdownIt().use(lmml_plugin, references="some")


def test_parse_options() -> None:
    assert [t.role for t in parse(CHAT).turns] == ["user"]
    assert [t.role for t in parse(CHAT, delimiters="loose").turns] == ["user", "system"]
    assert parse(CHAT).embed_names == ("chart.png",)
    assert parse(CHAT, references="any").embed_names == ("alice", "chart.png")
    assert parse(CHAT, known_names={"alice"}).embed_names == ("alice", "chart.png")
    with pytest.raises(ValueError, match="lmml_plugin"):
        parse(CHAT, md=MarkdownIt().use(lmml_plugin), delimiters="loose")
    with pytest.raises(ValueError, match="delimiters"):
        parse(CHAT, delimiters="wild")  # type: ignore[arg-type]


def test_known_names_work_with_a_parser_of_ones_own() -> None:
    md = MarkdownIt("gfm-like").use(lmml_plugin)
    assert parse("build @Dockerfile", md=md, known_names={"Dockerfile"}).embed_names == (
        "Dockerfile",
    )


def test_heading_role_and_helpers() -> None:
    assert heading_role("  Assistant ") == "assistant"
    assert heading_role("Turn 12 — tool") == "tool"
    assert heading_role("System requirements") is None
    assert heading_role("System requirements", "loose") == "system"
    assert has_extension("report.v2.pdf") and not has_extension("types/node")
    assert not has_extension("a.b/c") and not has_extension("trailing.")
    assert writes_as_reference("chart.png") and not writes_as_reference("Dockerfile")
    assert writes_as_reference("Dockerfile", {"Dockerfile"})
    assert not writes_as_reference("bad name.png")


def test_open_and_bundles_take_the_options(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text(CHAT, encoding="utf-8")
    with lmml_mdit.open(path) as bundle:
        assert [t.role for t in bundle.narrative.turns] == ["user"]
    with lmml_mdit.open(path, delimiters="loose", references="any") as bundle:
        assert [t.role for t in bundle.narrative.turns] == ["user", "system"]
        assert bundle.narrative.embed_names == ("alice", "chart.png")


def test_a_loose_heading_warning_reads_as_english(tmp_path: Path) -> None:
    path = tmp_path / "loose.lmml"
    path.write_text("## The assistant answers\nok\n\n## User guide\nhi\n", encoding="utf-8")
    with lmml_mdit.open(path, delimiters="loose") as bundle:
        messages = [issue.message for issue in bundle.validate()]
    assert "opens an assistant turn only because" in messages[0]
    assert "opens a user turn only because" in messages[1]


def test_a_zip_bundle_knows_its_entry_names() -> None:
    bundle = Bundle.from_zip("t", "# user\nbuild with @Dockerfile\n", {"Dockerfile": b"FROM x\n"})
    assert bundle.narrative.embed_names == ("Dockerfile",)
    assert bundle.validate() == []


def test_pack_writes_references_the_packed_bundle_reads_back() -> None:
    text = "# user\nthe build:\n\n@@@Makefile\nall:\n@@@\n"
    packed = Bundle.from_text("t", text).pack()
    assert packed.narrative.embed_names == ("Makefile",)
    assert "@Makefile" in packed.narrative.text and packed.validate() == []


def test_validate_reports_suspicious_delimiters_with_line_and_column() -> None:
    bundle = Bundle.from_text("t", "# user\nhi\n\n## Turn 2 -- asistant\nhello\n")
    (issue,) = bundle.validate()
    assert (issue.kind, issue.name, issue.line, issue.column) == (
        "suspicious_delimiter",
        "asistant",
        4,
        14,
    )
    assert "not a role" in issue.message
    assert delimiter_issues(bundle.narrative) == [issue]


def test_escapes_are_recorded_and_left_out_of_sent_and_exported_text() -> None:
    text = "# user\nping \\@alice\n\\## assistant\nand \\*stars\\*\n"
    narrative = parse(text)
    assert narrative.escapes == ((2, 6), (3, 1))
    env: dict[str, Any] = {}
    MarkdownIt().use(lmml_plugin).parse(text, env)
    assert env[ESCAPES_KEY] == [(2, 6), (3, 1)]
    (turn,) = narrative.turns
    (segment,) = turn_segments(narrative, turn)
    assert isinstance(segment, TextSegment)
    assert segment.text == "ping @alice\n## assistant\nand \\*stars\\*"
    assert to_markdown(narrative) == "# user\nping @alice\n## assistant\nand \\*stars\\*\n"
    messages = Bundle.from_text("t", text).messages("openai")
    assert messages[0]["content"][0]["text"] == "ping @alice\n## assistant\nand \\*stars\\*"


def test_escapes_keep_the_html_of_the_escape_rule() -> None:
    text = "\\@a.png \\@bob\n\n\\## user\n\n\\<!-- user -->\n"
    assert MarkdownIt().use(lmml_plugin).render(text) == MarkdownIt().render(text)
    zero = MarkdownIt("zero").use(lmml_plugin)
    # Escapes off (the "zero" preset): a backslash is text and no LMML escape.
    assert parse(text, md=zero).escapes == ()
    assert zero.render("\\@bob") == "<p>\\@bob</p>\n"


def test_front_matter_settings_merge_under_the_settings_embed() -> None:
    text = (
        "---\ntitle: Q3\nsettings:\n  temperature: 0.2\n  max_tokens: 100\n---\n"
        "# user\nhi\n\n@@@settings.yaml\nmax_tokens: 500\n@@@\n"
    )
    bundle = Bundle.from_text("t", text)
    assert bundle.front_matter == {
        "title": "Q3",
        "settings": {"temperature": 0.2, "max_tokens": 100},
    }
    assert bundle.settings == {"temperature": 0.2, "max_tokens": 500}
    assert (
        bundle.narrative.front_matter
        == "title: Q3\nsettings:\n  temperature: 0.2\n  max_tokens: 100"
    )
    request = bundle.to_request("openai", model="m")
    assert request["temperature"] == 0.2
    assert [m["content"][0]["text"] for m in request["messages"]] == ["hi"]


def test_front_matter_alone_gives_the_settings() -> None:
    bundle = Bundle.from_text("t", "---\nsettings:\n  top_p: 0.5\n---\n# user\nhi\n")
    assert bundle.settings == {"top_p": 0.5}
    assert Bundle.from_text("t", "# user\nhi\n").front_matter is None


def test_invalid_front_matter_raises_and_is_one_issue() -> None:
    bundle = Bundle.from_text("t", "---\n[1, 2]\n---\n# user\nhi\n")
    with pytest.raises(InvalidSettingsError) as error:
        _ = bundle.front_matter
    assert error.value.line == 2
    with pytest.raises(InvalidSettingsError):
        _ = bundle.settings
    assert [(i.kind, i.line) for i in bundle.validate()] == [("invalid_front_matter", 2)]


def test_front_matter_limits_apply() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(6)
    )
    bundle = Bundle.from_text("t", f"---\n{bomb}---\n# user\nhi\n")
    with pytest.raises(InvalidSettingsError, match="nodes"):
        _ = bundle.front_matter


def test_cli_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text(CHAT + "\n## Turn 3 -- bot\nx\n", encoding="utf-8")
    assert cli.main(["turns", str(path)]) == 0
    strict = capsys.readouterr().out
    assert cli.main(["turns", "--delimiters", "loose", str(path)]) == 0
    loose = capsys.readouterr().out
    assert "system" not in strict and "system" in loose
    cli.main(["validate", "--json", str(path)])
    report = json.loads(capsys.readouterr().out)
    kinds = [issue["kind"] for issue in _issues(report)]
    assert "suspicious_delimiter" in kinds
    cli.main(["validate", "--json", "--references", "any", str(path)])
    kinds = [issue["kind"] for issue in _issues(json.loads(capsys.readouterr().out))]
    assert "missing_reference" in kinds and kinds.count("missing_reference") == 2


def _issues(report: Any) -> list[dict[str, Any]]:
    """Every issue object in a ``validate --json`` report, whatever its nesting."""
    found: list[dict[str, Any]] = []
    if isinstance(report, dict):
        if "kind" in report:
            found.append(report)
        for value in report.values():
            found.extend(_issues(value))
    elif isinstance(report, list):
        for value in report:
            found.extend(_issues(value))
    return found


_WORDS = ["\\@", "@a.png", "@bob", "\\", "x", "\\## user", "\\<!-- tool -->", "## user", "*"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(_WORDS), min_size=1, max_size=6).map(" ".join),
        min_size=1,
        max_size=6,
    ).map("\n".join)
)
def test_sent_text_never_holds_an_lmml_escape(body: str) -> None:
    narrative = parse("# user\n" + body + "\n")
    for line, column in narrative.escapes:
        assert narrative.lines[line - 1][column - 1] == "\\"
    for turn in narrative.turns:
        for segment in turn_segments(narrative, turn):
            if isinstance(segment, TextSegment):
                # A lone backslash before "@" is always an LMML escape, so none is sent.
                assert not re.search(r"(?<!\\)\\@", segment.text.replace("\\\\", ""))


def test_an_opened_archive_knows_its_entry_names(tmp_path: Path) -> None:
    path = tmp_path / "build.lmmlz"
    Bundle.from_zip(
        "build", "# user\nwhy does @Dockerfile fail?\n", {"Dockerfile": b"FROM x\n"}
    ).save(path)
    with lmml_mdit.open(path) as bundle:
        assert bundle.narrative.embed_names == ("Dockerfile",)
        assert bundle.validate() == []
        parts = bundle.messages("openai")[0]["content"]
        assert parts[0]["text"] == "why does @Dockerfile fail?"


def test_cli_render_drops_attachment_lines_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "notes.lmmlz"
    Bundle.from_zip("notes", "# user\nWhat is this?\n\n@note.txt\n", {"note.txt": b"hi\n"}).save(
        path
    )
    assert cli.main(["render", str(path)]) == 0
    default = json.loads(capsys.readouterr().out)
    assert cli.main(["render", "--attachment-lines", "keep", str(path)]) == 0
    kept = json.loads(capsys.readouterr().out)
    assert "@note.txt" not in json.dumps(default)
    assert "@note.txt" in json.dumps(kept)


def test_invalid_front_matter_is_located_in_the_narrative_and_named_for_what_it_is() -> None:
    bundle = Bundle.from_text("chat", "---\ntitle: [oops\n---\n\n## user\nhi\n")
    with pytest.raises(InvalidSettingsError) as error:
        _ = bundle.front_matter
    assert str(error.value).startswith(
        f"{bundle.file_name}:2:13: invalid_front_matter: not valid front matter YAML: "
    )
    assert "settings.json" not in str(error.value)
    [issue] = bundle.validate()
    assert (issue.kind, issue.line, issue.column) == ("invalid_front_matter", 2, 13)
    assert issue.message.startswith("not valid front matter YAML: ")
    assert "front matter:" not in issue.message  # no second location inside the message


def test_turn_n_then_words_that_are_no_role_stays_an_ordinary_heading() -> None:
    for heading in (
        "## Turn 2 overview",
        "## Turn 2. Overview",
        "## Turn 2",
        "## Turn 3 users",
        "## Turn2 overview",
        "## **Note:**",
        "## **Important**",
        "## **System requirements**",
        "## _Users said:_ ours",
        "## Users said:",
        "Turn 2 was fine: the user said yes",
        "**Turn 2 - recap**",
        "Turn 3 -- see the notes",
    ):
        assert Bundle.from_text("t", f"# user\nhi\n\n{heading}\nhello\n").validate() == []


@pytest.mark.parametrize(
    ("heading", "word", "says"),
    [
        ("## Turn 2 -- asistant", "asistant", "is not a role (did you mean assistant?)"),
        ("## systm", "systm", "is not a role (did you mean system?)"),
        ("## Turn 3 -- bot", "bot", "'bot' is not a role (did you mean assistant?), so"),
        ("## Turn 2 | assistant", "assistant", "its separator is none of '-', '--', ':'"),
        ("## Turn 2 :: user", "user", "did you mean '## Turn N -- user'?"),
        ("## Turn 2 --- assistant", "assistant", "its separator is none of '-', '--', ':'"),
        ("## Turn 2 assistant", "assistant", "did you mean '## Turn N -- assistant'?"),
        ("## Turn 2. assistant", "assistant", "its separator is none of '-', '--', ':'"),
        ("## Turn 2) User:", "User", "did you mean '## Turn N -- user'?"),
        ("## Turn 2 \u2500\u2500 assistant", "assistant", "its separator is none of"),
        ("**Assistant:**", "Assistant", "looks like a role label but is no delimiter"),
        ("## **Assistant:**", "Assistant", "emphasis around its label keeps it from being one"),
        ("## **User**", "User", "(did you mean '## user'?)"),
        ("## __assistant__:", "assistant", "(did you mean '## assistant'?)"),
        ("## **ChatGPT said:**", "ChatGPT said", "(did you mean '## assistant'?)"),
        ("## You said:", "You said", "is not a role (did you mean user?)"),
        ("## Turn2 - assistant", "assistant", "did you mean '## Turn 2 -- assistant'?"),
        ("## Turn2: user", "user", "no space between 'Turn' and its number"),
        ("## turn12 assistant", "assistant", "did you mean '## turn 12 -- assistant'?"),
        ("<!-- asistant -->", "asistant", "(did you mean '<!-- assistant -->'?)"),
        # Dashes and colons a word processor or a web page writes for "-" and ":".
        ("## Turn 2 \u2212 assistant", "assistant", "its separator is none of"),
        ("## Turn 2 \u2010 user", "user", "did you mean '## Turn N -- user'?"),
        ("## Turn 2 \u2011 user", "user", "its separator is none of"),
        ("## Turn 2 \uff0d user", "user", "its separator is none of"),
        ("## Turn 2\uff1a user", "user", "full-width colon (U+FF1A) where ':' is meant"),
        ("## Assistant\uff1a", "assistant", "did you mean '## Assistant:'?); write ':'"),
        ("**User\uff1a**", "User", "the line '**User\uff1a**' looks like a role label"),
        ("User\uff1a", "User", "(did you mean '## user'?)"),
        ("**User\uff1a** how do I", "User", "(did you mean '## user'?)"),
        # A label with a note of the model or the person, as chat exports write it.
        ("**Assistant (GPT-4):**", "Assistant (GPT-4)", "(did you mean '## assistant'?)"),
        ("**Claude (Opus 4):** sure", "Claude (Opus 4)", "(did you mean '## assistant'?)"),
        ("User (me):", "User (me)", "(did you mean '## user'?)"),
        ("## Assistant (GPT-4):", "Assistant (GPT-4)", "(did you mean assistant?)"),
        ("## **Assistant (GPT-4)**", "Assistant (GPT-4)", "(did you mean '## assistant'?)"),
        # A non-breaking space where a space is meant (a chat copied from a web page).
        ("## Turn\u00a02 - user", "user", "a non-breaking space (U+00A0) where a space"),
        ("## Turn 2\u00a0-\u00a0assistant", "assistant", "did you mean '## Turn 2 - assistant'?"),
        ("## Turn\u20022: user", "user", "(U+2002) where a space is meant"),
        # Emphasis around a whole delimiter.
        ("## **Turn 2 - assistant**", "Turn 2 - assistant", "mean '## Turn 2 - assistant'?"),
        ("## *Turn 2: user*", "Turn 2: user", "emphasis around its label keeps it from being"),
        ("## __alice -- user__", "alice -- user", "did you mean '## alice -- user'?"),
        # A Turn N delimiter written as a line of text, bold or plain.
        ("**Turn 4 - Assistant**", "Turn 4 - Assistant", "mean '## Turn 4 - Assistant'?"),
        ("Turn 5: User", "Turn 5: User", "looks like a role label but is no delimiter"),
        ("_Turn 2 -- user_", "Turn 2 -- user", "(did you mean '## Turn 2 -- user'?)"),
    ],
)
def test_a_near_miss_says_what_is_off(heading: str, word: str, says: str) -> None:
    bundle = Bundle.from_text("t", f"# user\nhi\n\n{heading}\nhello\n")
    (issue,) = bundle.validate()
    assert (issue.kind, issue.name, issue.line) == ("suspicious_delimiter", word, 4)
    assert says in issue.message
    if word in ("user", "assistant"):  # the role is right: never called "not a role"
        assert "not a role" not in issue.message


@pytest.mark.parametrize(
    ("heading", "meant"),
    [
        ("Turn\u00a02 - user", "Turn 2 - user"),
        ("Turn 2\u00a0--\u202fassistant", "Turn 2 -- assistant"),
        ("**Turn 2 - assistant**", "Turn 2 - assistant"),
        ("_alice -- user_", "alice -- user"),
        ("Turn 2 \u2212 user", "Turn 2 -- user"),
    ],
)
def test_the_heading_meant_for_a_pasted_near_miss(heading: str, meant: str) -> None:
    """What the language server's quick fix writes for the heading."""
    assert corrected_heading(heading) == meant


_HEADING_WORDS = st.sampled_from(
    [
        "Turn",
        "turn",
        "tool",
        "user",
        "User",
        "asistant",
        "assistant",
        "bot",
        "1",
        "2:",
        "--",
        "\u2013",
        "\u2014",
        "-",
        ":",
        "|",
        "Message",
        "from",
        "the",
        "systen",
        "Notes",
        "",
    ]
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(_HEADING_WORDS, max_size=5), st.sampled_from([" ", "", "\t", "  "]))
def test_a_heading_the_quick_test_passes_over_is_neither_delimiter_nor_near_miss(
    words: list[str], separator: str
) -> None:
    """The strict parse skips the role checks of a heading ``could_be_strict_delimiter``
    refuses: neither check could have found anything in it."""
    text = separator.join(words)
    if not could_be_strict_delimiter(text):
        assert strict_heading_role(text) is None
        assert suspicious_heading(text, "strict", None) is None


@pytest.mark.parametrize(
    ("text", "could"),
    [
        ("Message 1 from the team", False),
        ("Release notes for 2.0", False),
        ("user", True),
        ("Turn 3 -- bot", True),
        ("Notes -- assistant", True),
        ("asistant", True),
        ("Turn 2: user", True),
    ],
)
def test_the_quick_heading_test_passes_over_ordinary_headings_only(text: str, could: bool) -> None:
    """The skip is real (an ordinary heading is passed over), and never taken for a
    delimiter or a near miss."""
    assert could_be_strict_delimiter(text) is could


_ROLE_CASES = st.sampled_from(["user", "User", "ASSISTANT", "assistant", "System", "tool"])


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=0, max_value=10_000),
    st.sampled_from(["-", "--", ":", "\u2013", "\u2014"]),
    st.sampled_from(["", " ", "  ", "\t"]),
    st.sampled_from(["", " ", "  ", "\t"]),
    _ROLE_CASES,
    st.sampled_from(["Turn", "turn", "TURN"]),
)
def test_turn_n_with_any_separator_then_a_role_is_a_delimiter(
    number: int, separator: str, before: str, after: str, role: str, turn: str
) -> None:
    """Issue 26: the ``Turn N`` prefix leaves no doubt, whatever the separator and spaces."""
    text = f"{turn} {number}{before}{separator}{after}{role}"
    assert could_be_strict_delimiter(text)
    assert strict_heading_role(text) == role.lower()
    assert suspicious_heading(text, "strict", role.lower()) is None  # type: ignore[arg-type]
    narrative = parse(f"## {text}\nhello\n")
    assert [(t.role, t.delimiter_line) for t in narrative.turns] == [(role.lower(), 1)]


@settings(max_examples=300, deadline=None)
@given(_ROLE_CASES, st.sampled_from(["", " ", "  "]), st.sampled_from(["#", "##", "######"]))
def test_a_role_and_a_colon_is_a_delimiter(role: str, space: str, level: str) -> None:
    narrative = parse(f"{level} {role}{space}:\nhello\n")
    assert [(t.role, t.delimiter_line) for t in narrative.turns] == [(role.lower(), 1)]


def test_an_invalid_settings_embed_or_manifest_error_carries_its_kind() -> None:
    settings = Bundle.from_text("chat", "## user\nhi\n\n@@@settings.yaml\na: [\n@@@\n")
    with pytest.raises(InvalidSettingsError) as error:
        _ = settings.settings
    assert error.value.kind == "invalid_settings"
    assert str(error.value).startswith(f"{settings.file_name}:6:1: invalid_settings: ")
    manifest = Bundle.from_text("chat", "## user\nhi\n\n@@@manifest.json\n[1]\n@@@\n")
    with pytest.raises(LmmlError) as refused:
        _ = manifest.manifest
    assert refused.value.kind == "invalid_manifest"


_LABEL_PIECES = st.sampled_from(
    [
        "User", "Assistant", "assistant", "Human", "ChatGPT said", "You", "Model", "Tool",
        "Asistant", "Turn 2", "turn", "Note", "hi there", ":", "\uff1a", "**", "__", "*",
        "_", " ", "  ", "(GPT-4)", "(", ")", "\u2013", "\u2014", "2", ".", "\n", "\n\n",
    ]
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(_LABEL_PIECES, max_size=14).map("".join))
def test_the_quick_label_test_misses_no_near_miss(text: str) -> None:
    """A text that may_hold_label passes over (and with no heading, comment or underline)
    needs no parse: the parse marks no near miss in it. Import writes such text as it is."""
    if may_hold_label(text):
        return
    assert delimiter_issues(parse("## Turn 1 -- user\n\n" + text + "\n")) == []
