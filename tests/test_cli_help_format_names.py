"""The command line's help names the chat formats only as the registry
(:mod:`lmml_mdit.chat.providers`) has them: ``lmml --help`` and every subcommand's
``--help`` name no format the registry does not list, and list none by hand (with the
registry's names changed, the lists in the help, and the names in an option's help, follow
them)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _cli import help_text

from lmml_mdit.chat import providers
from lmml_mdit.cli import COMMANDS, main

HELPS = (("--help",), *((name, "--help") for name in COMMANDS))

OFFERING_FORMATS = {"render", "import", "export", "run"}
"""The subcommands with a format option, whose help lists the choices."""

READING_FORMATS = {"import", "export"}
"""The subcommands whose format option takes every format read, not only the providers."""

NAMED = re.compile(r"(?:--provider|--format|-p)[ =]([A-Za-z0-9_.-]+)")
"""A format named to an option: ``--provider anthropic`` in an example."""

DEFAULT = re.compile(r"\(default: ([A-Za-z0-9_.-]+)\)")
"""An option's default, in its help."""

LISTED = re.compile(r"(?:--provider|--format|-p) \{([^}]*)\}")
"""The choices argparse shows for a format option: ``--format {openai,...,sharegpt}``."""

STAND_INS = {
    "PROVIDER_NAMES": ("prov-one", "prov-two"),
    "IMPORT_FORMATS": ("prov-one", "prov-two", "read-only-three"),
}
"""Names the registry does not have, put in its lists' place."""


def _format_options(text: str) -> list[str]:
    """The entries of *text*'s options list for a format option: its name and its help."""
    entries = re.split(r"\n(?=  -)", text.split("\noptions:\n", 1)[-1])
    return [entry for entry in entries if LISTED.search(entry)]


@pytest.fixture(autouse=True)
def _wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one option's help on one line


@pytest.mark.parametrize("argv", HELPS, ids=" ".join)
def test_the_help_names_only_formats_the_registry_lists(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    text = help_text(capsys, *argv)
    named = NAMED.findall(text) + [
        name for option in _format_options(text) for name in DEFAULT.findall(option)
    ]
    choices = [name for listed in LISTED.findall(text) for name in listed.split(",")]
    known = set(providers.FORMATS)
    assert [name for name in named + choices if name not in known] == []
    if argv[0] in OFFERING_FORMATS:
        assert choices, "the command offers its formats as choices"


@pytest.mark.parametrize("argv", HELPS, ids=" ".join)
def test_the_formats_in_the_help_follow_the_registry(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = set(providers.FORMATS)
    before = LISTED.findall(help_text(capsys, *argv))
    for name, names in STAND_INS.items():
        monkeypatch.setattr(providers, name, names)
    text = help_text(capsys, *argv)
    # Each list of choices is the registry's list, as it is now (an installed plugin's
    # names come after the built-in ones).
    after = [listed.split(",") for listed in LISTED.findall(text)]
    assert len(after) == len(before)
    names = STAND_INS["IMPORT_FORMATS" if argv[0] in READING_FORMATS else "PROVIDER_NAMES"]
    for listed in after:
        assert tuple(listed[: len(names)]) == names, listed
        assert not set(listed) & real, listed
    # No line names two of the registry's real names: a list written by hand. One left (an
    # example's ``--provider anthropic``, a default) is a name the other test checks.
    for line in text.splitlines():
        words = set(re.findall(r"[A-Za-z0-9_.-]+", line))
        assert len(words & real) < 2, line


def test_export_names_the_formats_written_as_records_from_the_registry(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    records = [name for name in providers.IMPORT_FORMATS if name not in providers.PROVIDER_NAMES]
    option = _format_options(help_text(capsys, "export", "--help"))[0]
    assert records and all(name in option for name in records)
    for name, names in STAND_INS.items():
        monkeypatch.setattr(providers, name, names)
    option = _format_options(help_text(capsys, "export", "--help"))[0]
    assert "a request body, or read-only-three (default:" in option
    assert not [name for name in records if name in option.split("--provider", 1)[-1]]


def _payload_help(capsys: pytest.CaptureFixture[str]) -> str:
    """The help of ``lmml export --payload``, one line."""
    text = help_text(capsys, "export", "--help").split("\noptions:\n", 1)[-1]
    [entry] = [entry for entry in re.split(r"\n(?=  -)", text) if entry.startswith("  --payload")]
    return " ".join(entry.split())


def test_export_payload_names_what_it_takes_from_the_registry(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--payload P`` takes every format ``--provider`` takes, a provider's request body
    or a record that is no provider's (``sharegpt``), and its help says so from the
    registry, never "provider P's request body"."""
    records = [name for name in providers.IMPORT_FORMATS if name not in providers.PROVIDER_NAMES]
    said = _payload_help(capsys)
    assert records and "provider P's request body" not in said
    assert f"(a request body, or {', or '.join(records)})" in said
    assert "P is one of --provider's choices" in said
    for name, names in STAND_INS.items():
        monkeypatch.setattr(providers, name, names)
    said = _payload_help(capsys)
    assert "(a request body, or read-only-three)" in said
    assert not [name for name in records if name in said]


def test_export_payload_takes_a_record_that_is_no_provider(tmp_path: Path) -> None:
    """Each format of the registry that is no provider is a ``--payload``: its column
    holds the line ``--jsonl`` writes for it."""
    import pyarrow.parquet as pq

    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.lmml").write_text("## user\n\nhi\n\n## assistant\n\nhello\n", encoding="utf-8")
    records = [name for name in providers.IMPORT_FORMATS if name not in providers.PROVIDER_NAMES]
    out = tmp_path / "rows.parquet"
    argv = ["export", str(folder), "--parquet", str(out), "-q"]
    assert main([*argv, *(f"--payload={name}" for name in records)]) == 0
    table = pq.read_table(out)
    for name in records:
        lines = tmp_path / f"{name}.jsonl"
        assert main(["export", str(folder), "--jsonl", str(lines), "-p", name, "-q"]) == 0
        [column] = table.column(f"request_{name}").to_pylist()
        assert json.loads(column) == json.loads(lines.read_text(encoding="utf-8"))
