"""Where rows come from and go to: folders, paths and fsspec URLs.

A folder given as a local path is walked like ``lmml export`` walks it
(:func:`~lmml_mdit.chat.iter_bundles`: recursive, sorted, links to folders not
followed); a folder URL is listed through its fsspec filesystem, sorted the same way. Output
to a local path is written atomically (:mod:`lmml_mdit.atomic`); output to a URL is written
to a local temporary file and uploaded in one step (:func:`lmml_mdit.bundle.url_output`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import BinaryIO

from ..atomic import atomic_write
from ..bundle import SeekableFile, filesystem, is_url, local_path, url_failures, url_output
from ..chat import iter_bundles
from ..errors import BundleError
from ..formats import BUNDLE_SUFFIXES

__all__ = ["absolute", "is_folder", "join", "open_input", "open_output", "relative_path", "walk"]


def _local(location: str) -> str | None:
    """The local path *location* names (a path, or a ``file://`` URL), else None."""
    if not is_url(location):
        return location
    return local_path(location)


def absolute(location: str | os.PathLike[str]) -> str:
    """*location* with a local path made absolute (a URL as it is), so that another
    process, or another node's worker, started in another folder reads the same file."""
    text = os.fspath(location)
    return text if is_url(text) else os.path.abspath(text)


def is_folder(location: str | os.PathLike[str]) -> bool:
    """Whether *location* (a path or URL) is a folder."""
    text = os.fspath(location)
    local = _local(text)
    if local is not None:
        return os.path.isdir(local)
    fs, path = filesystem(text)
    with url_failures(text):
        return fs.isdir(path)


def walk(folder: str | os.PathLike[str]) -> Iterator[tuple[str, str]]:
    """Each bundle under *folder* as ``(source, relative path)``, sorted by path; a local
    source is an absolute path.

    :raises BundleError: when *folder* is not a folder.
    """
    text = absolute(folder)
    if not is_folder(text):
        raise BundleError("not a folder", name=text, hint="give a folder of bundles")
    local = _local(text)
    if local is not None:
        for path in iter_bundles(local):
            yield path, relative_path(path, local)
        return
    fs, root = filesystem(text)
    with url_failures(text):
        listed = fs.find(root)
    found = sorted(
        (name for name in listed if name.endswith(BUNDLE_SUFFIXES)),
        key=lambda name: name.split("/"),
    )
    base = root.rstrip("/") + "/"
    for name in found:
        yield fs.unstrip_protocol(name), name[len(base) :] if name.startswith(base) else name


def relative_path(path: str, root: str) -> str:
    """*path* relative to the folder *root*, with ``/`` separators."""
    return os.path.relpath(path, root).replace(os.sep, "/")


def join(folder: str, relative: str) -> str:
    """*relative* (``/``-separated) under *folder*, a path or a URL."""
    if is_url(folder) and _local(folder) is None:
        return folder.rstrip("/") + "/" + relative
    base = _local(folder)
    assert base is not None
    return os.path.join(base, *relative.split("/"))


@contextlib.contextmanager
def open_output(location: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary stream that becomes the file *location* (a path or URL) when the block ends
    without an error; a local file is replaced atomically.

    :raises WriteError: when it cannot be written.
    """
    text = os.fspath(location)
    local = _local(text)
    if local is not None:
        folder = os.path.dirname(os.path.abspath(local))
        if not os.path.isdir(folder):
            os.makedirs(folder, exist_ok=True)
        with atomic_write(local) as stream:
            yield stream
        return
    with url_output(text) as stream:
        yield stream


def open_input(location: str | os.PathLike[str]) -> SeekableFile:
    """A binary file object for *location* (a path or URL), read lazily.

    :raises BundleNotFoundError: when there is no such file.
    """
    from ..bundle import open_url
    from ..errors import BundleNotFoundError

    text = os.fspath(location)
    local = _local(text)
    if local is None:
        return open_url(text)
    try:
        return open(local, "rb")
    except FileNotFoundError:
        raise BundleNotFoundError("no such file", name=text, hint="check the path") from None
    except OSError as error:
        raise BundleError(f"cannot read the file: {error.strerror}", name=text) from None
