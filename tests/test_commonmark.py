"""Every CommonMark spec example renders byte-identically with the plugin on and off.

The examples come from ``tests/data/commonmark-spec.json`` (the CommonMark spec's own
example list), so the test needs nothing outside the repository.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from lmml_mdit import lmml_plugin, parse

SPEC = Path(__file__).parent / "data" / "commonmark-spec.json"
EXAMPLES: list[dict[str, Any]] = json.loads(SPEC.read_text(encoding="utf-8"))

WITH_PLUGIN = MarkdownIt("commonmark").use(lmml_plugin, front_matter=False)
"""Front matter is LMML (a leading ``---`` block is metadata): compared with it off, the
plugin changes nothing; :func:`test_front_matter_changes_only_the_examples_it_opens`
covers it on."""
WITHOUT_PLUGIN = MarkdownIt("commonmark")


def test_all_examples_present() -> None:
    assert len(EXAMPLES) == 652


@pytest.mark.parametrize(
    "example", EXAMPLES, ids=[f"{e['example']}-{e['section']}" for e in EXAMPLES]
)
def test_plugin_changes_nothing(example: dict[str, Any]) -> None:
    markdown = example["markdown"]
    assert WITH_PLUGIN.render(markdown) == WITHOUT_PLUGIN.render(markdown)


def test_front_matter_changes_only_the_examples_it_opens() -> None:
    full = MarkdownIt("commonmark").use(lmml_plugin)
    changed = [
        e["example"]
        for e in EXAMPLES
        if full.render(e["markdown"]) != WITH_PLUGIN.render(e["markdown"])
    ]
    assert changed == [96, 98]
    assert all(EXAMPLES[n - 1]["markdown"].startswith("---\n") for n in changed)


@pytest.mark.parametrize("markdown", ["- 2. \\--\n  1.\n", "- - x--\n  - y\n"])
def test_front_matter_is_only_at_the_top_level(markdown: str) -> None:
    # mdit_py_plugins' rule alone also took the first line of a block nested on the first
    # line, over a less indented line, counting the character before the dashes as one.
    full = MarkdownIt("commonmark").use(lmml_plugin)
    assert full.render(markdown) == WITHOUT_PLUGIN.render(markdown)
    assert parse(markdown).front_matter is None


@pytest.mark.parametrize(
    "example", EXAMPLES, ids=[f"{e['example']}-{e['section']}" for e in EXAMPLES]
)
def test_parse_never_fails(example: dict[str, Any]) -> None:
    """The narrative model reads every example; none holds LMML, so no embeds."""
    narrative = parse(example["markdown"])
    assert narrative.embeds == ()


@pytest.mark.parametrize(
    ("markdown", "roles"),
    [
        # A thematic break of four or more dashes, or a line of dashes and words, is no
        # front matter: before, everything up to the next such line vanished from the turns.
        (
            "----\nSome intro\n\n## user\nhi\n\n----\n## assistant\nok\n",
            ["context", "user", "assistant"],
        ),
        ("-----\n## user\nhi\n-----\n## assistant\nok\n", ["context", "user", "assistant"]),
        ("--- draft ---\n## user\nhi\n\n---\n## assistant\nok\n", ["context", "user", "assistant"]),
        ("---x\nnote: 1\n---\n## user\nhi\n", ["context", "user"]),
    ],
)
def test_front_matter_opens_only_on_a_line_of_three_dashes(markdown: str, roles: list[str]) -> None:
    full = MarkdownIt("commonmark").use(lmml_plugin)
    assert full.render(markdown) == WITHOUT_PLUGIN.render(markdown)
    narrative = parse(markdown)
    assert narrative.front_matter is None
    assert [turn.role for turn in narrative.turns] == roles


@pytest.mark.parametrize("opening", ["---", "---  ", "---\t"])
def test_front_matter_opening_line_may_end_in_white_space(opening: str) -> None:
    narrative = parse(opening + "\na: 1\n---\n## user\nhi\n")
    assert narrative.front_matter == "a: 1"
    assert [turn.role for turn in narrative.turns] == ["user"]
