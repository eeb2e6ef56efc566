"""Hardening of writes and of every input the CLI and the API take.

One test (or one parametrized group) per problem class: a write never lands on something
that is not a regular file, a symbolic link is written through, modes are kept, an
interrupted write leaves nothing behind, ``save()`` writes only archives ``open()`` reads,
``pack()``/``inline()`` check every embed's bytes, a full disk names the destination, and
every hostile input ends as an ``LmmlError`` or one ``lmml: error:`` line.

The package under test is whatever ``lmml_mdit`` imports (``PYTHONPATH`` decides), and the
CLI subprocesses run that same package.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import textwrap
import unicodedata
import warnings
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lmml_mdit
from lmml_mdit import Bundle, LmmlError, Transcript, UnsafeEntryError
from lmml_mdit.cli import main

PACKAGE_ROOT = Path(lmml_mdit.__file__).resolve().parent.parent
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
TEXT_EXAMPLE = EXAMPLES / "sales-review.lmml"
POSIX = os.name == "posix"


def run(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_ROOT), PYTHONIOENCODING="utf-8")
    env.pop("LMML_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "lmml_mdit", *(os.fsencode(arg) for arg in args)],
        input=b"",
        capture_output=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """Run *command* in sh, with ``LMML`` standing for the CLI (to close standard streams)."""
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_ROOT), PYTHONIOENCODING="utf-8")
    env.pop("LMML_DEBUG", None)
    env["LMML"] = f"{sys.executable} -m lmml_mdit"
    return subprocess.run(
        ["sh", "-c", command], capture_output=True, cwd=cwd, env=env, timeout=120, check=False
    )


def one_error(result: subprocess.CompletedProcess[bytes], *fragments: str) -> str:
    """Exit 2 and exactly one ``lmml: error:`` line on stderr (not an internal error)."""
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2, (result.returncode, stderr)
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("lmml: error: "), stderr
    assert "internal error" not in stderr and "Traceback" not in stderr, stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, stderr)
    return lines[0]


def sample_bundle() -> Bundle:
    return Bundle.from_zip("s", "## user\n\nLook @a.txt\n", {"a.txt": b"asset\n"})


# -- never over something that is not a regular file ---------------------------------------


def _make_fifo(path: Path) -> None:
    os.mkfifo(path)


def _make_socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.close()  # the socket file stays


def _make_device(path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("creating a device node needs root")
    # A private node for the null device (1, 3), so that a faulty write replaces only it.
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))


def _make_folder(path: Path) -> None:
    path.mkdir()
    (path / "keep.txt").write_text("x")


NOT_FILES: dict[str, Callable[[Path], None]] = {
    "fifo": _make_fifo,
    "socket": _make_socket,
    "device": _make_device,
    "folder": _make_folder,
}


def _kind(path: Path) -> int:
    return stat.S_IFMT(os.lstat(path).st_mode)


def _library_writers() -> dict[str, Callable[[Path], None]]:
    def export(path: Path) -> None:
        from lmml_mdit import export_folder

        folder = path.parent / "bundles"
        folder.mkdir(exist_ok=True)
        (folder / "a.lmml").write_text("## user\n\nhi\n")
        export_folder(folder, "openai", path, workers=1)

    def transcript(path: Path) -> None:
        chat = Transcript()
        chat.append("user", "hi")
        chat.save(path)

    return {
        "save": lambda path: sample_bundle().save(path),
        "save-text": lambda path: Bundle.from_text("t", "hi\n").save(path),
        "preview": lambda path: lmml_mdit.write_preview(sample_bundle(), path),
        "transcript": transcript,
        "export": export,
    }


@pytest.mark.skipif(not POSIX, reason="FIFOs, sockets and device nodes are POSIX")
@pytest.mark.parametrize("kind", sorted(NOT_FILES))
@pytest.mark.parametrize("writer", sorted(_library_writers()))
def test_library_writes_refuse_what_is_not_a_regular_file(
    tmp_path: Path, kind: str, writer: str
) -> None:
    target = tmp_path / ("x.lmmlz" if writer == "save" else "x.out")
    NOT_FILES[kind](target)
    before = _kind(target)
    with pytest.raises(LmmlError, match="regular file") as raised:
        _library_writers()[writer](target)
    assert type(raised.value).__name__ == "WriteError"
    assert isinstance(raised.value, OSError)
    assert raised.value.name == str(target)
    assert _kind(target) == before  # still a FIFO, socket, device or folder
    assert not [p for p in tmp_path.iterdir() if ".lmml-tmp" in p.name or p.suffix == ".tmp"]


@pytest.mark.skipif(not POSIX, reason="FIFOs, sockets and device nodes are POSIX")
@pytest.mark.parametrize("kind", sorted(NOT_FILES))
@pytest.mark.parametrize(
    "command",
    [
        ("pack", "{src}", "{dest}"),
        ("inline", "{zip}", "{dest}"),
        ("to-md", "{src}", "{dest}"),
        ("preview", "{src}", "-o", "{dest}"),
        ("export", "{folder}", "--jsonl", "{dest}"),
        ("import", "{chat}", "-o", "{dest}"),
    ],
    ids=lambda command: command[0],
)
def test_cli_outputs_refuse_what_is_not_a_regular_file(
    tmp_path: Path, kind: str, command: tuple[str, ...]
) -> None:
    source = tmp_path / "src.lmml"
    source.write_text("## user\n\nhello\n")
    archive = tmp_path / "src.lmmlz"
    Bundle.from_zip("src", "## user\n\n@a.txt\n", {"a.txt": b"x\n"}).save(archive)
    folder = tmp_path / "bundles"
    folder.mkdir()
    (folder / "b.lmml").write_text("## user\n\nhi\n")
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    suffix = {"pack": ".lmmlz", "inline": ".lmml", "import": ".lmml"}.get(command[0], ".out")
    dest = tmp_path / f"dest{suffix}"
    NOT_FILES[kind](dest)
    before = _kind(dest)
    names = {"src": source, "zip": archive, "dest": dest, "folder": folder, "chat": chat}
    arguments = [part.format(**names) for part in command]
    result = run(*arguments)
    assert _kind(dest) == before
    if kind == "folder" and command[0] == "import":
        # -o FOLDER is the documented way to import into a folder: the bundle goes inside.
        assert result.returncode == 0, result.stderr
        assert [p.name for p in dest.iterdir() if p.name.startswith("chat.")] != []
        assert (dest / "keep.txt").read_text() == "x"
        return
    one_error(result, str(dest))


def test_standard_output_still_takes_dash(tmp_path: Path) -> None:
    result = run("pack", TEXT_EXAMPLE, "-")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(b"PK\x03\x04")


@pytest.mark.skipif(not Path("/dev/stdout").exists(), reason="no /dev/stdout")
@pytest.mark.parametrize(
    "command",
    [("import", "{chat}", "-o", "/dev/stdout"), ("pack", "{src}", "/dev/stdout")],
    ids=lambda command: command[0],
)
def test_dev_stdout_into_a_pipe_is_named_for_what_it_is(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    # /dev/stdout into a pipe resolves to no path ("pipe:[N]"): the refusal names the
    # pipe and the dash, not a missing file.
    source = tmp_path / "src.lmml"
    source.write_text("## user\n\nhello\n")
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    result = run(*(part.format(src=source, chat=chat) for part in command))
    line = one_error(result, "/dev/stdout", "FIFO (named pipe)")
    assert "No such file" not in line
    assert result.stdout == b""


# -- symbolic links are written through -----------------------------------------------------


@pytest.mark.skipif(not POSIX, reason="symbolic links")
@pytest.mark.parametrize("writer", sorted(_library_writers()))
def test_a_symlink_destination_is_written_through(tmp_path: Path, writer: str) -> None:
    real = tmp_path / "real" / ("x.lmmlz" if writer == "save" else "x.out")
    real.parent.mkdir()
    real.write_bytes(b"old")
    real.chmod(0o640)
    link = tmp_path / ("link.lmmlz" if writer == "save" else "link.out")
    link.symlink_to(real)
    _library_writers()[writer](link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() != b"old"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    leftovers = [p.name for p in real.parent.iterdir()] + [p.name for p in tmp_path.iterdir()]
    assert not [name for name in leftovers if ".lmml-tmp" in name or name.endswith(".tmp")]


@pytest.mark.skipif(not POSIX, reason="symbolic links")
def test_cli_writes_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.lmmlz"
    real.write_bytes(b"old")
    link = tmp_path / "link.lmmlz"
    link.symlink_to(real)
    assert run("pack", TEXT_EXAMPLE, link).returncode == 0
    assert link.is_symlink()
    with lmml_mdit.open(real) as reopened:
        assert reopened.narrative.text.startswith("# Quarterly sales review")


@pytest.mark.skipif(not POSIX, reason="symbolic links")
def test_a_dangling_symlink_gets_its_target_created(tmp_path: Path) -> None:
    link = tmp_path / "link.lmml"
    link.symlink_to(tmp_path / "made.lmml")
    Bundle.from_text("t", "hi\n").save(link)
    assert link.is_symlink() and (tmp_path / "made.lmml").read_text() == "hi\n"


@pytest.mark.skipif(not POSIX, reason="symbolic links")
def test_a_dangling_symlink_into_a_missing_folder_gets_the_folder(tmp_path: Path) -> None:
    """Missing parent folders are created for a link's target as for any path."""
    link = tmp_path / "d.md"
    link.symlink_to(Path("nowhere") / "x.md")
    from lmml_mdit.cli import main

    assert main(["to-md", str(TEXT_EXAMPLE), str(link)]) == 0
    assert link.is_symlink()
    assert (tmp_path / "nowhere" / "x.md").read_text(encoding="utf-8").startswith("#")


# -- modes ----------------------------------------------------------------------------------


@contextlib.contextmanager
def umask(value: int) -> Iterator[None]:
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.skipif(not POSIX, reason="permission bits")
@pytest.mark.parametrize("writer", sorted(_library_writers()))
def test_new_files_get_the_umask_mode_and_replaced_files_keep_theirs(
    tmp_path: Path, writer: str
) -> None:
    write = _library_writers()[writer]
    fresh = tmp_path / ("new.lmmlz" if writer == "save" else "new.out")
    with umask(0o027):
        write(fresh)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o640
    kept = tmp_path / ("kept.lmmlz" if writer == "save" else "kept.out")
    kept.write_bytes(b"old")
    kept.chmod(0o604)
    write(kept)
    assert stat.S_IMODE(kept.stat().st_mode) == 0o604


@pytest.mark.skipif(not POSIX, reason="permission bits")
def test_cli_export_file_mode_follows_the_umask(tmp_path: Path) -> None:
    folder = tmp_path / "bundles"
    folder.mkdir()
    (folder / "a.lmml").write_text("## user\n\nhi\n")
    out = tmp_path / "out.jsonl"
    result = shell(f"umask 022 && $LMML export {folder} --jsonl {out} -q", tmp_path)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


# -- interrupted writes leave nothing behind -------------------------------------------------

_PAUSED_SAVE = textwrap.dedent(
    """
    import sys, time
    import lmml_mdit.bundle._saving as saving
    from lmml_mdit import Bundle

    real_write_entry = saving._write_entry

    def slow_write_entry(archive, name, data):
        real_write_entry(archive, name, data)
        if name == "a.txt":
            print("ready", flush=True)
            time.sleep(60)

    saving._write_entry = slow_write_entry
    if sys.argv[1] == "cli":
        from lmml_mdit.cli import main
        sys.exit(main(["pack", sys.argv[3], sys.argv[2]]))
    Bundle.from_zip("x", "@a.txt @b.txt", {"a.txt": b"A" * 100000, "b.txt": b"B"}).save(
        sys.argv[2]
    )
    """
)


def _default_signals() -> None:
    """In the child: SIGINT and SIGHUP as a terminal delivers them, whatever this run
    inherited (a background job ignores SIGINT, ``nohup`` SIGHUP, and the child would
    rightly keep ignoring them)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _paused_save(target: Path, how: str = "api") -> subprocess.Popen[bytes]:
    source = target.parent / "src.lmml"
    source.write_text("## user\n\n@@@a.txt\nA\n@@@\n\n@@@b.txt\nB\n@@@\n")
    env = dict(os.environ, PYTHONPATH=str(PACKAGE_ROOT))
    process = subprocess.Popen(
        [sys.executable, "-c", _PAUSED_SAVE, how, str(target), str(source)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        preexec_fn=_default_signals,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == b"ready\n"
    return process


def _listing(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir() if path.name != "src.lmml")


@pytest.mark.skipif(not POSIX, reason="POSIX signals")
@pytest.mark.parametrize("how", ["api", "cli"])
@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_mid_save_cleans_up_like_ctrl_c(
    tmp_path: Path, signal_name: str, how: str
) -> None:
    target = tmp_path / "x.lmmlz"
    target.write_bytes(b"old")
    process = _paused_save(target, how)
    number = getattr(signal, signal_name)
    process.send_signal(number)
    _, stderr = process.communicate(timeout=60)
    assert target.read_bytes() == b"old"
    assert _listing(tmp_path) == ["x.lmmlz"], stderr
    if how == "cli":
        expected = 130 if signal_name == "SIGINT" else 128 + number
        assert process.returncode == expected, stderr
        lines = stderr.decode().splitlines()
        assert len(lines) == 1 and lines[0].startswith("lmml: error: "), stderr


@pytest.mark.skipif(not POSIX, reason="POSIX signals")
def test_a_killed_save_leaves_a_recognisable_file_the_next_save_removes(tmp_path: Path) -> None:
    target = tmp_path / "x.lmmlz"
    target.write_bytes(b"old")
    process = _paused_save(target)
    process.kill()
    process.communicate(timeout=60)
    left = [name for name in _listing(tmp_path) if name != "x.lmmlz"]
    assert len(left) == 1 and left[0].startswith(".x.lmmlz.lmml-tmp"), left
    # A second writer killed the same way reuses the stale name: they never pile up.
    process = _paused_save(target)
    process.kill()
    process.communicate(timeout=60)
    assert len(_listing(tmp_path)) == 2
    sample_bundle().save(target)
    assert _listing(tmp_path) == ["x.lmmlz"]
    with lmml_mdit.open(target) as reopened:
        assert reopened.read("a.txt") == b"asset\n"


@pytest.mark.skipif(not POSIX, reason="advisory locks")
def test_a_live_writer_keeps_its_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "x.lmmlz"
    process = _paused_save(target)
    try:
        busy = [name for name in _listing(tmp_path) if ".lmml-tmp" in name]
        assert len(busy) == 1
        sample_bundle().save(target)  # another save meanwhile: it must not take that file
        assert (tmp_path / busy[0]).exists()
        with lmml_mdit.open(target) as reopened:
            assert reopened.read("a.txt") == b"asset\n"
    finally:
        process.kill()
        process.communicate(timeout=60)


# -- save() writes only what open() reads ----------------------------------------------------


def _zip_bundle(entries: dict[str, bytes]) -> Bundle:
    """A zip bundle holding *entries* as given, past the constructor checks (as an
    application editing ``Bundle`` fields could)."""
    bundle = Bundle.from_zip("x", "hello\n", {})
    bundle._entries.update(entries)
    return bundle


@pytest.mark.parametrize(
    ("file_name", "entry"),
    [
        ("out.lmmlz", "OUT.lmml"),
        ("out.lmmlz", "Out.LMML"),
        ("caf\u00e9.lmmlz", unicodedata.normalize("NFD", "caf\u00e9.lmml")),
        ("out.lmmlz", "bell\x07.txt"),
        ("out.lmmlz", "line\nbreak.txt"),
        ("out.lmmlz", "C:x"),
        ("out.lmmlz", "a/../b.txt"),
    ],
)
def test_save_refuses_an_archive_open_would_refuse(
    tmp_path: Path, file_name: str, entry: str
) -> None:
    target = tmp_path / file_name
    with pytest.raises(LmmlError) as raised:
        _zip_bundle({entry: b"data"}).save(target)
    assert raised.value.name in (entry, unicodedata.normalize("NFC", file_name[:-1]))
    assert list(tmp_path.iterdir()) == []


def test_save_refuses_a_file_name_whose_narrative_entry_open_would_refuse(tmp_path: Path) -> None:
    target = tmp_path / "esc\x1b[2J.lmmlz"
    with pytest.raises(LmmlError, match="control character") as raised:
        sample_bundle().save(target)
    assert raised.value.name == "esc\x1b[2J.lmml"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["a" * 70_000 + ".txt", "d/" * 20_000 + "\u00e9" * 20_000])
def test_an_entry_name_longer_than_a_zip_holds_is_refused_naming_it(
    tmp_path: Path, name: str
) -> None:
    # A zip entry name is at most 65,535 bytes; save() used to fail with struct.error.
    with pytest.raises(UnsafeEntryError, match="longer than a zip entry name") as raised:
        Bundle.from_zip("x", "hello\n", {name: b"data"})
    assert raised.value.name == name
    with pytest.raises(UnsafeEntryError, match="longer than a zip entry name"):
        _zip_bundle({name: b"data"}).save(tmp_path / "out.lmmlz")
    assert list(tmp_path.iterdir()) == []


def test_an_entry_name_of_65535_bytes_is_saved_and_opens_again(tmp_path: Path) -> None:
    name = "a" * 65_531 + ".txt"
    target = tmp_path / "ok.lmmlz"
    Bundle.from_zip("x", "hello\n", {name: b"data"}).save(target)
    with lmml_mdit.open(target) as reopened:
        assert reopened.entries == (name,)


def test_what_save_writes_always_opens_again(tmp_path: Path) -> None:
    target = tmp_path / "ok.lmmlz"
    _zip_bundle({"notes/Ok.txt": b"1", "other.lmml": b"2"}).save(target)
    with lmml_mdit.open(target) as reopened:
        assert reopened.entries == ("notes/Ok.txt", "other.lmml")


# -- pack() and inline() verify the bytes of every embed --------------------------------------


def test_inline_refuses_a_rewrite_that_changes_an_unclosed_fence_in_a_list_item() -> None:
    # The unclosed fence runs to the end of its list item; an appended fence after it would
    # join that item and give the fence one more newline.
    text = "## user\n\n- @b.txt\n  @@@c.txt\n  x\n"
    bundle = Bundle.from_zip("t", text, {"b.txt": b"x\n"})
    assert bundle.embed("c.txt") == b"x\n"
    with pytest.raises(LmmlError, match="change") as raised:
        bundle.inline()
    assert raised.value.name == "c.txt"
    assert raised.value.line is not None


def test_pack_refuses_a_rewrite_that_changes_any_embed(monkeypatch: pytest.MonkeyPatch) -> None:
    from lmml_mdit.bundle import _packing as packing  # patched on purpose

    real = packing._fences_to_references

    def rewrite_with_a_new_fence(*args: Any) -> list[str]:
        # What a misplaced line would do: a later line reads as a fence of a known name.
        return [*real(*args), "", "@@@a.txt", "other", "@@@"]

    monkeypatch.setattr(packing, "_fences_to_references", rewrite_with_a_new_fence)
    bundle = Bundle.from_text("t", "## user\n\n@@@a.txt\nsame\n@@@\n")
    with pytest.raises(LmmlError, match="change") as raised:
        bundle.pack()
    assert raised.value.name == "a.txt"


def test_pack_keeps_a_fence_that_matches_its_archive_entry(tmp_path: Path) -> None:
    text = "## user\n\n@@@a.txt\nsame\n@@@\n\nsee @a.txt\n"
    Bundle.from_zip("t", text, {"a.txt": b"same\n"}).save(tmp_path / "t.lmmlz")
    with lmml_mdit.open(tmp_path / "t.lmmlz") as opened:
        packed = opened.pack()
        assert packed.read("a.txt") == b"same\n"
        assert [embed.kind for embed in packed.narrative.embeds] == ["external", "external"]


def test_pack_and_inline_still_round_trip_the_examples() -> None:
    for path in sorted(EXAMPLES.glob("*.lmml*")):
        with lmml_mdit.open(path) as bundle:
            packed = bundle.pack()
            for name in packed.entries:
                assert packed.read(name) == bundle.embed(name)


# -- a full disk names the destination ------------------------------------------------------


def _no_space(*args: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("writer", sorted(_library_writers()))
def test_a_full_disk_names_the_destination(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    target = tmp_path / ("x.lmmlz" if writer == "save" else "x.out")
    target.write_bytes(b"old")
    write = _library_writers()[writer]
    monkeypatch.setattr(os, "fsync", _no_space)
    with pytest.raises(LmmlError) as raised:
        write(target)
    message = str(raised.value)
    assert str(target) in message and os.strerror(errno.ENOSPC) in message
    assert ".lmml-tmp" not in message and ".tmp" not in message
    assert target.read_bytes() == b"old"
    assert not [p for p in tmp_path.iterdir() if ".lmml-tmp" in p.name or p.suffix == ".tmp"]


@contextlib.contextmanager
def small_tmpfs(folder: Path) -> Iterator[Path]:
    """A 64 KB tmpfs at *folder*, when this process may mount one (root on Linux)."""
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here (the monkeypatched test covers this case)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="tmpfs")
def test_a_really_full_disk_names_the_destination(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting needs root (the monkeypatched test covers this case)")
    with small_tmpfs(tmp_path / "disk") as disk:
        target = disk / "big.lmmlz"
        big = Bundle.from_zip("big", "@a.bin", {"a.bin": os.urandom(200_000)})
        with pytest.raises(LmmlError, match="No space left") as raised:
            big.save(target)
        assert raised.value.name == str(target)
        assert list(disk.iterdir()) == []
        descriptor = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
        with contextlib.suppress(OSError):  # fill every last block
            while os.write(descriptor, b"\0" * 4096):
                pass
        os.close(descriptor)
        line = one_error(run("pack", TEXT_EXAMPLE, disk / "out.lmmlz"), "out.lmmlz")
        assert ".lmml-tmp" not in line and "No space left" in line
        line = one_error(run("preview", TEXT_EXAMPLE, "-o", disk / "p.html"), "p.html")
        assert ".lmml-tmp" not in line
        assert sorted(p.name for p in disk.iterdir()) == ["filler"]


# -- every input gets an LmmlError -----------------------------------------------------------


@pytest.mark.parametrize("value", [None, 42, 1.5, bytearray(b"hi"), ["hi"], Path("x.lmml")])
def test_parse_of_a_non_text_value_says_what_it_takes(value: object) -> None:
    with pytest.raises(TypeError, match="str or UTF-8 bytes"):
        lmml_mdit.parse(value)  # type: ignore[arg-type]


@pytest.mark.skipif(not POSIX, reason="closing standard streams with sh")
@pytest.mark.parametrize(
    "command",
    [
        "$LMML validate - <&-",
        "$LMML turns - <&-",
        "$LMML import - -o out.lmml <&-",
        "$LMML turns src.lmml >&-",
        "$LMML validate src.lmml >&-",
        "$LMML pack src.lmml - >&-",
        "$LMML render src.lmml >&-",
        "$LMML export bundles --jsonl - >&-",
    ],
)
def test_closed_standard_streams_are_one_line_errors(tmp_path: Path, command: str) -> None:
    (tmp_path / "src.lmml").write_text("## user\n\nhi\n")
    (tmp_path / "bundles").mkdir()
    one_error(shell(command, tmp_path), "closed")


@pytest.mark.skipif(not POSIX, reason="closing standard streams with sh")
def test_a_closed_stderr_keeps_messages_out_of_stdout(tmp_path: Path) -> None:
    result = shell("$LMML render missing.lmml 2>&-", tmp_path)
    assert result.returncode == 2
    assert result.stdout == b""


@pytest.mark.skipif(sys.platform != "linux", reason="file names as bytes")
@pytest.mark.parametrize("command", ["turns", "ls", "info", "validate", "pack", "render"])
def test_non_utf8_file_names(tmp_path: Path, command: str) -> None:
    raw = os.fsdecode(b"caf\xe9.lmml")  # Latin-1 bytes: not UTF-8
    (tmp_path / raw).write_text("## user\n\nhi\n")
    result = run(command, raw, cwd=tmp_path)
    stderr = result.stderr.decode("utf-8", "replace")
    assert "internal error" not in stderr and "Traceback" not in stderr, stderr
    if result.returncode != 0:
        one_error(result, "caf\\xe9.lmml")
    else:
        assert "\udce9" not in result.stdout.decode("utf-8", "surrogateescape")
    for output in (result.stdout, result.stderr):
        output.decode("utf-8")  # what reaches the terminal is UTF-8


@pytest.mark.parametrize(
    ("setting", "reason"),
    [
        ("when=2020-01-01", "date"),
        ("stamp=2020-01-01 10:00:00", "datetime"),
        ("loop=&a [*a]", "contains itself"),
        ("deep=" + "[" * 5000 + "]" * 5000, "nests"),
        ("deep=" + "[" * 150 + "]" * 150, "nests"),
        ("nan=.nan", "JSON number"),
        ("big=.inf", "JSON number"),
        ("keys={1: a}", "key"),
        ("bytes=!!binary aGk=", "bytes"),
        ("set=!!set {a: null}", "set"),
        (
            "laughs={a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], "
            + ", ".join(
                f"{x}: &{x} [{', '.join([f'*{p}'] * 10)}]"
                for p, x in zip("abcdefgh", "bcdefghi", strict=True)
            )
            + "}",
            "more than",
        ),
    ],
)
def test_set_values_yaml_cannot_give_as_json_are_one_line_errors(setting: str, reason: str) -> None:
    one_error(run("render", TEXT_EXAMPLE, "--request", "--set", setting), reason)


def test_set_still_takes_json_values() -> None:
    result = run("render", TEXT_EXAMPLE, "--request", "--model", "m", "--set", "temperature=0.5")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["temperature"] == 0.5


HUGE = 10**5000


@pytest.mark.parametrize(
    ("data", "format"),
    [
        ({"messages": [{"role": HUGE, "content": "hi"}]}, "openai"),
        ({"messages": [{"role": HUGE, "content": "hi"}]}, "anthropic"),
        ({"contents": [{"role": HUGE, "parts": [{"text": "hi"}]}]}, "gemini"),
        ({"contents": [{"role": HUGE, "parts": [{"text": "hi"}]}]}, None),
        ({"conversations": [{"from": HUGE, "value": "hi"}]}, "sharegpt"),
        ({"conversations": [{"from": HUGE, "value": "hi"}]}, None),
        ({"input": [{"type": "message", "role": HUGE, "content": "hi"}]}, "openai-responses"),
        ({"messages": [{"role": "user", "content": [{"type": HUGE}]}]}, "openai"),
        ({"messages": [{"role": "user", "content": "hi", HUGE: 1}]}, "openai"),
        ({"contents": [{"role": "user", "parts": [{HUGE: 1}]}]}, "gemini"),
    ],
)
def test_huge_integers_in_roles_are_import_errors(data: Any, format: str | None) -> None:
    from lmml_mdit import import_messages

    with pytest.raises(lmml_mdit.ImportFormatError) as raised:
        import_messages(data, format=format)
    assert len(str(raised.value)) < 400  # described by size, not printed whole


# -- control characters never reach the terminal ----------------------------------------------

HOSTILE = "\x1b[2J\x1b]0;owned\x07"


def _hostile_files(folder: Path) -> dict[str, Path]:
    text = folder / f"t{HOSTILE}.lmml"
    text.write_text(f"## user\n\n@@@a{HOSTILE}.txt\nhi\n@@@\n\nsee @b.txt\n")
    archive = folder / "z.lmmlz"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("z.lmml", "hi")
        out.writestr(f"x{HOSTILE}.txt", "x")
    return {"text": text, "zip": archive}


@pytest.mark.parametrize(
    ("command", "which", "mentions"),
    [
        (("validate", "{path}"), "text", True),
        (("validate", "{path}"), "zip", True),
        (("validate", "--json", "{path}"), "text", True),
        (("turns", "{path}"), "text", True),
        (("ls", "{path}"), "text", True),
        (("info", "{path}"), "text", True),
        (("pack", "{path}", "{folder}/out.lmmlz"), "text", True),
        (("cat", "{path}", f"a{HOSTILE}.txt"), "zip", True),
        (("inline", "{path}", "{folder}/o.lmml"), "zip", True),
        (("to-md", "{path}", "{folder}/{hostile}.md"), "text", True),
        (("render", "{path}"), "text", False),
        (("preview", "{path}", "-o", "{folder}/p.html"), "text", False),
    ],
)
def test_control_characters_in_names_are_escaped_on_the_terminal(
    tmp_path: Path, command: tuple[str, ...], which: str, mentions: bool
) -> None:
    path = _hostile_files(tmp_path)[which]
    arguments = [part.format(path=path, folder=tmp_path, hostile=HOSTILE) for part in command]
    result = run(*arguments)
    for output in (result.stdout, result.stderr):
        assert b"\x1b" not in output and b"\x07" not in output, output
    assert b"Traceback" not in result.stderr and b"internal error" not in result.stderr
    if mentions:  # the name is there, escaped (JSON has its own escape)
        printed = result.stdout + result.stderr
        assert b"\\x1b" in printed or b"\\u001b" in printed, printed


def test_one_function_escapes_names_for_the_terminal() -> None:
    from lmml_mdit.cli import shown

    assert shown("plain name.txt") == "plain name.txt"
    assert shown("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert shown("line\nbreak\r") == "line\\nbreak\\r"
    assert shown("\u2028\x85\x00") == "\\u2028\\x85\\x00"
    assert shown(os.fsdecode(b"caf\xe9")) == "caf\\xe9"
    assert shown(shown("a\x1bb")) == shown("a\x1bb")


# -- export: workers and deep folders -----------------------------------------------------------


def _folder_of_bundles(folder: Path, count: int) -> Path:
    folder.mkdir()
    for index in range(count):
        (folder / f"b{index:03d}.lmml").write_text(f"## user\n\nhello {index}\n")
    return folder


@pytest.mark.parametrize(
    ("bundles", "asked"), [(0, 64), (1, 64), (2, 64), (3, 2), (5, None), (37, 2)]
)
def test_export_never_starts_more_workers_than_cores_or_bundles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundles: int, asked: int | None
) -> None:
    from lmml_mdit.chat import _export as export_module  # private on purpose: patched

    started: list[int] = []
    real_pool = export_module.process_pool

    def counting_pool(workers: int | None, *args: Any, **kwargs: Any) -> Any:
        # The project's own pool, so a process with threads running (a test before this one
        # may leave some) forks its workers from a fresh server, as the library does.
        started.append(workers or 0)
        return real_pool(workers, *args, **kwargs)

    monkeypatch.setattr(export_module, "process_pool", counting_pool)
    folder = _folder_of_bundles(tmp_path / "in", bundles)
    report = export_module.export_folder(folder, "openai", tmp_path / "out.jsonl", workers=asked)
    assert report.written == bundles
    cores = os.cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    assert all(count <= min(cores, bundles) for count in started), started
    if bundles <= 1:
        assert started == []
    lines = (tmp_path / "out.jsonl").read_text().splitlines()
    assert len(lines) == bundles
    for index, line in enumerate(lines):  # in walk order
        assert f"hello {index}" in line


def _remove_chain(folder: str, depth: int) -> None:
    """Remove a chain of nested ``d`` folders bottom up (shutil.rmtree recurses)."""
    paths = [folder + "/d" * level for level in range(depth, -1, -1)]
    for path in paths:
        if not os.path.isdir(path):
            continue
        for name in os.listdir(path):
            if name != "d":
                os.unlink(os.path.join(path, name))
        os.rmdir(path)


def test_export_walks_a_folder_tree_of_any_depth(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    depth = sys.getrecursionlimit() + 200
    folder = tmp_path / "deep"
    folder.mkdir()
    leaf = str(folder)
    for _ in range(depth):  # Path.mkdir(parents=True) itself recurses per level
        leaf += "/d"
        os.mkdir(leaf)
    request.addfinalizer(lambda: _remove_chain(str(folder), depth))
    Path(leaf, "x.lmml").write_text("## user\n\nat the bottom\n")
    (folder / "a.lmml").write_text("## user\n\nat the top\n")
    from lmml_mdit import export_folder
    from lmml_mdit.chat import iter_bundles

    found = list(iter_bundles(folder))
    assert [Path(path).name for path in found] == ["a.lmml", "x.lmml"]
    report = export_folder(folder, "sharegpt", tmp_path / "out.jsonl", workers=1)
    assert report.written == 2 and report.ok
    result = run("export", folder, "--jsonl", tmp_path / "cli.jsonl", "-q")
    assert result.returncode == 0, result.stderr
    assert len((tmp_path / "cli.jsonl").read_text().splitlines()) == 2


@pytest.mark.skipif(not POSIX, reason="symbolic links")
def test_a_link_planted_at_a_temporary_name_is_never_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("secret")
    planted = tmp_path / ".x.lmmlz.lmml-tmp-0"
    planted.symlink_to(victim)
    sample_bundle().save(tmp_path / "x.lmmlz")
    assert victim.read_text() == "secret"
    assert planted.is_symlink()  # not ours: neither reused nor removed
    with lmml_mdit.open(tmp_path / "x.lmmlz") as reopened:
        assert reopened.read("a.txt") == b"asset\n"


def test_cli_creates_output_folders_of_any_depth(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    depth = sys.getrecursionlimit() + 200
    dest = str(tmp_path / "out") + "/d" * depth + "/x.md"
    request.addfinalizer(lambda: _remove_chain(str(tmp_path / "out"), depth))
    result = run("to-md", TEXT_EXAMPLE, dest)
    assert result.returncode == 0, result.stderr
    assert Path(dest).read_text().startswith("# Quarterly sales review")


@pytest.mark.skipif(not POSIX or os.geteuid() != 0, reason="changing owners needs root")
def test_a_file_replaced_by_root_keeps_its_owner(tmp_path: Path) -> None:
    target = tmp_path / "theirs.lmmlz"
    target.write_bytes(b"old")
    os.chown(target, 4321, 4321)
    target.chmod(0o600)
    sample_bundle().save(target)
    status = target.stat()
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (4321, 4321, 0o600)


@pytest.mark.parametrize("metadata", [{"role": HUGE}, {"n": [HUGE]}, {"d": {"role": -HUGE}}])
def test_huge_integers_in_transcript_metadata_are_transcript_errors(
    tmp_path: Path, metadata: dict[str, Any]
) -> None:
    chat = Transcript()
    chat.append("alice", "hi", metadata=metadata)
    for save in (chat.save, chat.save_lmml):
        target = tmp_path / ("t.json" if save == chat.save else "t.lmmlz")
        with pytest.raises(lmml_mdit.TranscriptFormatError, match="digits") as raised:
            save(target)
        assert len(str(raised.value)) < 300
        assert not target.exists()
    chat = Transcript()
    data = {
        "format": "lmml_mdit.transcript",
        "schema_version": 1,
        "messages": [{"author": "alice", "content": "hi", "metadata": metadata}],
        "assets": {},
    }
    with pytest.raises(lmml_mdit.TranscriptFormatError, match="digits"):
        Transcript.from_dict(data)
    chat.append("alice", "hi", metadata={"n": 10**4000})  # within the limit: kept exactly
    chat.save(tmp_path / "t.json")
    assert Transcript.load(tmp_path / "t.json").messages[0].metadata == {"n": 10**4000}


_REWRITE_LINES = [
    *("- @@@a.txt", "  x", "@@@", "@a.txt", "@b.txt", "- @b.txt", "y", "", "- item"),
    *("  @@@c.txt", "> @a.txt", "    @@@", "1. @@@c.txt", "@@@c.txt", "  @b.txt", "@@@a.txt"),
    *("  @@@a.txt", "- @@@b.txt", "> @@@c.txt", ">", "   @@@", "## assistant"),
]
_ASSET_BYTES = [b"x\n", b"@@@c.txt\nq\n", b"  @@@\n", b"- a\n", b"x", b"```\n", b"@@@b.txt\n"]


@settings(max_examples=int(os.environ.get("LMML_FUZZ_EXAMPLES", "150")), deadline=None)
@given(
    st.lists(st.sampled_from(_REWRITE_LINES), min_size=1, max_size=7),
    st.sampled_from(_ASSET_BYTES),
    st.sampled_from(_ASSET_BYTES),
)
def test_a_pack_or_inline_that_succeeds_keeps_every_embeds_bytes(
    lines: list[str], first: bytes, second: bytes
) -> None:
    text = "## user\n\n" + "\n".join(lines) + "\n"
    for bundle, rewrite in (
        (Bundle.from_text("t", text), Bundle.pack),
        (Bundle.from_zip("t", text, {"a.txt": first, "b.txt": second}), Bundle.inline),
    ):
        expected: dict[str, bytes | None] = {}
        conflicting = False
        for embed in bundle.narrative.embeds:
            try:
                value = embed.content if embed.kind == "inline" else bundle.embed(embed.name)
            except LmmlError:
                value = None
            conflicting |= expected.setdefault(embed.name, value) != value
        if conflicting:
            continue  # validate reports those (conflicting_embed); a rewrite keeps them
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # entries left unreferenced are named, fine
                result = rewrite(bundle)
        except LmmlError:
            continue
        for embed in result.narrative.embeds:
            if embed.kind == "inline":
                assert embed.content == expected.get(embed.name, embed.content), embed
            elif expected.get(embed.name) is not None:
                assert result.embed(embed.name) == expected[embed.name], embed


def test_an_exclusive_copy_that_fails_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without hard links the exclusive write copies into place; a copy cut short by a full
    # disk must not leave a half-written file behind.
    from lmml_mdit import atomic

    def no_links(source: str, target: str) -> None:
        raise OSError(errno.EPERM, "no hard links here")

    def full_disk(source: Any, sink: Any, length: int = 0) -> None:
        sink.write(b"half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "link", no_links)
    monkeypatch.setattr(shutil, "copyfileobj", full_disk)
    target = tmp_path / "new.lmml"
    with pytest.raises(OSError):
        atomic.atomic_write_bytes(target, b"## user\nhi\n", exclusive=True)
    assert sorted(os.listdir(tmp_path)) == []


def test_a_batch_syncs_each_folder_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside batched_folder_syncs every file is still fsynced and renamed into place, and
    its folder is fsynced once, when the batch ends (not once per file)."""
    import lmml_mdit.atomic as atomic

    synced: list[str] = []
    monkeypatch.setattr(atomic, "_fsync_folder", synced.append)
    with atomic.batched_folder_syncs():
        for number in range(5):
            atomic.atomic_write_bytes(tmp_path / f"{number}.txt", b"x")
        assert synced == []
        assert sorted(path.name for path in tmp_path.iterdir()) == [f"{n}.txt" for n in range(5)]
    assert synced == [str(tmp_path)]
    atomic.atomic_write_bytes(tmp_path / "alone.txt", b"y")
    assert synced == [str(tmp_path), str(tmp_path)]


# -- lmml eval's results file is a regular file too ---------------------------------------

EVAL_TEMPLATE = "---\ninputs:\n  q: string\n---\n## user\n\n{{ q }}\n"


def _interrupted(signal_number: int, frame: object) -> None:
    raise TimeoutError("lmml eval blocked on its results file")


@pytest.mark.skipif(not POSIX, reason="FIFOs and /dev/null are POSIX")
@pytest.mark.parametrize("kind", ["fifo", "device", "folder", "fifo-parquet"])
def test_eval_refuses_a_results_file_that_is_not_a_regular_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    # A FIFO used to block the run for ever (its rows were read first), /dev/null ended in
    # a bare "lmml: error: Invalid argument" and a folder in "Is a directory".
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    (tmp_path / "t.lmml").write_text(EVAL_TEMPLATE)
    (tmp_path / "c.jsonl").write_text('{"q": "a"}\n')
    out = {
        "fifo": tmp_path / "out.jsonl",
        "device": Path(os.devnull),
        "folder": tmp_path / "out",
        "fifo-parquet": tmp_path / "out.parquet.journal.jsonl",
    }[kind]
    if kind.startswith("fifo"):
        os.mkfifo(out)
    elif kind == "folder":
        out.mkdir()
    given = tmp_path / "out.parquet" if kind == "fifo-parquet" else out
    command = ["eval", str(tmp_path / "t.lmml"), "--cases", str(tmp_path / "c.jsonl")]
    previous = signal.signal(signal.SIGALRM, _interrupted)
    signal.alarm(10)
    try:
        status = main([*command, "--target", "openai:m", "--out", str(given)])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert status == 2
    err = capsys.readouterr().err
    assert f"lmml: error: {out}: cannot write over " in err, err
    assert "only a regular file" in err
