"""Ordinary Markdown stays ordinary: a corpus of real-style READMEs, changelogs, chats and
notes (``tests/corpus/``) full of ``@handle`` mentions, scoped npm packages, Java
annotations, decorators in prose, e-mail addresses, Mastodon URLs and headings such as
"Build System" or "Tool Output" holds no reference and no delimiter under the default
options, and renders the same HTML with the plugin on and off.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from lmml_mdit import Bundle, lmml_plugin, parse

CORPUS = Path(__file__).resolve().parent / "corpus"
FILES = sorted(CORPUS.glob("*.md"))

# The plugin reads a leading ``---`` block as front matter (LMML since 0.2), which renders to
# nothing; the plain side reads it the same way through mdit-py-plugins' front matter rule.
WITH_PLUGIN = MarkdownIt("commonmark").use(lmml_plugin)
WITHOUT_PLUGIN = MarkdownIt("commonmark").use(front_matter_plugin)
GFM_WITH_PLUGIN = MarkdownIt("gfm-like").use(lmml_plugin)
GFM_WITHOUT_PLUGIN = MarkdownIt("gfm-like").use(front_matter_plugin)


def test_corpus_is_large_and_varied() -> None:
    assert len(FILES) >= 25
    text = "\n".join(path.read_text(encoding="utf-8") for path in FILES)
    for sample in ("@types/node", "@Override", "@staticmethod", "https://mastodon.social/@"):
        assert sample in text
    for heading in ("Build System", "Tool Output", "System requirements", "User guide"):
        assert heading in text
    # Before this rule set (RFC 4.1 names, role words anywhere) the corpus was full of both.
    loose = [parse(path.read_text(encoding="utf-8"), delimiters="loose") for path in FILES]
    assert sum(1 for narrative in loose for turn in narrative.turns if turn.delimiter_line) > 20
    anyref = [parse(path.read_text(encoding="utf-8"), references="any") for path in FILES]
    assert sum(len(narrative.embeds) for narrative in anyref) > 100


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_no_references_and_no_delimiters(path: Path) -> None:
    narrative = parse(path.read_text(encoding="utf-8"))
    assert [embed.name for embed in narrative.embeds] == []
    assert [turn.heading for turn in narrative.turns if turn.delimiter_line] == []
    assert [turn.role for turn in narrative.turns] == ["context"]


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_html_identical_with_the_plugin_on_and_off(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert WITH_PLUGIN.render(text) == WITHOUT_PLUGIN.render(text)
    assert GFM_WITH_PLUGIN.render(text) == GFM_WITHOUT_PLUGIN.render(text)


@pytest.mark.parametrize("path", FILES, ids=[path.name for path in FILES])
def test_validate_finds_nothing_but_no_turns(path: Path) -> None:
    # Ordinary Markdown holds no delimiter, so its one finding is that it is all context.
    bundle = Bundle.from_text(path.stem, path.read_text(encoding="utf-8"))
    assert [issue.kind for issue in bundle.validate()] == ["no_turns"]
