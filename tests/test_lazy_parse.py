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
from lmml_mdit.narrative.narrative import FULL_PARSE_VARIABLE
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
    from lmml_mdit.syntax import triggers

    text = "Hello {{name}}.\n"
    assert not parse(text).parsed_tokens[1].children
    monkeypatch.setattr(triggers, "INLINE_TRIGGERS", (*triggers.INLINE_TRIGGERS, "{{"))
    assert parse(text).parsed_tokens[1].children
