"""``lmml export``: every option takes effect in the mode asked for or is refused, a
defective bundle is a failure in both modes unless ``--force``, and an output naming a
folder is refused before anything is written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from lmml_mdit.cli import main
from lmml_mdit.dataset import read_parquet

NEAR_MISS = "## Turn 1 - user\n\nhi\n\n**Assistant:**\n\nhello\n"
"""A bold label that looks like a delimiter (line 5, column 3): a warned defect."""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "bad.lmml").write_text("## user\n\nsee @gone.png\n", encoding="utf-8")
    (runs / "good.lmml").write_text("## user\n\nhi\n", encoding="utf-8")
    (runs / "near.lmml").write_text(NEAR_MISS, encoding="utf-8")
    return runs


def _export(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, list[str]]:
    status = main(["export", *(str(arg) for arg in args)])
    return status, capsys.readouterr().err.splitlines()


def test_parquet_fails_a_defective_bundle_unless_force_and_keeps_its_row(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rows.parquet"
    status, err = _export(capsys, folder, "--parquet", out, "--workers", "1")
    assert status == 1
    assert err[0].startswith(f"lmml: error: {folder / 'bad.lmml'}:3:5: missing_reference: ")
    assert err[0].endswith("(fix it, or add --force to send anyway)")
    assert err[1].startswith(f"lmml: warning: {folder / 'near.lmml'}:5:3: suspicious_delimiter: ")
    assert err[2] == f"Exported 2 of 3 bundle(s) from {folder} -> {out}"
    rows = read_parquet(out).to_pylist()
    assert [row["path"] for row in rows] == ["bad.lmml", "good.lmml", "near.lmml"]
    assert [issue["kind"] for issue in rows[0]["issues"]] == ["missing_reference"]
    out.unlink()
    status, err = _export(capsys, folder, "--parquet", out, "--workers", "1", "--force")
    assert status == 0
    assert err[0].startswith(f"lmml: warning: {folder / 'bad.lmml'}:3:5: missing_reference: ")
    assert "--force" not in err[0]
    assert err[-1] == f"Exported 3 of 3 bundle(s) from {folder} -> {out}"
    assert read_parquet(out).num_rows == 3


@pytest.mark.parametrize("force", [False, True])
def test_a_payload_column_is_the_line_jsonl_writes(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], force: bool
) -> None:
    """``--payload P`` holds each bundle's body as ``--jsonl --provider P`` writes it: with
    ``--force``, a defective bundle's too (built as it would be sent), the defect a
    warning note; without, none, the defect an error note."""
    forced = ["--force"] if force else []
    lines = tmp_path / "out.jsonl"
    _export(capsys, folder, "--jsonl", lines, "--provider", "anthropic", *forced)
    rows = tmp_path / "rows.parquet"
    _export(capsys, folder, "--parquet", rows, "--payload", "anthropic", "--workers", "1", *forced)
    written = [json.loads(line) for line in lines.read_text(encoding="utf-8").splitlines()]
    table = read_parquet(rows).to_pylist()
    columns = [json.loads(row["request_anthropic"]) for row in table if row["request_anthropic"]]
    assert columns == written
    assert len(written) == (3 if force else 2)
    [note] = [n for n in table[0]["request_notes"] if "missing_reference" in n["message"]]
    assert note["severity"] == ("warning" if force else "error")


def test_parquet_strict_fails_a_warned_defect(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "bad.lmml").unlink()
    out = tmp_path / "rows.parquet"
    status, err = _export(capsys, folder, "--parquet", out, "--strict")
    assert status == 1
    assert err[0].startswith(f"lmml: error: {folder / 'near.lmml'}:5:3: suspicious_delimiter: ")
    assert err[1] == f"Exported 1 of 2 bundle(s) from {folder} -> {out}"
    assert read_parquet(out).num_rows == 2
    assert _export(capsys, folder, "--parquet", out, "--strict", "--force")[0] == 2


@pytest.mark.parametrize("force", [False, True])
def test_both_modes_name_each_bundle_alike_as_typed(
    folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    force: bool,
) -> None:
    (folder / "sub").mkdir()
    (folder / "bad.lmml").rename(folder / "sub" / "bad.lmml")
    (folder / "broken.lmml").write_bytes(b"## user\n\ncaf\xe9\n")
    monkeypatch.chdir(tmp_path)
    forced = ["--force"] if force else []
    named = {}
    for mode, out in (("--jsonl", "out.jsonl"), ("--parquet", "out.parquet")):
        _, err = _export(capsys, "runs", mode, out, "--workers", "1", *forced)
        named[mode] = sorted(line.split(": ", 3)[2] for line in err if line.startswith("lmml: "))
    expected = sorted(
        [
            os.path.join("runs", "broken.lmml") + ":3:4",
            os.path.join("runs", "near.lmml") + ":5:3",
            os.path.join("runs", "sub", "bad.lmml") + ":3:5",
        ]
    )
    assert named["--jsonl"] == named["--parquet"] == expected


@pytest.mark.parametrize(
    ("given", "refused"),
    [
        (["--parquet", "rows.parquet", "--provider", "anthropic"], "--provider"),
        (["--parquet", "rows.parquet", "-p", "openai"], "--provider"),
        (["--parquet", "rows.parquet", "--unknown-settings", "warn"], "--unknown-settings"),
        (["--jsonl", "out.jsonl", "--payload", "openai"], "--payload"),
        (["--jsonl", "out.jsonl", "--assets", "reference"], "--assets"),
        (["--jsonl", "-", "--assets", "embed"], "--assets"),
    ],
)
def test_an_option_of_the_other_mode_is_refused(
    given: list[str],
    refused: str,
    folder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    status = main(["export", str(folder), *given])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    mode = "--parquet" if "--parquet" in given else "--jsonl"
    [line] = captured.err.splitlines()
    assert line.startswith(f"lmml: error: {refused} has no effect with {mode}")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["runs"]


def test_the_options_of_each_mode_are_taken(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "bad.lmml").unlink()
    out = tmp_path / "rows.parquet"
    status, _ = _export(
        capsys, folder, "--parquet", out, "--payload", "openai", "--assets", "embed"
    )
    assert status == 0 and "request_openai" in read_parquet(out).column_names
    jsonl = tmp_path / "out.jsonl"
    status, _ = _export(capsys, folder, "--jsonl", jsonl, "--provider", "sharegpt")
    assert status == 0 and '"conversations"' in jsonl.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("flag", "example"), [("--parquet", "rows.parquet"), ("--jsonl", "dataset.jsonl")]
)
def test_an_output_naming_a_folder_is_refused(
    flag: str,
    example: str,
    folder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    status, err = _export(capsys, folder, flag, "d/", "--force")
    assert status == 2
    assert err == [
        f"lmml: error: {flag} d/: names a folder (it ends in a separator); give the file to "
        f"write, such as d/{example}"
    ]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["runs"]
    (tmp_path / "d").mkdir()
    status, err = _export(capsys, folder, flag, "d", "--force")
    assert status == 2
    assert err == [
        f"lmml: error: {flag} d: is a folder; give the file to write, such as d/{example}"
    ]
    assert list((tmp_path / "d").iterdir()) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["render", "examples/capitals.lmml", "--input", "country=France", "-o", "{out}/"],
        ["run", "examples/capitals.lmml", "-p", "openai", "--model", "m", "-o", "{out}/"],
        ["pack", "examples/sales-review.lmml", "{out}/"],
    ],
)
def test_every_output_naming_a_folder_is_refused_before_any_work(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "out")
    root = Path(__file__).resolve().parents[1]
    argv = [str(root / a) if a.startswith("examples/") else a.replace("{out}", out) for a in argv]
    assert main(argv) == 2
    assert f"{out}/: names a folder (it ends in a separator)" in capsys.readouterr().err
    assert not os.path.exists(out)


@pytest.mark.parametrize("force", [False, True])
def test_a_payload_that_cannot_be_built_is_a_failure_as_with_jsonl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], force: bool
) -> None:
    """The shipped template example has a required input no export gives: ``--jsonl``
    fails it, and so must ``--parquet --payload`` rather than write an empty request
    column and say every bundle was exported."""
    runs = tmp_path / "runs"
    runs.mkdir()
    example = Path(__file__).parent.parent / "examples" / "capitals.lmml"
    (runs / "capitals.lmml").write_bytes(example.read_bytes())
    (runs / "good.lmml").write_text("## user\n\nhi\n", encoding="utf-8")
    forced = ["--force"] if force else []
    lines = tmp_path / "out.jsonl"
    jsonl_status, jsonl_err = _export(
        capsys, runs, "--jsonl", lines, "--provider", "openai", *forced
    )
    rows = tmp_path / "rows.parquet"
    status, err = _export(
        capsys, runs, "--parquet", rows, "--payload", "openai", "--workers", "1", *forced
    )
    assert (status, jsonl_status) == (1, 1)
    wanted = f"lmml: error: {runs / 'capitals.lmml'}:3:12: missing_input: "
    assert jsonl_err[0].startswith(wanted)
    assert [line for line in err if line.startswith("lmml: ")] == [err[0]]
    assert err[0].startswith(wanted)
    assert err[-1] == f"Exported 1 of 2 bundle(s) from {runs} -> {rows}"
    table = read_parquet(rows).to_pylist()
    assert [row["request_openai"] is None for row in table] == [True, False]


def test_a_damaged_archive_is_named_once_and_alike_in_both_modes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bundle that cannot be read is reported by ``--parquet`` with the very line
    ``--jsonl`` prints: the path as typed, not followed by its absolute path."""
    runs = tmp_path / "runs"
    runs.mkdir()
    example = (Path(__file__).parent.parent / "examples" / "sales-review.lmmlz").read_bytes()
    (runs / "cut.lmmlz").write_bytes(example[: len(example) // 2])
    monkeypatch.chdir(tmp_path)
    typed = os.path.join("runs", "cut.lmmlz")
    _, jsonl_err = _export(capsys, "runs", "--jsonl", "out.jsonl")
    _, parquet_err = _export(capsys, "runs", "--parquet", "rows.parquet")
    [line] = [line for line in parquet_err if line.startswith("lmml: ")]
    assert line.startswith(f"lmml: error: {typed}: the archive ")
    assert str(runs / "cut.lmmlz") not in line
    assert [line] == [line for line in jsonl_err if line.startswith("lmml: ")]
