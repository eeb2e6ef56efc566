"""The Pygments lexer: found by Pygments through its entry point, LMML's constructs marked,
and used by the preview for LMML source."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pygments.plugin
import pytest
from _installed import ROOT, entry_points_text, metadata_folder, subprocess_env
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Generic, Name, Text, _TokenType

from lmml_mdit import Bundle, parse, render_html
from lmml_mdit.preview.lexer import (
    EMBED_MARKER,
    EMBED_NAME,
    ESCAPE,
    FRONT_MATTER_MARKER,
    PLACEHOLDER,
    REFERENCE,
    ROLE,
    LmmlLexer,
)


def tokens(text: str) -> list[tuple[_TokenType, str]]:
    return [(kind, value) for kind, value in LmmlLexer().get_tokens(text)]


def marked(text: str, kind: _TokenType) -> list[str]:
    return [value for token_kind, value in tokens(text) if token_kind is kind]


def _forget_plugins() -> None:
    # Pygments caches what its entry points held when first asked (pygments >= 2.18).
    cache_clear = getattr(pygments.plugin.iter_entry_points, "cache_clear", None)
    if cache_clear is not None:
        cache_clear()


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The wheel's metadata first on the path, Pygments' plugin list read afresh."""
    monkeypatch.syspath_prepend(str(metadata_folder()))
    importlib.invalidate_caches()
    _forget_plugins()
    yield
    _forget_plugins()


def test_the_wheel_declares_the_entry_point() -> None:
    assert "[pygments.lexers]\nlmml = lmml_mdit.preview.lexer:LmmlLexer\n" in entry_points_text()


def test_pygments_finds_the_lexer_by_name_and_file_name(installed: None) -> None:
    assert isinstance(get_lexer_by_name("lmml"), LmmlLexer)
    assert isinstance(get_lexer_for_filename("chat.lmml"), LmmlLexer)


def test_pygmentize_highlights_a_file(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text("# user\n\nSee @chart.png.\n")
    run = subprocess.run(
        [sys.executable, "-m", "pygments", "-l", "lmml", "-f", "html", str(path)],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert '<span class="nv">@chart.png</span>' in run.stdout
    assert '<span class="kp">user</span>' in run.stdout


def test_fence_content_is_highlighted_by_the_embeds_extension() -> None:
    text = "@@@settings.yaml\ntemperature: 0.2\n@@@\n\n@@@tool.py\nimport os@@@\n"
    found = tokens(text)
    assert marked(text, EMBED_MARKER) == ["@@@"] * 4
    assert marked(text, EMBED_NAME) == ["settings.yaml", "tool.py"]
    assert (Name.Tag, "temperature") in found  # YAML's key
    assert (Name.Namespace, "os") in found  # Python's import
    assert "".join(value for _, value in found) == text


def test_an_unknown_extension_is_plain_text_and_an_unclosed_fence_runs_to_the_end() -> None:
    text = "@@@notes.unknownext\n# user\n*x*\n"
    assert marked(text, EMBED_NAME) == ["notes.unknownext"]
    assert marked(text, ROLE) == []  # content, not a delimiter
    assert (Text, "# user\n*x*\n") in tokens(text)


def test_references_and_escapes_are_marked_in_prose_only() -> None:
    text = "See @chart.png, \\@skip.png, bob@example.com, @alice and `@code.png`.\n"
    assert marked(text, REFERENCE) == ["@chart.png"]
    assert marked(text, ESCAPE) == ["\\@"]


def test_role_delimiters_are_marked() -> None:
    text = (
        "## Turn 1 -- user\n\nhi\n\n<!-- assistant -->\nok\n\n"
        "System\n======\n\n### System requirements\n"
    )
    assert marked(text, ROLE) == ["user", "assistant", "System"]
    kinds = dict((value, kind) for kind, value in tokens(text))
    assert kinds["## Turn 1 -- "] is Generic.Heading
    assert kinds["<!-- "] is Comment.Special


def test_a_heading_with_a_long_run_of_white_space_is_read_in_one_pass() -> None:
    """A heading line is read in one pass: 200 KB of white space before a closing ``#``
    (quadratic before) lexes at once; a closing sequence is left out of the role."""
    long_line = "# a" + " \t" * 100_000 + "#x\n"
    assert "".join(value for _, value in tokens(long_line)) == long_line
    assert marked("## user  ##\nhi\n", ROLE) == ["user"]
    assert marked("## user #x\nhi\n", ROLE) == []


def test_code_fences_are_markdown_not_lmml() -> None:
    text = "```\n@@@a.txt\n# user\n```\n"
    assert marked(text, EMBED_MARKER) == []
    assert marked(text, ROLE) == []


def test_front_matter_is_yaml_between_its_markers() -> None:
    # Markdown alone reads the block as a rule and a setext heading (its last line).
    text = "---\ninputs:\n  country: string\n---\n\n## user\n\nWhat of {{ country }}?\n"
    found = tokens(text)
    assert (Name.Tag, "inputs") in found and (Name.Tag, "country") in found  # YAML's keys
    assert marked(text, FRONT_MATTER_MARKER) == ["---", "---"]
    assert not [value for kind, value in found if kind in Generic.Subheading]
    assert marked(text, ROLE) == ["user"]
    assert "".join(value for _, value in found) == text


def test_only_a_closed_block_on_the_first_line_is_front_matter() -> None:
    for text in (
        "---\nnot: closed\n",  # never closed: Markdown
        "intro\n\n---\na: 1\n---\n",  # not on the first line
        "----\na: 1\n----\n",  # four dashes: a thematic break
    ):
        assert marked(text, FRONT_MATTER_MARKER) == [], text
    closed_by_dots = "---\na: 1\n...\nhi\n"
    assert marked(closed_by_dots, FRONT_MATTER_MARKER) == ["---", "..."]


_FRONT_MATTER_LINES = ["---", "--- ", "----", "   ---", "    ---", "...", "....", "a: 1", "- x"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([*_FRONT_MATTER_LINES, "", "## user", "\t---", "> ---"]), min_size=1),
    st.sampled_from(["", "\n"]),
)
def test_front_matter_ends_where_the_parser_ends_it(lines: list[str], end: str) -> None:
    text = "\n".join(lines) + end
    first = parse(text).parsed_tokens[:1]
    parsed = first[0].map[1] if first and first[0].type == "front_matter" and first[0].map else 0
    marks = [
        at
        for at, kind, _ in LmmlLexer().get_tokens_unprocessed(text)
        if kind is FRONT_MATTER_MARKER
    ]
    assert (text[: marks[-1]].count("\n") + 1 if marks else 0) == parsed


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="@#<>!-= \n\\`~abc.txyz*_", max_size=200))
def test_tokens_cover_the_text_exactly(text: str) -> None:
    offset = 0
    for at, _, value in LmmlLexer().get_tokens_unprocessed(text):
        assert at == offset
        offset += len(value)
    assert "".join(value for _, _, value in LmmlLexer().get_tokens_unprocessed(text)) == text


def test_a_templates_placeholders_are_marked_where_a_value_fills_them() -> None:
    # They were Markdown text; the parse decides which are placeholders.
    text = (ROOT / "examples" / "capitals.lmml").read_text(encoding="utf-8")
    assert marked(text, PLACEHOLDER) == ["{{ country }}"]
    template = (
        "\ufeff---\r\ninputs:\r\n  city: string\r\n  snippet: {type: string, in_code: true}\r\n"
        "---\r\n## user\r\n\r\nIn **{{ city }}**, {{city}} and \\{{ city }} and `{{ city }}`:"
        "\r\n\r\n```python\r\n{{ snippet }}\r\n```\r\n"
    )
    unprocessed = list(LmmlLexer().get_tokens_unprocessed(template))
    assert [value for _, kind, value in unprocessed if kind is PLACEHOLDER] == [
        "{{ city }}",
        "{{city}}",
        "{{ snippet }}",
    ]
    assert "".join(value for _, _, value in unprocessed) == template


def test_braces_in_a_narrative_declaring_no_inputs_stay_text() -> None:
    text = "## user\n\nHow do I write {{ name }} in Jinja?\n"
    assert marked(text, PLACEHOLDER) == []


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="{} \n\\`ab.@#-", max_size=120))
def test_a_templates_tokens_cover_the_text_exactly(body: str) -> None:
    text = "---\ninputs:\n  a: string\n---\n## user\n\n" + body
    offset = 0
    for at, kind, value in LmmlLexer().get_tokens_unprocessed(text):
        assert at == offset
        offset += len(value)
        if kind is PLACEHOLDER:
            assert value.startswith("{{") and value.endswith("}}")
    assert offset == len(text)


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*.lmml")), ids=str)
def test_examples_lex_whole(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = tokens(text)
    assert "".join(value for _, value in found) == text
    assert marked(text, ROLE)


def test_the_preview_highlights_lmml_source() -> None:
    narrative = "# user\n\n```lmml\n# assistant\n@@@a.py\nimport os\n@@@\n```\n\n@chat.lmml\n"
    bundle = Bundle.from_zip("x", narrative, {"chat.lmml": b"## Turn 1 -- user\nSee @b.png.\n"})
    page = render_html(bundle, fragment=True)
    assert '<span class="kp">assistant</span>' in page
    assert '<span class="k">@@@</span><span class="nl">a.py</span>' in page
    assert '<span class="kn">import</span>' in page
    assert '<span class="nv">@b.png</span>' in page  # the .lmml asset's expansion
