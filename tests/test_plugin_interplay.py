"""``lmml_plugin`` beside the common mdit-py-plugins and markdown-it options.

Each plugin case is run with both orders of ``.use()``: the embeds (name, kind, line,
column), the turns and the HTML must not depend on the order.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.field_list import fieldlist_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin
from mdit_py_plugins.tasklists import tasklists_plugin
from mdit_py_plugins.texmath import texmath_plugin
from mdit_py_plugins.wordcount import wordcount_plugin

from lmml_mdit import Embed, LmmlSyntaxError, lmml_plugin, parse
from lmml_mdit.errors import MissingPluginError

Plugin = Callable[[MarkdownIt], None]
EmbedRow = tuple[str, str, int, int]
TurnRow = tuple[str, int, int]


def _rows(embeds: Any) -> list[EmbedRow]:
    return [(e.name, e.kind, e.line, e.column) for e in embeds]


def _turn_rows(text: str, md: MarkdownIt) -> list[TurnRow]:
    return [(t.role, t.start_line, t.end_line) for t in parse(text, md=md).turns]


def _both_orders(plugin: Plugin) -> list[MarkdownIt]:
    return [
        MarkdownIt("commonmark").use(lmml_plugin).use(plugin),
        MarkdownIt("commonmark").use(plugin).use(lmml_plugin),
    ]


# name: (plugin, text, embeds, turns)
CASES: dict[str, tuple[Plugin, str, list[EmbedRow], list[TurnRow]]] = {
    "footnote": (
        footnote_plugin,
        "## user\ntext[^1]\n\n[^1]: see @def.png and\n    more @two.png\n\n"
        "<!-- assistant -->\nok @z.png\n",
        [
            ("def.png", "external", 4, 11),
            ("two.png", "external", 5, 10),
            ("z.png", "external", 8, 4),
        ],
        [("user", 2, 6), ("assistant", 8, 8)],
    ),
    "deflist": (
        deflist_plugin,
        "## user\nTerm @t.png\n: def @d.png\n\n  more @m.png\n",
        [("t.png", "external", 2, 6), ("d.png", "external", 3, 7), ("m.png", "external", 5, 8)],
        [("user", 2, 5)],
    ),
    "tasklists": (
        tasklists_plugin,
        "## user\n- [ ] task @a.png\n- [x] done @b.png\n",
        [("a.png", "external", 2, 12), ("b.png", "external", 3, 12)],
        [("user", 2, 3)],
    ),
    "container": (
        functools.partial(container_plugin, name="note"),
        "## user\n::: note\nin @c.png\n\n@@@x.txt\nhello\n:::\n\nafter @d.png\n",
        [("c.png", "external", 3, 4), ("x.txt", "inline", 5, 1), ("d.png", "external", 9, 7)],
        [("user", 2, 9)],
    ),
    "dollarmath": (
        dollarmath_plugin,
        "## user\n$@a.png$ and $$@b$$\n\n$$\n@@@x\n$$\n\nok @c.png\n",
        [("c.png", "external", 8, 4)],
        [("user", 2, 8)],
    ),
    "texmath": (
        texmath_plugin,
        "## user\n$@a.png$ and @b.png\n",
        [("b.png", "external", 2, 14)],
        [("user", 2, 2)],
    ),
    "attrs": (
        functools.partial(attrs_plugin, after=("lmml_ref", "image")),
        "## user\n@a.png{.cls} and @b.png\n",
        [("a.png", "external", 2, 1), ("b.png", "external", 2, 18)],
        [("user", 2, 2)],
    ),
    "attrs_block": (
        attrs_block_plugin,
        "## user\n{.c}\n@a.png\n\n{.wide}\n@@@n.txt\nx\n@@@\n",
        [("a.png", "external", 3, 1), ("n.txt", "inline", 6, 1)],
        [("user", 2, 8)],
    ),
    "anchors": (
        anchors_plugin,
        "## Turn 1 -- user\n\n## Hello @a.png\n",
        [("a.png", "external", 3, 10)],
        [("user", 2, 3)],
    ),
    "field_list": (
        fieldlist_plugin,
        "## user\n:field: body @a.png\n  more @b.png\n",
        [("a.png", "external", 2, 14), ("b.png", "external", 3, 8)],
        [("user", 2, 3)],
    ),
    "myst_blocks": (
        myst_block_plugin,
        "## user\n% comment @a.png\n+++\n(target)=\n@b.png\n",
        [("b.png", "external", 5, 1)],
        [("user", 2, 5)],
    ),
    "myst_role": (
        myst_role_plugin,
        "## user\n{abc}`@a.png` and @b.png\n",
        [("b.png", "external", 2, 19)],
        [("user", 2, 2)],
    ),
    "wordcount": (
        wordcount_plugin,
        "## user\nsome words @a.png\n",
        [("a.png", "external", 2, 12)],
        [("user", 2, 2)],
    ),
    "admon": (
        admon_plugin,
        "## user\n!!! note\n    inside @a.png\n\n    @@@x.txt\n    hi\n    @@@\n",
        [("a.png", "external", 3, 12), ("x.txt", "inline", 5, 5)],
        [("user", 2, 7)],
    ),
    "colon_fence": (
        colon_fence_plugin,
        "## user\n:::python\n@@@x.txt\n@a.png\n:::\n@b.png\n",
        [("b.png", "external", 6, 1)],
        [("user", 2, 6)],
    ),
    "front_matter": (
        front_matter_plugin,
        "---\ntitle: x\n# user\n@@@a.txt\n<!-- user -->\nref: @r.png\n---\n"
        "## Turn -- user\nsee @b.png\n\n@@@c.txt\nhi\n@@@\n",
        [("b.png", "external", 9, 5), ("c.txt", "inline", 11, 1)],
        [("user", 9, 13)],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_plugin_in_both_orders(case: str) -> None:
    plugin, text, embeds, turns = CASES[case]
    html = set()
    for md in _both_orders(plugin):
        env: dict[str, Any] = {}
        html.add(md.render(text, env))
        assert _rows(env["lmml_embeds"]) == embeds
        assert _rows(parse(text, md=md).embeds) == embeds
        assert _turn_rows(text, md) == turns
        assert not [key for key in env if key.startswith("_lmml")]
    assert len(html) == 1


def test_front_matter_belongs_to_no_turn() -> None:
    md = MarkdownIt().use(front_matter_plugin).use(lmml_plugin)
    text = "---\na: 1\n---\n\ncontext @c.png\n## user\n@x.png\n"
    turns = parse(text, md=md).turns
    assert [(t.role, t.text, t.start_line, t.end_line) for t in turns] == [
        ("context", "context @c.png", 4, 5),
        ("user", "@x.png", 7, 7),
    ]
    assert turns[0].embeds[0].name == "c.png"
    # Only front matter before the first delimiter: no context turn at all.
    only = parse("---\na: 1\n---\n\n## user\nhi\n", md=md).turns
    assert [(t.role, t.start_line) for t in only] == [("user", 6)]


def test_attrs_are_rendered_on_plugin_tokens() -> None:
    md = (
        MarkdownIt().use(lmml_plugin).use(attrs_plugin, after=("lmml_ref",)).use(attrs_block_plugin)
    )
    html = md.render(
        '@a.png{.big title="<t>"}\n\n{.wide}\n@@@n.txt\nx\n@@@\n\n{.r}\n<!-- user -->\n'
    )
    assert (
        '<span class="lmml-ref big" data-lmml-name="a.png" title="&lt;t&gt;">@a.png</span>' in html
    )
    assert '<figure class="lmml-embed wide" data-lmml-name="n.txt">' in html
    assert '<div class="lmml-role r" data-lmml-role="user">user</div>' in html


def test_inline_footnote_holds_no_reference() -> None:
    # A known limit: ^[...] is parsed apart, like image alt text.
    md = MarkdownIt().use(footnote_plugin).use(lmml_plugin)
    env: dict[str, Any] = {}
    html = md.render("a ^[note @fn.png] and @b.png\n", env)
    assert [e.name for e in env["lmml_embeds"]] == ["b.png"]
    assert "note @fn.png" in html


def test_linkify_and_typographer() -> None:
    md = (
        MarkdownIt("commonmark", {"linkify": True, "typographer": True})
        .enable(["linkify", "replacements", "smartquotes"])
        .use(lmml_plugin)
    )
    env: dict[str, Any] = {}
    html = md.render('"see @a.png" (c) -- https://x.io/@b and x@y.com...\n', env)
    assert _rows(env["lmml_embeds"]) == [("a.png", "external", 1, 6)]
    assert "\u201csee " in html and "\u00a9" in html
    assert '<a href="https://x.io/@b">' in html
    assert '<a href="mailto:x@y.com">' in html


def test_zero_preset_with_some_rules() -> None:
    md = MarkdownIt("zero").use(lmml_plugin)
    text = "# user\n@@@a.txt\nx\n@@@\nhi @b.png *x*\n<!-- assistant -->\n"
    env: dict[str, Any] = {}
    html = md.render(text, env)
    assert "<p># user</p>" in html and "*x*" in html
    assert [(e.name, e.line) for e in env["lmml_embeds"]] == [("a.txt", 2), ("b.png", 5)]
    assert [t.type for t in env["lmml_delimiters"]] == ["lmml_role"]
    md.enable(["heading", "emphasis"])
    assert [(t.role, t.start_line) for t in parse(text, md=md).turns] == [
        ("user", 2),
        ("assistant", 7),
    ]
    assert "<em>x</em>" in md.render(text)


def test_rule_names() -> None:
    rules = MarkdownIt().use(lmml_plugin).get_all_rules()
    assert rules["block"].index("lmml_block") == rules["block"].index("html_block") - 1
    assert rules["inline"][-1] == "lmml_ref"
    assert rules["core"][:5] == ["normalize", "lmml_reset", "block", "lmml_front_matter", "inline"]
    assert rules["block"].index("front_matter") == rules["block"].index("table") - 1


def test_disable_rules_by_name() -> None:
    text = "@@@a.txt\nx\n@@@\n<!-- user -->\nhi @b.png\n"
    no_block = MarkdownIt().use(lmml_plugin).disable("lmml_block")
    env: dict[str, Any] = {}
    html = no_block.render(text, env)
    assert "<p>@@@a.txt\nx\n@@@</p>" in html and "<!-- user -->" in html
    assert [e.name for e in env["lmml_embeds"]] == ["b.png"]
    assert env["lmml_delimiters"] == []
    no_ref = MarkdownIt().use(lmml_plugin).disable("lmml_ref")
    env = {}
    assert "<p>hi @b.png</p>" in no_ref.render(text, env)
    assert [e.name for e in env["lmml_embeds"]] == ["a.txt"]
    no_core = MarkdownIt().use(lmml_plugin).disable("inline")
    with pytest.raises(MissingPluginError):
        parse(text, md=no_core)


def test_parse_twice_same_and_different_env() -> None:
    md = MarkdownIt().use(lmml_plugin)
    env: dict[str, Any] = {}
    md.parse("## user\n@a.png\n\n@@@b\nx\n@@@\n", env)
    md.parse("@c.png\n", env)
    assert [e.name for e in env["lmml_embeds"]] == ["c.png"]
    assert env["lmml_delimiters"] == []
    other: dict[str, Any] = {}
    md.parse("@@@d\n@@@\n", other)
    assert [e.name for e in other["lmml_embeds"]] == ["d"]
    assert [e.name for e in env["lmml_embeds"]] == ["c.png"]
    assert not vars(md).keys() - vars(MarkdownIt().use(lmml_plugin)).keys()


def test_env_reused_after_a_failed_parse_starts_clean() -> None:
    md = MarkdownIt().use(lmml_plugin)
    env: dict[str, Any] = {}
    with pytest.raises(LmmlSyntaxError):
        md.parse("<!-- user -->\n@@@a\n\ud800\n@@@\n", env)
    assert not [key for key in env if key.startswith("_lmml")]
    env["_lmml_fence_tokens"] = ["stale"]  # as a parse stopped by another plugin leaves it
    md.parse("hi @c.png\n", env)
    assert [e.name for e in env["lmml_embeds"]] == ["c.png"]
    assert env["lmml_delimiters"] == []


def test_one_parser_two_threads() -> None:
    md = MarkdownIt().use(lmml_plugin)
    texts = [
        "".join(f"## user\nsee @u{i}.png\n\n@@@f{i}.txt\nx\n@@@\n" for i in range(50)),
        "".join(f"<!-- assistant -->\n> quote @q{i}.png\n\n" for i in range(80)),
    ]
    expected = [_rows(parse(text, md=md).embeds) for text in texts]
    results: list[list[list[EmbedRow]]] = [[], []]

    def work(index: int) -> None:
        for _ in range(30):
            env: dict[str, Any] = {}
            md.parse(texts[index], env)
            results[index].append(_rows(env["lmml_embeds"]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index in range(2):
        assert results[index] == [expected[index]] * 30


def test_parse_inline() -> None:
    md = MarkdownIt().use(lmml_plugin)
    env: dict[str, Any] = {}
    tokens = md.parseInline("hi @a.png\nand @b.png @@@x", env)
    refs = [child for child in tokens[0].children or [] if child.type == "lmml_ref"]
    assert [(r.content, r.meta["line"], r.meta["column"]) for r in refs] == [
        ("a.png", 1, 4),
        ("b.png", 2, 5),
    ]
    assert [e.name for e in env["lmml_embeds"]] == ["a.png", "b.png"]
    assert md.renderInline("@@@x.txt") == "@@@x.txt"


@pytest.mark.parametrize(
    ("text", "embed"),
    [
        ("> - item\n>   @@@a.txt\n>   x\n", Embed("a.txt", "inline", b"x\n", 2, 5, closed=False)),
        ("> - @@@a.txt\n>   x\n> - next\n", Embed("a.txt", "inline", b"x\n", 1, 5, closed=False)),
        ("> 1. a\n>    @@@n.txt\n\nafter\n", Embed("n.txt", "inline", b"", 2, 6, closed=False)),
    ],
)
def test_unclosed_fence_ending_a_list_item_in_a_quote(text: str, embed: Embed) -> None:
    md = MarkdownIt().use(lmml_plugin)
    env: dict[str, Any] = {}
    html = md.render(text, env)
    assert env["lmml_embeds"] == [embed]
    assert html.count('<figure class="lmml-embed lmml-unclosed"') == 1
    assert html.count("<blockquote>") == html.count("</blockquote>") == 1
    assert html.index("</figure>") < html.index("</li>") < html.index("</blockquote>")
