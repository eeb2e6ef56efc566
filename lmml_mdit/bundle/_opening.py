"""Opening a bundle from its source: a path, bytes or a binary file object.

:func:`open_bundle` decides text or zip by the bytes (never by the extension), checks an
archive's central directory before decompressing anything (see
:mod:`lmml_mdit.bundle._archive`) and reads only the narrative up front; every other entry is
decompressed when it is read, within the :class:`~lmml_mdit.bundle.Limits`. A file
that is plainly no narrative (an image, a PDF) is refused saying what it is.
"""

from __future__ import annotations

import builtins
import dataclasses
import os
from collections.abc import Container
from typing import IO, Literal

from ..errors import (
    BundleError,
    BundleNotFoundError,
    LimitExceededError,
    LmmlError,
    MissingNarrativeError,
    NotLmmlError,
)
from ..formats import NARRATIVE_SUFFIX, ZIP_SIGNATURES
from ..media import SVG_TYPE, sniff
from ..narrative import parse, parse_shared
from ..syntax import DelimiterMode, ReferenceMode
from ._archive import LIMITS_CLI_HINT, Limits, ZipArchive, is_zip, open_archive
from ._bundle import Bundle
from ._folder import FolderNames
from ._names import DEFAULT_NAME, bundle_name, narrative_entry_name
from ._urls import is_url, local_path, open_url, url_basename, url_failures

__all__ = [
    "STREAM_CHUNK",
    "BaseDir",
    "BundleInput",
    "ParseOptions",
    "narrative_cap",
    "not_lmml",
    "open_bundle",
]

BundleInput = str | os.PathLike[str] | bytes | IO[bytes]
"""What :func:`open_bundle` opens: a path or fsspec URL, the bundle's bytes or a binary file
object."""
BaseDir = str | os.PathLike[str] | Literal[False] | None
"""What :func:`open_bundle` takes as *base_dir*: a folder, None (a path's own folder) or False."""
# Archives read from a file object are held in memory; allow the directory's overhead.
_STREAM_SLACK = 64 * 1024 * 1024
STREAM_CHUNK = 1024 * 1024
"""The most bytes :func:`open_bundle` asks a file object for at a time."""


def _read_stream(stream: IO[bytes], limits: Limits, name: str | None = None) -> bytes:
    """Read a file object to its end, refusing more than the limits allow.

    Reads in chunks of at most :data:`STREAM_CHUNK` bytes (a pipe or raw stream may also
    return fewer than asked for). Once the first bytes tell a narrative from an archive,
    a narrative stops at ``max_narrative_bytes``, an archive at ``max_total_size`` plus
    room for its directory.

    :param name: the name given to :func:`open_bundle`, for the error.
    """
    cap = limits.max_total_size + _STREAM_SLACK
    data = bytearray()
    decided = False
    try:
        while len(data) <= cap:
            chunk = stream.read(min(STREAM_CHUNK, cap + 1 - len(data)))
            if not chunk:
                break
            if not isinstance(chunk, (bytes, bytearray)):
                raise TypeError(
                    "open() needs a binary file object (opened with 'rb'), not a text one"
                )
            data += chunk
            if not decided and len(data) >= len(ZIP_SIGNATURES[0]):
                decided = True
                if not is_zip(bytes(data[:4])):
                    cap = min(cap, narrative_cap(limits))
    except OSError as error:
        raise BundleError(
            f"cannot read the stream: {error.strerror or error}",
            name=_stream_name(stream),
            hint="check the file object passed to open()",
        ) from None
    if len(data) > cap:
        if decided and not is_zip(bytes(data[:4])):
            raise _narrative_too_large(name or _stream_name(stream), limits)
        raise LimitExceededError(
            f"the stream is larger than max_total_size ({limits.max_total_size} bytes) "
            "plus room for the archive's directory",
            name=_stream_name(stream),
            hint="pass a path instead, or raise lmml_mdit.Limits(max_total_size=...)",
            cli_hint=LIMITS_CLI_HINT,
        )
    return bytes(data)


def narrative_cap(limits: Limits) -> int:
    """The most bytes a narrative may have under *limits*."""
    return min(limits.max_entry_size, limits.max_narrative_bytes)


def _narrative_too_large(name: str | None, limits: Limits) -> LimitExceededError:
    if limits.max_narrative_bytes <= limits.max_entry_size:
        limit, value = "max_narrative_bytes", limits.max_narrative_bytes
    else:
        limit, value = "max_entry_size", limits.max_entry_size
    return LimitExceededError(
        f"the narrative is larger than {limit} ({value} bytes)",
        name=name,
        hint=f"pass lmml_mdit.Limits({limit}=...) to open() if you trust it",
        cli_hint=LIMITS_CLI_HINT,
    )


def _stream_name(stream: IO[bytes]) -> str | None:
    """The file name behind a file object opened from a path, so that its narrative entry
    can be derived (RFC 3.2); None for in-memory streams and pseudo-names like <stdin>."""
    raw = getattr(stream, "name", None)
    if not isinstance(raw, str) or not raw or (raw.startswith("<") and raw.endswith(">")):
        return None
    return os.path.basename(raw) or None


def not_lmml(data: bytes, display: str) -> NotLmmlError | None:
    """The error for bytes that are plainly something other than a narrative: an image, a
    PDF, audio; None for anything that may be a narrative. (Whether JSON text is a chat
    payload to import is told above, by :func:`lmml_mdit.open`.)"""
    kind = sniff(data)
    if kind is not None and kind != SVG_TYPE:
        major, _, subtype = kind.partition("/")
        label = subtype.removeprefix("vnd.microsoft.").removeprefix("x-").upper()
        what = {"image": "image", "audio": "audio file"}.get(major, "document")
        return NotLmmlError(
            f"this is a {label} {what}, not an LMML narrative",
            name=display,
            hint="reference it from a narrative as @name instead",
        )
    return None


def _zip_bundle(
    archive: ZipArchive,
    file_name: str | None,
    explicit_name: str | None,
    limits: Limits,
    syntax: ParseOptions,
) -> Bundle:
    members = archive.members
    given = explicit_name or file_name
    wanted = narrative_entry_name(given) if given else None
    if wanted is not None and wanted in members:
        chosen = wanted
    else:
        candidates = [
            entry
            for entry in members
            if "/" not in entry and entry.lower().endswith(NARRATIVE_SUFFIX)
        ]
        if not candidates:
            raise MissingNarrativeError(
                "this is a zip archive without a narrative (no .lmml entry at its root), "
                "not an LMML bundle",
                name=given,
                hint="a .lmmlz holds its narrative as x.lmml beside the assets",
            )
        if len(candidates) != 1:
            listed = ", ".join(candidates)
            raise MissingNarrativeError(
                f"no narrative entry {wanted!r} and {len(candidates)} root .lmml candidates "
                f"({listed})"
                if wanted
                else f"cannot tell the narrative entry: {len(candidates)} root .lmml "
                f"candidates ({listed})",
                name=wanted,
                hint="rename the archive after its narrative entry (x.lmmlz holds x.lmml), "
                "or keep exactly one .lmml entry at the archive root",
            )
        chosen = candidates[0]
    if archive.size(chosen) > narrative_cap(limits):  # declared: refused before inflating
        raise _narrative_too_large(chosen, limits)
    known = frozenset(entry for entry in members if entry != chosen)
    narrative = parse_shared(
        archive.read(chosen),
        name=chosen,
        known_names=known,
        delimiters=syntax.delimiters,
        references=syntax.references,
    )
    stem = bundle_name(explicit_name or file_name or chosen)
    return Bundle(
        kind="zip",
        name=stem,
        narrative_name=chosen,
        narrative=narrative,
        entries={entry: None for entry in members if entry != chosen},
        archive=archive,
        limits=limits,
        file_name=file_name,
    )


@dataclasses.dataclass(frozen=True)
class ParseOptions:
    """The options :func:`open_bundle` passes on to
    :func:`~lmml_mdit.narrative.parse`."""

    delimiters: DelimiterMode = "strict"
    references: ReferenceMode = "assets"


def _text_bundle(
    data: bytes,
    display: str,
    stem: str,
    limits: Limits,
    base_dir: str | None,
    syntax: ParseOptions,
) -> Bundle:
    if len(data) > narrative_cap(limits):
        raise _narrative_too_large(display, limits)
    other = not_lmml(data, display)
    if other is not None:
        raise other
    known: Container[str] | None = FolderNames(base_dir) if base_dir is not None else None
    return Bundle(
        kind="text",
        name=stem,
        narrative_name=stem + NARRATIVE_SUFFIX,
        narrative=parse(
            data,
            name=display,
            known_names=known,
            delimiters=syntax.delimiters,
            references=syntax.references,
        ),
        limits=limits,
        base_dir=base_dir,
        file_name=display,
    )


def open_input(path: str | os.PathLike[str]) -> IO[bytes]:
    """*path* opened for reading bytes, a file that cannot be opened raised as the library's
    error, worded as every command words it.

    :raises BundleNotFoundError: when the path does not exist (also a FileNotFoundError).
    :raises BundleError: when it cannot be opened otherwise (a folder, no permission).
    """
    name = os.fspath(path)
    try:
        return builtins.open(name, "rb")
    except FileNotFoundError:
        raise BundleNotFoundError(
            "cannot read the file: no such file",
            name=os.fsdecode(name),
            hint="check the path and the current folder",
        ) from None
    except OSError as error:
        raise BundleError(
            f"cannot read the file: {error.strerror}", name=os.fsdecode(name), hint="check the path"
        ) from None


def open_bundle(
    source: BundleInput, limits: Limits, base_dir: BaseDir, name: str | None, syntax: ParseOptions
) -> Bundle:
    """Open a bundle from *source*, a path, bytes or a binary file object, as
    :func:`lmml_mdit.open` describes (which gives the parameters their defaults, and also
    tells a JSON chat payload apart).

    :raises BundleNotFoundError: when the path does not exist (also a FileNotFoundError).
    :raises NotLmmlError: when the file is plainly something else (an image, a PDF, audio).
    :raises MissingNarrativeError: when an archive's narrative entry cannot be found.
    :raises LmmlSyntaxError: when the narrative is not valid UTF-8.
    :raises BundleError: when the file cannot be read; see
        :func:`lmml_mdit.bundle.open_archive` for every archive error.
    """
    base = os.fspath(base_dir) if base_dir is not None and base_dir is not False else None
    if is_url(source):
        assert isinstance(source, str)
        local = local_path(source)
        if local is None:
            return _url_bundle(source, limits, base, name, syntax)
        source = local
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        file_name = os.path.basename(path)
        piped: bytes | None = None
        stream = open_input(path)
        try:
            with stream:
                if not stream.seekable():  # a pipe (``<(...)``, a FIFO): read once, held
                    piped = _read_stream(stream, limits, name or file_name)
                    head = piped[:4]
                    text = piped
                else:
                    head = stream.read(4)
                    if not is_zip(head):
                        text = head + stream.read(narrative_cap(limits) + 1 - len(head))
        except OSError as error:  # a read failing once the file is open
            raise BundleError(
                f"cannot read the file: {error.strerror}", name=path, hint="check the path"
            ) from None
        if is_zip(head):
            try:
                archive = open_archive(path if piped is None else piped, limits)
            except LmmlError as error:
                error.concern(path)  # a damaged archive, named as the caller gave it
                raise
            return _zip_bundle(archive, file_name, name, limits, syntax)
        if base_dir is None:
            base = os.path.dirname(os.path.abspath(path))
        display = name or file_name
        return _text_bundle(text, display, bundle_name(display), limits, base, syntax)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif callable(getattr(source, "read", None)):
        data = _read_stream(source, limits, name)
        name = name or _stream_name(source)
    else:
        raise TypeError(
            f"open() takes a path, bytes or a binary file object, not {type(source).__name__}"
        )
    if is_zip(data[:4]):
        return _zip_bundle(open_archive(data, limits), None, name, limits, syntax)
    stem = bundle_name(name) if name else DEFAULT_NAME
    return _text_bundle(data, name or stem + NARRATIVE_SUFFIX, stem, limits, base, syntax)


def _url_bundle(
    url: str, limits: Limits, base: str | None, name: str | None, syntax: ParseOptions
) -> Bundle:
    """The bundle at an fsspec *url*: an archive read lazily through the filesystem's file
    object (its directory now, each entry when read), a narrative read up to its limit.
    A bare ``.lmml`` there sees no folder unless *base* names a local one."""
    file_name = url_basename(url)
    stream = open_url(url)
    try:
        with url_failures(url):
            head = stream.read(4)
            if is_zip(head):
                stream.seek(0)
                archive = open_archive(stream, limits)  # owns the stream from here
                return _zip_bundle(archive, file_name, name, limits, syntax)
            text = head + stream.read(narrative_cap(limits) + 1 - len(head))
    except BaseException:
        stream.close()
        raise
    stream.close()
    display = name or file_name
    return _text_bundle(text, display, bundle_name(display), limits, base, syntax)
