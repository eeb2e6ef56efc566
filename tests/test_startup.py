"""What ``lmml`` loads to start: each command imports the modules its job needs, no more.

Start-up time itself is measured by ``benchmarks/bench_startup.py``; these tests pin the
structure that time rests on, in a fresh interpreter each.
"""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from lmml_mdit._version import VERSION_LINE
from lmml_mdit.cli import COMMANDS, build_parser
from lmml_mdit.cli._options import Parser
from lmml_mdit.cli._parser import SUMMARIES, parse_arguments
from tests._cli import ROOT

_LOADED = """
import json, sys
from lmml_mdit.cli import main
status = main(sys.argv[1:])
print(json.dumps([status, sorted(sys.modules)]))
"""


def _loaded(*args: str) -> tuple[int, set[str], str]:
    """The exit status of ``lmml ARGS``, the modules loaded by its end, and its output."""
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, *args],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
        check=True,
    )
    *output, last = done.stdout.splitlines()
    status, modules = json.loads(last)
    return status, set(modules), "\n".join(output)


BARE = """## system
Answer briefly.

## user
What does @notes.txt say?

@@@notes.txt
Three short lines.
@@@

## assistant
It says to read it.
"""

NOT_FOR_A_BARE_NARRATIVE = {
    # other commands and the layers above the bundle
    "lmml_mdit.cli._interchange",
    "lmml_mdit.cli._render",
    "lmml_mdit.cli._rewrite",
    "lmml_mdit.cli._toolchain",
    "lmml_mdit.cli._editor",
    "lmml_mdit.chat._outgoing",
    "lmml_mdit.preview._page",
    # writing, templates, settings, tool calls and remote assets
    "lmml_mdit.bundle._saving",
    "lmml_mdit.bundle._packing",
    "lmml_mdit.templates",
    "lmml_mdit.narrative._placeholders",
    "lmml_mdit.bundle._setting_values",
    "lmml_mdit.schema",
    "lmml_mdit.narrative._toolcalls",
    "lmml_mdit.bundle._remote",
    # what only archives, digests and writes need
    "zipfile",
    "hashlib",
    "tempfile",
    "shutil",
    "importlib.resources",
}


def test_validating_a_bare_narrative_loads_only_what_it_reads(tmp_path: Path) -> None:
    path = tmp_path / "small.lmml"
    path.write_text(BARE, encoding="utf-8")
    status, modules, _ = _loaded("validate", str(path))
    assert status == 0
    assert "lmml_mdit.bundle._validation" in modules  # the check itself did run
    assert "lmml_mdit.cli._inspection" in modules  # as did the command's own module
    assert modules & NOT_FOR_A_BARE_NARRATIVE == set()


@pytest.mark.parametrize(
    ("content", "module", "kind"),
    [
        ("---\ninputs:\n  who: {type: string}\n---\n## user\nHi\n", "_issues", "unused_input"),
        (
            "---\nsettings:\n  temperature: hot\n---\n## user\nHi\n",
            "_setting_values",
            "invalid_setting",
        ),
        ("## user\nHi\n\n## tool\n@call_1.tool_call.json\n", "_toolcalls", "unknown_tool_call_id"),
        (
            '## user\n@x.remote.json\n\n@@@x.remote.json\n{"kind": 1}\n@@@\n',
            "_remote",
            "invalid_remote_asset",
        ),
    ],
)
def test_each_check_loads_when_the_bundle_holds_its_content(
    tmp_path: Path, content: str, module: str, kind: str
) -> None:
    path = tmp_path / "case.lmml"
    path.write_text(content, encoding="utf-8")
    _, modules, output = _loaded("validate", "--json", str(path))
    assert any(name.endswith(f".{module}") for name in modules)
    assert kind in {issue["kind"] for report in json.loads(output) for issue in report["issues"]}


def test_every_command_names_a_function_that_exists() -> None:
    for name in COMMANDS:
        subparser = build_parser(name)._subparsers._group_actions[0].choices[name]  # type: ignore[union-attr]
        command_handler = subparser.get_default("handler")
        assert callable(command_handler.resolve()), name


def test_a_plain_command_line_skips_the_intermixed_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[object] = []
    intermixed = Parser.parse_known_intermixed_args

    def counted(self: Parser, *args: object, **kwargs: object) -> object:
        calls.append(args)
        return intermixed(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Parser, "parse_known_intermixed_args", counted)
    assert parse_arguments(["validate", "a.lmml", "--json"]).paths == ["a.lmml"]
    assert calls == []  # read whole by the plain parse
    assert parse_arguments(["pack", "a.lmml", "--force", "b.lmmlz"]).dest == "b.lmmlz"
    assert len(calls) == 1  # a positional after an option needs the intermixed one


def test_a_named_command_builds_only_its_own_parser() -> None:
    parser = build_parser("validate")
    choices = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert list(choices) == ["validate"]
    assert set(build_parser()._subparsers._group_actions[0].choices) == set(COMMANDS)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "a.lmml", "b.lmml", "--json"],
        ["validate", "a.lmml", "--json", "b.lmml"],
        ["validate", "--strict", "a.lmml"],
        ["pack", "chat.lmml", "--force", "out.lmmlz"],
        ["pack", "chat.lmml", "out.lmmlz", "--force"],
        ["to-md", "x.lmml", "-q", "--delimiters", "loose"],
        ["render", "x.lmml", "--request", "--set", "max_tokens=300", "--model", "m"],
        ["render", "--provider", "anthropic", "x.lmml", "--set", "a=1", "--set", "b=2"],
        ["export", "folder", "--jsonl", "out.jsonl", "--provider", "openai"],
        ["cat", "x.lmmlz", "--base-dir", ".", "a.png"],
    ],
)
def test_the_quick_parse_reads_every_line_as_the_intermixed_parse(argv: list[str]) -> None:
    quick = parse_arguments(argv)
    subparser = build_parser(argv[0])._subparsers._group_actions[0].choices[argv[0]]  # type: ignore[union-attr]
    assert isinstance(subparser, Parser)
    subparser._intermixing = True  # the intermixed parse alone
    intermixed, extra = subparser.parse_known_intermixed_args(argv[1:])
    assert extra == []
    expected = {key: value for key, value in vars(intermixed).items() if key != "handler"}
    assert {key: getattr(quick, key) for key in expected} == expected


def test_version_and_help_load_the_argument_parser_alone() -> None:
    status, modules, output = _loaded("--version")
    assert status == 0 and output == VERSION_LINE
    assert {name for name in modules if name.startswith("lmml_mdit")} == {
        "lmml_mdit",
        "lmml_mdit._version",
        "lmml_mdit.cli",
        "lmml_mdit.cli._launch",
        "lmml_mdit.lazy",
    }
    status, modules, output = _loaded("--help")
    assert status == 0 and output.strip() == build_parser().format_help().strip()
    assert {"markdown_it", "lmml_mdit.syntax", "lmml_mdit.model", "lmml_mdit.errors"}.isdisjoint(
        modules
    )
    assert "lmml_mdit.cli._commands" not in modules
    assert "lmml_mdit.chat.providers" not in modules  # the registry is read late, if at all
    assert {name for name in modules if name.startswith("lmml_mdit")} == {
        "lmml_mdit",
        "lmml_mdit._version",
        "lmml_mdit.formats",  # the default provider, for the options' help
        "lmml_mdit.lazy",
        "lmml_mdit.cli",
        "lmml_mdit.cli._failure",
        "lmml_mdit.cli._launch",
        "lmml_mdit.cli._options",
        "lmml_mdit.cli._table",
    }


_HELP_IN = """
import gettext, json, sys
gettext.bindtextdomain(gettext.textdomain(), sys.argv[1])
from lmml_mdit.cli import main
status = main(["--help"])
print(json.dumps([status, sorted(sys.modules)]))
"""


def _help_with_catalogues(folder: Path, language: str = "") -> tuple[set[str], str]:
    """The modules ``lmml --help`` loads and its output, gettext's catalogues for the
    current domain read from *folder*, in *language*."""
    done = subprocess.run(
        [sys.executable, "-c", _HELP_IN, str(folder)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "", "LANGUAGE": language},
        check=True,
    )
    *output, last = done.stdout.splitlines()
    status, modules = json.loads(last)
    assert status == 0
    return set(modules), "\n".join(output)


def _write_catalogue(path: Path, translations: dict[str, str]) -> None:
    """A GNU gettext catalogue (``.mo``) at *path* holding *translations*."""
    entries = sorted({"": "Content-Type: text/plain; charset=UTF-8\n", **translations}.items())
    keys = [key.encode() for key, _ in entries]
    values = [value.encode() for _, value in entries]
    start = 28 + 16 * len(entries)
    table = b""
    strings = b""
    for texts in (keys, values):
        for text in texts:
            table += struct.pack("<2I", len(text), start + len(strings))
            strings += text + b"\0"
    header = struct.pack("<7I", 0x950412DE, 0, len(entries), 28, 28 + 8 * len(entries), 0, 0)
    path.parent.mkdir(parents=True)
    path.write_bytes(header + table + strings)


def test_help_without_catalogues_does_not_load_the_locale_module(tmp_path: Path) -> None:
    """No catalogue folder: argparse's messages are their own translations, and gettext,
    which imports :mod:`locale` to list the languages it would look for, is not asked."""
    modules, output = _help_with_catalogues(tmp_path / "missing", "xx")
    assert "locale" not in modules
    assert "show this help message and exit" in output


def test_help_is_translated_where_a_catalogue_is(tmp_path: Path) -> None:
    _write_catalogue(
        tmp_path / "xx" / "LC_MESSAGES" / "messages.mo",
        {"show this help message and exit": "montrer cette aide"},
    )
    _, output = _help_with_catalogues(tmp_path, "xx")
    assert "-h, --help  montrer cette aide" in output


def test_the_summaries_are_the_whole_parser_s_help() -> None:
    assert build_parser(SUMMARIES).format_help() == build_parser().format_help()


@pytest.mark.parametrize(
    "argv", [["validate", "--help"], ["--bogus", "--help"], ["--version", "x"]]
)
def test_other_help_and_version_lines_run_as_before(argv: list[str]) -> None:
    status, modules, _ = _loaded(*argv)
    assert status in (0, 2)
    assert "lmml_mdit.cli._parser" in modules


def test_the_command_line_loads_no_module_kept_at_a_documented_path(tmp_path: Path) -> None:
    """The public modules of ``lmml_mdit.cli`` only re-export names for readers of the docs:
    the command line itself imports the private modules."""
    path = tmp_path / "small.lmml"
    path.write_text(BARE, encoding="utf-8")
    for argv in (
        ["--help"],
        ["validate", "--help"],
        ["validate", str(path)],
        ["render", str(path)],
    ):
        _, modules, _ = _loaded(*argv)
        kept = {name for name in modules if name.startswith("lmml_mdit.cli.")}
        assert {name for name in kept if not name.startswith("lmml_mdit.cli._")} == set(), argv
