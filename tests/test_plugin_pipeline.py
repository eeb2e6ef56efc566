"""The plugin is the whole of LMML (issue 26): front matter in any pipeline, and the same
turns, embeds, issues and payloads through ``parse(text)`` and through a user's own
``MarkdownIt("commonmark").use(lmml_plugin)``, over every fixture and example."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin
from test_fixtures import load

import lmml_mdit
from lmml_mdit import Bundle, lmml_plugin, parse
from lmml_mdit.errors import LmmlError
from lmml_mdit.syntax import FRONT_MATTER_KEY

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
FRONT = "---\ntitle: Notes\ninputs:\n  n: {type: string}\n---\n## user\n\nhi {{ n }} @a.png\n"


def _user_md() -> MarkdownIt:
    return MarkdownIt("commonmark").use(lmml_plugin)


def test_front_matter_is_one_token_that_renders_to_nothing() -> None:
    md = _user_md()
    env: dict[str, object] = {}
    tokens = md.parse(FRONT, env)
    assert [token.type for token in tokens[:2]] == ["front_matter", "heading_open"]
    assert env[FRONT_MATTER_KEY] == {"title": "Notes", "inputs": {"n": {"type": "string"}}}
    html = md.render(FRONT, env)
    assert "<hr" not in html and "title" not in html
    assert html.strip() == md.render(FRONT.split("---\n", 2)[2]).strip()
    md.parse("no front matter\n", env)
    assert FRONT_MATTER_KEY not in env


def test_a_front_matter_that_does_not_decode_is_none_in_env() -> None:
    env: dict[str, object] = {}
    _user_md().parse("---\nkey: [unclosed\n---\ntext\n", env)
    assert env[FRONT_MATTER_KEY] is None


def test_front_matter_can_be_switched_off_and_is_not_added_twice() -> None:
    off = MarkdownIt("commonmark").use(lmml_plugin, front_matter=False)
    assert "<hr />" in off.render(FRONT)
    both = MarkdownIt("commonmark").use(front_matter_plugin).use(lmml_plugin)
    assert both.block.ruler.get_all_rules().count("front_matter") == 1
    assert both.parse(FRONT)[0].type == "front_matter"


def test_a_user_pipeline_gives_no_context_turn_for_front_matter() -> None:
    ours = parse(FRONT)
    theirs = parse(FRONT, md=_user_md())
    assert [turn.role for turn in theirs.turns] == ["user"] == [t.role for t in ours.turns]
    assert theirs.front_matter == ours.front_matter


def _outcome(bundle: Bundle) -> tuple[object, ...]:
    narrative = bundle.narrative
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            issues: object = [issue.record() for issue in bundle.validate()]
        except LmmlError as error:
            issues = ("raised", type(error).__name__, str(error))
        try:
            payload: object = bundle.messages("openai", strict=False)
        except LmmlError as error:
            payload = ("raised", type(error).__name__, str(error))
    return narrative.turns, narrative.embeds, narrative.front_matter, issues, payload


@pytest.mark.parametrize(
    "name", ["syntax.md", "embeds.md", "turns.md", "rules.md", "placeholders.md"]
)
def test_every_fixture_reads_the_same_through_a_user_pipeline(name: str) -> None:
    md = _user_md()
    differ = []
    for case_id, text, _ in load(name):
        try:
            ours = Bundle.from_text("t", text, narrative=parse(text, name="t.lmml"))
            theirs = Bundle.from_text("t", text, narrative=parse(text, name="t.lmml", md=md))
        except LmmlError:
            continue  # refused before the parse (a lone surrogate): by both, the same way
        if _outcome(ours) != _outcome(theirs):
            differ.append(case_id)
    assert differ == []


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.lmml*")), ids=lambda path: path.name)
def test_every_example_reads_the_same_through_a_user_pipeline(path: Path) -> None:
    md = _user_md()
    with lmml_mdit.open(path) as opened:
        text = opened.narrative.text
        if opened.kind == "zip":
            entries = {name: opened.read(name) for name in opened.entries}
            known = frozenset(entries)
            ours = Bundle.from_zip(
                path.stem, text, entries, narrative=parse(text, known_names=known)
            )
            theirs = Bundle.from_zip(
                path.stem, text, entries, narrative=parse(text, md=md, known_names=known)
            )
        else:
            ours = Bundle.from_text(path.name, text, narrative=parse(text), base_dir=EXAMPLES)
            theirs = Bundle.from_text(
                path.name, text, narrative=parse(text, md=md), base_dir=EXAMPLES
            )
    assert _outcome(ours)[0], "the example has turns"
    assert _outcome(ours) == _outcome(theirs)
