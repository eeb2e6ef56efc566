"""Link destinations: :func:`lmml_mdit.syntax.normalize_link` gives markdown-it's
answer for every URL, and skips the URL parse for the simple ones chats are made of."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.common import normalize_url

from lmml_mdit import parse
from lmml_mdit.narrative import default_parser
from lmml_mdit.syntax import LinkParser, normalize_link
from lmml_mdit.syntax import _links as links  # its private URL pattern, on purpose

SPEC = Path(__file__).parent / "data" / "commonmark-spec.json"

SIMPLE = [
    "",
    "https://example.com",
    "https://example.com/",
    "http://example.com:8080/docs/guide.html?q=1&lang=en#install",
    "https://EXAMPLE.com/A_B/c-d/~e/(f)/*g*/h+i,j;k=l!m$n'o",
    "https://a.b.c.d.example.org/path%20with%2Fescapes",
    "https://example.com?x=1",
    "https://example.com#top",
    "docs/guide.md",
    "./notes.md",
    "../up/one.md",
    "/absolute/path",
    "/",
    "#anchor",
    "?query=1",
    "img/pic%2A.png",
]

NOT_SIMPLE = [
    "//example.com/path",  # a host with no scheme
    "mailto:user@example.com",
    "https://user@example.com/",
    "https://exämple.com/",  # a host to re-encode
    "https://example.com/ä",  # a character to percent-encode
    "https://example.com/a b",
    "https://example.com/%zz",
    "https://example.com/%4",
    "https://example..com/",
    "https://example.com./",
    "https://" + "a" * 64 + ".com/",  # a label too long for mdurl's host
    "https://" + ".".join(["a" * 60] * 5) + "/",  # a host over 255 characters
    "https://example.com:/x",
    "https://example.com:123456/",
    "HTTPS://example.com/",
    "ftp://example.com/",
    "javascript:alert(1)",
    "a:b",
    "[brackets]",
    "back\\slash",
    'quote"d',
    "https://[::1]/",
]


@pytest.mark.parametrize("url", SIMPLE)
def test_a_simple_url_is_returned_as_it_is(url: str) -> None:
    assert links._simple_url().fullmatch(url) is not None
    with mock.patch.object(links, "markdown_normalize_link") as slow:
        assert normalize_link(url) == url
    slow.assert_not_called()
    assert normalize_url.normalizeLink(url) == url


@pytest.mark.parametrize("url", NOT_SIMPLE)
def test_any_other_url_gets_markdown_its_answer(url: str) -> None:
    assert normalize_link(url) == normalize_url.normalizeLink(url)
    with mock.patch.object(links, "markdown_normalize_link", return_value="slow") as slow:
        assert normalize_link(url) == "slow"
    slow.assert_called_once_with(url)


_PIECES = st.sampled_from(
    [
        "http://",
        "https://",
        "//",
        "mailto:",
        "example",
        "EXAMPLE",
        ".",
        "..",
        "-",
        "_",
        "com",
        ":",
        ":80",
        "@",
        "/",
        "?",
        "#",
        "%",
        "%2F",
        "%zz",
        "é",
        "ä.b",
        " ",
        "\\",
        "'",
        "(",
        ")",
        "*",
        "+",
        ",",
        ";",
        "=",
        "&",
        "$",
        "!",
        "~",
        "[",
        "]",
        "a" * 63,
        "b" * 64,
    ]
)


@settings(max_examples=3000, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_normalize_link_is_markdown_its_for_any_url(url: str) -> None:
    assert normalize_link(url) == normalize_url.normalizeLink(url)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_normalize_link_is_markdown_its_for_any_text(url: str) -> None:
    assert normalize_link(url) == normalize_url.normalizeLink(url)


def test_link_parser_renders_every_commonmark_example_as_markdown_it_does() -> None:
    examples = json.loads(SPEC.read_text(encoding="utf-8"))
    ours, theirs = LinkParser("commonmark"), MarkdownIt("commonmark")
    for example in examples:
        markdown = example["markdown"]
        assert ours.render(markdown) == theirs.render(markdown), example["example"]


def test_the_default_parser_normalizes_links_without_a_url_parse() -> None:
    assert isinstance(default_parser(), LinkParser)
    text = "## Turn 1 -- user\n\nSee [the guide](https://example.com/guide) and ![x](img/a.png).\n"
    with mock.patch.object(links, "markdown_normalize_link") as slow:
        tokens = parse(text).tokens
    slow.assert_not_called()
    hrefs = [
        child.attrGet("href") or child.attrGet("src")
        for token in tokens
        for child in token.children or []
        if child.type in ("link_open", "image")
    ]
    assert hrefs == ["https://example.com/guide", "img/a.png"]
