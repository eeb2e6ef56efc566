"""Bundles and transcripts in a notebook: what IPython's display machinery (the one
Jupyter uses) gets from them, HTML and Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.formatters import DisplayFormatter

import lmml_mdit
from lmml_mdit import Bundle, Transcript
from lmml_mdit.preview import display_markdown

ROOT = Path(__file__).resolve().parent.parent
HTML = "text/html"
MARKDOWN = "text/markdown"


def shown(value: object) -> dict[str, object]:
    data, _ = DisplayFormatter().format(value)
    return data


def test_a_bundle_displays_as_html_and_markdown() -> None:
    with lmml_mdit.open(ROOT / "examples" / "weather-tools.lmml") as bundle:
        data = shown(bundle)
        assert data[HTML] == lmml_mdit.render_html(bundle, fragment=True)
        markdown = data[MARKDOWN]
    assert isinstance(markdown, str)
    # The comment delimiter, an invisible HTML comment in Markdown, shows its role.
    assert markdown.startswith("**system**\n\nYou are a weather assistant.")
    assert "[Attachment: call_1.tool_call.json]" in markdown
    assert "<!--" not in markdown


def test_display_markdown_is_to_markdown_with_comment_roles_shown() -> None:
    bundle = Bundle.from_text("x", "intro\n<!-- user -->\nSee @a.png.\n## assistant\nok\n")
    assert lmml_mdit.to_markdown(bundle) == (
        "intro\n<!-- user -->\nSee [Image: a.png].\n## assistant\nok\n"
    )
    assert display_markdown(bundle) == (
        "intro\n\n**user**\n\nSee [Image: a.png].\n## assistant\nok\n"
    )


def test_a_transcript_displays_as_the_preview_does() -> None:
    transcript = Transcript()
    transcript.append("system", "Be brief.")
    transcript.append("alice", "Look at @chart.png")
    transcript.add_asset("chart.png", b"\x89PNG\r\n\x1a\n" + bytes(64))
    data = shown(transcript)
    html = data[HTML]
    assert isinstance(html, str)
    assert html == lmml_mdit.render_html(transcript.to_bundle(), fragment=True)
    assert html.startswith('<div class="lmml-preview">') and "<script" not in html
    assert "Look at" in html
    markdown = data[MARKDOWN]
    assert isinstance(markdown, str)
    assert "Be brief." in markdown and "[Image: chart.png]" in markdown


def test_a_transcript_that_cannot_be_written_falls_back_to_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    transcript = Transcript()
    transcript.append("alice", "hi")

    def refuse(*args: object, **kwargs: object) -> Bundle:
        raise lmml_mdit.TranscriptFormatError("cannot be written")

    monkeypatch.setattr(Transcript, "to_bundle", refuse)
    data = shown(transcript)
    assert HTML not in data and MARKDOWN not in data
    assert "text/plain" in data


def test_front_matter_is_not_shown_in_the_markdown_display() -> None:
    # The preview shows no front matter; a Markdown-only front end would draw the block as
    # a rule and a heading (its last line over the closing `---`), so it is left out.
    from markdown_it import MarkdownIt

    with lmml_mdit.open(ROOT / "examples" / "capitals.lmml") as bundle:
        markdown = shown(bundle)[MARKDOWN]
        exported = lmml_mdit.to_markdown(bundle)
    assert isinstance(markdown, str)
    assert exported.startswith("---\ninputs:\n")  # the export keeps it, for Markdown tools
    assert "inputs:" not in markdown and "max-latency" not in markdown
    assert markdown.lstrip("\n").startswith("## system\n")
    html = MarkdownIt("commonmark").render(markdown)
    assert "<hr" not in html and html.startswith("<h2>system</h2>")
