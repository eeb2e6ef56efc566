"""Atomic file writes: a reader sees the old file or the new one, never half of either.

:func:`atomic_write` writes to a temporary file in the target's own folder (so the final
rename stays on one file system), flushes and fsyncs it, then moves it over the target with
:func:`os.replace`. If anything fails on the way, the temporary file is removed and the
target is left as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import BinaryIO

__all__ = ["atomic_write", "atomic_write_bytes"]


def _new_file_mode(path: str) -> int:
    """The mode the target gets: the old file's mode, else the default for a new file."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


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


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """Open a temporary binary file that replaces *path* when the ``with`` block ends.

    Usage::

        with atomic_write("out.lmmlz") as stream:
            stream.write(data)

    :param path: the file to create or replace.
    :raises OSError: when the folder cannot be written; the target is then unchanged.
    """
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    mode = _new_file_mode(target)
    descriptor, temporary = tempfile.mkstemp(
        dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp"
    )
    try:
        with os.fdopen(descriptor, "wb") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_folder(folder)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write *data* to *path* atomically (see :func:`atomic_write`)."""
    with atomic_write(path) as stream:
        stream.write(data)
