"""``lmml import`` and ``lmml export`` run as subprocesses on the bridge corpus."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lmml_mdit import import_messages
from lmml_mdit import open as open_bundle
from lmml_mdit.chat import export_bundle
from lmml_mdit.errors import LmmlError

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).parent / "bridge_corpus"
FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "sharegpt")
PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini", "sharegpt")
SOURCES = sorted(p for fmt in FORMATS for p in (CORPUS / fmt).glob("*.json"))


def run(*args: object, stderr: Any = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    env.pop("LMML_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "lmml_mdit", *(str(arg) for arg in args)],
        input=b"",
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=env,
        timeout=300,
        check=False,
    )


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every corpus file imported by ``lmml import`` with the format detected."""
    root = tmp_path_factory.mktemp("imported")
    for source in SOURCES:
        target = root / source.parent.name / f"{source.stem}.lmmlz"
        result = run("import", source, "-o", target)
        assert result.returncode == 0, result.stderr.decode()
        assert "Imported" in result.stderr.decode()
    return root


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_cli_import_detects_the_format_and_matches_the_api(imported: Path, source: Path) -> None:
    expected = import_messages(load(source), source.parent.name)
    with open_bundle(imported / source.parent.name / f"{source.stem}.lmmlz") as bundle:
        assert bundle.narrative.text == expected.narrative.text
        assert sorted(bundle.entries) == sorted(expected.entries)
        for name in bundle.entries:
            assert bundle.read(name) == expected.read(name)


def test_cli_validate_accepts_every_imported_bundle(imported: Path) -> None:
    bundles = sorted(imported.rglob("*.lmmlz"))
    result = run("validate", *bundles)
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()


def test_cli_validate_reports_tool_call_issues(tmp_path: Path) -> None:
    path = tmp_path / "t.lmml"
    path.write_text(
        "## user\nhi\n\n## assistant\n@@@c1.tool_call.json\n"
        '{"id": "c1", "name": "f", "arguments": {}}\n@@@\n\n'
        "## tool\nno reference\n",
        encoding="utf-8",
    )
    result = run("validate", "--json", path)
    # Errors (issue 26): a provider refuses such a conversation, and so does render.
    assert result.returncode == 1
    assert run("render", path).returncode == 2
    [report] = json.loads(result.stdout)
    kinds = {(issue["kind"], issue["line"], issue["column"]) for issue in report["issues"]}
    assert ("unanswered_tool_call", 5, 1) in kinds
    assert ("unknown_tool_call_id", 9, 1) in kinds
    lines = run("validate", path).stdout.decode().splitlines()
    assert f"{path}:5:1: unanswered_tool_call: " in lines[0]
    assert lines[1].startswith(f"{path}:9:1: unknown_tool_call_id: ")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_cli_export_matches_the_api_and_reports_failures(imported: Path, provider: str) -> None:
    out = imported.parent / f"{imported.name}-{provider}.jsonl"
    result = run("export", imported, "--provider", provider, "--jsonl", out)
    stderr = result.stderr.decode()
    assert "Traceback" not in stderr
    expected: list[str] = []
    failed: list[str] = []
    for path in sorted(imported.rglob("*.lmmlz")):
        with open_bundle(path) as bundle:
            try:
                expected.append(json.dumps(export_bundle(bundle, provider), ensure_ascii=False))
            except LmmlError:
                failed.append(path.relative_to(imported).as_posix())
    assert out.read_text(encoding="utf-8").splitlines() == expected
    errors = [line for line in stderr.splitlines() if line.startswith("lmml: error: ")]
    assert len(errors) == len(failed)
    for name, line in zip(failed, errors, strict=True):
        assert name in line  # the failing bundle's path, then its reason
    assert result.returncode == (1 if failed else 0)
    assert f"Exported {len(expected)} of {len(expected) + len(failed)}" in stderr
    assert "\r" not in stderr  # no progress counter when stderr is not a terminal


def test_cli_jsonl_dataset_to_folder_and_back(tmp_path: Path) -> None:
    dataset = CORPUS / "sharegpt" / "dataset.jsonl"
    folder = tmp_path / "bundles"
    result = run("import", dataset, "-o", folder)
    assert result.returncode == 0, result.stderr.decode()
    # One bundle a non-blank line, named by the line number.
    assert sorted(p.name for p in folder.iterdir()) == [
        "000001.lmmlz",
        "000002.lmmlz",
        "000003.lmmlz",
        "000005.lmmlz",
    ]
    out = tmp_path / "back.jsonl"
    result = run("export", folder, "--provider", "sharegpt", "--jsonl", out, "--workers", "2")
    assert result.returncode == 0, result.stderr.decode()
    source = [json.loads(line) for line in dataset.read_text().splitlines() if line.strip()]
    assert [json.loads(line) for line in out.read_text().splitlines()] == source


def test_cli_export_progress_only_on_a_terminal(imported: Path, tmp_path: Path) -> None:
    controller, terminal = pty.openpty()
    try:
        result = run(
            "export", imported, "--provider", "openai", "--jsonl", tmp_path / "o.jsonl",
            stderr=terminal,
        )  # fmt: skip
        os.close(terminal)
        terminal = -1
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal side is closed: all read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if terminal != -1:
            os.close(terminal)
        os.close(controller)
    shown = b"".join(chunks).decode()
    assert result.returncode == 0
    assert "exporting:" in shown and "\r" in shown
    assert result.stdout == b""  # progress never goes to stdout


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("[" * 100_000 + "]" * 100_000, "nests too deeply"),
        ('{"x": 1}', "format"),
        ('[{"role": "user", "content": [{"type": "image_url", "image_url": '
         '{"url": "https://example.com/a\\u0007.png"}}]}]', "messages[0].content[0]"),
    ],
    ids=["deep", "unknown", "remote-url-control-character"],
)  # fmt: skip
def test_cli_import_errors_are_one_line(tmp_path: Path, content: str, fragment: str) -> None:
    source = tmp_path / "chat.json"
    source.write_text(content, encoding="utf-8")
    result = run("import", source, "-o", tmp_path / "out.lmmlz")
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert stderr.startswith("lmml: error: ") and len(stderr.splitlines()) == 1
    assert "internal error" not in stderr and fragment in stderr
    assert not (tmp_path / "out.lmmlz").exists()


def test_cli_import_format_option(tmp_path: Path) -> None:
    # --format overrides detection: a ShareGPT record read as openai is refused.
    source = CORPUS / "sharegpt" / "multiturn.json"
    result = run("import", source, "-o", tmp_path / "a.lmmlz", "--format", "openai")
    assert result.returncode == 2
    assert "messages" in result.stderr.decode()
    result = run("import", source, "-o", tmp_path / "b.lmmlz", "--format", "sharegpt")
    assert result.returncode == 0, result.stderr.decode()
    result = run("import", source, "-o", tmp_path / "c.lmmlz", "--format", "nope")
    assert result.returncode == 2


def test_cli_import_into_an_existing_folder_writes_stem_lmmlz(tmp_path: Path) -> None:
    """docs/cli.md: OUT an existing folder receives ``STEM.lmmlz``."""
    source = tmp_path / "chat.json"
    source.write_text('{"messages": [{"role": "user", "content": "hi"}]}', encoding="utf-8")
    folder = tmp_path / "existing"
    folder.mkdir()
    from lmml_mdit.cli import main

    assert main(["import", str(source), "-o", str(folder)]) == 0
    assert [path.name for path in folder.iterdir()] == ["chat.lmmlz"]


def test_cli_import_says_what_a_file_that_is_no_chat_data_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lmml_mdit.cli import main

    (tmp_path / "chat.lmml").write_text("## user\n\nhi\n", encoding="utf-8")
    assert main(["pack", str(tmp_path / "chat.lmml"), "-q"]) == 0
    (tmp_path / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
    said = {}
    for name in ("chat.lmml", "chat.lmmlz", "chart.png"):
        assert main(["import", str(tmp_path / name), "-o", str(tmp_path / "out.lmml")]) == 2
        said[name] = capsys.readouterr().err
    assert f"{tmp_path / 'chat.lmml'}: this is an LMML bundle, not chat data (" in said["chat.lmml"]
    assert "lmml render PATH --request" in said["chat.lmmlz"]
    assert "this is a PNG image, not chat data" in said["chart.png"]
    assert not (tmp_path / "out.lmml").exists()
