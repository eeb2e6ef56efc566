"""Markdown images: which ones name an asset, where they are, and the unsent_image warning."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lmml_mdit
from lmml_mdit import Bundle
from lmml_mdit.narrative import (
    UNSENT_IMAGE,
    image_asset_name,
    markdown_images,
    unsent_image_issues,
    unsent_image_message,
    url_scheme,
)

ROOT = Path(__file__).resolve().parent.parent
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


def _unsent(bundle: Bundle) -> list[tuple[str, int | None, int | None]]:
    return [(i.name, i.line, i.column) for i in bundle.validate() if i.kind == UNSENT_IMAGE]


@pytest.mark.parametrize(
    ("src", "name"),
    [
        ("chart.png", "chart.png"),
        ("./chart.png", "chart.png"),
        ("././a/b.png", "a/b.png"),
        ("charts/q3%20final.png#top", "charts/q3 final.png"),
        ("chart.png?v=2", "chart.png"),
        ("Dockerfile", "Dockerfile"),
        ("https://example.com/chart.png", None),
        ("HTTP://example.com/chart.png", None),
        ("data:image/png;base64,AAAA", None),
        ("mailto:a@example.com", None),
        ("/etc/chart.png", None),
        ("//example.com/chart.png", None),
        ("", None),
        ("#only-a-fragment", None),
        ("?q", None),
        ("c:/x.png", None),
        ("a:b.png", None),
        ("1:2.png", "1:2.png"),  # a scheme starts with a letter
    ],
)
def test_image_asset_name(src: str, name: str | None) -> None:
    assert image_asset_name(src) == name


def test_an_image_naming_an_archive_entry_is_reported_with_its_position() -> None:
    text = "## User\nLook: ![the chart](chart.png)\n"
    bundle = Bundle.from_zip("t", text, {"chart.png": PNG})
    (issue,) = [i for i in bundle.validate() if i.kind == UNSENT_IMAGE]
    assert (issue.name, issue.line, issue.column) == ("chart.png", 2, 7)
    assert issue.message == unsent_image_message("chart.png")
    assert issue.message.endswith("write @chart.png to send the asset")
    # Writing the reference instead is clean: the asset is then sent.
    fixed = Bundle.from_zip("t", "## User\nLook: @chart.png\n", {"chart.png": PNG})
    assert fixed.validate() == []
    (message,) = fixed.messages("openai")
    assert [part["type"] for part in message["content"]] == ["text", "image_url"]


def test_an_image_naming_an_inline_fence_is_reported() -> None:
    text = "## User\n@@@notes.txt\nhello\n@@@\n\nsee ![notes](notes.txt)\n"
    assert _unsent(Bundle.from_text("t", text)) == [("notes.txt", 6, 5)]


def test_an_image_naming_a_file_beside_a_bare_lmml_is_reported(tmp_path: Path) -> None:
    (tmp_path / "chart.png").write_bytes(PNG)
    path = tmp_path / "chat.lmml"
    path.write_text("## User\n![c](chart.png) and ![x](absent.png)\n", encoding="utf-8")
    with lmml_mdit.open(path, base_dir=tmp_path) as bundle:
        assert _unsent(bundle) == [("chart.png", 2, 1)]
    # With no folder to look in, no name is an asset, so nothing is reported.
    assert _unsent(Bundle.from_text("t", path.read_text(encoding="utf-8"))) == []


def test_images_that_name_no_asset_are_not_reported() -> None:
    text = (
        "## User\n![a](https://example.com/chart.png) ![b](missing.png) "
        "![c](data:image/png;base64,AAAA) ![d](/chart.png)\n"
    )
    assert _unsent(Bundle.from_zip("t", text, {"chart.png": PNG})) == []


def test_what_is_no_image_to_the_parser_is_not_reported() -> None:
    text = (
        "## User\n`![a](chart.png)` and \\![b](chart.png) and [c](chart.png)\n\n"
        "```\n![d](chart.png)\n```\n\n    ![e](chart.png)\n\n"
        "<div>\n![f](chart.png)\n</div>\n\n@@@g.md\n![g](chart.png)\n@@@\n"
    )
    bundle = Bundle.from_zip("t", text, {"chart.png": PNG})
    assert _unsent(bundle) == []
    assert list(markdown_images(bundle.narrative)) == []


def test_images_in_containers_and_reference_style() -> None:
    text = (
        "## User\n"
        "> quoted ![q](chart.png)\n"
        "- item\n  ![l](chart.png)\n"
        "# heading ![h](chart.png)\n"
        "[![linked](chart.png)](https://example.com)\n\n"
        "![ref][c] and ![c]\n\n"
        "[c]: ./chart.png\n"
    )
    bundle = Bundle.from_zip("t", text, {"chart.png": PNG})
    assert _unsent(bundle) == [
        ("chart.png", 2, 10),
        ("chart.png", 4, 3),
        ("chart.png", 5, 11),
        ("chart.png", 6, 2),
        ("chart.png", 8, 1),
        ("chart.png", 8, 15),
    ]


def test_positions_skip_an_escaped_look_alike_and_repeated_labels() -> None:
    text = "## User\n\\![a](x.png) ![a](chart.png) ![a](chart.png)\n"
    bundle = Bundle.from_zip("t", text, {"chart.png": PNG})
    assert _unsent(bundle) == [("chart.png", 2, 14), ("chart.png", 2, 30)]
    images = list(markdown_images(bundle.narrative))
    assert [(i.alt, i.src, i.name) for i in images] == [("a", "chart.png", "chart.png")] * 2


def test_a_multiline_paragraph_and_a_non_ascii_line() -> None:
    text = "## User\nfirst line\n  ünïcödé ![é](chart.png)\n"
    assert _unsent(Bundle.from_zip("t", text, {"chart.png": PNG})) == [("chart.png", 3, 11)]


def test_a_name_no_reference_can_spell_says_to_rename() -> None:
    text = "## User\n![x](my%20chart.png)\n"
    bundle = Bundle.from_zip("t", text, {"my chart.png": PNG})
    (issue,) = [i for i in bundle.validate() if i.kind == UNSENT_IMAGE]
    assert issue.name == "my chart.png"
    assert "cannot be written as an @reference" in issue.message
    assert "rename the asset" in issue.message


def test_every_image_is_reported_and_each_name_is_looked_up_once() -> None:
    class Counting:
        def __init__(self, bundle: Bundle) -> None:
            self.bundle = bundle
            self.asked: list[str] = []

        @property
        def narrative(self) -> lmml_mdit.Narrative:
            return self.bundle.narrative

        def has_asset(self, name: str) -> bool:
            self.asked.append(name)
            return self.bundle.has_asset(name)

    text = "## User\n" + "![c](chart.png) " * 50 + "![n](no.png)\n"
    counting = Counting(Bundle.from_zip("t", text, {"chart.png": PNG}))
    issues = unsent_image_issues(counting)
    assert len(issues) == 50
    assert [issue.column for issue in issues[:3]] == [1, 17, 33]
    assert counting.asked == ["chart.png", "no.png"]


def test_cli_validate_reports_the_image_with_its_location(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text("## User\nsee ![c](chart.png)\n", encoding="utf-8")
    (tmp_path / "chart.png").write_bytes(PNG)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "lmml_mdit", "validate", "--base-dir", str(tmp_path), str(path)],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    out = result.stdout.decode()
    assert f"{path}:2:5: unsent_image: " in out, (out, result.stderr.decode())
    assert "write @chart.png" in out


_FRAGMENTS = st.sampled_from(
    [
        "![a](chart.png)",
        "![a](x.png)",
        "\\![a](chart.png)",
        "`![a](chart.png)`",
        "![]( chart.png )",
        "![a *b*](chart.png)",
        "[![a](chart.png)](https://e.org)",
        "@chart.png",
        "text",
        " ",
        "\n",
        "\n\n",
        "\n> ",
        "\n- ",
        "\n  ",
        "\t",
        "é",
        "![",
        "](",
        "\\",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=24))
def test_each_image_position_points_at_its_marker(fragments: list[str]) -> None:
    narrative = lmml_mdit.parse("## User\n" + "".join(fragments))
    for image in markdown_images(narrative):
        # The alt text may run over several lines (continued in a list item or a quote,
        # whose markers it leaves out): the marker's line holds its first line.
        line = narrative.lines[image.line - 1]
        first, *more = image.alt.split("\n")
        assert line[image.column - 1 :].startswith("![" + first + ("" if more else "]")), (
            line,
            image,
        )


def test_an_image_whose_alt_runs_over_lines_is_placed_at_its_marker() -> None:
    narrative = lmml_mdit.parse("## User\n![a\n b](x.png) and ![c\\\nd](y.png)")
    images = markdown_images(narrative)
    assert [(image.alt, image.line, image.column) for image in images] == [
        ("a\n b", 2, 1),
        ("c\\\nd", 3, 16),
    ]


@pytest.mark.parametrize(
    ("url", "scheme"),
    [
        ("https://x", "https"),
        ("HTTPS://x", "https"),
        ("web+evil:x", "web+evil"),
        ("a.b-c:x", "a.b-c"),
        ("chart.png", None),
        ("1a:x", None),
        (":x", None),
        ("é:x", None),
    ],
)
def test_url_scheme(url: str, scheme: str | None) -> None:
    assert url_scheme(url) == scheme


def test_an_image_after_one_whose_alt_holds_a_look_alike() -> None:
    text = "## User\n![a ![b](x.png)](y.png) ![b](chart.png)\n"
    assert _unsent(Bundle.from_zip("t", text, {"chart.png": PNG})) == [("chart.png", 2, 25)]


def test_images_in_a_table_cell_with_an_escaped_pipe_are_located() -> None:
    row = "| x \\| y ![c](chart.png) and ![d](chart.png) \\| q | ![e](chart.png) |"
    text = f"## user\n\n| a | b |\n|---|---|\n{row}\n"
    bundle = Bundle.from_zip("t", text, {"chart.png": b"\x89PNG\r\n\x1a\n"})
    found = [(i.kind, i.line, i.column) for i in bundle.validate() if i.kind == "unsent_image"]
    columns = [row.index("![c]") + 1, row.index("![d]") + 1, row.index("![e]") + 1]
    assert found == [("unsent_image", 5, column) for column in columns]
