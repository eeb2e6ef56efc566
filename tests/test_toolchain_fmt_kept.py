"""Promises of ``lmml fmt`` and the mdformat plugin kept (issue 26, "Earlier promises
kept"): a missing file fails as every command fails; wrapping never makes a fence of a bare
``@@@`` paragraph; a delimiter after a byte-order mark stays a delimiter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import mdformat
import pytest
from _installed import subprocess_env

from lmml_mdit import parse
from lmml_mdit.cli import main
from lmml_mdit.toolchain import format_text, outline
from lmml_mdit.toolchain._formatter import _register
from lmml_mdit.toolchain.formatter import EXTENSION_NAME

WIDTHS: list[object] = [1, 5, 20, 80, "no"]


def plugin_format(text: str, wrap: object) -> str:
    """*text* through mdformat itself with the plugin (no check after)."""
    _register()
    return mdformat.text(text, options={"wrap": wrap}, extensions=[EXTENSION_NAME])


@pytest.mark.parametrize("wrap", WIDTHS)
@pytest.mark.parametrize(
    "text",
    [
        "# user\n\n@@@\nfoo bar\n",
        "<!-- user -->\n@@@\nsee @a.txt and more words\n",
        "## Turn 1 -- user\n\nintro\n\n@@@\nfoo\n\n@@@x.txt\nkept\n@@@\n",
    ],
)
def test_wrapping_never_turns_a_bare_marker_paragraph_into_a_fence(text: str, wrap: object) -> None:
    formatted = plugin_format(text, wrap)
    assert outline(parse(formatted)) == outline(parse(text)), formatted
    assert format_text(text, options={"wrap": wrap}) == formatted  # no FormatError either
    assert plugin_format(formatted, wrap) == formatted


@pytest.mark.parametrize("wrap", WIDTHS)
@pytest.mark.parametrize(
    "text",
    [
        "\ufeff## Turn 1 -- user\n\nhello there\n\n## Turn 2 -- assistant\n\nhi\n",
        "\ufeff# user\n\nhello\n",
        "\ufeffuser\n====\n\nhello\n",
        "\ufeff<!-- user -->\nhello there\n",
    ],
)
def test_a_delimiter_after_a_byte_order_mark_stays(text: str, wrap: object) -> None:
    formatted = plugin_format(text, wrap)
    assert [turn.role for turn in parse(formatted).turns] == [
        turn.role for turn in parse(text).turns
    ]
    assert outline(parse(formatted)) == outline(parse(text)), formatted


def test_mdformat_command_line_keeps_a_delimiter_after_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    path.write_bytes(b"\xef\xbb\xbf## Turn 1 -- user\n\nhello there\n\n@@@\nfoo bar\n")
    run = subprocess.run(
        [sys.executable, "-m", "mdformat", "--wrap", "5", "--extensions", "lmml", str(path)],
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    formatted = path.read_text(encoding="utf-8")
    assert formatted.lstrip("\ufeff").startswith("## Turn 1 -- user\n")
    assert [turn.role for turn in parse(formatted).turns] == ["user"]
    assert parse(formatted).embeds == ()


def test_lmml_fmt_of_a_missing_file_is_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.lmml"
    for argv in (["fmt", str(missing)], ["fmt", "--check", str(missing)]):
        assert main(argv) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and err[0].startswith("lmml: error: ") and "nope.lmml" in err[0]
    assert main(["validate", str(missing)]) == 2  # as every other command
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_a_turn_opening_with_a_thematic_break_is_formatted() -> None:
    # A turn's text is read alone: its leading "---" is a thematic break, not front matter
    # (which would hide "Hello" from the check and refuse a faithful result).
    text = "## user\n\n---\n\nHello\n\n---\n\nBye\n"
    rule = "_" * 70
    assert "Hello" in str(outline(parse(text))[0][-1])
    assert format_text(text) == f"## user\n\n{rule}\n\nHello\n\n{rule}\n\nBye\n"


def test_a_refusal_names_the_placeholders_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two setext lines become one ATX line, which joins "{{" and "name }}" into a placeholder.
    path = tmp_path / "odd.lmml"
    path.write_text("{{\nname }} `{{ code }}`\n---\n\n@@@x.txt\n{{ body }} \\{{ kept }}\n@@@\n")
    assert main(["fmt", str(path)]) == 2
    err = capsys.readouterr().err
    assert (
        "the placeholders would be {{ name }}, {{ code }} (in code), {{ body }} (in x.txt), "
        "\\{{ kept }} instead of {{ code }} (in code), {{ body }} (in x.txt), \\{{ kept }}"
    ) in err
    assert "with no name" not in err
