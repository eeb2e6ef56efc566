"""No command writes over a file beside a bare narrative that the narrative refers to.

The source itself was refused as an output, but not the files its references read:
``lmml to-md chat.lmml notes.txt`` replaced ``notes.txt`` by the Markdown, in which the
file stood only as ``[Attachment: notes.txt]``, so its text was gone; ``lmml pack chat.lmml
photo.png`` replaced the photo by the archive.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lmml_mdit.cli import main
from lmml_mdit.eval import journal_path

NOTES = b"the notes, which must survive\n"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "notes.txt").write_bytes(NOTES)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "data.csv").write_bytes(NOTES)
    (tmp_path / "chat.lmml").write_text(
        "## Turn 1 -- user\n\nRead @notes.txt and @sub/data.csv.\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (("pack", "chat.lmml", "{out}"), "give another DEST"),
        (("inline", "chat.lmml", "{out}"), "give another DEST"),
        (("inline", "chat.lmml", "{out}", "--keep-binary"), "give another DEST"),
        (("to-md", "chat.lmml", "{out}"), "give another DEST"),
        (("preview", "chat.lmml", "-o", "{out}"), "give another -o OUT.html"),
        (("render", "chat.lmml", "-o", "{out}"), "give another -o OUT"),
    ],
)
@pytest.mark.parametrize("out", ["notes.txt", "./sub/data.csv", "sub/../notes.txt"])
def test_an_output_that_is_a_referenced_file_is_refused(
    folder: Path,
    capsys: pytest.CaptureFixture[str],
    argv: tuple[str, ...],
    hint: str,
    out: str,
) -> None:
    status = main([argument.format(out=out) for argument in argv])
    err = capsys.readouterr().err.splitlines()
    assert status == 2
    name = os.path.normpath(out)
    assert err == [
        f"lmml: error: {out}: refusing to write over {name}, a file chat.lmml refers to, "
        f"which this command reads ({hint})"
    ]
    assert (folder / name).read_bytes() == NOTES


def test_render_of_cases_is_refused_too(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "chat.lmml").write_text(
        "---\ninputs:\n  who: {type: string}\n---\n## Turn 1 -- user\n\n"
        "Read @notes.txt, {{ who }}.\n",
        encoding="utf-8",
    )
    (folder / "cases.jsonl").write_text('{"who": "bob"}\n', encoding="utf-8")
    assert main(["render", "chat.lmml", "--cases", "cases.jsonl", "-o", "notes.txt"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "lmml: error: notes.txt: refusing to write over notes.txt, a file chat.lmml refers "
        "to, which this command reads (give another -o OUT)"
    ]
    assert (folder / "notes.txt").read_bytes() == NOTES


def test_run_refuses_it_before_sending(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # No server: the refusal comes before any request.
    argv = ["run", "chat.lmml", "-o", "notes.txt", "--provider", "openai", "--model", "m"]
    argv += ["--base-url", "http://127.0.0.1:9/v1"]
    assert main(argv) == 2
    assert capsys.readouterr().err.splitlines() == [
        "lmml: error: notes.txt: refusing to write over notes.txt, a file chat.lmml refers "
        "to, which this command reads (give another -o OUT)"
    ]
    assert (folder / "notes.txt").read_bytes() == NOTES


def test_a_link_to_a_referenced_file_is_refused(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.symlink("notes.txt", folder / "link.md")
    assert main(["to-md", "chat.lmml", "link.md"]) == 2
    assert "refusing to write over notes.txt" in capsys.readouterr().err
    assert (folder / "notes.txt").read_bytes() == NOTES


def test_an_unreferenced_file_beside_it_is_still_written(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder / "other.md").write_bytes(b"old")
    assert main(["to-md", "chat.lmml", "other.md"]) == 0
    assert b"[Attachment: notes.txt]" in (folder / "other.md").read_bytes()


def test_base_dir_names_the_folder_whose_files_are_kept(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "notes.txt").write_bytes(NOTES)
    (elsewhere / "sub").mkdir()
    (elsewhere / "sub" / "data.csv").write_bytes(NOTES)
    out = str(elsewhere / "notes.txt")
    assert main(["to-md", "chat.lmml", out, "--base-dir", str(elsewhere)]) == 2
    assert f"{out}: refusing to write over notes.txt" in capsys.readouterr().err
    assert (elsewhere / "notes.txt").read_bytes() == NOTES


@pytest.mark.parametrize(
    ("results", "report", "what"),
    [
        ("run.jsonl", "capitals.lmml", "the source"),
        ("run.jsonl", "capitals.cases.jsonl", "the --cases file"),
        ("run.jsonl", "run.jsonl", "the results file"),
        ("run.parquet", "run.parquet.journal.jsonl", "the results journal"),
        ("run.jsonl", "notes.txt", None),
    ],
)
def test_eval_refuses_a_report_over_a_file_it_reads(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    results: str,
    report: str,
    what: str | None,
) -> None:
    # The report was written at the end of the run, over the template, the cases or the
    # results the run had just appended to; now nothing is sent (no server listens).
    monkeypatch.chdir(tmp_path)
    files = {
        "capitals.lmml": b"## Turn 1 -- user\n\nCapital of {{ country }}? See @notes.txt.\n",
        "capitals.cases.jsonl": b'{"country": "France"}\n',
        journal_path(results): b"",
        "notes.txt": NOTES,
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "capitals.lmml").write_bytes(
        b"---\ninputs:\n  country: string\n---\n" + files["capitals.lmml"]
    )
    files["capitals.lmml"] = (tmp_path / "capitals.lmml").read_bytes()
    argv = ["eval", "capitals.lmml", "--cases", "capitals.cases.jsonl", "--out", results]
    argv += ["--target", "openai:m@http://127.0.0.1:9/v1", "--retries", "0"]
    assert main([*argv, "--report", report]) == 2
    if what is None:
        expected = (
            f"lmml: error: {report}: refusing to write over notes.txt, a file capitals.lmml "
            "refers to, which this command reads (give another --report REPORT.html)"
        )
    else:
        expected = (
            f"lmml: error: {report}: refusing to write over {what}, which this command "
            "reads (give another --report REPORT.html)"
        )
    assert capsys.readouterr().err.splitlines() == [expected]
    assert {name: (tmp_path / name).read_bytes() for name in files} == files


@pytest.mark.parametrize("results", ["new.jsonl", "new.parquet"])
def test_eval_refuses_a_report_over_results_not_made_yet(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    results: str,
) -> None:
    # The run would make the results (or the journal), then the report replace them.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.lmml").write_text(
        "---\ninputs:\n  country: string\n---\n## Turn 1 -- user\n\n{{ country }}?\n",
        encoding="utf-8",
    )
    (tmp_path / "c.jsonl").write_text('{"country": "France"}\n', encoding="utf-8")
    report = journal_path(results)
    argv = ["eval", "t.lmml", "--cases", "c.jsonl", "--out", results, "--report", report]
    argv += ["--target", "openai:m@http://127.0.0.1:9/v1", "--retries", "0"]
    assert main(argv) == 2
    what = "the results file" if report == results else "the results journal"
    assert capsys.readouterr().err.splitlines() == [
        f"lmml: error: {report}: refusing to write over {what}, which this command reads "
        "(give another --report REPORT.html)"
    ]
    assert sorted(os.listdir(tmp_path)) == ["c.jsonl", "t.lmml"]


def test_preview_refuses_to_write_over_its_inputs_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # render refused it; preview replaced the values with the page.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.lmml").write_text(
        "---\ninputs:\n  country: string\n---\n## Turn 1 -- user\n\n{{ country }}?\n",
        encoding="utf-8",
    )
    values = b'{"country": "France"}\n'
    (tmp_path / "in.json").write_bytes(values)
    assert main(["preview", "t.lmml", "--inputs", "in.json", "-o", "in.json"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "lmml: error: in.json: refusing to write over the --inputs file, which this command "
        "reads (give another -o OUT.html)"
    ]
    assert (tmp_path / "in.json").read_bytes() == values
