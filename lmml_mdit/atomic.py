"""Atomic file writes: a reader sees the old file or the new one, never half of either.

:func:`atomic_write` is the one way this package writes a file: a locked temporary file
(:data:`TEMPORARY_MARK`) in the target's folder, fsynced, then :func:`os.replace`; on any
failure, Ctrl-C or SIGTERM (:class:`Terminated`) it is removed and the target left as it
was, and the error is a :class:`WriteError` naming the destination. See docs/bundles.md,
"Writing: save(path)".
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from types import FrameType
from typing import BinaryIO

from .errors import WriteError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, no stale-file sweep
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "TEMPORARY_MARK",
    "Terminated",
    "atomic_write",
    "atomic_write_bytes",
    "batched_folder_syncs",
    "check_destination",
    "is_write_failure",
    "terminate_cleanly",
    "write_error",
]

TEMPORARY_MARK = ".lmml-tmp"
"""What the name of every temporary file written here holds: ``.out.lmmlz.lmml-tmp-0``."""

_SLOTS = 8
"""Temporary names tried per destination; writers beyond that get a random one."""

_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


class Terminated(SystemExit):
    """SIGTERM or SIGHUP arrived during a write: raised so that clean-up runs, then the
    process exits with status ``128 + signal number`` as the signal would have made it.

    :ivar signal_number: the signal received.
    """

    def __init__(self, signal_number: int) -> None:
        super().__init__(128 + signal_number)
        self.signal_number = signal_number

    def __str__(self) -> str:
        return f"terminated by {signal.Signals(self.signal_number).name}"


def _raise_terminated(signal_number: int, frame: FrameType | None) -> None:
    raise Terminated(signal_number)


_CLEAN_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextlib.contextmanager
def terminate_cleanly() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise :class:`Terminated` instead of killing
    the process on the spot, so ``finally`` blocks and :func:`atomic_write`'s clean-up run.

    Only signals left at their default action are taken over, and only in the main thread
    (the only one Python delivers signals to); the old handlers come back afterwards.
    """
    installed: list[int] = []
    if threading.current_thread() is threading.main_thread():
        for number in _CLEAN_SIGNALS:
            if signal.getsignal(number) is signal.SIG_DFL:
                signal.signal(number, _raise_terminated)
                installed.append(number)
    try:
        yield
    finally:
        for number in installed:
            signal.signal(number, signal.SIG_DFL)


def _reason(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


def write_error(target: str, error: OSError) -> WriteError:
    """The :class:`WriteError` for *error*, a failed write of *target*, naming *target*."""
    failure = WriteError(
        f"cannot write: {_reason(error)}",
        name=target,
        hint="check that the folder exists and is writable and that the disk has room; "
        "the old file, if any, is unchanged",
    )
    failure.errno = error.errno
    return failure


def check_destination(path: str | os.PathLike[str]) -> str:
    """The file a write to *path* replaces: *path* itself, or the file a symbolic link at
    *path* leads to (a dangling link's target is created).

    :raises WriteError: when what is there is not a regular file (a folder, a device, a
        FIFO, a socket) or cannot be examined (a link loop, a forbidden folder), or when
        *path* ends in a separator (it names a folder).
    """
    target = os.fspath(path)
    if target.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):
        # realpath() would drop the separator, and the file be written under the name.
        raise WriteError(
            "names a folder (it ends in a separator), not a file to write",
            name=target,
            hint="give the path of a file to create or replace, without the separator",
        )
    real = os.path.realpath(target)
    try:
        status = os.stat(real)
    except FileNotFoundError:
        try:
            # A link resolving to no path may still lead somewhere: ``/dev/stdout`` into a
            # pipe reads as ``pipe:[N]``, which only following the link itself finds.
            status = os.stat(target)
        except OSError:
            return real
    except OSError as error:
        raise write_error(target, error) from None
    for test, kind in _FILE_KINDS:
        if test(status.st_mode):
            raise WriteError(
                f"cannot write over {kind}: only a regular file is ever replaced",
                name=target,
                hint="give the path of a file to create or replace"
                + ("; on the command line - means standard output" if kind != "a folder" else ""),
            )
    if not stat.S_ISREG(status.st_mode):  # pragma: no cover - door, port, whiteout
        raise WriteError("refusing to write over something that is not a file", name=target)
    return real


def _new_file_mode(real: str) -> int:
    """The mode the target gets: the old file's mode, else the default for a new file."""
    try:
        return os.stat(real).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _keep_owner(temporary: str, real: str) -> None:
    """Give the new file the old one's owner and group where this process may (root may;
    others may keep a group they belong to); a new file keeps the writer's."""
    if not hasattr(os, "chown"):
        return
    try:
        old = os.stat(real)
    except OSError:
        return
    new = os.stat(temporary)
    if (old.st_uid, old.st_gid) != (new.st_uid, new.st_gid):
        with contextlib.suppress(OSError):
            os.chown(temporary, old.st_uid, old.st_gid)
        with contextlib.suppress(OSError):
            os.chown(temporary, -1, old.st_gid)


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable, where the platform allows opening a folder."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def _slot_path(folder: str, name: str, slot: int) -> str:
    return os.path.join(folder, f".{name}{TEMPORARY_MARK}-{slot}")


def _lock(descriptor: int) -> bool:
    """Take the advisory lock on *descriptor* without waiting; False when someone has it."""
    assert fcntl is not None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


_OPEN_FLAGS = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
"""How a temporary name is opened: never through a symbolic link someone planted there."""


def _still_named(descriptor: int, path: str) -> bool:
    """Whether *path* still names the file open as *descriptor* (not renamed or removed
    by another writer between our open and our lock), and that file is a regular file of
    our own: a name someone else planted (a link, a FIFO, another user's file) is never
    reused or removed."""
    try:
        here = os.lstat(path)
    except OSError:
        return False
    mine = os.fstat(descriptor)
    ours = not hasattr(os, "geteuid") or mine.st_uid == os.geteuid()
    return (
        stat.S_ISREG(mine.st_mode)
        and ours
        and (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)
    )


def _open_slot(path: str, flags: int) -> int | None:
    try:
        return os.open(path, flags, 0o600)
    except OSError:
        return None  # not ours to open (another user's, a link, a folder): skip it


def _claim_slot(folder: str, name: str) -> tuple[int, str] | None:
    """Open and lock a free temporary name for *name*, reusing a stale one (left by a
    writer that died: its lock went with it); None when every slot is busy."""
    for slot in range(_SLOTS):
        path = _slot_path(folder, name, slot)
        for _attempt in range(3):
            descriptor = _open_slot(path, _OPEN_FLAGS | os.O_CREAT)
            if descriptor is None:
                break
            if not _lock(descriptor):
                os.close(descriptor)
                break  # a live writer has it: try the next slot
            if _still_named(descriptor, path):
                os.ftruncate(descriptor, 0)
                return descriptor, path
            os.close(descriptor)  # renamed or removed meanwhile, or not ours: look again
            if os.path.lexists(path):
                break
    return None


def _sweep_stale(folder: str, name: str, keep: str) -> None:
    """Remove temporary files of *name* whose writer died (unlocked), except *keep*."""
    for slot in range(_SLOTS):
        path = _slot_path(folder, name, slot)
        if path == keep:
            continue
        descriptor = _open_slot(path, _OPEN_FLAGS)
        if descriptor is None:
            continue
        try:
            if _lock(descriptor) and _still_named(descriptor, path):
                os.unlink(path)
        except OSError:
            pass
        finally:
            os.close(descriptor)


def _open_temporary(folder: str, name: str) -> tuple[int, str]:
    if fcntl is not None:
        claimed = _claim_slot(folder, name)
        if claimed is not None:
            _sweep_stale(folder, name, claimed[1])
            return claimed
    import tempfile  # imported when writing, so that commands which only read start faster

    return tempfile.mkstemp(dir=folder, prefix=f".{name}{TEMPORARY_MARK}-")


def _publish(temporary: str, real: str, *, exclusive: bool) -> None:
    if not exclusive:
        os.replace(temporary, real)
        return
    try:
        os.link(temporary, real)
    except FileExistsError:
        raise
    except OSError:
        # A file system without hard links: exclusive creation is still no-clobber. The
        # copy is not atomic, so a copy that fails takes its partial file with it.
        import shutil

        with open(temporary, "rb") as source, open(real, "xb") as sink:
            try:
                shutil.copyfileobj(source, sink, 1 << 20)
                sink.flush()
                os.fsync(sink.fileno())
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(real)
                raise
    os.unlink(temporary)


def is_write_failure(error: OSError, *paths: str) -> bool:
    """Whether *error*, raised inside the write block, is the write failing (and so to be
    reported about the destination) rather than, say, a source file that could not be
    read: it names no file (a full disk on ``write``) or one of the write's own *paths*."""
    if isinstance(error, (WriteError, FileExistsError)):
        return False
    return error.filename is None or os.fspath(error.filename) in paths


_BATCHED_FOLDERS: ContextVar[set[str] | None] = ContextVar("lmml_batched_folders", default=None)
"""The folders whose fsync :func:`batched_folder_syncs` makes at its end (None: outside one)."""


@contextlib.contextmanager
def batched_folder_syncs() -> Iterator[None]:
    """Within the block, every :func:`atomic_write` still writes, fsyncs and renames its
    file as always, but the fsync of the folder that makes the rename itself durable is
    made once per folder when the block ends: a batch writing thousands of files into one
    folder (``lmml import`` of a JSONL file) pays one instead of one per file."""
    folders: set[str] = set()
    token = _BATCHED_FOLDERS.set(folders)
    try:
        yield
    finally:
        _BATCHED_FOLDERS.reset(token)
        for folder in sorted(folders):
            _fsync_folder(folder)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str], *, exclusive: bool = False) -> Iterator[BinaryIO]:
    """Open a temporary binary file that replaces *path* when the ``with`` block ends.

    Usage::

        with atomic_write("out.lmmlz") as stream:
            stream.write(data)

    :param path: the file to create or replace (through a symbolic link, if it is one).
    :param exclusive: never replace anything: the finished file is hard-linked into place,
        so a file that appeared meanwhile is kept and :class:`FileExistsError` raised.
    :raises WriteError: when *path* is not a regular file, or the folder cannot be written
        (missing, read-only, full); the target is then unchanged.
    :raises FileExistsError: with *exclusive*, when *path* exists.
    """
    target = os.fspath(path)
    real = check_destination(target)
    folder = os.path.dirname(real) or os.curdir
    mode = _new_file_mode(real)
    with terminate_cleanly():
        temporary: str | None = None
        lock: int | None = None
        try:
            descriptor, temporary = _open_temporary(folder, os.path.basename(real))
            lock = os.dup(descriptor)  # holds the lock until the rename is done
            with os.fdopen(descriptor, "wb") as stream:
                yield stream
                stream.flush()
                os.fsync(stream.fileno())
            os.chmod(temporary, mode)
            _keep_owner(temporary, real)
            _publish(temporary, real, exclusive=exclusive)
        except BaseException as error:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
            if isinstance(error, OSError) and (
                temporary is None  # no temporary file could be made: the folder's fault
                or is_write_failure(error, temporary, real, target)
            ):
                raise write_error(target, error) from None
            raise
        finally:
            if lock is not None:
                os.close(lock)
    batched = _BATCHED_FOLDERS.get()
    if batched is None:
        _fsync_folder(folder)
    else:
        batched.add(folder)


def atomic_write_bytes(
    path: str | os.PathLike[str], data: bytes, *, exclusive: bool = False
) -> None:
    """Write *data* to *path* atomically (see :func:`atomic_write`)."""
    with atomic_write(path, exclusive=exclusive) as stream:
        stream.write(data)
