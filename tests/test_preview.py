"""The HTML preview: structure of the page for realistic bundles, assets, links, options."""

from __future__ import annotations

import base64
import json
import os
import re
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.attrs import attrs_block_plugin, attrs_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from xss_corpus import SAMPLE_SVG, Element, make_png, parse_document, sample_bundle

import lmml_mdit
import lmml_mdit.preview._page as preview  # private on purpose: its switches are patched
from lmml_mdit import Bundle, lmml_plugin, render_html, write_preview
from lmml_mdit import open as open_bundle
from lmml_mdit.preview import CONTENT_SECURITY_POLICY, PREVIEW_CSS, is_safe_url, sniff_media_type

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _page(bundle: Bundle, **options: object) -> Element:
    document = parse_document(render_html(bundle, **options))  # type: ignore[arg-type]
    assert document.mismatched == []
    return document.root


def _cards(root: Element) -> list[Element]:
    return root.find_all("section", "lmml-turn")


def _data_uri_bytes(src: str) -> tuple[str, bytes]:
    match = re.fullmatch(r"data:([a-z/+]+);base64,([A-Za-z0-9+/=]+)", src)
    assert match is not None, src[:60]
    return match.group(1), base64.b64decode(match.group(2))


# --------------------------------------------------------------------------- the page


def test_document_head_is_self_contained_and_forbids_scripts() -> None:
    markup = render_html(sample_bundle())
    document = parse_document(markup)
    assert document.doctype is not None and document.doctype.lower() == "doctype html"
    head = document.root.find("head")
    metas = head.find_all("meta")
    assert metas[0].get("charset") == "utf-8"
    csp = [m.get("content") for m in metas if m.get("http-equiv") == "Content-Security-Policy"]
    assert csp == [CONTENT_SECURITY_POLICY]
    assert "default-src 'none'" in CONTENT_SECURITY_POLICY
    assert "img-src data:" in CONTENT_SECURITY_POLICY
    assert "script-src" not in CONTENT_SECURITY_POLICY  # so default-src 'none' applies
    assert head.find("title").text == "weekly-review · LMML preview"
    root = document.root
    assert root.find_all("script") == []
    assert root.find_all("link") == []
    styles = root.find_all("style")
    assert len(styles) == 1 and PREVIEW_CSS in styles[0].text
    assert "url(" not in styles[0].text and "@import" not in styles[0].text
    assert "http" not in styles[0].text
    assert not any(a.startswith("on") for e in root.iter() for a, _ in e.attrs)
    srcs = [e.get("src") or "" for e in root.iter() if e.get("src") is not None]
    assert srcs and all(src.startswith("data:image/") for src in srcs)


def test_header_names_the_bundle_and_summarises_manifest_and_settings() -> None:
    root = _page(sample_bundle())
    header = root.find("header", "lmml-page-header")
    assert header.find("h1").text == "weekly-review"
    summary = header.find("p", "lmml-summary").text
    assert summary == (
        "zip bundle · weekly-review.lmml · 6 turns "
        "(context 1, system 1, user 2, assistant 1, tool 1) · 4 assets"
    )
    manifest = header.find("section", "lmml-manifest")
    pairs = dict(
        zip(
            [dt.text for dt in manifest.find_all("dt")],
            [dd.text for dd in manifest.find_all("dd")],
            strict=True,
        )
    )
    assert pairs["title"] == "Weekly sales review"
    assert pairs["tags"] == '["sales", "weekly"]'
    settings = header.find("section", "lmml-settings")
    assert [dt.text for dt in settings.find_all("dt")] == ["model", "temperature", "max_tokens"]
    assert [dd.text for dd in settings.find_all("dd")] == ["gpt-4o", "0.2", "800"]


def test_each_turn_is_a_card_with_role_and_number() -> None:
    root = _page(sample_bundle())
    cards = _cards(root)
    assert [card.get("data-lmml-role") for card in cards] == [
        "context",
        "system",
        "user",
        "assistant",
        "tool",
        "user",
    ]
    for card in cards:
        assert f"lmml-turn-{card.get('data-lmml-role')}" in card.classes
        assert card.find("span", "lmml-role-badge").text == card.get("data-lmml-role")
    numbers = [[n.text for n in card.find_all("span", "lmml-turn-number")] for card in cards]
    assert numbers == [[], ["Turn 1"], ["Turn 2"], ["Turn 3"], ["Turn 4"], ["Turn 5"]]
    assert [card.get("id") for card in cards] == [
        "turn-context",
        "turn-1",
        "turn-2",
        "turn-3",
        "turn-4",
        "turn-5",
    ]
    # The role colours are distinct per role in the stylesheet.
    accents = dict(re.findall(r"\.lmml-turn-(\w+) \{ --lmml-accent: (#\w+); \}", PREVIEW_CSS))
    assert set(accents) == {"context", "system", "user", "assistant", "tool"}
    assert len(set(accents.values())) == 5


def test_comment_and_heading_delimiters_give_the_same_header() -> None:
    cards = _cards(_page(sample_bundle()))
    from_heading = cards[2].find("header", "lmml-turn-header")  # "## Turn 2 -- user"
    from_comment = cards[3].find("header", "lmml-turn-header")  # "<!-- assistant -->"
    assert from_heading.skeleton() == from_comment.skeleton()
    # The delimiters themselves are not repeated in the body.
    for card in cards:
        body = card.find("div", "lmml-turn-body")
        assert body.find_all("h2") == [] and "<!--" not in body.text
        assert body.find_all(cls="lmml-role") == []


def _titles(cards: list[Element]) -> list[list[str]]:
    return [[t.text for t in card.find_all("span", "lmml-turn-title")] for card in cards]


def _numbers(cards: list[Element]) -> list[list[str]]:
    return [[n.text for n in card.find_all("span", "lmml-turn-number")] for card in cards]


def test_heading_text_is_shown_only_when_it_says_more_than_the_header() -> None:
    text = (
        "## Turn 1 -- user\nhi\n\n# ASSISTANT\nyes\n\n## Asks about **Paris** -- user\nq\n\n"
        "## turn 4 -- assistant\na\n"
    )
    cards = _cards(_page(Bundle.from_text("t", text)))
    assert _numbers(cards) == [["Turn 1"], ["Turn 2"], ["Turn 3"], ["Turn 4"]]
    assert _titles(cards) == [[], [], ["Asks about Paris -- user"], []]
    assert cards[2].find("span", "lmml-turn-title").find("strong").text == "Paris"


def test_the_page_never_numbers_a_turn_against_the_authors_heading() -> None:
    # The author does not count the system comment: "Turn 1 -- user" is turn 2 to every
    # tool, so the page shows the author's headings and none of its own numbers.
    text = "<!-- system -->\nBe brief.\n\n## Turn 1 -- user\nhi\n\n# Assistant\nhello\n"
    bundle = Bundle.from_text("t", text)
    markup = render_html(bundle)
    cards = _cards(parse_document(markup).root)
    assert _numbers(cards) == [[], [], []]
    assert _titles(cards) == [[], ["Turn 1 -- user"], []]
    assert "Turn 2" not in markup and "Turn 3" not in markup
    # The anchors still follow the one numbering.
    assert [card.get("id") for card in cards] == ["turn-1", "turn-2", "turn-3"]


def test_markdown_is_the_narratives_commonmark_and_raw_html_is_text() -> None:
    # The page renders the narrative's own tokens (commonmark with GFM tables and
    # strikethrough); GFM task items are disabled checkboxes, as in 0.1.
    root = _page(sample_bundle())
    user = _cards(root)[2]
    (table,) = user.find_all("table")
    assert [th.text for th in table.find_all("th")] == ["week", "sales", "note"]
    assert [s.text for s in user.find_all("s")] == ["draft"]
    assert "|------|" not in user.text and "~~" not in user.text
    assistant = _cards(root)[3]
    boxes = assistant.find_all("input")
    assert [(box.get("checked"), box.get("disabled")) for box in boxes] == [
        ("checked", "disabled"),
        (None, "disabled"),
    ]
    items = [li.text for li in assistant.find_all("li")]
    assert items == [" read the chart", " rerun plot.py"]
    last = _cards(root)[5]
    assert last.find_all("b") == []
    assert "Raw <b>HTML</b> stays text." in last.text
    assert [span.text for span in last.find_all("span", "lmml-raw-html")] == ["<b>", "</b>"]


def test_an_html_block_is_escaped_text_and_holds_no_delimiter() -> None:
    # To the narrative parser (html on) the block runs to the blank line, so "## Assistant"
    # inside it is no delimiter: the page, validate and messages() all see one user turn.
    text = "## User\n<div>\n## Assistant\n<script>alert(1)</script>\n</div>\n\nafter\n"
    bundle = Bundle.from_text("t", text)
    assert [turn.role for turn in bundle.narrative.turns] == ["user"]
    root = _page(bundle)
    (card,) = _cards(root)
    (block,) = card.find_all("pre", "lmml-raw-html")
    assert block.text == "<div>\n## Assistant\n<script>alert(1)</script>\n</div>\n"
    # Only the page's own <div>s: the narrative's is text.
    assert all(div.classes & {"lmml-preview", "lmml-turn-body"} for div in root.find_all("div"))
    assert root.find_all("script") == [] and card.find_all("h2")[1:] == []
    (message,) = bundle.messages("openai")
    assert "<div>\n## Assistant\n" in message["content"][0]["text"]


def test_image_reference_shows_the_decoded_image_where_it_is_referenced() -> None:
    bundle = sample_bundle()
    root = _page(bundle)
    user = _cards(root)[2]
    images = user.find_all("img")
    assert len(images) == 2  # the first paragraph and the table's last cell
    containers = []
    for image in images:
        assert image.parent is not None and image.parent.parent is not None
        containers.append(image.parent.parent.tag)
    assert containers == ["p", "td"]
    for image in images:
        media_type, data = _data_uri_bytes(image.get("src") or "")
        assert (media_type, data) == ("image/png", bundle.read("chart.png"))
        assert image.get("alt") == "chart.png"


def test_svg_asset_is_only_an_img_never_inline_markup() -> None:
    root = _page(sample_bundle())
    tool = _cards(root)[4]
    (image,) = tool.find_all("img")
    assert _data_uri_bytes(image.get("src") or "") == ("image/svg+xml", SAMPLE_SVG)
    assert root.find_all("svg") == [] and root.find_all("rect") == []


def test_text_asset_expands_after_its_paragraph_with_highlighting() -> None:
    root = _page(sample_bundle())
    user = _cards(root)[2]
    chip = user.find("span", "lmml-asset-text")
    assert chip.get("data-lmml-name") == "plot.py"
    assert "text/x-python · 87 B" in chip.text
    details = user.find("details")
    assert details.get("data-lmml-name") == "plot.py" and details.has("open")
    assert details.parent is not None and details.parent.classes == {"lmml-turn-body"}
    code = details.find("pre").text
    assert code.startswith("import matplotlib.pyplot as plt\n")
    assert details.find("pre").find_all("span", "kn")  # Pygments: keyword.namespace
    # The expansion follows the paragraph that references it.
    body = user.find("div", "lmml-turn-body")
    blocks = [c.tag for c in body.children if isinstance(c, Element)]
    assert blocks[:3] == ["p", "details", "p"]


def test_other_assets_are_chips_with_type_and_size() -> None:
    bundle = sample_bundle()
    user = _cards(_page(bundle))[2]
    chip = user.find("span", "lmml-asset-binary")
    assert chip.get("data-lmml-name") == "report.pdf"
    size = len(bundle.read("report.pdf"))
    assert chip.find("span", "lmml-chip-meta").text == f"application/pdf · {size} B"


def test_missing_reference_is_marked_visibly() -> None:
    root = _page(sample_bundle())
    (missing,) = root.find_all(cls="lmml-missing")
    assert missing.get("data-lmml-name") == "appendix.csv"
    assert missing.find("span", "lmml-missing-label").text == "missing"
    assert "appendix.csv" in (missing.get("title") or "")
    assert ".lmml-preview .lmml-missing {" in PREVIEW_CSS


def test_inline_fence_expands_to_its_content() -> None:
    assistant = _cards(_page(sample_bundle()))[3]
    details = assistant.find("details")
    assert details.get("data-lmml-name") == "numbers.json"
    assert details.has("open")
    assert "application/json" in details.find("summary").text
    assert details.find("pre").text == '{"week": [1, 2], "sales": [120, 135]}\n'
    fenced = assistant.find_all("pre")[1]
    assert fenced.find("code").get("class") == "language-python"


def test_unclosed_fence_is_flagged() -> None:
    root = _page(Bundle.from_text("t", "## User\n@@@notes.txt\nno end\n"))
    details = root.find("details")
    assert "lmml-unclosed" in details.classes
    assert "unclosed" in details.find("summary").text


def test_an_expansion_counts_the_lines_it_shows() -> None:
    """A final newline ends the last line; it opens no empty line after it."""
    text = "## User\n@notes.txt @one.txt @bare.txt @forty.txt\n\n@@@snippet.py\nx = 1\ny = 2\n@@@\n"
    entries = {
        "notes.txt": b"hello\nworld\n",
        "one.txt": b"only\n",
        "bare.txt": b"a\nb",
        "forty.txt": b"line\n" * 40,
    }
    root = _page(Bundle.from_zip("t", text, entries))
    counts = {
        d.get("data-lmml-name"): d.find("span", "lmml-chip-meta").text.rsplit(" · ", 1)[1]
        for d in root.find_all("details")
    }
    assert counts == {
        "notes.txt": "2 lines",
        "one.txt": "1 line",
        "bare.txt": "2 lines",
        "forty.txt": "40 lines",
        "snippet.py": "2 lines",
    }
    # At most 40 lines start open (docs/preview.md, "Limits").
    forty = next(d for d in root.find_all("details") if d.get("data-lmml-name") == "forty.txt")
    assert forty.has("open")


def test_unresolvable_reference_in_a_bare_text_bundle_is_missing() -> None:
    root = _page(Bundle.from_text("t", "## User\nsee @chart.png\n"))
    missing = root.find(cls="lmml-missing")
    assert "bare .lmml" in (missing.get("title") or "")


def test_markdown_images_are_marked_not_sent_and_never_fetched() -> None:
    png = make_png(3, 3)
    text = (
        "## User\n![a chart](chart.png) ![gone](nope.png) ![remote](https://example.com/x.png)"
        " ![again](./chart.png#top) @chart.png\n"
    )
    bundle = Bundle.from_zip("t", text, {"chart.png": png})
    root = _page(bundle)
    # Only the @reference shows the image: it is the only one the model receives.
    (image,) = root.find_all("img")
    assert image.get("alt") == "chart.png" and "lmml-unsent" not in image.parent.classes
    unsent = root.find_all(cls="lmml-unsent")
    assert [chip.get("data-lmml-name") for chip in unsent] == ["chart.png", "nope.png", "chart.png"]
    for chip in unsent:
        assert chip.find("span", "lmml-unsent-label").text == "not sent"
    assert "write @chart.png" in (unsent[0].get("title") or "")
    assert "no asset 'nope.png'" in (unsent[1].get("title") or "")
    assert unsent[0].find("span", "lmml-chip-meta").text == "a chart"
    assert root.find_all(cls="lmml-missing") == []
    remote = root.find("a", "lmml-remote")
    assert remote.get("href") == "https://example.com/x.png"
    assert remote.text == "[image: remote]"
    kinds = [(i.kind, i.name, i.line, i.column) for i in bundle.validate()]
    assert kinds == [("unsent_image", "chart.png", 2, 1), ("unsent_image", "chart.png", 2, 78)]


def test_large_assets_become_chips() -> None:
    png = make_png(40, 40)
    text = "## User\n@chart.png @notes.txt\n"
    bundle = Bundle.from_zip("t", text, {"chart.png": png, "notes.txt": b"x" * 200})
    root = _page(bundle, max_image_bytes=10, max_text_bytes=10)
    assert root.find_all("img") == [] and root.find_all("details") == []
    assert len(root.find_all(cls="lmml-too-large")) == 2
    with pytest.raises(ValueError, match="must not be negative"):
        render_html(bundle, max_text_bytes=-1)


def test_empty_narrative_and_empty_turn() -> None:
    assert "(the narrative is empty)" in _page(Bundle.from_text("t", "")).text
    cards = _cards(_page(Bundle.from_text("t", "## User\n## Assistant\nhi\n")))
    assert cards[0].find("p", "lmml-empty").text == "(empty turn)"


def test_invalid_manifest_is_reported_not_raised() -> None:
    bundle = Bundle.from_zip("t", "## User\nhi\n", {"manifest.json": b"[1, 2"})
    section = _page(bundle).find("section", "lmml-manifest")
    assert section.find("p", "lmml-meta-error").text.startswith("invalid: ")


def test_archive_entries_are_listed_without_reserved_names() -> None:
    footer = _page(sample_bundle()).find("section", "lmml-assets")
    names = [chip.get("data-lmml-name") for chip in footer.find_all("span", "lmml-chip")]
    assert names == ["chart.png", "plot.py", "report.pdf", "logo.svg"]


def test_no_details_inside_phrasing_content() -> None:
    text = "## User\n# @a.txt heading\n\n*see @a.txt* and [link @b.txt](https://x.org)\n"
    bundle = Bundle.from_zip("t", text, {"a.txt": b"A\n", "b.txt": b"B\n"})
    root = _page(bundle)
    for details in root.find_all("details"):
        assert not {a.tag for a in details.ancestors()} & {"p", "h1", "h2", "a", "em", "span"}
    assert [d.get("data-lmml-name") for d in root.find_all("details")] == ["a.txt", "b.txt"]


# --------------------------------------------------------------------------- parsing


def test_the_preview_renders_the_narratives_tokens_without_parsing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bundle = sample_bundle()
    tokens = bundle.narrative.tokens
    before = [(t.type, t.attrs, t.meta, t.content) for t in tokens]
    calls: list[str] = []
    original_parse = MarkdownIt.parse
    original_inline = MarkdownIt.parseInline

    def counting_parse(self: MarkdownIt, src: str, env: object = None) -> object:
        calls.append(src)
        return original_parse(self, src, env)  # type: ignore[arg-type]

    def counting_inline(self: MarkdownIt, src: str, env: object = None) -> object:
        calls.append(src)
        return original_inline(self, src, env)  # type: ignore[arg-type]

    monkeypatch.setattr(MarkdownIt, "parse", counting_parse)
    monkeypatch.setattr(MarkdownIt, "parseInline", counting_inline)
    first = render_html(bundle)
    assert calls == []
    # The shared tokens are read, never changed: a second page is the same page.
    assert [(t.type, t.attrs, t.meta, t.content) for t in tokens] == before
    assert render_html(bundle) == first


def test_turns_follow_the_narratives_own_segmentation() -> None:
    text = "## User\n| a |\n|---|\n| 1 |\n\n## Assistant\nok\n"
    bundle = Bundle.from_text("t", text)
    cards = _cards(_page(bundle))
    assert [c.get("data-lmml-role") for c in cards] == [t.role for t in bundle.narrative.turns]
    assert [c.get("data-lmml-role") for c in cards] == ["user", "assistant"]


# --------------------------------------------------------------------------- links


@pytest.mark.parametrize(
    ("url", "safe"),
    [
        ("https://example.com/a?b#c", True),
        ("http://example.com", True),
        ("mailto:a@example.com", True),
        ("tel:+331234", True),
        ("relative/path.html", True),
        ("#section", True),
        ("//example.com/x", True),
        ("javascript:alert(1)", False),
        ("JavaScript:alert(1)", False),
        (" javascript:alert(1)", False),
        ("java\tscript:alert(1)", False),
        ("java\nscript:alert(1)", False),
        ("\x01javascript:alert(1)", False),
        ("vbscript:msgbox(1)", False),
        ("data:text/html,<script>", False),
        ("data:image/png;base64,AAAA", False),
        ("file:///etc/passwd", False),
        ("ftp://example.com", False),
    ],
)
def test_is_safe_url(url: str, safe: bool) -> None:
    assert is_safe_url(url) is safe


def test_links_keep_safe_targets_and_refuse_the_rest() -> None:
    text = (
        '## User\n[ok](https://example.com "T") [bad](javascript:alert(1)) '
        "[d](data:text/html,x) <https://auto.example> <vbscript:x>\n"
    )
    root = _page(Bundle.from_text("t", text))
    links = root.find_all("a")
    assert [(a.get("href"), a.get("title"), a.get("rel")) for a in links] == [
        ("https://example.com", "T", "nofollow noopener noreferrer"),
        ("https://auto.example", None, "nofollow noopener noreferrer"),
    ]
    body = _cards(root)[0].text
    assert "[bad](javascript:alert(1))" in body and "<vbscript:x>" in body


# --------------------------------------------------------------------------- media types


_BMP = (
    b"BM"
    + struct.pack("<IHHI", 70, 0, 0, 54)
    + struct.pack("<IiiHHIIiiII", 40, 2, 2, 1, 24, 0, 16, 2835, 2835, 0, 0)
    + (b"\x00\x00\xff" * 2 + b"\x00\x00") * 2
)
"""A 2x2 24-bit BMP image."""


@pytest.mark.parametrize(
    ("data", "name", "expected"),
    [
        (make_png(2, 2), "x.bin", "image/png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "x", "image/jpeg"),
        (b"GIF89a\x01\x00\x01\x00", "x", "image/gif"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "x", "image/webp"),
        (SAMPLE_SVG, "x", "image/svg+xml"),
        (b'<?xml version="1.0"?>\n<!-- c -->\n<svg xmlns="x"></svg>', "x", "image/svg+xml"),
        (b"just text", "x.png", "text/plain"),  # a name never makes something an image
        (b"%PDF-1.7", "x", "application/pdf"),
        (b"a,b\n1,2\n", "t.csv", "text/csv"),
        (b"plain", "notes", "text/plain"),
        (b"\x00\x01\x02", "blob", "application/octet-stream"),
        (b"\xff\xfe\xfd", "blob", "application/octet-stream"),
        (b"\xef\xbb\xbf<!-- c -->\n<svg/>", "x", "image/svg+xml"),
        (b"BMW notes", "notes", "text/plain"),  # "BM" alone makes no shown image
        (b"BM\x00\x00\x01\x00", "x.bmp", "application/octet-stream"),
        (b"ID3 tag", "x", "text/plain"),
        # Named by their signature, shown as a chip: a BMP image, audio.
        (_BMP, "x.bmp", "image/bmp"),
        (_BMP, "picture", "image/bmp"),
        (b"RIFF\x24\x00\x00\x00WAVEfmt ", "x", "audio/wav"),
    ],
)
def test_sniff_media_type(data: bytes, name: str, expected: str) -> None:
    assert sniff_media_type(data, name) == expected


def test_an_image_the_page_does_not_show_is_a_chip_named_by_its_type(tmp_path: Path) -> None:
    """A BMP beside the narrative is no ``<img>``: its chip names ``image/bmp``, as
    ``lmml render`` does when it refuses it, not ``application/octet-stream``."""
    (tmp_path / "x.bmp").write_bytes(_BMP)
    (tmp_path / "b.lmml").write_text("## user\nSee @x.bmp\n", encoding="utf-8")
    with open_bundle(tmp_path / "b.lmml") as bundle:
        root = _page(bundle)
    assert root.find_all("img") == []
    (chip,) = [span for span in root.find_all("span") if span.get("data-lmml-name") == "x.bmp"]
    assert "lmml-asset-binary" in chip.classes
    assert chip.find("span", "lmml-chip-meta").text == "image/bmp · 70 B"


# --------------------------------------------------------------------------- options


def test_without_pygments_code_is_plain_escaped_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preview, "PYGMENTS_AVAILABLE", False)
    bundle = Bundle.from_text("t", "## User\n@@@a.py\nif a < b: pass\n@@@\n")
    markup = render_html(bundle)
    assert '<pre class="highlight"><code>if a &lt; b: pass\n</code></pre>' in markup
    assert 'class="k"' not in markup
    monkeypatch.undo()
    assert 'class="k"' in render_html(bundle)
    assert 'class="k"' not in render_html(bundle, highlight=False)


def test_fragment_is_the_scoped_div_only() -> None:
    fragment = render_html(sample_bundle(), fragment=True, title="Custom")
    assert fragment.startswith('<div class="lmml-preview">')
    assert "<html" not in fragment and "<head>" not in fragment and "<body" not in fragment
    assert "<h1>Custom</h1>" in fragment


def test_every_css_rule_is_scoped_to_the_preview() -> None:
    css = re.sub(r"/\*.*?\*/", "", PREVIEW_CSS + preview._pygments_css(), flags=re.S)
    selectors = [s.strip() for block in re.findall(r"([^{}]+)\{", css) for s in block.split(",")]
    assert selectors
    assert [s for s in selectors if not s.startswith(".lmml-preview")] == []


def test_repr_html_is_the_preview() -> None:
    bundle = sample_bundle()
    assert bundle._repr_html_() == render_html(bundle, fragment=True)


def test_write_preview_is_atomic_and_complete(tmp_path: Path) -> None:
    target = tmp_path / "out.html"
    target.write_text("old")
    bundle = sample_bundle()
    write_preview(bundle, target, title="T")
    assert target.read_text(encoding="utf-8") == render_html(bundle, title="T")
    assert os.listdir(tmp_path) == ["out.html"]
    with pytest.raises(OSError):
        write_preview(bundle, tmp_path / "no-such-folder" / "x.html")
    assert os.listdir(tmp_path) == ["out.html"]


# --------------------------------------------------------------------------- examples


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.lmml*")), ids=lambda p: p.name)
def test_shipped_example_structure(path: Path) -> None:
    with open_bundle(path, base_dir=path.parent) as bundle:
        root = _page(bundle)
        narrative = bundle.narrative
        cards = _cards(root)
        assert [c.get("data-lmml-role") for c in cards] == [t.role for t in narrative.turns]
        assert root.find("h1").text == bundle.name
        for image in root.find_all("img"):
            media_type, data = _data_uri_bytes(image.get("src") or "")
            assert media_type == sniff_media_type(data)
            assert data == bundle.embed(image.get("alt") or "")
        fences = {e.name for e in narrative.embeds if e.is_inline}
        shown = {d.get("data-lmml-name") for d in root.find_all("details")}
        assert fences <= shown
        if bundle.manifest:
            assert root.find("section", "lmml-manifest")
        if bundle.settings:
            assert root.find("section", "lmml-settings")
        missing = {m.get("data-lmml-name") for m in root.find_all(cls="lmml-missing")}
        assert missing == {i.name for i in bundle.validate() if i.kind == "missing_reference"}


# --------------------------------------------------------------------------- page budget


def test_embedding_budget_turns_repeated_images_into_chips() -> None:
    """One large image referenced many times must not multiply the page's size."""
    png = make_png(16, 16)
    text = "## User\n" + "@chart.png " * 6 + "\n\n@notes.txt\n"
    bundle = Bundle.from_zip("t", text, {"chart.png": png, "notes.txt": b"n\n" * 10})
    root = _page(bundle, max_embedded_bytes=2 * len(png) + 5)
    assert len(root.find_all("img")) == 2
    chips = root.find_all(cls="lmml-too-large")
    assert [c.get("data-lmml-name") for c in chips] == ["chart.png"] * 4 + ["notes.txt"]
    assert all("max_embedded_bytes" in (c.get("title") or "") for c in chips)
    assert root.find_all("details") == []
    # Inline fences are narrative text: never cut by the budget.
    fenced = Bundle.from_text("t", "## User\n@@@a.txt\nabc\n@@@\n")
    assert len(_page(fenced, max_embedded_bytes=0).find_all("details")) == 1
    with pytest.raises(ValueError, match="max_embedded_bytes"):
        render_html(bundle, max_embedded_bytes=-1)


def test_page_size_stays_bounded_for_a_hostile_repeat() -> None:
    png = make_png(64, 64)
    bundle = Bundle.from_zip("t", "## User\n" + "@big.png " * 2000 + "\n", {"big.png": png})
    budget = 20 * len(png)
    markup = render_html(bundle, max_embedded_bytes=budget)
    assert markup.count("<img") == 20
    assert len(markup) < 2 * budget + 1_000_000


# --------------------------------------------------------------------------- Pygments absent


def test_without_pygments_installed_the_page_still_renders(tmp_path: Path) -> None:
    """Import the preview in a fresh interpreter where ``import pygments`` fails."""
    script = tmp_path / "no_pygments.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys

            class Block:
                def find_spec(self, name, path=None, target=None):
                    if name == "pygments" or name.startswith("pygments."):
                        raise ImportError("blocked for the test: " + name)
                    return None

            sys.meta_path.insert(0, Block())
            import lmml_mdit
            from lmml_mdit.preview import _page as preview
            from lmml_mdit.bundle import Bundle

            assert preview.PYGMENTS_AVAILABLE is False
            text = "## User\\n@@@a.py\\nif a < b: pass\\n@@@\\n\\n```python\\nx = 1\\n```\\n"
            page = lmml_mdit.render_html(Bundle.from_text("t", text))
            assert "if a &lt; b: pass" in page, page
            assert 'class="k"' not in page and "pygments" not in sys.modules
            print("ok")
            """
        )
    )
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


# --------------------------------------------------------------------------- the command


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.lmml*")), ids=lambda p: p.name)
def test_cli_preview_writes_the_same_page_as_the_api(path: Path, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    command = [sys.executable, "-m", "lmml_mdit", "preview", str(path), "-o", str(out)]
    result = subprocess.run(command, capture_output=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    with open_bundle(path) as bundle:
        assert out.read_text(encoding="utf-8") == render_html(bundle)
    page = parse_document(out.read_text(encoding="utf-8"))
    assert page.mismatched == [] and page.root.find_all("script") == []


def test_markdown_image_of_a_non_image_asset_is_not_sent_either() -> None:
    text = "## User\n![page](p.png)\n"
    bundle = Bundle.from_zip("t", text, {"p.png": b"<html><b>not an image</b></html>"})
    root = _page(bundle)
    assert root.find_all("img") == [] and root.find_all("a") == []
    chip = root.find("main").find("span", "lmml-unsent")
    assert chip.get("data-lmml-name") == "p.png"
    assert root.find("main").find_all("b") == []


def test_remote_image_inside_a_link_does_not_nest_links() -> None:
    text = "## User\n[![logo](https://example.com/x.png)](https://example.com/home)\n"
    root = _page(Bundle.from_text("t", text))
    (link,) = root.find_all("a")
    assert link.get("href") == "https://example.com/home"
    assert link.find("span", "lmml-remote").text == "[image: logo]"


def test_a_remote_asset_inside_a_link_does_not_nest_links() -> None:
    """A remote asset referenced in a link's text is its text there: links cannot nest, and
    a browser would cut the outer link at the inner one."""
    remote = json.dumps({"kind": "image", "url": "https://example.com/i.png"}).encode()
    text = "## User\n[see @a.remote.json here](https://example.com/page) and @a.remote.json\n"
    root = _page(Bundle.from_zip("t", text, {"a.remote.json": remote}))
    links = root.find("main").find_all("a")
    assert [a.get("href") for a in links] == [
        "https://example.com/page",
        "https://example.com/i.png",
    ]
    assert all("a" not in {up.tag for up in a.ancestors()} for a in links)
    inner = links[0].find("span", "lmml-remote")
    assert inner.text == "[remote image: https://example.com/i.png]"
    assert links[0].text == "see [remote image: https://example.com/i.png] here"


def test_front_matter_tokens_render_nothing() -> None:
    # A parser with the front matter plugin makes a front_matter token: metadata, not text.
    md = MarkdownIt("commonmark").use(front_matter_plugin).use(lmml_plugin)
    text = "---\ntitle: secret-ish\n---\nPreamble.\n\n## User\nhi\n"
    narrative = lmml_mdit.parse(text, md=md)
    assert narrative.tokens[0].type == "front_matter"
    bundle = Bundle(kind="text", name="t", narrative_name="t.lmml", narrative=narrative)
    root = _page(bundle)
    main = root.find("main")
    assert "title: secret-ish" not in main.text and "<>" not in render_html(bundle)
    assert [card.get("data-lmml-role") for card in _cards(root)] == ["context", "user"]


def test_attributes_a_parser_of_your_own_adds_never_reach_the_page() -> None:
    """mdit-py-plugins' attrs put ids, styles (a ``url()`` a notebook would fetch) and the
    like on tokens: the page keeps only harmless ones, its ids stay its own."""
    md = MarkdownIt("commonmark").use(attrs_plugin).use(attrs_block_plugin).use(lmml_plugin)
    md.enable("table")
    text = (
        "## User\n"
        '[a](https://example.com){#turn-1 .note title="t" style="background:url(https://e.x/t)"}'
        "\n\n"
        '{#turn-2 style="background:url(https://e.x/p)" lang=fr}\nparagraph\n\n'
        '*em*{#x data-y="1"} `code`{#lmml-asset-1 .c}\n\n'
        "| l | r |\n|:--|--:|\n| 1 | 2 |\n"
    )
    narrative = lmml_mdit.parse(text, md=md)
    assert any(t.attrs.get("style") for t in narrative.tokens)  # the plugin did add them
    bundle = Bundle(kind="text", name="t", narrative_name="t.lmml", narrative=narrative)
    for markup in (render_html(bundle), render_html(bundle, fragment=True)):
        root = parse_document(markup).root
        main = root.find("main")
        ids = [e.get("id") for e in root.iter() if e.has("id")]
        assert ids == ["turn-1"]
        styles = [e.get("style") for e in main.iter() if e.has("style")]
        assert styles == ["text-align:left", "text-align:right"] * 2
        assert all(not e.has("data-y") for e in main.iter())
        link = main.find("a")
        assert (link.get("href"), link.get("class"), link.get("title")) == (
            "https://example.com",
            "note",
            "t",
        )
        assert main.find("p").get("lang") == "fr" or main.find_all("p")[1].get("lang") == "fr"
        assert "url(" not in main.text and "url(" not in markup.split("</style>", 1)[1]


def test_tokens_of_a_parser_of_your_own_without_a_rule_keep_their_text() -> None:
    """A plugin's token the page has no rule for (footnotes, math) shows its text, never
    an empty tag (``<>``, ``< />``) nor an element emptied of its content."""
    md = MarkdownIt("commonmark").use(footnote_plugin).use(dollarmath_plugin).use(lmml_plugin)
    text = "## User\nSee[^1] and $x<y$ here\n\n$$\na<b\n$$\n\n[^1]: the note\n"
    narrative = lmml_mdit.parse(text, md=md)
    bundle = Bundle(kind="text", name="t", narrative_name="t.lmml", narrative=narrative)
    markup = render_html(bundle)
    assert not re.search(r"<\s*/?\s*>|< />", markup)
    main = _page(bundle).find("main")
    assert "x<y" in main.text and "a<b" in main.text and "the note" in main.text


def test_a_bare_narrative_shows_the_files_beside_it_and_counts_them(tmp_path: Path) -> None:
    (tmp_path / "chart.png").write_bytes(make_png(3, 2))
    path = tmp_path / "chat.lmml"
    path.write_text("## user\n\nHere: @chart.png, and @gone.png\n")
    page = render_html(lmml_mdit.open(path))
    (summary,) = parse_document(page).root.find_all("p", "lmml-summary")
    assert summary.text.endswith("· 1 file from its folder")
    assert len(parse_document(page).root.find_all("img")) == 1
    alone = render_html(lmml_mdit.open(path, base_dir=False))
    (summary,) = parse_document(alone).root.find_all("p", "lmml-summary")
    assert summary.text.endswith("· 0 assets")


def test_write_preview_options_are_render_html_options() -> None:
    import inspect

    from lmml_mdit.preview import PreviewOptions

    keywords = [
        name
        for name, parameter in inspect.signature(render_html).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    ]
    assert list(PreviewOptions.__annotations__) == keywords


def test_the_page_renderer_gives_markdown_its_html_for_every_commonmark_example() -> None:
    """The page's renderer only does less work per token: with markdown-it's own rules it
    renders every CommonMark example (GFM tables and strikethrough on) byte for byte."""
    examples = json.loads((Path(__file__).parent / "data" / "commonmark-spec.json").read_text())
    gfm = ["table", "strikethrough"]
    ours = MarkdownIt("commonmark", renderer_cls=preview._PageRenderer).enable(gfm)
    theirs = MarkdownIt("commonmark").enable(gfm)
    extra = ["| a | b |\n|---|:-:|\n| ~~c~~ | [d](e 'f') |\n", "- a\n\n  > b\n- ![x](y)\n"]
    for markdown in [example["markdown"] for example in examples] + extra:
        assert ours.render(markdown) == theirs.render(markdown), markdown


def test_a_file_name_that_is_not_utf8_is_shown_escaped_in_the_page(tmp_path: Path) -> None:
    path = tmp_path / os.fsdecode(b"chat\xff.lmml")
    path.write_text("## user\nhi\n", encoding="utf-8")
    page = lmml_mdit.render_html(lmml_mdit.open(path))
    page.encode("utf-8")  # a page every browser can read: no lone surrogate
    assert "<title>chat\\xff · LMML preview</title>" in page
    assert "chat\\xff.lmml" in page
