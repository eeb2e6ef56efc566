"""What the ``lmml`` command line prints and writes, and how it fails.

Data goes to stdout (JSON, asset bytes, Markdown), confirmations, warnings and errors to
stderr, every name passed through :func:`shown` first. A path of ``-`` (:data:`STDIO`)
reads standard input (:func:`~lmml_mdit.stdin.stdin_buffer`) or writes standard output;
a file is written atomically (:mod:`lmml_mdit.atomic`), its missing folders created.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TextIO

from ..atomic import atomic_write_bytes
from ..errors import LmmlError, WriteError, file_location, location
from ..formats import ARCHIVE_SUFFIX, NARRATIVE_SUFFIX, other_kind_suffix
from ..stdin import stdin_buffer as stdin_buffer
from ._arguments import Arguments
from ._failure import CliError as CliError

if TYPE_CHECKING:
    from ..bundle import Bundle
    from ..model import Issue

__all__ = [
    "PROGRAM",
    "STDIO",
    "CliError",
    "deliver",
    "discard_stdout",
    "ends_in_separator",
    "ensure_folder",
    "error",
    "error_text",
    "info",
    "issue_line",
    "missing_summary",
    "one_line",
    "save_bundle",
    "shown",
    "stdin_buffer",
    "stdout_buffer",
    "stdout_bytes",
    "stdout_discarded",
    "stdout_json",
    "stdout_text",
    "warn",
    "write_all",
    "writing",
]

PROGRAM = "lmml"
"""The command's name, as the console script installs it and as every message starts."""

STDIO = "-"
"""The path meaning standard input or standard output."""


# -- text on a terminal -------------------------------------------------------------------


def shown(text: str) -> str:
    """*text* safe to print on a terminal: every control character (ESC, BEL, CR, NUL, a
    newline inside a name, C1 codes, line and paragraph separators) and every lone
    surrogate (a file name that is not UTF-8) written as a ``\\x1b``-style escape, so that a
    hostile name cannot clear the screen, move the cursor or forge a line of output.

    The CLI passes every name it prints (paths, entry and embed names, roles, messages
    that quote them) through this one function.
    """
    if text.isprintable():
        return text
    return "".join(
        char
        if char.isprintable() or char == " "
        else char.encode("unicode_escape", "backslashreplace").decode("ascii")
        if not 0xD800 <= ord(char) <= 0xDFFF
        else f"\\x{ord(char) - 0xDC00:02x}"
        if 0xDC80 <= ord(char) <= 0xDCFF
        else f"\\u{ord(char):04x}"
        for char in text
    )


def one_line(text: str) -> str:
    """*text* with every run of whitespace (newlines included) one space."""
    return " ".join(text.split())


def error_text(error: BaseException) -> str:
    """*error* as one line in the command line's words (an :class:`LmmlError` with its
    ``cli_hint``, an :class:`OSError` as ``file: reason``)."""
    # The place is a name, escaped (a newline in it is no line break to fold into a space);
    # only the words after it are folded onto one line.
    if isinstance(error, LmmlError):
        where = shown(location(*error.place()))
        words = one_line(error.format(cli=True, place=False))
        return (f"{where}: {words}" if where and words else where or words) or type(error).__name__
    if isinstance(error, OSError) and error.strerror:
        name = error.filename
        where = (
            ""
            if name is None
            else shown(os.fsdecode(name) if isinstance(name, (str, bytes)) else str(name))
        )
        reason = error.strerror
        if isinstance(error, FileNotFoundError) and where:
            reason += " (check the path and the current folder)"  # as a bundle path says
        return f"{where}: {one_line(reason)}" if where else one_line(reason)
    return one_line(str(error)) or type(error).__name__


def issue_line(label: str, issue: Issue, *, archive: bool = True) -> str:
    """``FILE:LINE:COL: kind: message``, FILE being *label* (``label!entry`` for a line
    inside an archive entry, the file's path for a file beside a bare narrative: *archive*
    says which), the message in the command line's words."""
    where = location(file_location(label, issue.file, archive=archive), issue.line, issue.column)
    return shown(f"{where}: {issue.kind}: {one_line(issue.cli_message or issue.message)}")


_SUMMARY_NAMES = 10
"""How many missing names the summary line counts one by one; the rest are a number."""


def missing_summary(issues: Iterable[Issue]) -> str | None:
    """``N missing reference(s): a.png (3), b.csv (1)``: how many places name each missing
    asset, most first (then by name), at most :data:`_SUMMARY_NAMES` of them (``and K more
    names``), or None when fewer than two issues are ``missing_reference`` (one is its own
    summary)."""
    counts = Counter(issue.name for issue in issues if issue.kind == "missing_reference")
    if counts.total() < 2:
        return None
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    names = ", ".join(f"{name} ({count})" for name, count in ranked[:_SUMMARY_NAMES])
    if len(ranked) > _SUMMARY_NAMES:
        names += f", and {len(ranked) - _SUMMARY_NAMES} more names"
    return shown(f"{counts.total()} missing reference(s): {names}")


def info(args: Arguments, text: str) -> None:
    """A confirmation line on stderr, unless ``--quiet``."""
    if not args.quiet:
        print(shown(text), file=sys.stderr)


def warn(text: str) -> None:
    """One ``lmml: warning:`` line on stderr."""
    print(f"{PROGRAM}: warning: {shown(one_line(text))}", file=sys.stderr)


@contextlib.contextmanager
def warnings_worded(words: Callable[[Warning | str], str]) -> Iterator[None]:
    """Within the block, each library warning is said at once as one ``lmml: warning:``
    line, worded by *words* (the warning's own wording on the command line, a file named as
    typed, ...)."""

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        warn(words(message))

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def error(text: str) -> None:
    """One ``lmml: error:`` line on stderr (the exit status is the caller's to choose)."""
    print(f"{PROGRAM}: error: {shown(one_line(text))}", file=sys.stderr)


# -- standard streams ---------------------------------------------------------------------


def stdout_buffer() -> BinaryIO:
    """Standard output's byte stream.

    :raises CliError: when it is closed (checked before any work where output goes there).
    """
    stream = sys.stdout
    if stream is None or stream.closed:
        raise CliError("standard output is closed; give an output file instead of -")
    return stream.buffer


_DISCARDED: list[object] = []
"""The standard output :func:`discard_stdout` gave up on (one at most): its failure has
been said, and a later flush that fails again says nothing more."""


def discard_stdout() -> None:
    """Point standard output at the null device and drop what it still holds, so that
    nothing written there later fails again: after the reader went away, or a write
    failed, the interpreter's last flush would otherwise add its own complaint."""
    stream = sys.stdout
    if stream is None:
        return
    _DISCARDED[:] = [stream]
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, stream.fileno())
        finally:
            os.close(devnull)
    with contextlib.suppress(OSError, ValueError):
        stream.flush()


def stdout_discarded() -> bool:
    """Whether the current standard output was given up on by :func:`discard_stdout`."""
    return bool(_DISCARDED) and _DISCARDED[0] is sys.stdout


def stdout_bytes(data: bytes) -> None:
    """Write *data* to standard output, after any text already printed there.

    :raises CliError: when standard output takes only part of it (a full disk);
        :class:`BrokenPipeError` when its reader went away.
    """
    buffer = stdout_buffer()
    sys.stdout.flush()
    try:
        write_all(buffer, data, "standard output", flush=True)
    except CliError:
        discard_stdout()
        raise


def write_all(stream: BinaryIO, data: bytes, name: str, *, flush: bool = False) -> None:
    """Write every byte of *data* to *stream* (then *flush* it), *name* in the error when
    that fails.

    With ``PYTHONUNBUFFERED`` set, standard output's byte stream is the raw file, whose
    ``write`` takes what the system call took and says how much: on a full disk (or a
    signal mid-write) the rest was silently dropped. Here it is written again until all
    of it is taken, so the failure, if any, surfaces.

    :raises CliError: when the stream fails (``NAME: cannot write: reason``);
        :class:`BrokenPipeError` passes unchanged (the reader went away: a quiet stop).
    """
    view = memoryview(data)
    try:
        while view:
            taken = stream.write(view)
            if taken is None:  # a non-blocking stream that would block: wait, then again
                import select

                select.select([], [stream], [])
                continue
            view = view[taken:]
        if flush:
            stream.flush()
    except BrokenPipeError:
        raise
    except OSError as failure:
        reason = failure.strerror or str(failure)
        raise CliError(f"{name}: cannot write: {reason}") from None


def stdout_text(text: str) -> None:
    """Write *text* to standard output as UTF-8."""
    # A path that is not UTF-8 reaches the output escaped, not as an encoding error.
    stdout_bytes(text.encode("utf-8", "backslashreplace"))


def stdout_json(value: object) -> None:
    """Write *value* to standard output as indented JSON."""
    stdout_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


# -- files --------------------------------------------------------------------------------


def save_bundle(bundle: Bundle, dest: str, *, exclusive: bool = False) -> None:
    """Save *bundle* to *dest* (``-`` for stdout, the narrative entry then named after the
    bundle), atomically (see :func:`lmml_mdit.bundle.save_bundle`)."""
    from ..bundle import bundle_bytes
    from ..bundle import save_bundle as save_to_file

    if dest == STDIO:
        suffix = ARCHIVE_SUFFIX if bundle.kind == "zip" else NARRATIVE_SUFFIX
        stdout_bytes(bundle_bytes(bundle, bundle.name + suffix))
        return
    save_to_file(bundle, dest, exclusive=exclusive)  # the caller made its folder


def named_for_other_kind(dest: str, suffix: str) -> bool:
    """Whether *dest* (not ``-``) ends in the other bundle kind's extension than *suffix*
    (``.lmml`` or ``.lmmlz``), so a bundle of *suffix*'s kind written there would not hold
    what its name says."""
    kind = "zip" if suffix == ARCHIVE_SUFFIX else "text"
    return dest != STDIO and other_kind_suffix(dest, kind) is not None


def deliver(args: Arguments, dest: str, output: bytes | Bundle, done: str) -> None:
    """Write *output* (bytes, or a bundle to save) to *dest*, ``-`` meaning stdout; after a
    write to a file, print the confirmation *done* on stderr (see :func:`info`)."""
    if dest == STDIO:
        if isinstance(output, bytes):
            stdout_bytes(output)
        else:
            save_bundle(output, dest)
        return
    ensure_folder(dest)
    with writing(dest):
        if isinstance(output, bytes):
            atomic_write_bytes(dest, output)
        else:
            save_bundle(output, dest)
    info(args, done)


def ends_in_separator(path: str) -> bool:
    """Whether *path* ends in a path separator: it names a folder, never a file to write."""
    return path.endswith(tuple(sep for sep in ("/", os.sep, os.altsep) if sep))


def ensure_folder(dest: str) -> None:
    """Create the folders *dest* needs, failing with one clear line when *dest* names a
    folder (it ends in a separator: the file would be written under the folder's name), a
    file is in the way or the parent cannot be written."""
    if ends_in_separator(dest):
        raise CliError(
            f"{dest}: names a folder (it ends in a separator); give the file to write in it"
        )
    # A link is written through (atomic.check_destination): the folders its target needs.
    folder = Path(os.path.realpath(dest) if os.path.islink(dest) else dest).parent
    try:
        _make_folders(folder)
    except FileExistsError:
        raise CliError(f"{dest}: cannot write: {folder} is not a folder") from None
    except OSError as error:
        reason = error.strerror or error_text(error)
        raise CliError(f"{dest}: cannot create the folder {folder}: {reason}") from None


def _make_folders(folder: Path) -> None:
    """``folder.mkdir(parents=True, exist_ok=True)`` without its recursion (one call per
    missing level), so a path of any depth works: the missing ancestors are found going
    up, then created going down.

    :raises FileExistsError: when something that is not a folder is in the way.
    """
    missing: list[Path] = []
    while not folder.is_dir():
        if os.path.lexists(folder):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(folder))
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by someone else
            path.mkdir()
        if not path.is_dir():
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path))


@contextlib.contextmanager
def writing(dest: str) -> Iterator[None]:
    """Report a failed write as one error about *dest* itself, not about the temporary
    file or folder the atomic write was using at the time."""
    try:
        yield
    except (BrokenPipeError, FileExistsError):
        raise
    except WriteError as error:  # already about dest, as the user typed it
        raise CliError(error_text(error)) from None
    except OSError as error:
        reason = error.strerror or error_text(error)
        raise CliError(f"{dest}: cannot write: {reason}") from None
