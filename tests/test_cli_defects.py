"""The ``lmml`` command line on defective and foreign input: errors a user can act on,
defects that stop the send, a bare ``.lmml`` that sees its folder (subprocess tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from _bundle_files import make_zip

ROOT = Path(__file__).resolve().parent.parent
ZIP_EXAMPLE = ROOT / "examples" / "sales-review.lmmlz"
PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16
READING_COMMANDS = ("validate", "render", "turns", "ls", "cat", "pack", "inline", "to-md",
                    "preview", "info", "export", "inputs")  # fmt: skip


def run(
    *args: object, stdin: bytes = b"", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    env.pop("LMML_DEBUG", None)
    result = subprocess.run(
        [sys.executable, "-m", "lmml_mdit", *(str(arg) for arg in args)],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )
    return subprocess.CompletedProcess(
        result.args, result.returncode, result.stdout.decode(), result.stderr.decode()
    )


def one_error(result: subprocess.CompletedProcess[str], *fragments: str) -> str:
    """Exit 2 and exactly one ``lmml: error:`` line holding every fragment."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("lmml: error: "), line
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    return line


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    """A bare narrative with its image beside it."""
    (tmp_path / "chart.png").write_bytes(PNG)
    path = tmp_path / "chat.lmml"
    path.write_text("## Turn 1 -- user\n\nWhat does @chart.png show?\n", encoding="utf-8")
    return path


# -- a bare .lmml sees its own folder -------------------------------------------------------


def test_every_command_that_reads_a_bundle_takes_base_dir() -> None:
    for command in READING_COMMANDS:
        result = run(command, "--help")
        assert "--base-dir DIR" in result.stdout, command


def test_render_resolves_against_the_files_own_folder(chat: Path, tmp_path: Path) -> None:
    result = run("render", chat, cwd=tmp_path.parent)
    assert result.returncode == 0, result.stderr
    [message] = json.loads(result.stdout)
    assert message["content"][1]["type"] == "image_url"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    one_error(run("render", chat, "--base-dir", elsewhere), "missing_reference")


def test_pack_takes_the_files_beside_the_narrative(chat: Path, tmp_path: Path) -> None:
    dest = tmp_path / "out.lmmlz"
    result = run("pack", chat, dest)
    assert result.returncode == 0, result.stderr
    with zipfile.ZipFile(dest) as archive:
        assert sorted(archive.namelist()) == ["chart.png", "out.lmml"]


def test_pack_refuses_a_reference_that_stays_unresolved(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text("## Turn 1 -- user\n\nsee @gone.png and @lost.pdf\n", encoding="utf-8")
    validated = run("validate", path).stdout.splitlines()
    result = run("pack", path, tmp_path / "out.lmmlz")
    assert result.returncode == 1
    assert not (tmp_path / "out.lmmlz").exists()
    lines = result.stderr.splitlines()
    assert lines[:2] == [f"lmml: error: {line}" for line in validated]
    assert f"{path}:3:5: missing_reference: " in lines[0]
    assert f"{path}:3:19: missing_reference: " in lines[1]
    assert "--allow-missing" in lines[2]
    allowed = run("pack", path, tmp_path / "out.lmmlz", "--allow-missing")
    assert allowed.returncode == 0, allowed.stderr
    assert (tmp_path / "out.lmmlz").exists()


@pytest.mark.parametrize(
    ("command", "extension"), [("pack", ".lmmlz"), ("inline", ".lmml"), ("to-md", ".md")]
)
def test_dest_may_stand_anywhere(tmp_path: Path, command: str, extension: str) -> None:
    (tmp_path / "notes.txt").write_text("a text asset, so inline can fence it\n")
    chat = tmp_path / "chat.lmml"
    chat.write_text("## Turn 1 -- user\n\nRead @notes.txt\n", encoding="utf-8")
    first = tmp_path / f"first{extension}"
    assert run(command, chat, "--force", first).returncode == 0
    second = tmp_path / f"second{extension}"
    assert run(command, "-q", chat, "--base-dir", tmp_path, second).returncode == 0
    third = tmp_path / f"third{extension}"
    assert run(command, chat, "-q", third, "--force").returncode == 0
    assert first.exists() and second.exists() and third.exists()


def test_validate_paths_may_surround_options(chat: Path) -> None:
    result = run("validate", chat, "--json", ZIP_EXAMPLE)
    assert [entry["path"] for entry in json.loads(result.stdout)] == [str(chat), str(ZIP_EXAMPLE)]


# -- what is wrong stops the send -----------------------------------------------------------


def test_render_refuses_a_missing_reference_and_force_sends_anyway(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text("## user\n\nsee @gone.png\n", encoding="utf-8")
    line = one_error(run("render", path), f"{path}:3:5: missing_reference: ", "--force")
    assert "strict=False" not in line
    forced = run("render", path, "--force")
    assert forced.returncode == 0
    assert json.loads(forced.stdout)[0]["role"] == "user"
    [warning] = forced.stderr.splitlines()
    assert warning.startswith(f"lmml: warning: {path}:3:5: missing_reference: ")


def test_render_refuses_an_unclosed_fence(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text("## user\n\nhi\n\n@@@notes.txt\nnever closed\n\n## assistant\n\nlost\n")
    one_error(run("render", path, "--request"), f"{path}:5:1: unclosed_embed: ")
    forced = run("render", path, "--force")
    assert forced.returncode == 0 and "unclosed_embed" in forced.stderr


def test_export_lists_defective_bundles_among_the_failures(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "good.lmml").write_text("## user\n\nhi\n")
    (folder / "bad.lmml").write_text("## user\n\nsee @gone.png\n")
    out = tmp_path / "out.jsonl"
    result = run("export", folder, "--jsonl", out, "--workers", "1")
    assert result.returncode == 1
    [failure] = [line for line in result.stderr.splitlines() if line.startswith("lmml: error:")]
    assert "bad.lmml" in failure and "missing_reference" in failure
    assert len(out.read_text().splitlines()) == 1
    assert "strict=False" not in result.stderr
    forced = run("export", folder, "--jsonl", out, "--workers", "1", "--force")
    assert forced.returncode == 0, forced.stderr
    assert len(out.read_text().splitlines()) == 2
    # Each defect sent anyway is one warning, located as validate locates it.
    [warning] = [line for line in forced.stderr.splitlines() if "warning" in line]
    assert warning.startswith(f"lmml: warning: {folder / 'bad.lmml'}:3:5: missing_reference: ")


def test_export_reads_bundles_as_the_other_commands_do(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "chart.png").write_bytes(PNG)
    (folder / "chat.lmml").write_text(
        "## user\n\nsee @chart.png\n\n### System requirements\n\nnone\n"
    )
    out = tmp_path / "out.jsonl"
    result = run("export", folder, "--jsonl", out, "--workers", "1")
    assert result.returncode == 0, result.stderr
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    assert [m["role"] for m in record["messages"]] == ["user"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    moved = run("export", folder, "--jsonl", out, "--base-dir", elsewhere)
    assert moved.returncode == 1 and "missing_reference" in moved.stderr
    loose = run("export", folder, "--jsonl", out, "--delimiters", "loose", "--references", "any")
    assert loose.returncode == 0, loose.stderr
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    assert [m["role"] for m in record["messages"]] == ["user", "system"]


def test_settings_errors_count_lines_in_their_entry(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "s.lmmlz", "## user\n\nhi\n", {"settings.yaml": b"a: 1\nb: [1\n"})
    [line] = run("validate", path).stdout.splitlines()
    assert line.startswith(f"{path}!settings.yaml:3:1: invalid_settings: ")
    one_error(run("render", path), f"{path}!settings.yaml:3:1: invalid_settings: ")
    report = json.loads(run("validate", "--json", path).stdout)
    assert report[0]["issues"][0]["file"] == "settings.yaml"


def test_a_settings_fence_counts_narrative_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.lmml"
    path.write_text("## user\n\nhi\n\n@@@settings.yaml\nok: 1\nbad: [\n@@@\n")
    [line] = run("validate", path).stdout.splitlines()
    assert line.startswith(f"{path}:8:1: invalid_settings: ")


# -- errors a user can act on ---------------------------------------------------------------


def test_hints_name_flags_not_python_arguments(tmp_path: Path) -> None:
    text = b"## user\n\nsee @chart.png\n"
    [line] = run("validate", "-", stdin=text).stdout.splitlines()
    assert "--base-dir DIR" in line and "base_dir=" not in line
    line = one_error(run("render", "-", stdin=text))
    assert "--base-dir DIR" in line and "base_dir" not in line.replace("--base-dir", "")
    plain = tmp_path / "ok.lmml"
    plain.write_text("## user\n\nhi\n")
    line = one_error(run("render", plain, "--request", "-p", "anthropic"), "add --model NAME")
    assert "model=" not in line
    odd = tmp_path / "odd.json"
    odd.write_text('{"foo": 1}')
    line = one_error(run("import", odd, "-o", tmp_path / "x.lmml"), "--format")
    assert "format=" not in line


def test_missing_reference_says_how_to_escape_and_suggests_a_near_name(tmp_path: Path) -> None:
    (tmp_path / "screenshot.png").write_bytes(PNG)
    path = tmp_path / "chat.lmml"
    path.write_text("## user\n\nsee @screenshot.pgn, cc @alice.dev\n")
    lines = run("validate", path).stdout.splitlines()
    assert "did you mean screenshot.png?" in lines[0]
    assert "\\@screenshot.pgn" in lines[0]
    assert len(lines) == 1  # @alice.dev is a mention: .dev is no file extension


def test_cat_of_an_unknown_entry_lists_the_entries(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "b.lmmlz", "## user\n\n@chart.png @notes.txt\n", {
        "chart.png": PNG, "notes.txt": b"n"})  # fmt: skip
    line = one_error(run("cat", path, "chrat.png"), "'chrat.png'", "did you mean chart.png?")
    assert "chart.png, notes.txt, b.lmml" in line


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (PNG, "this is a PNG image, not an LMML narrative"),
        (b"%PDF-1.4\n%...", "this is a PDF document, not an LMML narrative"),
    ],
)
def test_a_file_that_is_not_lmml_says_what_it_is(tmp_path: Path, data: bytes, what: str) -> None:
    path = tmp_path / "x.lmml"
    path.write_bytes(data)
    for command in ("render", "turns", "info"):
        one_error(run(command, path), what)
    result = run("validate", path)
    assert result.returncode == 2 and what in result.stderr


def test_a_zip_without_a_narrative_says_so(tmp_path: Path) -> None:
    path = tmp_path / "x.lmmlz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.txt", "x")
    one_error(run("render", path), "zip archive without a narrative")


def test_a_json_chat_says_to_run_import(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    one_error(run("render", path), "looks like an OpenAI chat; run `lmml import`")
    one_error(run("validate", path), "looks like an OpenAI chat")
    # The command to run names the file as it can be found from here, or - for stdin.
    one_error(run("render", "chat.json", cwd=tmp_path), "(lmml import chat.json -o chat.lmmlz)")
    one_error(run("turns", path), f"(lmml import {path} -o {tmp_path / 'chat.lmmlz'})")
    one_error(run("turns", "-", stdin=path.read_bytes()), "(lmml import - -o chat.lmmlz)")


def test_validate_warns_no_turns(tmp_path: Path) -> None:
    path = tmp_path / "notes.lmml"
    path.write_text("# Notes\n\nNothing but prose.\n")
    result = run("validate", path)
    assert result.returncode == 0  # a warning alone is printed but does not fail
    [line] = result.stdout.splitlines()
    assert line.startswith(f"{path}: no_turns: ")
    assert result.stderr == "1 issue(s) found in 1 file(s)\n"
    report = json.loads(run("validate", "--json", path).stdout)
    assert report[0]["issues"][0]["severity"] == "warning"
    assert run("validate", "--strict", path).returncode == 1


def test_validate_fails_on_an_error_level_defect_only(tmp_path: Path) -> None:
    warned = tmp_path / "near.lmml"
    warned.write_text("## Turn 1 -- user\n\nhi\n\n## Turn 2 -- asistant\n\nhello\n")
    broken = tmp_path / "broken.lmml"
    broken.write_text("## Turn 1 -- user\n\nsee @gone.png\n")
    result = run("validate", warned)
    assert result.returncode == 0
    assert ": suspicious_delimiter: " in result.stdout
    assert run("validate", warned, "--json").returncode == 0
    assert run("validate", warned, "--strict").returncode == 1
    assert run("validate", "--strict", "--json", warned).returncode == 1
    assert run("validate", warned, broken).returncode == 1
    assert run("validate", broken, "--json").returncode == 1


def test_a_path_that_does_not_exist(tmp_path: Path) -> None:
    one_error(run("render", tmp_path / "nope.lmml"), f"{tmp_path / 'nope.lmml'}: ", "no such file")


def test_the_readme_command_still_works() -> None:
    result = run("render", ZIP_EXAMPLE, "--provider", "openai")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert json.loads(result.stdout)
    assert run("validate", *sorted((ROOT / "examples").glob("*.lmml*"))).returncode == 0


def test_errors_raised_while_rendering_are_located_in_the_narrative(tmp_path: Path) -> None:
    (tmp_path / "chart.png").write_bytes(PNG)
    path = tmp_path / "chat.lmml"
    path.write_text(
        "## user\n\nlook @chart.png\n\n## assistant\n\n@@@c1.tool_call.json\n"
        '{"id": "c1", "name": "f"\n@@@\n'
    )
    # Every defect that refuses the send is said, the first as the refusal says it.
    result = run("render", path)
    assert result.returncode == 2, result.stderr
    line, unanswered, count = result.stderr.splitlines()
    assert line.startswith(f"lmml: error: {path}:7:1: invalid_tool_call: tool call is not valid")
    assert line.endswith("(fix it, or add --force to send anyway)")
    assert "c1.tool_call.json:" not in line
    assert unanswered.startswith(f"lmml: error: {path}:7:1: unanswered_tool_call: ")
    assert count == (
        f"lmml: error: {path}: 2 error-level defects refuse the send (fix them, or add "
        "--force to send anyway)"
    )
    path.write_text("## user\n\nlook @chart.png\n")
    line = one_error(
        run("render", path, "--max-embed-bytes", "5", "--on-omit", "raise"),
        f"lmml: error: {path}:3:6: the embed chart.png ",
    )
    assert "max_embed_bytes=" not in line and "--max-embed-bytes" in line
    warned = run("render", path, "--max-embed-bytes", "5")
    assert warned.returncode == 0, warned.stderr
    [warning] = warned.stderr.splitlines()
    assert warning.startswith(f"lmml: warning: {path}:3:6: chart.png ({len(PNG)} bytes) left out")
    assert "max_embed_bytes=" not in warning


def test_force_with_a_budget_still_sends_a_missing_reference_as_text(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text("## user\n\nlook @gone.png\n")
    result = run("render", path, "--max-embed-bytes", "100", "--force")
    assert result.returncode == 0, result.stderr
    [message] = json.loads(result.stdout)
    # Sent once, as the sentence holds it (no second '@gone.png' part).
    assert [part["text"] for part in message["content"]] == ["look @gone.png"]
    assert f"lmml: warning: {path}:3:6: missing_reference: " in result.stderr


@pytest.mark.parametrize("command", READING_COMMANDS)
def test_a_base_dir_that_is_no_folder_is_an_error(tmp_path: Path, command: str) -> None:
    chat = tmp_path / "chat.lmml"
    chat.write_text("## user\n\nsee @chart.png\n")
    gone = tmp_path / "gone"
    extra = {"cat": ["chart.png"], "export": ["--jsonl", tmp_path / "o.jsonl"], "inline": ["-"]}
    extra = extra.get(command, [])
    target = tmp_path if command == "export" else chat
    one_error(run(command, target, *extra, "--base-dir", gone), f"--base-dir {gone}: not a folder")


def test_ls_of_a_bare_narrative_lists_the_files_it_references(tmp_path: Path) -> None:
    (tmp_path / "chart.png").write_bytes(PNG)
    (tmp_path / "Dockerfile").write_text("FROM x\n")
    (tmp_path / "unrelated.txt").write_text("not referenced\n")
    chat = tmp_path / "chat.lmml"
    chat.write_text(
        "## user\n\nsee @chart.png and @Dockerfile, not @gone.png\n\n@@@n.txt\nhi\n@@@\n"
    )
    result = run("ls", chat, "--json")
    assert result.returncode == 0, result.stderr
    rows = [(row["kind"], row["name"], row["size"]) for row in json.loads(result.stdout)]
    assert rows == [
        ("inline", "n.txt", 3),
        ("file", "chart.png", len(PNG)),
        ("file", "Dockerfile", 7),
    ]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    rows = json.loads(run("ls", chat, "--json", "--base-dir", elsewhere).stdout)
    assert [row["kind"] for row in rows] == ["inline"]
