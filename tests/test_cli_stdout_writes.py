"""Standard output takes every byte or the command fails: with ``PYTHONUNBUFFERED`` set,
``sys.stdout.buffer`` is the raw file, whose ``write`` may take only part of the data (a
full disk, a signal mid-write), and ``lmml cat`` then exited 0 with the rest dropped
(commands run in-process through ``lmml_mdit.cli.main``)."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lmml_mdit.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
ZIP_EXAMPLE = EXAMPLES / "sales-review.lmmlz"


class _Raw(io.RawIOBase):
    """A raw stream taking at most *step* bytes a call, failing with *failure* once
    *room* bytes are taken (None: never)."""

    def __init__(self, step: int, room: int | None = None, failure: type[OSError] = OSError):
        self.data = bytearray()
        self.step = step
        self.room = room
        self.failure = failure

    def writable(self) -> bool:
        return True

    def write(self, chunk: object) -> int:
        data = bytes(chunk)  # type: ignore[call-overload]
        if self.room is not None and len(self.data) >= self.room:
            if self.failure is OSError:
                raise OSError(errno.ENOSPC, "No space left on device")
            raise self.failure(errno.EPIPE, "Broken pipe")
        taken = data[: self.step]
        self.data += taken
        return len(taken)


def _unbuffered(monkeypatch: pytest.MonkeyPatch, raw: _Raw) -> None:
    """Standard output as ``python -u`` makes it: text written through to the raw file."""
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8", write_through=True))


def _asset(name: str) -> bytes:
    import zipfile

    with zipfile.ZipFile(ZIP_EXAMPLE) as archive:
        return archive.read(name)


def test_cat_writes_every_byte_when_each_write_takes_part(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = _Raw(step=100)
    _unbuffered(monkeypatch, raw)
    assert main(["cat", str(ZIP_EXAMPLE), "report.pdf"]) == 0
    assert bytes(raw.data) == _asset("report.pdf")  # 1,222 bytes, not the first 100


def test_render_json_is_written_whole_when_each_write_takes_part(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = _Raw(step=1000)
    _unbuffered(monkeypatch, raw)
    assert main(["render", str(ZIP_EXAMPLE)]) == 0
    assert bytes(raw.data).decode("utf-8").endswith("]\n")


def test_a_full_disk_on_standard_output_is_one_error_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = _Raw(step=500, room=500)
    _unbuffered(monkeypatch, raw)
    status = main(["cat", str(ZIP_EXAMPLE), "report.pdf"])
    err = capsys.readouterr().err
    assert status == 2
    assert err == "lmml: error: standard output: cannot write: No space left on device\n"


def test_a_reader_gone_mid_write_is_a_quiet_stop(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = _Raw(step=500, room=500, failure=BrokenPipeError)
    _unbuffered(monkeypatch, raw)
    status = main(["cat", str(ZIP_EXAMPLE), "report.pdf"])
    assert status == 1
    assert capsys.readouterr().err == ""


def test_a_full_disk_on_a_buffered_standard_output_names_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without ``PYTHONUNBUFFERED`` the failure came from the final flush, as a bare
    ``lmml: error: No space left on device`` naming nothing."""
    raw = _Raw(step=500, room=500)
    buffered = io.BufferedWriter(raw)
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(buffered, encoding="utf-8"))
    status = main(["cat", str(ZIP_EXAMPLE), "report.pdf"])
    assert status == 2
    err = capsys.readouterr().err
    assert err == "lmml: error: standard output: cannot write: No space left on device\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full, a full disk")
@pytest.mark.parametrize("buffering", ["buffered", "unbuffered"])
@pytest.mark.parametrize(
    "command",
    [
        ["validate", EXAMPLES / "sales-review.lmml"],
        ["turns", EXAMPLES / "sales-review.lmml"],
        ["render", EXAMPLES / "sales-review.lmml"],
        ["cat", ZIP_EXAMPLE, "chart.png"],
    ],
    ids=lambda command: str(command[0]),
)
def test_a_full_standard_output_is_one_error_line_and_status_2(
    command: list[object], buffering: str
) -> None:
    """Buffered, the failure came at the interpreter's last flush: ``Exception ignored
    in: <_io.TextIOWrapper name='<stdout>'>``, ``OSError: ...`` and status 120."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONUNBUFFERED", None)
    if buffering == "unbuffered":
        env["PYTHONUNBUFFERED"] = "1"
    with open("/dev/full", "wb") as full:
        result = subprocess.run(
            [sys.executable, "-m", "lmml_mdit", *map(str, command)],
            stdin=subprocess.DEVNULL,
            stdout=full,
            stderr=subprocess.PIPE,
            env=env,
            timeout=120,
            check=False,
        )
    [line] = result.stderr.decode().splitlines()
    assert result.returncode == 2, line
    assert line == "lmml: error: standard output: cannot write: No space left on device", line


@pytest.mark.parametrize(("failure", "status"), [(OSError, 2), (BrokenPipeError, 1)])
def test_render_cases_blames_standard_output_not_the_cases_file(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    failure: type[OSError],
    status: int,
) -> None:
    """A failed write of a case line said ``--cases FILE: cannot read: No space left on
    device`` (or ``...: Broken pipe`` when the reader went away, status 2)."""
    raw = _Raw(step=50, room=50, failure=failure)
    _unbuffered(monkeypatch, raw)
    argv = ["render", str(EXAMPLES / "capitals.lmml"), "--workers", "1"]
    argv += ["--cases", str(EXAMPLES / "capitals.cases.jsonl")]
    assert main(argv) == status
    err = capsys.readouterr().err
    if failure is BrokenPipeError:
        assert err == ""
    else:
        assert err == "lmml: error: standard output: cannot write: No space left on device\n"


def test_a_full_disk_under_a_file_written_names_that_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only a failure naming no file is standard output's: a file the command writes is
    named, as before."""

    def failing_replace(source: object, destination: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    chat = tmp_path / "chat.json"
    chat.write_text('{"messages": [{"role": "user", "content": "hi"}]}', encoding="utf-8")
    out = tmp_path / "o.lmmlz"
    status = main(["import", str(chat), "-o", str(out)])
    [line] = capsys.readouterr().err.splitlines()
    assert status == 2
    assert line.startswith(f"lmml: error: {out}: cannot write: No space left on device"), line
