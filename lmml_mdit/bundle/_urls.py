"""Bundles behind fsspec URLs: ``memory://``, ``file://``, ``s3://``, ``gs://``, ``hf://``.

A path given as ``scheme://...`` is opened through `fsspec <https://filesystem-spec.readthedocs.io>`_,
imported only then, so opening a plain path never loads it. The file object the filesystem
gives is read like a local file: an archive's central directory first, then each entry on
demand, through :class:`~lmml_mdit.bundle.SeekableFile`, within the same
:class:`~lmml_mdit.bundle.Limits`. ``file://`` URLs are read as the local paths they
name, so a bare ``.lmml`` still sees its folder.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from typing import BinaryIO, Protocol, cast
from urllib.parse import unquote, urlsplit

from ..errors import BundleError, BundleNotFoundError, WriteError
from ._archive import SeekableFile

__all__ = [
    "FSSPEC_HINT",
    "UrlFileSystem",
    "filesystem",
    "is_url",
    "local_path",
    "open_url",
    "url_basename",
    "url_output",
]

# Two letters at least, so a Windows drive ("C:\\x", "C://x") is never taken for a scheme.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]+://")

FSSPEC_HINT = "install fsspec (pip install 'lmml-mdit[datasets]') and the filesystem's package"
"""What to do when a URL is given without fsspec installed."""


class UrlFileSystem(Protocol):
    """What is read of an fsspec filesystem: opening, listing and creating folders."""

    def open(self, path: str, mode: str = "rb") -> SeekableFile:
        """A file object for *path*."""

    def find(self, path: str) -> list[str]:
        """Every file under *path*, recursively."""

    def isdir(self, path: str) -> bool:
        """Whether *path* is a folder."""

    def makedirs(self, path: str, exist_ok: bool = False) -> None:
        """Create the folder *path* and its parents."""

    def unstrip_protocol(self, name: str) -> str:
        """*name* as a full URL of this filesystem."""

    def rm(self, path: str) -> None:
        """Remove the file *path*."""

    def exists(self, path: str) -> bool:
        """Whether there is a file or folder at *path*."""

    def info(self, path: str) -> dict[str, object]:
        """What the filesystem knows of *path*: ``size`` and, by filesystem, its time."""


def is_url(source: object) -> bool:
    """Whether *source* is a string naming a URL (``scheme://...``) rather than a path."""
    return isinstance(source, str) and _SCHEME.match(source) is not None


def local_path(url: str) -> str | None:
    """The local path a ``file://`` URL names, or None for any other URL."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "file":
        return None
    return (
        unquote(parts.netloc + parts.path)
        if parts.netloc not in ("", "localhost")
        else (unquote(parts.path))
    )


def url_basename(url: str) -> str:
    """The file name at the end of *url* (``s3://b/runs/a.lmmlz`` gives ``a.lmmlz``)."""
    return os.path.basename(urlsplit(url).path.rstrip("/")) or url


def filesystem(url: str) -> tuple[UrlFileSystem, str]:
    """The fsspec filesystem behind *url* and the path within it.

    :raises BundleError: when fsspec, or the filesystem's package (``s3fs``, ``gcsfs``,
        ``huggingface_hub``), is not installed, or the URL names no known filesystem.
    """
    try:
        import fsspec.core  # imported here: plain paths never pay for it
    except ImportError:
        raise BundleError(
            "reading a URL needs fsspec, which is not installed", name=url, hint=FSSPEC_HINT
        ) from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as error:
        raise BundleError(
            f"cannot open this URL's filesystem ({error})", name=url, hint=FSSPEC_HINT
        ) from None
    found: UrlFileSystem = fs
    return found, str(path)


def open_url(url: str) -> SeekableFile:
    """A binary file object for the file at *url*, read lazily (the caller closes it).

    :raises BundleNotFoundError: when there is no file at *url*.
    :raises BundleError: when it cannot be read (see :func:`filesystem`).
    """
    fs, path = filesystem(url)
    try:
        return fs.open(path, "rb")
    except FileNotFoundError:
        raise BundleNotFoundError(
            "cannot read the file: no such file", name=url, hint="check the URL"
        ) from None
    except IsADirectoryError:
        raise BundleError("this URL names a folder, not a bundle", name=url) from None
    except OSError as error:
        raise BundleError(
            f"cannot read the file: {error.strerror or error}", name=url, hint="check the URL"
        ) from None


@contextlib.contextmanager
def url_output(url: str, *, exclusive: bool = False) -> Iterator[BinaryIO]:
    """A binary stream that becomes the file at *url* (not a ``file://`` one: those are
    local paths, written atomically by :mod:`lmml_mdit.atomic`) when the block ends without
    an error; a write that fails midway removes what it wrote.

    Whether readers can see a half-written file is the filesystem's: object stores
    (``s3://``, ``gs://``) and ``memory://`` show a file once it is closed; a network
    filesystem that writes in place may show it growing.

    :param exclusive: refuse when a file is already there (checked before writing, which
        a filesystem without an atomic "create if absent" cannot do better).
    :raises WriteError: when it cannot be written.
    """
    fs, path = filesystem(url)
    parent = path.rsplit("/", 1)[0] if "/" in path else ""
    try:
        if exclusive and fs.exists(path):
            raise WriteError("a file is already there", name=url, hint="choose another name")
        if parent:
            fs.makedirs(parent, exist_ok=True)
        stream = cast(BinaryIO, fs.open(path, "wb"))
    except OSError as error:
        raise WriteError(f"cannot write: {error.strerror or error}", name=url) from None
    try:
        yield stream
    except BaseException:
        stream.close()
        with contextlib.suppress(OSError):
            fs.rm(path)
        raise
    try:
        stream.close()
    except OSError as error:
        with contextlib.suppress(OSError):
            fs.rm(path)
        raise WriteError(f"cannot write: {error.strerror or error}", name=url) from None
