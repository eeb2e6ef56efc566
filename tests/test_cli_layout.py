"""The command line's pieces: the typed arguments, the one progress display, and the
library's progress callbacks that draw nothing themselves."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from lmml_mdit import export_folder, import_path
from lmml_mdit.cli import COMMANDS, Arguments, ProgressLine, build_parser, main, shown
from lmml_mdit.cli._parser import parse_arguments
from lmml_mdit.cli._render import cmd_render

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sales-review.lmml"


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_package_keeps_its_entry_points(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["turns", str(EXAMPLE)]) == 0
    assert "user" in capsys.readouterr().out
    help_text = build_parser().format_help()
    assert all(command in help_text for command in COMMANDS)
    assert shown("a\x1bb") == "a\\x1bb"


def test_arguments_are_typed_with_defaults_for_options_a_command_lacks() -> None:
    args = parse_arguments(["turns", "x.lmml"])
    assert isinstance(args, Arguments)
    assert (args.path, args.json, args.quiet, args.in_place) == ("x.lmml", False, False, False)
    assert (args.delimiters, args.references, args.base_dir) == ("strict", "assets", None)
    assert args.handler.name == "cmd_turns"
    args = parse_arguments(["to-md", "x.lmml", "-q", "--delimiters", "loose"])
    assert (args.quiet, args.in_place, args.delimiters, args.dest) == (True, False, "loose", None)
    args = parse_arguments(["render", "x.lmml", "--request", "--set", "max_tokens=300"])
    assert args.handler.resolve() is cmd_render
    assert args.settings == [("max_tokens", 300)]


@pytest.mark.parametrize(
    ("total", "calls", "expected"),
    [
        (3, [(1, "a.lmml"), (2, "b.lmml")], "validating: 2/3 b.lmml"),
        (None, [(7, "000007")], "validating: 7 000007"),
    ],
)
def test_progress_line_draws_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
    total: int | None,
    calls: list[tuple[int, str]],
    expected: str,
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    with ProgressLine("validating", total) as progress:
        for done, detail in calls:
            progress.step(done, detail)
        drawn = terminal.getvalue()
    assert drawn.rsplit("\r", 1)[-1].rstrip() == expected
    assert terminal.getvalue().endswith("\r")  # cleared on exit


def test_progress_line_is_silent_off_a_terminal_and_for_one_item(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    with ProgressLine("hashing", 5) as progress:
        progress.step(1, "x")
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    with ProgressLine("hashing", 1) as progress:
        progress.step(1, "x")
    assert pipe.getvalue() == "" and terminal.getvalue() == ""


def test_progress_line_escapes_the_detail(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    ProgressLine("exporting")(1, None, "evil\x1b[2J.lmml")
    assert "\x1b" not in terminal.getvalue() and "evil\\x1b[2J.lmml" in terminal.getvalue()


def test_the_library_reports_progress_and_draws_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    chat = tmp_path / "chats.jsonl"
    line = json.dumps([{"role": "user", "content": "hi"}])
    chat.write_text(f"{line}\n{line}\n", encoding="utf-8")
    seen: list[tuple[int, int | None, str]] = []

    def record(done: int, total: int | None, detail: str) -> None:
        seen.append((done, total, detail))

    import_path(chat, tmp_path / "bundles", progress=record)
    export_folder(tmp_path / "bundles", "openai", tmp_path / "quiet.jsonl", workers=1)
    assert seen == [(1, None, "000001"), (2, None, "000002")]
    assert terminal.getvalue() == ""  # no callback: nothing drawn, even on a terminal
    export_folder(tmp_path / "bundles", "openai", tmp_path / "o.jsonl", 1, record)
    assert [done for done, _, _ in seen[2:]] == [1, 2]
    assert terminal.getvalue() == ""


@pytest.mark.parametrize(
    ("name", "rows", "expected"),
    [
        ("sales-review.lmmlz", 5, "hashing: 5/5 report.pdf"),  # five entries, all referenced
        ("sales-review.lmml", 3, "hashing: 3/3 sales.csv"),  # three fences, all referenced
    ],
)
def test_ls_counts_each_asset_once(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    rows: int,
    expected: str,
) -> None:
    # The total counted an archive entry once as an entry and again as a reference to
    # it, so the counter of sales-review.lmmlz ended at 5/10.
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["ls", str(EXAMPLE.with_name(name))]) == 0
    drawn = [line.rstrip() for line in terminal.getvalue().split("\r") if line.strip()]
    assert drawn[-1] == expected
    assert len(capsys.readouterr().out.splitlines()) == rows + 1  # and the header


def test_ls_counts_a_folder_file_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    (tmp_path / "b.txt").write_text("b", encoding="utf-8")
    chat = tmp_path / "chat.lmml"
    chat.write_text("## Turn 1 -- user\n\n@a.txt @b.txt @a.txt\n", encoding="utf-8")
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["ls", str(chat)]) == 0
    drawn = [line.rstrip() for line in terminal.getvalue().split("\r") if line.strip()]
    assert drawn[-1] == "hashing: 2/2 b.txt"
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]] == [
        "file",
        "file",
    ]
