"""Every command of the first command line that reads a bundle, driven as a subprocess on
each input it must refuse: a missing file, an unsafe archive, a narrative that is not
UTF-8 (in a bare file and inside an archive), and an unknown flag. Each is exit status 2,
one ``lmml: error:`` line naming the file and what is wrong, no traceback, and nothing
written."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest
from _bundle_files import make_zip
from _cli import run_lmml

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sales-review.lmml"

# The command, and the arguments after the bundle (a DEST elsewhere, so that no
# refusal to write over the source comes first).
READERS = {
    "validate": [],
    "render": [],
    "turns": [],
    "ls": [],
    "cat": ["notes.txt"],
    "pack": ["{out}/o.lmmlz"],
    "inline": ["{out}/o.lmml"],
    "to-md": ["{out}/o.md"],
    "preview": ["-o", "{out}/o.html"],
    "info": [],
}


def _inputs(folder: Path) -> dict[str, tuple[Path, tuple[str, ...]]]:
    """Each bad input, with the fragments its error line must hold."""
    unsafe = make_zip(folder / "unsafe.lmmlz", "## user\n\nsee @notes.txt\n", {"../x.txt": b"x"})
    bad_text = folder / "bad.lmml"
    bad_text.write_bytes(b"## user\n\nhello \xff world\n")
    bad_entry = folder / "badzip.lmmlz"
    with zipfile.ZipFile(bad_entry, "w") as archive:
        archive.writestr("badzip.lmml", b"## user\n\nhello \xff world\n")
    return {
        "missing": (folder / "gone.lmml", ("gone.lmml", "no such file")),
        "unsafe": (unsafe, ("unsafe.lmmlz", "../x.txt", "unsafe entry name")),
        "utf8": (bad_text, ("bad.lmml:3:7", "invalid UTF-8")),
        "utf8-entry": (bad_entry, ("badzip.lmmlz", "badzip.lmml:3:7", "invalid UTF-8")),
    }


def _one_error(result: subprocess.CompletedProcess[bytes], *fragments: str) -> None:
    stderr = result.stderr.decode()
    assert result.returncode == 2, (result.returncode, stderr)
    assert "Traceback" not in stderr
    [line] = stderr.splitlines()
    assert line.startswith("lmml: error: "), line
    assert "internal error" not in line, line
    for fragment in fragments:
        assert fragment in line, (fragment, line)


@pytest.mark.parametrize("command", sorted(READERS))
def test_every_reader_refuses_each_bad_input_in_one_line(tmp_path: Path, command: str) -> None:
    out = tmp_path / "out"
    for what, (path, fragments) in _inputs(tmp_path).items():
        rest = [part.format(out=out) for part in READERS[command]]
        result = run_lmml(command, path, *rest, cwd=tmp_path)
        try:
            _one_error(result, *fragments)
        except AssertionError as failure:
            raise AssertionError(f"{command} on {what}: {failure}") from None
    assert not out.exists()  # nothing written, not even the output's folder
    assert not (tmp_path.parent / "x.txt").exists()


@pytest.mark.parametrize("command", sorted(READERS))
def test_every_reader_refuses_an_unknown_flag_naming_its_help(tmp_path: Path, command: str) -> None:
    out = tmp_path / "out"
    rest = [part.format(out=out) for part in READERS[command]]
    result = run_lmml(command, EXAMPLE, *rest, "--no-such-flag")
    _one_error(result, f"{command}: ", "--no-such-flag", f"lmml {command} --help")
    assert not out.exists()


@pytest.mark.parametrize(
    "argv",
    [[command, "", *(["x"] if command == "cat" else [])] for command in ["new", *sorted(READERS)]]
    + [["pack", str(EXAMPLE), ""], ["validate", str(EXAMPLE), ""]],
    ids=lambda argv: " ".join(argv[:1] + [repr(word) for word in argv[1:]]),
)
def test_an_empty_path_is_a_usage_error(argv: list[str], tmp_path: Path) -> None:
    """An empty path said ``lmml: error: : cannot read the file`` (``lmml new ''``: ``: is a
    folder``), and ``lmml pack SRC ''`` ``cannot write over a folder``."""
    result = run_lmml(*argv, cwd=tmp_path)
    _one_error(result, f"{argv[0]}: argument ", "an empty path names no file")
    assert list(tmp_path.iterdir()) == []


def test_new_in_a_folder_not_named_says_so(tmp_path: Path) -> None:
    """``lmml new notes/`` said ``notes/: is a folder`` of a folder that does not exist."""
    result = run_lmml("new", "notes/", cwd=tmp_path)
    _one_error(result, "notes/: names a folder (it ends in a separator)", "lmml new notes/session")
    assert list(tmp_path.iterdir()) == []


def test_new_over_a_folder_says_folder(tmp_path: Path) -> None:
    """``lmml new notes`` with a folder ``notes.lmml`` said it would not overwrite an
    existing *file*."""
    (tmp_path / "notes.lmml").mkdir()
    result = run_lmml("new", "notes", cwd=tmp_path)
    _one_error(result, "notes.lmml: refusing to overwrite an existing folder")
    assert list((tmp_path / "notes.lmml").iterdir()) == []
