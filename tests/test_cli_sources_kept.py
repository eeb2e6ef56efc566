"""A command never writes over a file it reads: ``render -o`` over its bundle or its
``--cases``/``--inputs`` file, ``import -o`` over the file imported and ``export --jsonl``
over a bundle are refused before any work, and each refusal names a remedy the command has
(commands run in-process through ``lmml_mdit.cli.main``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lmml_mdit.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def one_error(capsys: pytest.CaptureFixture[str], status: int, *fragments: str) -> str:
    """Exit 2 and exactly one ``lmml: error:`` line on stderr holding every fragment."""
    captured = capsys.readouterr()
    assert status == 2, (status, captured.err)
    [line] = captured.err.splitlines()
    assert line.startswith("lmml: error: "), line
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    return line


@pytest.mark.parametrize("name", ["sales-review.lmml", "sales-review.lmmlz"])
@pytest.mark.parametrize("spelled", ["same", "dotted", "linked"])
def test_render_output_over_its_bundle_is_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    spelled: str,
) -> None:
    """``lmml render s.lmml -o s.lmml`` replaced the conversation with its JSON."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / name, name)
    before = Path(name).read_bytes()
    out = {"same": name, "dotted": f"./{name}", "linked": "out.json"}[spelled]
    if spelled == "linked":
        Path(out).symlink_to(name)
    status = main(["render", name, "-o", out])
    one_error(capsys, status, f"lmml: error: {out}: ", "over the source", "-o OUT")
    assert Path(name).read_bytes() == before


def test_render_output_over_its_cases_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "capitals.lmml", "capitals.lmml")
    cases = Path("cases.jsonl")
    cases.write_text('{"country": "France"}\n', encoding="utf-8")
    status = main(["render", "capitals.lmml", "--cases", str(cases), "-o", str(cases)])
    one_error(capsys, status, "cases.jsonl: ", "over the --cases file")
    assert cases.read_text(encoding="utf-8") == '{"country": "France"}\n'


def test_render_output_over_its_inputs_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "capitals.lmml", "capitals.lmml")
    values = Path("values.json")
    values.write_text('{"country": "France"}', encoding="utf-8")
    status = main(["render", "capitals.lmml", "--inputs", str(values), "-o", str(values)])
    one_error(capsys, status, "values.json: ", "over the --inputs file")
    assert values.read_text(encoding="utf-8") == '{"country": "France"}'


def test_render_output_elsewhere_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "sales-review.lmml", "s.lmml")
    Path("s.json").write_text("old", encoding="utf-8")
    assert main(["render", "s.lmml", "-o", "s.json"]) == 0
    assert Path("s.json").read_text(encoding="utf-8").startswith("[\n")
    assert capsys.readouterr().err == "Wrote s.json\n"


def test_to_md_over_its_source_names_no_flag_it_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``to-md`` has no ``--in-place``: its refusal told the user to give it anyway."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "sales-review.lmml", "s.lmml")
    line = one_error(capsys, main(["to-md", "s.lmml", "s.lmml"]), "over the source", "DEST")
    assert "--in-place" not in line
    # pack has the flag, and its refusal still names it
    shutil.copy(EXAMPLES / "sales-review.lmmlz", "s.lmmlz")
    one_error(capsys, main(["pack", "s.lmmlz", "s.lmmlz"]), "over the source", "--in-place")


@pytest.mark.parametrize("out", ["chat.json", "./chat.json"])
def test_import_output_over_the_file_imported_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], out: str
) -> None:
    """``lmml import chat.json -o chat.json`` replaced the chat with a zip archive."""
    monkeypatch.chdir(tmp_path)
    chat = Path("chat.json")
    text = '{"messages": [{"role": "user", "content": "hi"}]}'
    chat.write_text(text, encoding="utf-8")
    status = main(["import", "chat.json", "-o", out])
    one_error(capsys, status, f"lmml: error: {out}: ", "over the file imported", "-o OUT")
    assert chat.read_text(encoding="utf-8") == text
    assert main(["import", "chat.json", "-o", "chat.lmmlz"]) == 0  # elsewhere: written


def test_export_output_over_a_bundle_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lmml export runs --jsonl runs/chat.lmml`` replaced a bundle it read with JSONL."""
    monkeypatch.chdir(tmp_path)
    Path("runs").mkdir()
    bundle = Path("runs/chat.lmml")
    shutil.copy(EXAMPLES / "sales-review.lmml", bundle)
    before = bundle.read_bytes()
    status = main(["export", "runs", "--jsonl", str(bundle)])
    one_error(capsys, status, f"--jsonl {bundle}: refusing to write over a bundle", ".jsonl")
    assert bundle.read_bytes() == before
    assert main(["export", "runs", "--jsonl", "runs/data.jsonl"]) == 0


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["pack", "s.lmml", "s.lmml"], False),  # a bare file cannot be packed in place
        (["pack", "s.lmmlz", "s.lmmlz"], True),
        (["inline", "s.lmmlz", "s.lmmlz"], False),  # nor an archive inlined in place
        (["inline", "s.lmml", "s.lmml"], True),
        (["inline", "s.lmmlz", "s.lmmlz", "--keep-binary"], True),  # binaries stay: a .lmmlz
    ],
)
def test_a_refusal_over_the_source_offers_in_place_only_where_it_works(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    named: bool,
) -> None:
    """``lmml pack s.lmml s.lmml`` said to give ``--in-place``, which then failed too."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "sales-review.lmml", "s.lmml")
    shutil.copy(EXAMPLES / "sales-review.lmmlz", "s.lmmlz")
    line = one_error(capsys, main(argv), "over the source", "give another DEST")
    assert ("--in-place" in line) is named, line
    if named:  # and the flag offered does the job
        assert main([argv[0], argv[1], "--in-place", *argv[3:]]) == 0, capsys.readouterr().err


@pytest.mark.parametrize(("command", "src"), [("pack", "s.lmml"), ("inline", "s.lmmlz")])
def test_in_place_of_the_other_kind_says_to_give_dest_instead(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: str,
    src: str,
) -> None:
    """``lmml pack s.lmml --in-place`` said to give a DEST, which --in-place refuses."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "sales-review.lmml", "s.lmml")
    shutil.copy(EXAMPLES / "sales-review.lmmlz", "s.lmmlz")
    one_error(capsys, main([command, src, "--in-place"]), "give a DEST", "instead of --in-place")
