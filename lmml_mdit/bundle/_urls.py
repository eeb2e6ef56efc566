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
from typing import BinaryIO, Protocol
from urllib.parse import unquote, urlsplit

from ..errors import BundleError, BundleNotFoundError, LmmlError, WriteError
from ._archive import SeekableFile

__all__ = [
    "FSSPEC_HINT",
    "UrlFileSystem",
    "filesystem",
    "is_url",
    "local_path",
    "open_url",
    "url_basename",
    "url_failures",
    "url_output",
]

# Two letters at least, so a Windows drive ("C:\\x", "C://x") is never taken for a scheme.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]+://")

FSSPEC_HINT = "install fsspec (pip install 'lmml-mdit[datasets]') and the filesystem's package"
"""What to do when a URL is given without fsspec installed."""


class UrlFileSystem(Protocol):
    """What is used of an fsspec filesystem: opening, listing, creating folders, uploading."""

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

    def put_file(self, lpath: str, rpath: str, **kwargs: str) -> None:
        """Upload the local file *lpath* to *rpath*."""

    def pipe_file(self, path: str, value: bytes, **kwargs: str) -> None:
        """Set the bytes of the file *path*."""


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
        with url_failures(url):
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
def url_failures(url: str) -> Iterator[None]:
    """Inside the block, a failure of the filesystem behind *url* that is no ``OSError``
    (a client library's own network, HTTP or credentials error, which share no base
    class) becomes a :class:`~lmml_mdit.errors.BundleError` naming *url*.

    ``OSError`` (a missing file among them) and the package's own errors pass through
    for the caller to word.
    """
    try:
        yield
    except (OSError, LmmlError):
        raise
    except Exception as error:  # a filesystem package's client error, of any class
        raise BundleError(
            f"cannot reach the storage ({type(error).__name__}: {error})",
            name=url,
            hint="check the URL, the network and the credentials",
        ) from None


@contextlib.contextmanager
def url_output(url: str, *, exclusive: bool = False) -> Iterator[BinaryIO]:
    """A binary stream that becomes the file at *url* when the block ends without an error,
    replacing it whole; until then, and when the block fails, *url* is left as it was.

    The stream is a local temporary file, uploaded in one step when the block ends
    (``put_file``: object stores such as ``s3://`` and ``gs://`` replace an object only once
    its upload is complete; ``memory://`` is set in one step). A URL of the local
    filesystem (``file://``, ``local://``) is written as :func:`lmml_mdit.atomic.atomic_write`
    writes a path. A filesystem that writes in place (SFTP, a network share) may show the
    file growing while it is uploaded.

    :param exclusive: refuse when a file is already there (checked before writing and
        again at the upload, which a filesystem without an atomic "create if absent" cannot
        do better).
    :raises WriteError: when it cannot be written.
    """
    fs, path = filesystem(url)
    try:
        if exclusive and fs.exists(path):
            raise WriteError("a file is already there", name=url, hint="choose another name")
    except OSError as error:
        raise WriteError(f"cannot write: {error.strerror or error}", name=url) from None
    if _is_local(fs):
        with _local_output(url, path, exclusive=exclusive) as stream:
            yield stream
        return
    import tempfile  # here: opening or validating a plain path never loads it

    from ..atomic import is_write_failure, write_error

    try:
        descriptor, temporary = tempfile.mkstemp(prefix=".lmml-upload-", suffix=".part")
    except OSError as error:
        raise write_error(url, error) from None
    try:
        with os.fdopen(descriptor, "wb") as stream:
            yield stream
        _upload(fs, path, url, temporary, exclusive=exclusive)
    except OSError as error:
        if is_write_failure(error, temporary):  # the local temporary file, full or gone
            raise write_error(url, error) from None
        raise
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def _is_local(fs: UrlFileSystem) -> bool:
    """Whether *fs* is fsspec's local filesystem (its paths are local paths)."""
    from fsspec.implementations.local import LocalFileSystem

    return isinstance(fs, LocalFileSystem)


@contextlib.contextmanager
def _local_output(url: str, path: str, *, exclusive: bool) -> Iterator[BinaryIO]:
    """:func:`url_output` for a URL of the local filesystem: an atomic local write."""
    from ..atomic import atomic_write

    try:
        os.makedirs(os.path.dirname(path) or os.curdir, exist_ok=True)
    except OSError as error:
        raise WriteError(f"cannot write: {error.strerror or error}", name=url) from None
    try:
        with atomic_write(path, exclusive=exclusive) as stream:
            yield stream
    except FileExistsError:
        raise WriteError("a file is already there", name=url, hint="choose another name") from None


def _upload(fs: UrlFileSystem, path: str, url: str, temporary: str, *, exclusive: bool) -> None:
    """Put the finished local file *temporary* at *path* in one step."""
    from fsspec.implementations.memory import MemoryFileSystem

    mode = {"mode": "create"} if exclusive else {}
    parent = path.rsplit("/", 1)[0] if "/" in path else ""
    try:
        if parent:
            fs.makedirs(parent, exist_ok=True)
        if isinstance(fs, MemoryFileSystem):
            # its put_file opens the file (showing it empty) before copying into it
            with open(temporary, "rb") as stream:
                data = stream.read()
            fs.pipe_file(path, data, **mode)
        else:
            fs.put_file(temporary, path, **mode)
    except FileExistsError:
        raise WriteError("a file is already there", name=url, hint="choose another name") from None
    except OSError as error:
        raise WriteError(f"cannot write: {error.strerror or error}", name=url) from None
