"""References name files, not handles (issue 26): the known extensions, their one list in
the docs, and every missing reference reported, counted by name in the command line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

import lmml_mdit
from lmml_mdit import cli
from lmml_mdit.media import EXTENSION_TYPES, FILE_EXTENSION_GROUPS, FILE_EXTENSIONS, is_file_name

DOCS = Path(__file__).resolve().parent.parent / "docs"
HANDLES = (
    "Ping @john.smith about the @app.route decorator in @v1.2; @Builder.Default, @emma.design."
)
FILES = "See @chart.png, @data.tar.gz, @notes.md and @main.py."


def test_the_docs_list_every_known_extension_and_no_other() -> None:
    text = (DOCS / "syntax.md").read_text(encoding="utf-8")
    listed = {}
    for group in FILE_EXTENSION_GROUPS:
        [line] = re.findall(rf"^- {group}: (.*)$", text, re.MULTILINE)
        listed[group] = tuple(re.findall(r"`(\.[^`]+)`", line))
    assert listed == dict(FILE_EXTENSION_GROUPS)


def test_the_media_table_is_part_of_the_known_extensions() -> None:
    assert set(EXTENSION_TYPES) <= FILE_EXTENSIONS
    assert all(ext == ext.lower() and ext.startswith(".") for ext in FILE_EXTENSIONS)


@pytest.mark.parametrize(
    "name", ["chart.png", "data.tar.gz", "notes.md", "main.py", "A.PDF", "chart.pgn", "d.josn"]
)
def test_file_names(name: str) -> None:
    assert is_file_name(name)


@pytest.mark.parametrize(
    "name", ["john.smith", "app.route", "v1.2", "Builder.Default", "emma.design", "a.b/c", "x"]
)
def test_not_file_names(name: str) -> None:
    assert not is_file_name(name)


def test_the_default_and_any_through_parse_and_the_plugin() -> None:
    assert lmml_mdit.parse(HANDLES).embed_names == ()
    assert lmml_mdit.parse(HANDLES, references="any").embed_names == (
        "john.smith",
        "app.route",
        "v1.2",
        "Builder.Default",
        "emma.design",
    )
    md = MarkdownIt("commonmark").use(lmml_mdit.lmml_plugin, references="any")
    assert lmml_mdit.parse(HANDLES, md=md).embed_names[0] == "john.smith"
    expected = ("chart.png", "data.tar.gz", "notes.md", "main.py")
    assert lmml_mdit.parse(FILES).embed_names == expected


def test_a_dotted_name_beside_the_narrative_is_a_reference(tmp_path: Path) -> None:
    (tmp_path / "v1.2").write_text("release notes\n")
    path = tmp_path / "chat.lmml"
    path.write_text(f"## user\n\n{HANDLES}\n")
    with lmml_mdit.open(path) as bundle:
        assert bundle.narrative.embed_names == ("v1.2",)
        assert bundle.validate() == []
    with lmml_mdit.open(path, references="any") as bundle:
        kinds = {issue.kind for issue in bundle.validate()}
        assert kinds == {"missing_reference"}


def _chat(tmp_path: Path) -> Path:
    path = tmp_path / "chat.lmml"
    lines = [f"see @a.png ({n})" if n % 3 else f"and @b.csv ({n})" for n in range(1, 301)]
    path.write_text("## user\n\n" + HANDLES + "\n\n" + "\n\n".join(lines) + "\n")
    return path


def test_every_missing_reference_is_reported(tmp_path: Path) -> None:
    with lmml_mdit.open(_chat(tmp_path)) as bundle:
        issues = bundle.validate()
    assert {issue.kind for issue in issues} == {"missing_reference"}
    assert len(issues) == 300
    assert sum(issue.name == "a.png" for issue in issues) == 200
    lines = [issue.line for issue in issues]
    assert lines == sorted(lines) and len(set(lines)) == 300


def test_validate_counts_the_missing_references_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    assert cli.main(["validate", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out.count("missing_reference") == 300
    assert "300 missing reference(s): a.png (200), b.csv (100)" in err
    assert "john.smith" not in out


def test_render_counts_them_when_it_refuses_and_when_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _chat(tmp_path)
    assert cli.main(["render", str(path)]) == 2
    _, err = capsys.readouterr()
    [line] = err.splitlines()
    assert line.startswith(f"lmml: error: {path}:5:5: missing_reference:")
    assert line.endswith("300 missing reference(s): a.png (200), b.csv (100)")
    assert cli.main(["render", "--force", str(path)]) == 0
    _, err = capsys.readouterr()
    warned = err.splitlines()
    assert sum("missing_reference" in line for line in warned) == 300
    assert warned[-1].endswith("300 missing reference(s): a.png (200), b.csv (100)")


def test_the_summary_names_at_most_ten_missing_assets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """20,000 missing names made one line of 300 KB; the summary counts ten one by one."""
    path = tmp_path / "chat.lmml"
    path.write_text("## user\n\n" + " ".join(f"@f{n}.png" for n in range(2_000)) + "\n")
    assert cli.main(["validate", str(path)]) == 1
    _, err = capsys.readouterr()
    [summary] = [line for line in err.splitlines() if "missing reference(s)" in line]
    assert summary == (
        "2000 missing reference(s): f0.png (1), f1.png (1), f10.png (1), f100.png (1), "
        "f1000.png (1), f1001.png (1), f1002.png (1), f1003.png (1), f1004.png (1), "
        "f1005.png (1), and 1990 more names"
    )


def test_the_cli_flag_keeps_rfc_4_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text(f"## user\n\n{HANDLES}\n")
    assert cli.main(["validate", str(path)]) == 0
    capsys.readouterr()
    assert cli.main(["validate", "--references", "any", str(path)]) == 1
    _, err = capsys.readouterr()
    assert "5 missing reference(s)" in err
