"""The fast path gives the answers of a full parse (see docs/performance.md).

:func:`lmml_mdit.parse` inline-parses up front only the blocks that can hold LMML; every
answer read from a narrative must be the same as with every block parsed. Each case is
read twice, once as it is by default and once with ``LMML_FULL_PARSE=1`` (the documented
way to force the full parse, which reaches bundles, messages and the preview), and
everything is compared: the complete token stream, embeds, turns, escapes, issues, the
payloads of the four providers and the preview HTML.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _messages_support import png, zip_bundle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.utils import read_fixture_file
from test_fixtures import fixture_input

import lmml_mdit
from lmml_mdit import lmml_plugin, parse
from lmml_mdit.narrative import FULL_PARSE_VARIABLE, GFM_RULES
from lmml_mdit.syntax import INLINE_TRIGGERS, may_hold_lmml

ROOT = Path(__file__).resolve().parent.parent
PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini")


@contextlib.contextmanager
def full_parse(on: bool) -> Iterator[None]:
    """Force the full parse (``LMML_FULL_PARSE=1``) while the block runs, if *on*."""
    before = os.environ.get(FULL_PARSE_VARIABLE)
    if on:
        os.environ[FULL_PARSE_VARIABLE] = "1"
    else:
        os.environ.pop(FULL_PARSE_VARIABLE, None)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(FULL_PARSE_VARIABLE, None)
        else:
            os.environ[FULL_PARSE_VARIABLE] = before


def _outcome(function: Callable[[], object]) -> tuple[object, ...]:
    """What *function* gives: its value and warnings, or the error it raises."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = function()
        except lmml_mdit.LmmlError as error:
            return ("error", type(error).__name__, str(error))
    return ("ok", value, [f"{w.category.__name__}: {w.message}" for w in caught])


def _answers(data: bytes, name: str) -> dict[str, object]:
    """Every answer read from the bundle *data* (a narrative or a zip)."""
    opened = _outcome(lambda: lmml_mdit.open(data, name=name))
    if opened[0] != "ok":
        return {"open": opened}
    bundle: Any = opened[1]
    narrative = bundle.narrative
    answers: dict[str, object] = {
        "embeds": narrative.embeds,
        "turns": narrative.turns,
        "escapes": narrative.escapes,
        "front_matter": narrative.front_matter,
        "issues": _outcome(bundle.validate),
    }
    for provider in PROVIDERS:
        answers[provider] = _outcome(lambda provider=provider: bundle.messages(provider))
    answers["text"] = _outcome(lambda: lmml_mdit.render_turns(bundle))
    answers["preview"] = _outcome(lambda: lmml_mdit.render_html(bundle))
    answers["markdown"] = _outcome(lambda: lmml_mdit.to_markdown(bundle))
    # Last, as a user reads it: the complete stream (the preview above has completed it).
    answers["tokens"] = narrative.tokens
    return answers


def assert_same_answers(data: bytes, name: str = "case.lmml", *, opens: bool = False) -> None:
    """The answers read from *data*, fast and full (*opens*: it must open)."""
    with full_parse(False):
        fast = _answers(data, name)
    with full_parse(True):
        full = _answers(data, name)
    if opens:
        assert "open" not in full, full
    assert fast.keys() == full.keys()
    for key in full:
        assert fast[key] == full[key], key


def assert_same_parse(text: str, **options: Any) -> None:
    """The narrative and its complete token stream, fast and full."""
    fast = parse(text, full_parse=False, **options)
    full = parse(text, full_parse=True, **options)
    assert full.deferred is None
    assert fast == full
    assert fast.index == full.index
    assert fast.tokens == full.tokens
    assert fast.deferred is None or not fast.deferred.pending


def _fixture_inputs() -> Iterator[Any]:
    for path in sorted((ROOT / "spec_fixtures").glob("*.md")):
        if path.name == "README.md":
            continue
        for line, title, text, _ in read_fixture_file(path):
            yield pytest.param(fixture_input(text), id=f"{path.name}:{line}: {title}")


FIXTURE_INPUTS = list(_fixture_inputs())


TYPOGRAPHER = MarkdownIt("gfm-like", {"typographer": True}).enable(["replacements", "smartquotes"])
TYPOGRAPHER.use(lmml_plugin)


@pytest.mark.parametrize("text", FIXTURE_INPUTS)
def test_fixture_parses_the_same(text: str) -> None:
    assert_same_parse(text)
    assert_same_parse(text, delimiters="loose", references="any")
    # linkify, replacements and smartquotes run on the blocks parsed later too.
    assert_same_parse(text, md=TYPOGRAPHER)


def test_a_typographer_parser_keeps_the_fast_path() -> None:
    text = 'Plain "quoted" text -- (c) www.example.com\n\nSee @a.png.\n'
    narrative = parse(text, md=TYPOGRAPHER)
    assert narrative.deferred is not None
    assert narrative.tokens == TYPOGRAPHER.parse(text)
    assert any(child.type == "link_open" for child in narrative.tokens[1].children or ())


@pytest.mark.parametrize("text", FIXTURE_INPUTS)
def test_fixture_answers_the_same(text: str) -> None:
    assert_same_answers(text.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("path", sorted((ROOT / "examples").iterdir()), ids=lambda path: path.name)
def test_example_answers_the_same(path: Path) -> None:
    assert_same_answers(path.read_bytes(), path.name, opens=True)


HOSTILE = {
    "unclosed fences": "".join(f"@@@name{i}\n" for i in range(2_000)),
    "bare fence lines": "@@@\n" * 2_000,
    "at signs": ("x " + "@" * 100 + " ") * 200,
    "references": "@a.png @b.txt\n" * 2_000,
    "nested quotes": "> " * 2_000 + "deep *x*\n\n" + ">" * 2_000 + " deeper\n",
    "nested lists": "".join("  " * i + "- item *x*\n" for i in range(300)),
    "escapes": "\\## user\n\\<!-- user -->\n\\@a.png\nuser\n\\---\n\n" * 300,
    "emphasis runs": "*a **b " * 2_000 + "\n\n" + "[" * 2_000 + "\n",
    "links": "[a][r] ![i][r] <http://x.y> `c@d` " * 500 + "\n\n[r]: http://e.f\n",
    "html": "<span>@a.png</span> <!-- x --> &amp; &#64;a.png\n\n" * 500,
    "table": "| a | b |\n|---|---|\n| `x` \\| y | @a.png |\n" + "| *c* | d |\n" * 500,
}


@pytest.mark.parametrize("text", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_input_answers_the_same(text: str) -> None:
    assert_same_parse(text, known_names={"a", "b"})
    assert_same_answers(text.encode())


def test_zip_bundle_answers_the_same(tmp_path: Path) -> None:
    narrative = (
        "## system\nBe *brief*.\n\n## user\nLook at @cat.png, and ![alt](cat.png) *here*.\n\n"
        "[ref]: https://example.com\n\n## assistant\nA [cat][ref], **surely**.\n\n"
        "## user\nAnd @notes.txt?\n"
    )
    path = tmp_path / "case.lmmlz"
    zip_bundle(narrative, {"cat.png": png(), "notes.txt": b"some notes\n"}).save(path)
    assert_same_answers(path.read_bytes(), path.name, opens=True)


def test_the_fast_path_leaves_blocks_without_lmml_unparsed() -> None:
    text = (
        "## user\nPlain *text*.\n\nSee @a.png.\n\nMail bob@example.com.\n\n"
        "## assistant\nMore `code`.\n"
    )
    narrative = parse(text)
    parsed = narrative.parsed_tokens
    inline = [at for at, token in enumerate(parsed) if token.type == "inline"]
    with_children = [at for at in inline if parsed[at].children]
    # A block with a trigger but nothing the plugin makes a token for keeps the children
    # of its parse; one with a reference waits, like the blocks without a trigger.
    assert [parsed[at].content for at in with_children] == ["Mail bob@example.com."]
    assert narrative.embeds[0].name == "a.png" and narrative.embeds[0].column == 5
    # One block on demand: the others stay as they are.
    assert narrative.inline_children(inline[1])[1].type == "em_open"
    assert [child.type for child in narrative.inline_children(inline[2])] == [
        "text",
        "lmml_ref",
        "text",
    ]
    assert not parsed[inline[-1]].children
    assert narrative.tokens == parse(text, full_parse=True).tokens
    assert all(narrative.tokens[at].children for at in inline)


def test_the_environment_variable_forces_the_full_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Plain *text*.\n"
    assert parse(text).deferred is not None
    monkeypatch.setenv(FULL_PARSE_VARIABLE, "1")
    narrative = parse(text)
    assert narrative.deferred is None and narrative.parsed_tokens[1].children
    monkeypatch.setenv(FULL_PARSE_VARIABLE, "0")
    assert parse(text).deferred is not None
    assert parse(text, full_parse=False).deferred is not None


def test_a_user_pipeline_stays_complete() -> None:
    md = MarkdownIt("commonmark").use(lmml_plugin)
    tokens = md.parse("Plain *text*.\n\nMore.\n")
    assert all(token.children for token in tokens if token.type == "inline")


def test_a_parser_with_foreign_rules_parses_everything() -> None:
    """A plugin whose inline rule is not known to depend on its block alone (footnotes
    gather across blocks) turns the fast path off for that parser."""
    from mdit_py_plugins.footnote import footnote_plugin

    md = MarkdownIt("commonmark").use(footnote_plugin).use(lmml_plugin)
    text = "Text[^1] and more.\n\n[^1]: A note.\n"
    narrative = parse(text, md=md)
    assert narrative.deferred is None
    assert narrative.tokens == md.parse(text)


@pytest.mark.parametrize("trigger", INLINE_TRIGGERS)
def test_every_trigger_is_seen(trigger: str) -> None:
    assert may_hold_lmml(f"text {trigger}text")
    assert not may_hold_lmml("text \\* text `code` *em*")


def _blocks() -> st.SearchStrategy[str]:
    word = st.sampled_from(
        [
            "plain",
            "*em*",
            "`c@d`",
            "@a.png",
            "@notes.txt",
            "\\@x",
            "![i](a.png)",
            "[l](u)",
            "**b**",
            "a@b.c",
            "&amp;",
            "<b>",
            "\\*",
            "@@",
            "user",
            "--",
            '"q"',
        ]
    )
    line = st.lists(word, min_size=1, max_size=6).map(" ".join)
    return st.one_of(
        line,
        st.sampled_from(
            [
                "## user",
                "## assistant",
                "<!-- system -->",
                "# Turn 2 -- tool",
                "\\## user",
                "\\<!-- user -->",
                "---",
                "===",
                "\\---",
                "> quote *x*",
                "- item @a.png",
                "1. item `x`",
                "    code @a.png",
                "```\nx @a.png\n```",
                "@@@data.txt\nbody *x*\n@@@",
                "| a | b |\n|---|---|\n| *x* | @a.png |",
                "[l]: http://x",
                "<div>\n@a.png\n</div>",
            ]
        ),
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_blocks(), max_size=12), st.sampled_from(["\n", "\n\n"]))
def test_generated_narratives_answer_the_same(blocks: list[str], separator: str) -> None:
    text = separator.join(blocks) + "\n"
    assert_same_parse(text, known_names={"a", "x"})
    assert_same_answers(text.encode())


def test_a_pickled_narrative_carries_the_complete_stream() -> None:
    import pickle

    text = "## user\nPlain *text*.\n\nSee @a.png.\n"
    narrative = parse(text)
    copied = pickle.loads(pickle.dumps(narrative))
    assert copied == narrative and copied.deferred is None
    assert copied.tokens == parse(text, full_parse=True).tokens


def test_a_new_trigger_takes_effect(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another rule's trigger (a template placeholder, say) added to the one set makes
    its blocks parsed up front."""
    from lmml_mdit.syntax import _triggers as triggers  # patched on purpose

    text = "Hello {{name}}.\n"
    assert not parse(text).parsed_tokens[1].children
    monkeypatch.setattr(triggers, "INLINE_TRIGGERS", (*triggers.INLINE_TRIGGERS, "{{"))
    assert parse(text).parsed_tokens[1].children


# The fast parse reads the blocks that hold references or LMML escapes with the rules
# recording what they find instead of making tokens; each case below must give what the
# full parse gives, tokens, embeds, escapes and the structure index alike.
RECORDED = {
    "code span": "See `@a.png` and @b.png, then `x @c.png y`.\n",
    "autolinks": "Mail <mailto:x@a.png>, <http://h.example/@a.png> and @b.png.\n",
    "inline html": '<span title="@a.png">@b.png</span> <!-- @c.png --> @d.png\n',
    "link label": "[see @a.png](http://x.example) and [@b.png *em*][r]\n\n[r]: http://y.example\n",
    "link destination": "[x](@a.png) [y](<@b.png> '@c.png') [z](u \"t @d.png\") @e.png\n",
    "image alt": "![alt @a.png](@b.png) ![@c.png][r] @d.png\n\n[r]: @e.png\n",
    "escapes": "\\@a.png @b.png \\\\@c.png \\\\\\@d.png\n\\## user\n\\<!-- user -->\n",
    "setext escape": "user\n\\---\n@a.png\n\\===\n",
    "emphasis across": "*see @a.png and* @b.png **@c.png _@d.png_** *@e.png\n",
    "strikethrough": "~~@a.png~~ ~@b.png~ @c.png\n",
    "entities": "&#64;a.png &amp;@b.png @c.png&#32;@d.png\n",
    "hard breaks": "@a.png  \n@b.png\\\n@c.png\n\n@d.png \n@e.png\n",
    "attachment look-alikes": (
        "@a.png @b.png\n\n@a.png &#32; @b.png\n\n@a.png &nbsp; @b.png\n\n@a.png x\n\n"
        "@a.png *b*\n\n[@a.png](u)\n\n@a.png \\@b.png\n\n @a.png\n@b.png \n\n\\@x\n"
    ),
    "containers": "> @a.png\n> - @b.png `@c.png`\n>   @d.png\n\n1. *@e.png*\n   > @f.png\n",
    "headings": "## user @a.png\n\n# Turn 1 -- user\nSee @b.png\n\nuser @c.png\n===\n",
    "table": (
        "| @a.png | `@b.png` |\n|---|---|\n| \\| @c.png | *@d.png* \\| @e.png |\n"
        "| @a.png | @a.png |\n| x @f.png | [@g.png](u) |\n"
    ),
    "fences among references": "@a.png\n\n@@@f.txt\n@x.png\n@@@\n\nsee @f.txt and @b.png\n",
    "escapes between fences": (
        "\\@x\n\n@@@f.txt\nx\n@@@\n\n@a.png \\@y @b.png\n\n@@@g.txt\n@@@\n\n@c.png @d.png\n\n\\@z\n"
    ),
    "known names": "@alice and @a, @x and @x.png, bob@a.png\n",
    "plain lines": (
        "See @a.png and @b.png.\nx @a.png \n\t @b.png\t\n  @c.png.\n@d.png/ @e.png- @f.png@g.png\n"
        "a * b _ c ` d ~ e [ f ] g ! h < i @h.png\n"
    ),
    "tabs and indentation": "- \t@a.png\n\n  \t@b.png\n\n>\t@c.png\n",
}


@pytest.mark.parametrize("text", list(RECORDED.values()), ids=list(RECORDED))
def test_recorded_blocks_answer_the_same(text: str) -> None:
    assert_same_parse(text, known_names={"a", "x"})
    assert_same_parse(text, references="any")
    assert_same_parse(text, delimiters="loose")
    assert_same_answers(text.encode())


@pytest.mark.parametrize("text", list(RECORDED.values()), ids=list(RECORDED))
def test_recorded_blocks_complete_one_at_a_time(text: str) -> None:
    """Each block parsed on demand, in any order, is the block of a full parse."""
    fast = parse(text, known_names={"a", "x"})
    full = parse(text, full_parse=True, known_names={"a", "x"})
    inline = [at for at, token in enumerate(full.tokens) if token.type == "inline"]
    for position in reversed(inline):
        assert fast.inline_children(position) == full.tokens[position].children
        assert fast.parsed_tokens[position] == full.tokens[position]
    assert fast.tokens == full.tokens


def test_linkify_keeps_making_reference_tokens() -> None:
    """markdown-it's linkify rule reads the scheme of a URL from the text before it, so a
    parser with linkify on keeps one token per reference (a recorded reference's text
    would be read as a scheme: ``@a_http://x.example``)."""
    md = MarkdownIt("gfm-like").use(lmml_plugin, references="any")
    text = "See @a_http://x.example and @b.png www.example.com\n\nPlain.\n"
    narrative = parse(text, md=md)
    assert narrative.deferred is not None
    children = narrative.parsed_tokens[1].children or []
    assert [child.type for child in children if child.type == "lmml_ref"] == ["lmml_ref"] * 2
    assert narrative.tokens == md.parse(text)
    assert [embed.name for embed in narrative.embeds] == ["a_http", "b.png"]


def _pushed_tokens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The type of every inline token pushed from now on."""
    from markdown_it.rules_inline import StateInline

    pushed: list[str] = []
    push = StateInline.push

    def counting_push(self: StateInline, ttype: str, tag: str, nesting: Any) -> Any:
        pushed.append(ttype)
        return push(self, ttype, tag, nesting)

    monkeypatch.setattr(StateInline, "push", counting_push)
    return pushed


def test_the_fast_parse_makes_no_token_per_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """A paragraph of 2,000 references: the fast parse pushes the inline tokens bare
    markdown-it pushes (text and softbreak), none for a reference, and keeps none; the
    complete stream has them all."""
    lines = 1_000
    text = "See @a.png and @b.png.\n" * lines + "\n| @a.png | b |\n|---|---|\n| @b.png | c |\n"
    pushed = _pushed_tokens(monkeypatch)
    bare = MarkdownIt("commonmark").enable(GFM_RULES)
    bare.parse(text)
    bare_pushed = list(pushed)
    pushed.clear()
    narrative = parse(text)
    assert "lmml_ref" not in pushed
    assert len(pushed) == len(bare_pushed)
    assert len(narrative.embeds) == 2 * lines + 2
    assert not any(token.children for token in narrative.parsed_tokens if token.type == "inline")
    complete = narrative.tokens
    references = [
        child for token in complete if token.type == "inline" for child in token.children or ()
    ]
    assert [child.type for child in references].count("lmml_ref") == 2 * lines + 2
    assert complete == parse(text, full_parse=True).tokens


def test_a_recorded_find_costs_two_words() -> None:
    """What the fast parse keeps while it reads one block: an offset and a name per find,
    no object of its own."""
    from lmml_mdit.syntax import CollectedInlines, FoundInline

    found = FoundInline()
    assert not hasattr(found, "__dict__")
    assert not hasattr(CollectedInlines(()), "__dict__")
    found.offsets.append(4)
    found.names.append("a.png")
    found.offsets.append(9)
    found.names.append(None)
    assert len(found) == 2 and list(found.lengths()) == [6, 2]


def test_the_fast_parse_peaks_near_bare_markdown_it() -> None:
    """Peak traced memory of the fast parse of one paragraph of references, against bare
    markdown-it-py with the same grammar (memory, not time: the same on any machine)."""
    import gc
    import tracemalloc

    text = "See @a.png and @b.png.\n" * 4_000
    bare = MarkdownIt("commonmark").enable(GFM_RULES)

    def peak(function: Callable[[], object]) -> int:
        gc.collect()
        tracemalloc.start()
        try:
            function()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    assert peak(lambda: parse(text)) <= 1.25 * peak(lambda: bare.parse(text))


def _plain_text() -> st.SearchStrategy[str]:
    """Paragraphs of text and references with the characters the ``newline`` rule and the
    text around a reference are sensitive to (spaces and tabs at both ends of a line,
    delimiters that stay text, punctuation a name ends at)."""
    piece = st.sampled_from(
        [
            *("@a.png", "@b.png.", "@c.png,", "x@d.png", "@e.png/", "@x", "@@f.png", "@"),
            *("word", "*", "_", "`", "~", "[", "]", "!", "<", ">", "&", "(", ")", "\\"),
            *(".", '"q"', "--"),
        ]
    )
    gap = st.sampled_from(["", " ", "  ", "\t", " \t", "\t "])
    line = st.lists(st.tuples(gap, piece), min_size=1, max_size=6).map(
        lambda pairs: "".join(space + word for space, word in pairs)
    )
    return st.lists(st.tuples(line, gap), min_size=1, max_size=5).map(
        lambda lines: "\n".join(text + end for text, end in lines)
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_plain_text(), st.sampled_from(["", "> ", "- ", "| x |\n|---|\n| "]))
def test_generated_reference_lines_answer_the_same(text: str, container: str) -> None:
    """Blocks of text and references, rebuilt from their offsets or parsed again: the
    complete stream of a full parse, block by block and all at once."""
    text = container + text + "\n"
    assert_same_parse(text, known_names={"x"})
    assert_same_parse(text, md=TYPOGRAPHER)
    fast = parse(text, known_names={"x"})
    full = parse(text, full_parse=True, known_names={"x"})
    for position, token in enumerate(full.tokens):
        if token.type == "inline":
            assert fast.inline_children(position) == token.children


def test_attachment_paragraphs_are_read_without_their_tokens() -> None:
    """The structure index tells attachment paragraphs of recorded blocks from what the
    recording parse saw, leaving their tokens unparsed; once parsed, from the tokens."""
    text = "@a.png @b.png\n@c.png\n\nSee @d.png\n\n@e.png  \n@f.png\n"
    narrative = parse(text)
    names = [paragraph.names for paragraph in narrative.index.attachments]
    assert names == [("a.png", "b.png", "c.png")]
    assert narrative.deferred is not None and narrative.deferred.pending
    assert not any(token.children for token in narrative.parsed_tokens)
    narrative.inline_children(1)
    assert narrative.deferred.attachment_names(1) is None  # its children tell now
    assert narrative.deferred.attachment_names(4) == ()
    assert parse(text, full_parse=True).index == narrative.index
