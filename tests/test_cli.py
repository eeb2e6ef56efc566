"""The ``lmml`` command line, driven as a subprocess (``python -m lmml_mdit``)."""

from __future__ import annotations

import base64
import builtins
import contextlib
import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from _bundle_files import make_zip

from lmml_mdit import cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
ZIP_EXAMPLE = EXAMPLES / "sales-review.lmmlz"
TEXT_EXAMPLE = EXAMPLES / "sales-review.lmml"
TOOLS_EXAMPLE = EXAMPLES / "weather-tools.lmml"
COMMANDS = ("new", "validate", "render", "turns", "ls", "cat", "pack", "inline", "to-md",
            "preview", "info", "import", "export", "lsp", "inputs", "fmt", "run")  # fmt: skip


def run(
    *args: object, stdin: bytes | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    env.pop("LMML_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "lmml_mdit", *(str(arg) for arg in args)],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def ok(result: subprocess.CompletedProcess[bytes]) -> subprocess.CompletedProcess[bytes]:
    assert result.returncode == 0, result.stderr.decode()
    return result


def assert_error(result: subprocess.CompletedProcess[bytes], *fragments: str) -> str:
    """Exit 2 and exactly one ``lmml: error:`` line on stderr, naming every fragment."""
    stderr = result.stderr.decode()
    assert result.returncode == 2, (result.returncode, stderr)
    assert "Traceback" not in stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("lmml: error: "), stderr
    assert "internal error" not in lines[0], stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, stderr)
    return lines[0]


# -- global behaviour ---------------------------------------------------------------------


def test_version() -> None:
    result = ok(run("--version"))
    assert re.fullmatch(rb"lmml \d+\.\d+\.\d+\S*\n", result.stdout)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = ok(run(command, "--help"))
    text = result.stdout.decode()
    assert f"usage: lmml {command}" in text
    assert "example:\n  lmml " in text


def test_console_script() -> None:
    """``lmml`` is declared as a console script for ``main``, and the installed one runs."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    scripts = pyproject.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    assert 'lmml = "lmml_mdit.cli:main"' in scripts
    script = Path(sys.executable).parent / "lmml"
    if script.exists():  # an installed environment (pip install -e .)
        result = subprocess.run([script, "--version"], capture_output=True, timeout=60, check=False)
        assert result.returncode == 0
        assert result.stdout == ok(run("--version")).stdout


def test_top_level_help_lists_every_command() -> None:
    text = ok(run("--help")).stdout.decode()
    for command in COMMANDS:
        assert command in text


def test_no_command_is_a_one_line_error() -> None:
    assert_error(run(), "required")


def test_unknown_command_is_a_one_line_error() -> None:
    assert_error(run("frobnicate"), "invalid choice", "frobnicate")


def test_unknown_flag_is_a_one_line_error() -> None:
    assert_error(run("turns", str(TEXT_EXAMPLE), "--bogus"), "unrecognized arguments: --bogus")


def test_missing_argument_names_the_command() -> None:
    assert_error(run("cat", str(ZIP_EXAMPLE)), "cat:", "NAME")


def test_missing_file_is_a_one_line_error(tmp_path: Path) -> None:
    assert_error(run("turns", tmp_path / "nope.lmml"), "nope.lmml")


def test_folder_instead_of_file(tmp_path: Path) -> None:
    assert_error(run("turns", tmp_path), "is a folder")


def test_unsafe_archive_is_refused_by_every_reader(tmp_path: Path) -> None:
    evil = make_zip(tmp_path / "evil.lmmlz", "Look at @notes.txt", {"../evil.txt": b"pwned"})
    for command in (["validate"], ["turns"], ["ls"], ["cat", "../evil.txt"]):
        result = run(command[0], evil, *command[1:], cwd=tmp_path)
        assert_error(result, "../evil.txt")
    assert not (tmp_path.parent / "evil.txt").exists()


def test_invalid_utf8_narrative(tmp_path: Path) -> None:
    path = tmp_path / "bad.lmml"
    path.write_bytes(b"# fine\n\nthen \xff\xfe broken\n")
    line = assert_error(run("turns", path), "UTF-8")
    assert ":3" in line
    assert_error(run("validate", path), "UTF-8")


def test_file_shortcut_lists_turns() -> None:
    assert ok(run(TEXT_EXAMPLE)).stdout == ok(run("turns", TEXT_EXAMPLE)).stdout
    piped = ok(run("-", stdin=TEXT_EXAMPLE.read_bytes())).stdout
    assert piped == ok(run("turns", TEXT_EXAMPLE)).stdout


# -- new ----------------------------------------------------------------------------------


def test_new_appends_extension_and_makes_folders(tmp_path: Path) -> None:
    result = ok(run("new", tmp_path / "deep" / "er" / "notes"))
    path = tmp_path / "deep" / "er" / "notes.lmml"
    assert "Created" in result.stderr.decode()
    text = path.read_text()
    assert text.startswith("# notes\n")
    turns = json.loads(ok(run("turns", path, "--json")).stdout)
    assert [turn["role"] for turn in turns] == ["context", "user", "assistant"]
    assert ok(run("validate", path)).stdout.decode().endswith(": OK\n")


def test_new_keeps_a_given_extension(tmp_path: Path) -> None:
    ok(run("new", tmp_path / "notes.lmml"))
    assert (tmp_path / "notes.lmml").exists()
    assert not (tmp_path / "notes.lmml.lmml").exists()
    assert_error(run("new", f"{tmp_path}{os.sep}"), "give the new file's name")
    ok(run("new", tmp_path / "x.txt"))  # any other extension gets .lmml after it
    assert (tmp_path / "x.txt.lmml").read_text().startswith("# x.txt\n")


def test_new_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "notes.lmml"
    path.write_text("original")
    assert_error(run("new", path), "refusing to overwrite")
    assert_error(run("new", tmp_path / "notes"), "refusing to overwrite")
    assert path.read_text() == "original"


def test_new_archive(tmp_path: Path) -> None:
    ok(run("new", tmp_path / "chat.lmmlz"))
    with zipfile.ZipFile(tmp_path / "chat.lmmlz") as archive:
        assert archive.namelist() == ["chat.lmml"]
    info = json.loads(ok(run("info", tmp_path / "chat.lmmlz", "--json")).stdout)
    assert info["kind"] == "zip"
    assert info["settings"] == {"temperature": 0.2}


def test_new_with_a_role_word_in_the_name_makes_no_extra_turn(tmp_path: Path) -> None:
    ok(run("new", tmp_path / "user-study"))
    turns = json.loads(ok(run("turns", tmp_path / "user-study.lmml", "--json")).stdout)
    assert [turn["role"] for turn in turns] == ["context", "user", "assistant"]


def test_new_to_stdout() -> None:
    result = ok(run("new", "-"))
    assert b"## Turn 1 -- user" in result.stdout


# -- validate -----------------------------------------------------------------------------


def test_validate_clean_examples() -> None:
    result = ok(run("validate", ZIP_EXAMPLE, TEXT_EXAMPLE, TOOLS_EXAMPLE))
    assert result.stdout.decode().count(": OK\n") == 3
    assert result.stderr == b""  # no progress drawn when stderr is not a terminal


def test_validate_reports_every_defect(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "convo.lmmlz", "Intro\n\nsee @missing.png", {"orphan.txt": b"x"})
    result = run("validate", path)
    assert result.returncode == 1
    lines = result.stdout.decode().splitlines()
    assert f"{path}:3:5: missing_reference: " in lines[0]
    assert lines[1].startswith(f"{path}: orphaned_entry: ")
    assert lines[2].startswith(f"{path}: no_turns: ")  # no role delimiter at all
    assert "3 issue(s) found" in result.stderr.decode()


def test_validate_json(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "convo.lmmlz", "@missing.png", {"orphan.txt": b"x"})
    result = run("validate", "--json", path, TEXT_EXAMPLE)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert [entry["path"] for entry in report] == [str(path), str(TEXT_EXAMPLE)]
    kinds = [issue["kind"] for issue in report[0]["issues"]]
    assert kinds == ["missing_reference", "orphaned_entry", "no_turns"]
    assert [i["severity"] for i in report[0]["issues"]] == ["error", "warning", "warning"]
    assert report[0]["issues"][0]["line"] == 1
    assert report[1]["issues"] == [] and report[1]["error"] is None


def test_validate_unreadable_file_exits_2_but_checks_the_rest(tmp_path: Path) -> None:
    result = run("validate", tmp_path / "gone.lmml", TEXT_EXAMPLE)
    assert result.returncode == 2
    assert "gone.lmml" in result.stderr.decode()
    assert result.stdout.decode() == f"{TEXT_EXAMPLE}: OK\n"
    report = json.loads(run("validate", "--json", tmp_path / "gone.lmml").stdout)
    assert report[0]["error"] and "gone.lmml" in report[0]["error"]


def test_validate_stdin() -> None:
    result = ok(run("validate", "-", stdin=TEXT_EXAMPLE.read_bytes()))
    assert result.stdout == b"<stdin>: OK\n"
    result = run("validate", "-", stdin=b"see @nothing.png\n")
    assert result.returncode == 1
    assert result.stdout.startswith(b"<stdin>:1:5: missing_reference: ")


# -- turns, ls, cat, info -----------------------------------------------------------------


def test_turns_table() -> None:
    lines = ok(run("turns", ZIP_EXAMPLE)).stdout.decode().splitlines()
    assert lines[0].split() == ["#", "role", "lines", "span", "characters", "embeds"]
    rows = [line.split() for line in lines[1:]]
    assert [row[1] for row in rows] == [
        "context",
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    rows_json = json.loads(ok(run("turns", "--json", ZIP_EXAMPLE)).stdout)
    for row, record in zip(rows, rows_json, strict=True):
        assert row[0] == str(record["number"])
        assert row[2] == str(record["lines"]) == str(record["end_line"] - record["start_line"] + 1)
        assert row[3] == f"{record['start_line']}-{record['end_line']}"
        assert row[4] == str(record["characters"])
    assert rows[4][5:] == ["chart.png,", "report.pdf"]


def test_turns_empty_turn(tmp_path: Path) -> None:
    path = tmp_path / "e.lmml"
    path.write_text("## user\n## assistant\nhi\n")
    rows = [line.split() for line in ok(run("turns", path)).stdout.decode().splitlines()[1:]]
    assert rows == [["1", "user", "0", "-", "0", "-"], ["2", "assistant", "1", "3-3", "2", "-"]]


def test_turns_json_and_stdin() -> None:
    rows = json.loads(ok(run("turns", "--json", "-", stdin=TOOLS_EXAMPLE.read_bytes())).stdout)
    assert [row["role"] for row in rows] == ["system", "user", "assistant", "tool", "assistant"]
    assert rows[2]["embeds"] == ["call_1.tool_call.json"]
    assert all(row["characters"] > 0 for row in rows)


def test_ls_lists_sizes_types_and_digests() -> None:
    rows = json.loads(ok(run("ls", "--json", ZIP_EXAMPLE)).stdout)
    with zipfile.ZipFile(ZIP_EXAMPLE) as archive:
        expected = {
            name: archive.read(name) for name in archive.namelist() if name != "sales-review.lmml"
        }
    assert [row["name"] for row in rows] == list(expected)
    for row in rows:
        data = expected[row["name"]]
        assert row["size"] == len(data)
        assert row["sha256"] == hashlib.sha256(data).hexdigest()
    types = {row["name"]: row["media_type"] for row in rows}
    assert types["chart.png"] == "image/png"
    assert types["report.pdf"] == "application/pdf"
    assert types["sales.csv"] == "text/csv"
    table = ok(run("ls", ZIP_EXAMPLE)).stdout.decode()
    assert hashlib.sha256(expected["chart.png"]).hexdigest() in table


def test_ls_lists_inline_fences() -> None:
    rows = json.loads(ok(run("ls", "--json", TEXT_EXAMPLE)).stdout)
    assert [(row["kind"], row["name"]) for row in rows] == [
        ("inline", "settings.yaml"),
        ("inline", "manifest.json"),
        ("inline", "sales.csv"),
    ]


def test_cat_writes_exact_bytes() -> None:
    with zipfile.ZipFile(ZIP_EXAMPLE) as archive:
        png = archive.read("chart.png")
    assert ok(run("cat", ZIP_EXAMPLE, "chart.png")).stdout == png
    assert ok(run("cat", TEXT_EXAMPLE, "sales.csv")).stdout.startswith(b"quarter,revenue_keur")
    narrative = ok(run("cat", ZIP_EXAMPLE, "sales-review.lmml")).stdout
    assert narrative.startswith(b"# Quarterly sales review\n")


def test_cat_missing_asset(tmp_path: Path) -> None:
    assert_error(run("cat", ZIP_EXAMPLE, "nope.txt"), "nope.txt")
    path = tmp_path / "bare.lmml"
    path.write_text("see @photo.png\n")
    assert_error(run("cat", path, "photo.png"), "photo.png")


def test_cat_with_base_dir(tmp_path: Path) -> None:
    (tmp_path / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
    path = tmp_path / "bare.lmml"
    path.write_text("see @photo.png\n")
    result = ok(run("cat", path, "photo.png", "--base-dir", tmp_path))
    assert result.stdout == b"\x89PNG\r\n\x1a\nfake"


def test_info() -> None:
    info = json.loads(ok(run("info", "--json", ZIP_EXAMPLE)).stdout)
    assert info["kind"] == "zip"
    assert info["name"] == "sales-review"
    assert info["turns"] == 6
    assert info["settings"] == {"temperature": 0.2, "top_p": 0.9, "max_tokens": 800}
    assert info["manifest"]["title"] == "Quarterly sales review"
    assert "settings:" in ok(run("info", ZIP_EXAMPLE)).stdout.decode()


# -- pack and inline ----------------------------------------------------------------------


def test_pack_default_destination(tmp_path: Path) -> None:
    source = tmp_path / "convo.lmml"
    source.write_text("@@@settings.yaml\nkey: value\n@@@\n")
    result = ok(run("pack", source))
    assert "Packed" in result.stderr.decode()
    packed = tmp_path / "convo.lmmlz"
    with zipfile.ZipFile(packed) as archive:
        assert archive.read("settings.yaml") == b"key: value\n"
        assert "convo.lmml" in archive.namelist()
    assert ok(run("cat", packed, "settings.yaml")).stdout == b"key: value\n"


def test_pack_explicit_destination_and_round_trip(tmp_path: Path) -> None:
    packed = tmp_path / "out" / "custom.lmmlz"
    ok(run("pack", TEXT_EXAMPLE, packed))
    back = tmp_path / "back.lmml"
    ok(run("inline", packed, back))
    original = json.loads(ok(run("turns", "--json", TEXT_EXAMPLE)).stdout)
    assert json.loads(ok(run("turns", "--json", back)).stdout) == original
    for name in ("settings.yaml", "sales.csv"):
        assert ok(run("cat", back, name)).stdout == ok(run("cat", TEXT_EXAMPLE, name)).stdout


def test_pack_never_overwrites_the_source(tmp_path: Path) -> None:
    source = tmp_path / "convo.lmmlz"
    source.write_bytes(ZIP_EXAMPLE.read_bytes())
    before = source.read_bytes()
    assert_error(run("pack", source), "refusing", "--in-place")
    assert_error(run("pack", source, source), "refusing")
    assert source.read_bytes() == before
    ok(run("pack", source, "--in-place"))
    assert zipfile.is_zipfile(source)


def test_pack_keeps_an_existing_default_destination(tmp_path: Path) -> None:
    source = tmp_path / "convo.lmml"
    source.write_text("plain text\n")
    (tmp_path / "convo.lmmlz").write_bytes(b"precious")
    assert_error(run("pack", source), "refusing to overwrite", "--force")
    assert (tmp_path / "convo.lmmlz").read_bytes() == b"precious"
    ok(run("pack", source, "--force"))
    assert zipfile.is_zipfile(tmp_path / "convo.lmmlz")


def test_pack_to_stdout_and_from_stdin(tmp_path: Path) -> None:
    result = ok(run("pack", "-", stdin=TEXT_EXAMPLE.read_bytes()))
    assert result.stdout.startswith(b"PK\x03\x04")
    (tmp_path / "piped.lmmlz").write_bytes(result.stdout)
    rows = json.loads(ok(run("ls", "--json", tmp_path / "piped.lmmlz")).stdout)
    assert {row["name"] for row in rows} == {"settings.yaml", "manifest.json", "sales.csv"}


def test_pack_rejects_a_text_destination(tmp_path: Path) -> None:
    assert_error(run("pack", TEXT_EXAMPLE, tmp_path / "x.lmml"), ".lmmlz")


def test_inline_archive(tmp_path: Path) -> None:
    source = make_zip(tmp_path / "convo.lmmlz", "See @notes.txt here.", {"notes.txt": b"hi"})
    result = ok(run("inline", source))
    assert "Inlined" in result.stderr.decode()
    dest = tmp_path / "convo.lmml"
    assert not zipfile.is_zipfile(dest)
    assert ok(run("cat", dest, "notes.txt")).stdout == b"hi"


def test_inline_fails_on_a_missing_reference(tmp_path: Path) -> None:
    source = make_zip(tmp_path / "broken.lmmlz", "@missing.png", {})
    assert_error(run("inline", source), "missing.png")
    assert not (tmp_path / "broken.lmml").exists()


def test_inline_refuses_binary_assets(tmp_path: Path) -> None:
    assert_error(run("inline", ZIP_EXAMPLE, tmp_path / "x.lmml"), "chart.png")
    assert not (tmp_path / "x.lmml").exists()


def test_inline_orphans(tmp_path: Path) -> None:
    source = make_zip(tmp_path / "c.lmmlz", "See @a.txt", {"a.txt": b"A\n", "b.txt": b"B\n"})
    assert_error(run("inline", source, tmp_path / "strict.lmml", "--orphans", "error"), "b.txt")
    kept = ok(run("inline", source, tmp_path / "kept.lmml"))
    assert kept.stderr.decode().splitlines()[0].startswith("lmml: warning: entries the narrative")
    assert b"b.txt" in kept.stderr
    assert ok(run("cat", tmp_path / "kept.lmml", "b.txt")).stdout == b"B\n"
    ok(run("inline", source, tmp_path / "dropped.lmml", "--orphans", "drop"))
    assert b"b.txt" not in (tmp_path / "dropped.lmml").read_bytes()


def test_inline_to_stdout() -> None:
    result = ok(run("inline", TEXT_EXAMPLE, "-"))
    assert result.stdout.startswith(b"# Quarterly sales review\n")


def test_in_place_needs_a_file() -> None:
    assert_error(run("inline", "-", "--in-place"), "--in-place")


# -- to-md, preview, render ---------------------------------------------------------------


def test_to_md_reference_case(tmp_path: Path) -> None:
    source = tmp_path / "convo.lmml"
    source.write_text("@@@config.yaml\nkey: val\n@@@")
    result = ok(run("to-md", source))
    assert "Exported" in result.stderr.decode()
    # An inline text asset keeps its text, as a fenced block under its name.
    assert (tmp_path / "convo.md").read_text() == "config.yaml:\n```yaml\nkey: val\n```"


def test_to_md_placeholders_follow_the_parse() -> None:
    text = b"See @a.png and `@b.png` then @a.png.bak.\n\n```\n@c.png\n```\n"
    result = ok(run("to-md", "-", stdin=text))
    assert result.stdout == (
        b"See [Image: a.png] and `@b.png` then [Attachment: a.png.bak].\n\n```\n@c.png\n```\n"
    )


def test_to_md_example() -> None:
    text = ok(run("to-md", ZIP_EXAMPLE, "-")).stdout.decode()
    assert "[Image: chart.png]" in text
    assert "[Attachment: report.pdf]" in text
    assert "[Attachment: sales.csv]" in text
    assert "@" not in text


def test_to_md_keeps_an_existing_default_destination(tmp_path: Path) -> None:
    source = tmp_path / "notes.lmml"
    source.write_text("hello @x.png\n")
    (tmp_path / "notes.md").write_text("my own notes")
    assert_error(run("to-md", source), "refusing to overwrite")
    assert (tmp_path / "notes.md").read_text() == "my own notes"


def test_preview(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    ok(run("preview", ZIP_EXAMPLE, "-o", out))
    html = out.read_text()
    assert html.lstrip().lower().startswith("<!doctype html")
    assert "data:image/png;base64," in html
    streamed = ok(run("preview", TEXT_EXAMPLE, "-o", "-")).stdout.decode()
    assert "Quarterly sales review" in streamed


def test_preview_default_output(tmp_path: Path) -> None:
    source = tmp_path / "s.lmml"
    source.write_text("## user\nhi\n")
    ok(run("preview", source))
    assert (tmp_path / "s.html").exists()


def test_render_messages() -> None:
    messages = json.loads(ok(run("render", ZIP_EXAMPLE)).stdout)
    assert isinstance(messages, list)
    assert [m["role"] for m in messages][-1] == "assistant"
    payload = json.dumps(messages)
    assert "data:image/png;base64," in payload
    assert "Q3 was the weakest" in payload


def test_render_request_per_provider() -> None:
    body = json.loads(ok(run("render", ZIP_EXAMPLE, "--provider", "anthropic", "--request",
                             "--model", "claude-x")).stdout)  # fmt: skip
    assert body["model"] == "claude-x"
    assert "system" in body
    # The Messages create call has no temperature: left out with a warning naming it, or
    # kept with --unknown-settings pass.
    assert "temperature" not in body
    kept = json.loads(
        ok(
            run(
                "render", ZIP_EXAMPLE, "-p", "anthropic", "--request",
                "--model", "claude-x", "--unknown-settings", "pass",
            )
        ).stdout
    )  # fmt: skip
    assert kept["temperature"] == 0.2
    gemini = json.loads(
        ok(run("render", ZIP_EXAMPLE, "-p", "gemini", "--request", "--model", "g")).stdout
    )
    assert "contents" in gemini and gemini["config"]["temperature"] == 0.2
    assert_error(run("render", ZIP_EXAMPLE, "-p", "gemini", "--request"), "--model NAME")


def test_render_max_embed_bytes() -> None:
    full = ok(run("render", ZIP_EXAMPLE)).stdout
    small = ok(run("render", ZIP_EXAMPLE, "--max-embed-bytes", "100")).stdout
    assert b"data:image/png;base64," in full
    assert b"data:image/png;base64," not in small


def test_render_bad_options() -> None:
    assert_error(run("render", ZIP_EXAMPLE, "--max-embed-bytes", "lots"), "lots")
    assert_error(run("render", ZIP_EXAMPLE, "--provider", "nope"), "nope")
    assert_error(run("render", ZIP_EXAMPLE, "--model", "m"), "--request")


def test_render_unresolvable(tmp_path: Path) -> None:
    path = tmp_path / "x.lmml"
    path.write_text("## user\nsee @gone.png\n")
    assert_error(run("render", path), "gone.png")


def test_render_context_drop_keeps_an_image_a_later_turn_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Dropping the preamble that names an image first leaves the image with the user turn
    that names it too (it was sent nowhere before)."""
    with zipfile.ZipFile(ZIP_EXAMPLE) as archive:
        image = archive.read("chart.png")
    (tmp_path / "chart.png").write_bytes(image)
    path = tmp_path / "chat.lmml"
    path.write_text("Context: the chart is @chart.png.\n\n## user\nWhat does @chart.png show?\n")
    assert cli.main(["render", str(path), "--context", "drop", "-q"]) == 0
    [message] = json.loads(capsys.readouterr().out)
    assert message["content"][1]["image_url"]["url"].endswith(base64.b64encode(image).decode())


# -- the examples -------------------------------------------------------------------------


def _png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    chunks, position = [], 8
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length : position + 12 + length])
        assert crc == zlib.crc32(kind + body)
        chunks.append((kind, body))
        position += 12 + length
    return chunks


def test_example_png_is_a_real_image() -> None:
    with zipfile.ZipFile(ZIP_EXAMPLE) as archive:
        chunks = _png_chunks(archive.read("chart.png"))
    assert [kind for kind, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour = struct.unpack(">IIBB", chunks[0][1][:10])
    assert (width, height, depth, colour) == (64, 48, 8, 2)
    pixels = zlib.decompress(chunks[1][1])
    assert len(pixels) == height * (1 + width * 3)
    assert len({pixels[i : i + 3] for i in range(1, len(pixels), 3)}) > 10


def test_example_pdf_has_a_consistent_xref() -> None:
    with zipfile.ZipFile(ZIP_EXAMPLE) as archive:
        pdf = archive.read("report.pdf")
    assert pdf.startswith(b"%PDF-1.4\n") and pdf.endswith(b"%%EOF\n")
    startxref = int(pdf.rsplit(b"startxref\n", 1)[1].split(b"\n", 1)[0])
    assert pdf[startxref:].startswith(b"xref\n0 ")
    table = pdf[startxref:].split(b"trailer", 1)[0].splitlines()
    count = int(table[1].split()[1])
    entries = table[3 : 2 + count]
    assert len(entries) == count - 1
    for number, entry in enumerate(entries, 1):
        offset = int(entry.split()[0])
        assert pdf[offset:].startswith(b"%d 0 obj" % number)
    assert b"(Quarterly sales summary) Tj" in pdf


def test_examples_rebuild_identically(tmp_path: Path) -> None:
    script = ROOT / "scripts" / "make_examples.py"
    for folder in (tmp_path / "a", tmp_path / "b"):
        result = subprocess.run(
            [sys.executable, script, "--out", folder], capture_output=True, check=False
        )
        assert result.returncode == 0, result.stderr.decode()
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == [
        "capitals.cases.csv",
        "capitals.cases.jsonl",
        "capitals.lmml",
        "sales-review.lmml",
        "sales-review.lmmlz",
        "weather-tools.lmml",
    ]
    for name in names:
        rebuilt = (tmp_path / "a" / name).read_bytes()
        assert rebuilt == (tmp_path / "b" / name).read_bytes()
        assert rebuilt == (EXAMPLES / name).read_bytes(), f"examples/{name} is stale"


def test_render_omissions_are_warnings_or_errors() -> None:
    result = ok(run("render", ZIP_EXAMPLE, "--max-embed-bytes", "100"))
    warnings = result.stderr.decode().splitlines()
    # Located as every other message: FILE:LINE:COL, FILE being the path as typed.
    assert any(
        line.startswith(f"lmml: warning: {ZIP_EXAMPLE}:") and ": chart.png (" in line
        for line in warnings
    )
    assert any("report.pdf" in line for line in warnings)
    assert_error(
        run("render", ZIP_EXAMPLE, "--max-embed-bytes", "100", "--on-omit", "raise"), "chart.png"
    )


def test_render_system_content_needs_request_for_anthropic() -> None:
    assert_error(run("render", ZIP_EXAMPLE, "-p", "anthropic"), "--request")
    messages = json.loads(ok(run("render", TOOLS_EXAMPLE, "-p", "openai")).stdout)
    assert messages[2]["tool_calls"][0]["function"]["name"] == "get_weather"


def test_render_reads_stdin() -> None:
    messages = json.loads(ok(run("render", "-", stdin=b"## user\nhello\n")).stdout)
    assert messages == [{"role": "user", "content": [{"type": "text", "text": "hello"}]}]


def test_cli_choices_match_the_modules() -> None:
    from lmml_mdit.chat.providers import EXPORT_PROVIDERS, IMPORT_FORMATS, PROVIDERS
    from lmml_mdit.cli import parser

    assert tuple(parser.PROVIDERS) == tuple(PROVIDERS)
    assert tuple(parser.EXPORT_PROVIDERS) == tuple(EXPORT_PROVIDERS)
    assert tuple(parser.IMPORT_FORMATS) == tuple(IMPORT_FORMATS)


# -- import and export --------------------------------------------------------------------


def test_import_then_export(tmp_path: Path) -> None:
    chat = tmp_path / "chat.json"
    chat.write_bytes(ok(run("render", TOOLS_EXAMPLE)).stdout)
    result = ok(run("import", chat, "-o", tmp_path / "runs" / "chat.lmml", "--format", "openai"))
    assert "Imported" in result.stderr.decode()
    rows = json.loads(ok(run("turns", "--json", tmp_path / "runs" / "chat.lmml")).stdout)
    assert [row["role"] for row in rows] == ["system", "user", "assistant", "tool", "assistant"]
    (tmp_path / "runs" / "broken.lmmlz").write_bytes(b"PK\x03\x04junk")
    out = tmp_path / "data.jsonl"
    result = run("export", tmp_path / "runs", "--jsonl", out, "--workers", "1")
    assert result.returncode == 1
    assert "broken.lmmlz" in result.stderr.decode()
    assert "Traceback" not in result.stderr.decode()
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 1
    assert records[0]["messages"] == json.loads(chat.read_text())


def test_import_errors(tmp_path: Path) -> None:
    assert_error(run("import", tmp_path / "none.json", "-o", tmp_path / "x.lmmlz"), "none.json")
    weird = tmp_path / "weird.json"
    weird.write_text('{"x": 1}')
    assert_error(run("import", weird, "-o", tmp_path / "x.lmmlz"), "format")
    assert_error(run("import", weird), "--output")
    assert_error(run("export", tmp_path / "missing", "--jsonl", tmp_path / "o.jsonl"), "missing")


def test_render_request_settings_overrides() -> None:
    defaulted = ok(run("render", TOOLS_EXAMPLE, "-p", "anthropic", "--request", "--model", "c"))
    assert json.loads(defaulted.stdout)["max_tokens"] == 4096
    assert b"lmml: warning: " in defaulted.stderr and b"max_tokens=4096" in defaulted.stderr
    assert b"--set max_tokens=N" in defaulted.stderr  # the hint in the command line's words
    assert b"settings={" not in defaulted.stderr
    result = ok(
        run(
            "render",
            TOOLS_EXAMPLE,
            "-p",
            "anthropic",
            "--request",
            "--model",
            "c",
            "--set",
            "max_tokens=300",
            "--set",
            "temperature=0.5",
        )
    )
    body = json.loads(result.stdout)
    assert body["max_tokens"] == 300 and "temperature" not in body
    assert b"setting 'temperature' left out" in result.stderr
    assert_error(
        run("render", TOOLS_EXAMPLE, "-p", "openai", "--request", "--model", "m",
            "--set", "temperature=hot"),
        "setting 'temperature' is \"hot\": it must be a number",
    )  # fmt: skip
    kinds = [part["type"] for m in body["messages"] for part in m["content"]]
    assert "tool_use" in kinds and "tool_result" in kinds
    assert_error(run("render", TOOLS_EXAMPLE, "--set", "a=1"), "--request")
    assert_error(run("render", TOOLS_EXAMPLE, "--request", "--set", "novalue"), "KEY=VALUE")


# -- hostile input, failures and streams --------------------------------------------------


def _zip_bomb(path: Path) -> Path:
    """A small archive whose one entry declares a ratio far over the default 200:1."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(path.stem + ".lmml", "see @zeros.txt\n")
        archive.writestr("zeros.txt", b"\0" * (4 * 1024 * 1024))
    return path


def test_errors_name_the_file_among_several(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.lmmlz"
    corrupt.write_bytes(b"PK\x03\x04 not really a zip")
    bomb = _zip_bomb(tmp_path / "bomb.lmmlz")
    defect = tmp_path / "defect.lmml"
    defect.write_text("see @nothing.png\n")
    result = run("validate", corrupt, bomb, defect, TEXT_EXAMPLE)
    assert result.returncode == 2  # an unreadable file outranks a defect
    errors = result.stderr.decode().splitlines()
    assert errors[0].startswith(f"lmml: error: {corrupt}: ")
    assert errors[1].startswith(f"lmml: error: {bomb}: zeros.txt: ")
    assert "ratio" in errors[1]
    assert "Traceback" not in result.stderr.decode()
    lines = result.stdout.decode().splitlines()
    assert lines[0].startswith(f"{defect}:1:5: missing_reference: ")
    assert lines[1].startswith(f"{defect}: no_turns: ")
    assert lines[2:] == [f"{TEXT_EXAMPLE}: OK"]
    assert run("validate", defect, TEXT_EXAMPLE).returncode == 1
    report = json.loads(run("validate", "--json", corrupt, defect).stdout)
    assert report[0]["error"].startswith(f"{corrupt}: ")
    assert report[1]["error"] is None and report[1]["issues"][0]["kind"] == "missing_reference"


@pytest.mark.parametrize("command", ["ls", "render", "to-md", "preview"])
def test_zip_bomb_and_corrupt_zip_are_refused(tmp_path: Path, command: str) -> None:
    bomb = _zip_bomb(tmp_path / "bomb.lmmlz")
    extra = ["-o", "-"] if command == "preview" else ["-"] if command == "to-md" else []
    line = assert_error(run(command, bomb, *extra), str(bomb), "zeros.txt", "ratio")
    assert "Limits(" not in line and "max_ratio=" not in line  # no Python argument on the CLI
    corrupt = tmp_path / "corrupt.lmmlz"
    corrupt.write_bytes(ZIP_EXAMPLE.read_bytes()[:-40])
    assert_error(run(command, corrupt, *extra), str(corrupt))


def test_cat_refuses_a_zip_bomb_entry(tmp_path: Path) -> None:
    bomb = _zip_bomb(tmp_path / "bomb.lmmlz")
    result = run("cat", bomb, "zeros.txt")
    assert_error(result, "zeros.txt", "ratio")
    assert result.stdout == b""


def test_a_text_file_named_lmmlz_is_read_by_its_bytes_with_a_warning(tmp_path: Path) -> None:
    fake = tmp_path / "session.lmmlz"
    fake.write_text("## user\nHello.\n")
    result = ok(run("turns", fake))
    assert b"user" in result.stdout
    assert b"lmml: warning:" in result.stderr and b"not a zip archive" in result.stderr
    empty = tmp_path / "empty.lmmlz"
    empty.write_bytes(b"")
    assert b"the file is empty" in ok(run("validate", empty)).stderr
    # Through standard input there is no extension: the bytes decide, and nothing warns.
    from_stdin = ok(run("turns", "-", stdin=fake.read_bytes()))
    assert from_stdin.stdout.startswith(b"#") and not from_stdin.stderr


def test_invalid_utf8_on_stdin_names_stdin() -> None:
    line = assert_error(run("render", "-", stdin=b"## user\nbad \xff\n"), "<stdin>:2", "UTF-8")
    assert line.startswith("lmml: error: <stdin>:2:5: ")
    line = assert_error(run("validate", "-", stdin=b"bad \xff\n"), "UTF-8")
    assert line.startswith("lmml: error: <stdin>:1:5: ")


def test_unknown_flag_after_a_command_names_the_command() -> None:
    line = assert_error(run("render", ZIP_EXAMPLE, "--bogus"), "render:", "--bogus")
    assert "lmml render --help" in line


def test_write_failures_name_the_destination(tmp_path: Path) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("a file, not a folder")
    dest = blocker / "out.lmmlz"
    assert_error(run("pack", TEXT_EXAMPLE, dest), str(dest), "not a folder")
    assert_error(run("new", blocker / "n"), "not a folder")
    folder = tmp_path / "folder.md"
    folder.mkdir()
    line = assert_error(run("to-md", TEXT_EXAMPLE, folder), str(folder), "cannot write")
    assert ".tmp" not in line and ".lmml-" not in line


def _as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def test_read_only_destination(tmp_path: Path) -> None:
    if _as_root():
        # Permissions do not stop root; sysfs refuses new files to everyone.
        locked = Path("/sys")
        if not locked.is_dir() or _sysfs_takes_files():
            pytest.skip("no folder here is read-only for root")
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o555)
    try:
        dest = locked / "lmml-test.lmmlz"
        line = assert_error(run("pack", TEXT_EXAMPLE, dest), str(dest), "cannot write")
        assert ".tmp" not in line and ".lmml-" not in line.split(str(dest), 1)[1]
        assert not dest.exists()
        assert_error(run("to-md", TEXT_EXAMPLE, locked / "x.md"), "x.md", "cannot write")
    finally:
        if not _as_root():
            locked.chmod(0o755)
    if not _as_root():
        assert list(locked.iterdir()) == []


def _sysfs_takes_files() -> bool:
    try:
        Path("/sys/lmml-probe").write_bytes(b"")
    except OSError:
        return False
    Path("/sys/lmml-probe").unlink()
    return True


def test_unreadable_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = tmp_path / "secret.lmml"
    secret.write_text("hi\n")
    secret.chmod(0)
    if not _as_root():
        assert_error(run("turns", secret), "secret.lmml", "Permission denied")
        assert run("validate", secret, TEXT_EXAMPLE).returncode == 2
        return
    # Root reads every file: deny the read in-process instead, at the point the OS would.
    real_open = builtins.open

    def denying_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if str(file) == str(secret):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", denying_open)
    assert cli.main(["turns", str(secret)]) == 2
    error_lines = capsys.readouterr().err.splitlines()
    assert len(error_lines) == 1 and "secret.lmml" in error_lines[0]
    assert error_lines[0].startswith("lmml: error: ") and "Permission denied" in error_lines[0]
    assert cli.main(["validate", str(secret), str(TEXT_EXAMPLE)]) == 2


def test_writing_into_a_missing_folder_creates_it(tmp_path: Path) -> None:
    dest = tmp_path / "a" / "b" / "out.md"
    ok(run("to-md", TEXT_EXAMPLE, dest))
    assert dest.read_text().startswith("# Quarterly sales review")


def test_in_place_is_atomic_and_keeps_permissions(tmp_path: Path) -> None:
    source = tmp_path / "convo.lmmlz"
    source.write_bytes(ZIP_EXAMPLE.read_bytes())
    source.chmod(0o640)
    ok(run("pack", source, "--in-place"))
    assert source.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["convo.lmmlz"]  # no leftovers
    assert (
        ok(run("cat", source, "chart.png")).stdout
        == ok(run("cat", ZIP_EXAMPLE, "chart.png")).stdout
    )
    # A failed in-place rewrite leaves the source untouched.
    bare = tmp_path / "bare.lmml"
    bare.write_text("see @gone.txt\n")
    assert_error(run("inline", bare, "--in-place"), str(bare), "gone.txt")
    assert bare.read_text() == "see @gone.txt\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bare.lmml", "convo.lmmlz"]
    assert_error(run("pack", source, tmp_path / "other.lmmlz", "--in-place"), "--in-place")


def test_inline_never_overwrites_the_source(tmp_path: Path) -> None:
    source = tmp_path / "notes.lmml"
    source.write_text("@@@a.txt\nA\n@@@\n")
    assert_error(run("inline", source), "refusing", "--in-place")
    ok(run("inline", source, "--in-place"))
    assert ok(run("cat", source, "a.txt")).stdout == b"A\n"


@pytest.mark.parametrize(
    "command",
    [
        ["render", ZIP_EXAMPLE],
        ["cat", ZIP_EXAMPLE, "report.pdf"],
        ["ls", ZIP_EXAMPLE],
        ["to-md", ZIP_EXAMPLE, "-"],
        ["pack", TEXT_EXAMPLE, "-"],
    ],
)
def test_a_closed_stdout_ends_quietly(command: list[object]) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "lmml_mdit", *map(str, command)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # the reader went away, like `| head -c 0`
    stderr = process.stderr.read()
    assert process.wait(timeout=60) == 1
    assert stderr == b""


def _sleeping(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] == "S"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see the wait")
def test_ctrl_c_is_one_line() -> None:
    import signal
    import time

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "lmml_mdit", "render", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        # SIGINT as a terminal delivers it, though a background run of the suite ignores it.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Wait until it blocks reading standard input (asleep twice in a row, well after start).
    deadline = time.monotonic() + 30
    quiet = 0
    while quiet < 3 and time.monotonic() < deadline:
        time.sleep(0.1)
        quiet = quiet + 1 if _sleeping(process.pid) else 0
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130
    assert stderr == b"lmml: error: interrupted\n"


def test_progress_only_on_a_terminal() -> None:
    pty = pytest.importorskip("pty")
    leader, follower = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    try:
        result = subprocess.run(
            [sys.executable, "-m", "lmml_mdit", "validate", TEXT_EXAMPLE, ZIP_EXAMPLE],
            stdout=subprocess.PIPE,
            stderr=follower,
            env=env,
            timeout=60,
            check=False,
        )
        os.close(follower)
        drawn = b""
        with contextlib.suppress(OSError):
            while chunk := os.read(leader, 4096):
                drawn += chunk
    finally:
        os.close(leader)
    assert result.returncode == 0
    assert b"validating: 2/2" in drawn
    assert b"validating" not in result.stdout
    # The same run with stderr on a pipe draws nothing (test_validate_clean_examples).


def test_render_system_content_for_anthropic_and_gemini() -> None:
    # Without --request the messages list cannot hold the system turn: fail, naming the ways.
    assert_error(run("render", ZIP_EXAMPLE, "--provider", "anthropic"), "--system", "--request")
    separate = json.loads(
        ok(run("render", ZIP_EXAMPLE, "-p", "anthropic", "--system", "separate")).stdout
    )
    assert set(separate) == {"system", "messages"}
    assert "careful sales analyst" in json.dumps(separate["system"])
    as_user = json.loads(ok(run("render", ZIP_EXAMPLE, "-p", "gemini", "--system", "user")).stdout)
    assert as_user[0]["role"] == "user" and "careful sales analyst" in json.dumps(as_user)
    dropped = json.loads(
        ok(run("render", ZIP_EXAMPLE, "-p", "anthropic", "--system", "drop")).stdout
    )
    assert "careful sales analyst" not in json.dumps(dropped)


def test_cat_of_a_link_leading_out_of_the_folder_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The file is there in a file browser: "no asset" would send the user looking for it.
    inside = tmp_path / "in"
    inside.mkdir()
    (tmp_path / "secret.txt").write_text("secret\n")
    (inside / "link.txt").symlink_to("../secret.txt")
    path = inside / "chat.lmml"
    path.write_text("## user\n\nsee @link.txt\n")
    assert cli.main(["cat", str(path), "link.txt"]) == 2
    captured = capsys.readouterr()
    assert "secret" not in captured.out
    assert "outside" in captured.err and "symbolic link" in captured.err, captured.err
    assert "no asset" not in captured.err
