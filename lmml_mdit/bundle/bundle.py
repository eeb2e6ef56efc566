"""Bundles: a narrative with its assets, as a bare ``.lmml`` or a ``.lmmlz`` archive.

:func:`open` decides text or zip by the bytes (never by the extension), checks an archive's
central directory before decompressing anything (see :mod:`lmml_mdit.bundle.archive`) and reads
only the narrative up front; every other entry is decompressed when it is read, within the
:class:`Limits`.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import difflib
import functools
import hashlib
import json
import os
import warnings
from collections.abc import Callable, Container, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, Literal, TypeVar

from ..errors import (
    BundleError,
    BundleNotFoundError,
    DefectError,
    InvalidManifestError,
    InvalidSettingsError,
    LimitExceededError,
    LmmlError,
    MissingEntryError,
    MissingNarrativeError,
    NotLmmlError,
    UnresolvableReferenceError,
    UnsafeEntryError,
)
from ..jsonio import parse_json
from ..media import SVG_TYPE, sniff
from ..model import Embed, Issue
from ..narrative.images import unsent_image_issues
from ..narrative.narrative import Narrative, parse
from ..narrative.toolcalls import tool_call_issues
from ..syntax import delimiter_issues, writes_as_reference
from ..syntax.reference import ReferenceMode
from ..syntax.roles import DelimiterMode
from .archive import (
    LIMITS_CLI_HINT,
    ZIP_SIGNATURES,
    Limits,
    ZipArchive,
    check_entry_names,
    is_zip,
    open_archive,
    unsafe_reason,
)
from .reserved import (
    FRONT_MATTER_NAME,
    MANIFEST_NAME,
    RESERVED_NAMES,
    SETTINGS_NAMES,
    load_front_matter,
    load_manifest,
    load_settings,
)

if TYPE_CHECKING:
    from .packing import InlineReport

__all__ = ["Bundle", "DefectWarning", "Limits", "bundle_name", "narrative_entry_name", "open"]

BundleKind = Literal["text", "zip"]
_ReferenceError = TypeVar("_ReferenceError", MissingEntryError, UnresolvableReferenceError)
BaseDir = str | os.PathLike[str] | Literal[False] | None
"""What :func:`open` takes as *base_dir*: a folder, None (a path's own folder) or False."""
_TEXT_SUFFIX = ".lmml"
_ZIP_SUFFIX = ".lmmlz"
_DEFAULT_NAME = "untitled"
# Archives read from a file object are held in memory; allow the directory's overhead.
_STREAM_SLACK = 64 * 1024 * 1024
STREAM_CHUNK = 1024 * 1024
"""The most bytes :func:`open` asks a file object for at a time."""


class DefectWarning(UserWarning):
    """An error-level defect in a bundle sent anyway (``strict=False``, ``--force``).

    :ivar error: the :class:`~lmml_mdit.errors.DefectError` a strict send would raise.
    :ivar issue: its :class:`~lmml_mdit.model.Issue`.
    """

    def __init__(self, error: DefectError) -> None:
        super().__init__(error.format(hint=False))
        self.error = error
        self.issue = error.issue


def bundle_name(name: str) -> str:
    """A bundle name without folder or extension: ``a/session.lmmlz`` gives ``session``."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    lowered = base.lower()
    for suffix in (_ZIP_SUFFIX, _TEXT_SUFFIX):
        if lowered.endswith(suffix) and len(base) > len(suffix):
            return base[: -len(suffix)]
    return base


def narrative_entry_name(file_name: str) -> str:
    """The narrative entry an archive file should hold (RFC 3.2): the basename minus its
    trailing ``z``; ``session.lmmlz`` gives ``session.lmml``; a name without the ``.lmmlz``
    extension gets ``.lmml`` appended unless it already ends so."""
    base = file_name.replace("\\", "/").rsplit("/", 1)[-1]
    lowered = base.lower()
    if lowered.endswith(_ZIP_SUFFIX):
        return base[:-1]
    if lowered.endswith(_TEXT_SUFFIX):
        return base
    return base + _TEXT_SUFFIX


def _is_reference_name(name: str) -> bool:
    """Whether ``@name`` can read back as a reference to exactly *name* once the reader
    knows *name* (as a zip's entry names are known): the name's syntax alone."""
    return writes_as_reference(name, frozenset({name}))


def _unsafe_error(
    name: str, reason: str, line: int | None, column: int | None, file: str | None = None
) -> UnsafeEntryError:
    return UnsafeEntryError(
        f"unsafe embed name {name!r}: {reason}" if file else f"unsafe embed name: {reason}",
        name=name,
        line=line,
        column=column,
        file=file,
        kind="malformed_embed_name" if file else None,
        hint="use a relative name with '/' separators and no '..'",
    )


class Bundle:
    """A narrative and its assets.

    Build one with :func:`open`, :meth:`from_text` or :meth:`from_zip`. A bundle opened from
    a file keeps the file open for lazy reads; :meth:`close` it, or use ``with``.

    :ivar kind: ``"text"`` (a bare ``.lmml``) or ``"zip"`` (a ``.lmmlz``).
    :ivar name: the bundle name without extension, e.g. ``session``.
    :ivar narrative_name: the narrative's entry (or file) name, e.g. ``session.lmml``.
    :ivar narrative: the parsed narrative.
    :ivar limits: the limits reads are held to.
    :ivar base_dir: for a text bundle, the folder references resolve against, or None.
    :ivar file_name: the bundle's file name as locations name it (``FILE:LINE:COL``):
        ``session.lmml``, or ``session.lmmlz`` for an archive, whose entries are then
        ``session.lmmlz!settings.yaml``.
    :ivar inline_report: on a bundle made by :meth:`inline`, what happened to each entry.
    """

    RESERVED_NAMES: tuple[str, ...] = RESERVED_NAMES

    def __init__(
        self,
        *,
        kind: BundleKind,
        name: str,
        narrative_name: str,
        narrative: Narrative,
        entries: Mapping[str, bytes | None] | None = None,
        archive: ZipArchive | None = None,
        limits: Limits | None = None,
        base_dir: str | None = None,
        file_name: str | None = None,
    ) -> None:
        """Internal: use :func:`open`, :meth:`from_text` or :meth:`from_zip`.

        *entries* maps names to bytes, or to None for an entry read lazily from *archive*.
        """
        suffix = _ZIP_SUFFIX if kind == "zip" else _TEXT_SUFFIX
        self.file_name: str = file_name or (narrative_name if kind == "text" else name + suffix)
        self.kind: BundleKind = kind
        self.name = name
        self.narrative_name = narrative_name
        self.narrative = narrative
        self.limits = limits if limits is not None else Limits()
        self.base_dir = base_dir
        self.inline_report: InlineReport | None = None
        self._entries: dict[str, bytes | None] = dict(entries or {})
        self._archive = archive

    # -- construction -------------------------------------------------------------------

    @classmethod
    def from_text(
        cls,
        name: str,
        text: str,
        *,
        narrative: Narrative | None = None,
        base_dir: str | os.PathLike[str] | None = None,
    ) -> Bundle:
        """A text bundle held in memory.

        :param name: the bundle name; a trailing ``.lmml``/``.lmmlz`` is stripped.
        :param text: the narrative.
        :param narrative: the parse of *text*, when the caller already made it (a writer
            that checked what it wrote), so the text is not parsed twice.
        :param base_dir: a folder to resolve external references against.
        """
        stem = bundle_name(name) or _DEFAULT_NAME
        narrative_name = stem + _TEXT_SUFFIX
        return cls(
            kind="text",
            name=stem,
            narrative_name=narrative_name,
            narrative=narrative if narrative is not None else parse(text, name=narrative_name),
            base_dir=os.fspath(base_dir) if base_dir is not None else None,
        )

    @classmethod
    def from_zip(
        cls,
        name: str,
        text: str,
        entries: Mapping[str, bytes],
        *,
        narrative: Narrative | None = None,
    ) -> Bundle:
        """A zip bundle held in memory.

        :param name: the bundle name; a trailing ``.lmml``/``.lmmlz`` is stripped.
        :param text: the narrative.
        :param entries: asset names to bytes, in archive order.
        :param narrative: the parse of *text*, when the caller already made it.
        :raises UnsafeEntryError: for an unsafe entry name.
        :raises CaseCollisionError: for names differing only in case.
        :raises DuplicateEntryError: for an entry named like the narrative entry.
        """
        stem = bundle_name(name) or _DEFAULT_NAME
        narrative_name = stem + _TEXT_SUFFIX
        check_entry_names([narrative_name, *entries])
        return cls(
            kind="zip",
            name=stem,
            narrative_name=narrative_name,
            narrative=narrative
            if narrative is not None
            else parse(text, name=narrative_name, known_names=frozenset(entries)),
            entries={key: bytes(value) for key, value in entries.items()},
        )

    def close(self) -> None:
        """Close the archive file behind a bundle opened from a path (idempotent)."""
        if self._archive is not None:
            self._archive.close()

    def __enter__(self) -> Bundle:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<Bundle {self.kind} {self.name!r}: {len(self.narrative.turns)} turns, "
            f"{len(self._entries)} entries>"
        )

    # -- entries -----------------------------------------------------------------------

    @property
    def entries(self) -> tuple[str, ...]:
        """Asset entry names in archive order (the narrative entry excluded)."""
        return tuple(self._entries)

    def _first_line(self, name: str) -> tuple[int | None, int | None]:
        embed = self.narrative.embed(name)
        return (embed.line, embed.column) if embed is not None else (None, None)

    def _file_of(self, line: int | None) -> str | None:
        """The file a narrative *line* counts in, for an error's location (None: no line)."""
        return self.file_name if line is not None else None

    def _unresolved_reference(
        self, error: type[_ReferenceError], name: str, line: int, column: int | None
    ) -> _ReferenceError:
        """The error for the narrative's reference *name* that resolves to nothing, worded
        as ``validate`` reports it (``missing_reference``)."""
        what, advice, cli_advice = _missing_wording(self, name)
        return error(
            what,
            name=name,
            line=line,
            column=column,
            file=self._file_of(line),
            kind="missing_reference",
            hint=advice,
            cli_hint=cli_advice,
        )

    def _missing(self, name: str) -> MissingEntryError:
        line, column = self._first_line(name)
        if line is not None:
            return self._unresolved_reference(MissingEntryError, name, line, column)
        where = "the archive" if self.kind == "zip" else f"the folder {self.base_dir!r}"
        return MissingEntryError(
            f"{where} holds no entry with this name",
            name=name,
            hint="add the file, or fix the name's spelling",
        )

    def read(self, name: str) -> bytes:
        """One entry's bytes, decompressed now (within the limits).

        :raises MissingEntryError: when the bundle has no entry *name*.
        :raises LimitExceededError: when the entry inflates past a limit.
        :raises InvalidZipError: when the entry's data is damaged.
        """
        if name not in self._entries:
            raise self._missing(name)
        data = self._entries[name]
        if data is not None:
            return data
        assert self._archive is not None
        return self._archive.read(name)

    def entry_size(self, name: str) -> int:
        """An entry's uncompressed size, without reading it (base_dir files included).

        :raises MissingEntryError: when there is no such entry or file.
        """
        if name in self._entries:
            data = self._entries[name]
            if data is not None:
                return len(data)
            assert self._archive is not None
            return self._archive.size(name)
        if self.kind == "text" and self.base_dir is not None:
            return os.stat(self._base_dir_path(name)).st_size
        raise self._missing(name)

    @functools.cached_property
    def _inline_embeds(self) -> dict[str, Embed]:
        return first_fences(self.narrative)

    def _fences_differing_from_entries(self) -> Iterator[Embed]:
        """The first fence of each name whose bytes differ from the entry of that name,
        in document order (each such entry is read once)."""
        for name, fence in self._inline_embeds.items():
            if name in self._entries and self.read(name) != fence.content:
                yield fence

    def _base_dir_path(self, name: str) -> str:
        """The real path of *name* under base_dir, refusing anything that leads outside."""
        assert self.base_dir is not None
        line, column = self._first_line(name)
        reason = unsafe_reason(name)
        if reason is not None:
            raise _unsafe_error(name, reason, line, column, self._file_of(line))
        candidate = _path_under(os.path.realpath(self.base_dir), name)
        if candidate is None:
            raise UnsafeEntryError(
                f"the reference {name!r} leads outside base_dir (through a symbolic link)",
                name=name,
                line=line,
                column=column,
                file=self._file_of(line),
                hint="copy the file into the folder instead of linking to it",
            )
        if not os.path.isfile(candidate):
            raise self._missing(name)
        return candidate

    def _read_file(self, name: str, path: str) -> bytes:
        """The bytes of base_dir file *path* (found for *name*), within max_entry_size."""
        limit = self.limits.max_entry_size
        with builtins.open(path, "rb") as stream:
            data = stream.read(limit + 1)
        if len(data) > limit:
            raise LimitExceededError(
                f"the file is larger than max_entry_size ({limit} bytes)",
                name=name,
                hint="pass lmml_mdit.Limits(max_entry_size=...) to open() if you trust it",
                cli_hint=LIMITS_CLI_HINT,
            )
        return data

    def closest_asset(self, name: str) -> str | None:
        """The asset name *name* most resembles (for "did you mean"), or None: among the
        archive entries, or the files in the folder of a text bundle, and the fences."""
        candidates: list[str] = list(self._entries)
        if self.kind == "text" and self.base_dir is not None:
            candidates = _folder_files(self.base_dir, name)
        candidates.extend(n for n in self._inline_embeds if n not in candidates)
        candidates = [c for c in candidates if c not in (name, self.narrative_name)]
        close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
        return close[0] if close else None

    def has_asset(self, name: str) -> bool:
        """Whether :meth:`embed` can resolve *name* (without reading any bytes)."""
        try:
            self._resolve(name)
        except BundleError:
            return False
        return True

    def _resolve(self, name: str) -> Callable[[], bytes]:
        """Find where :meth:`embed` gets *name*'s bytes, without reading them yet.

        :returns: a reader of the bytes: the first inline fence's, the zip entry's, or the
            base_dir file's.
        :raises BundleError: the errors :meth:`embed` names, for a name it cannot resolve.
        """
        inline = self._inline_embeds.get(name)
        if inline is not None:
            content = inline.content
            assert content is not None
            return lambda: content
        line, column = self._first_line(name)
        reason = unsafe_reason(name)
        if reason is not None:
            raise _unsafe_error(name, reason, line, column, self._file_of(line))
        if self.kind == "zip":
            if name not in self._entries:
                raise self._missing(name)
            return functools.partial(self.read, name)
        if self.base_dir is not None:
            return functools.partial(self._read_file, name, self._base_dir_path(name))
        if line is not None:
            raise self._unresolved_reference(UnresolvableReferenceError, name, line, column)
        raise UnresolvableReferenceError(
            f"a bare .lmml read without a folder has nothing to resolve @{name} against",
            name=name,
            hint="inline the asset as a @@@ fence, pack the bundle into a .lmmlz, "
            "or open it with base_dir=",
            cli_hint="inline the asset as a @@@ fence, pack the bundle into a .lmmlz, "
            "or pass --base-dir DIR",
        )

    def embed(self, name: str) -> bytes:
        """Resolve an embed name to its bytes (RFC 3.1 and 7).

        An inline fence of that name gives its bytes; otherwise the zip entry, or for a text
        bundle opened with ``base_dir`` the file of that name in that folder.

        :raises UnsafeEntryError: for an unsafe name, or a base_dir file reached through a
            link leading outside the folder.
        :raises MissingEntryError: when the archive (or base_dir) has no such entry.
        :raises UnresolvableReferenceError: for an external reference in a bare ``.lmml``
            opened without ``base_dir``.
        """
        return self._resolve(name)()

    # -- reserved embeds ------------------------------------------------------------------

    def _has_reserved(self, name: str) -> bool:
        """Whether the bundle has the reserved embed *name*: an entry, or mentioned in the
        narrative (as a fence, or a reference that must then resolve)."""
        return name in self._entries or name in self.narrative.first_embeds

    def _reserved_source(self, name: str) -> tuple[bytes, int | None] | None:
        """The bytes of a reserved embed and the narrative line its content starts on."""
        if not self._has_reserved(name):
            return None
        inline = self._inline_embeds.get(name)
        line = inline.line + 1 if inline is not None else None
        return self.embed(name), line

    def _entry_of(self, name: str) -> str | None:
        """*name* when the reserved embed of that name is read from an archive entry (whose
        lines its errors count), None when it is an inline fence or absent."""
        return name if name not in self._inline_embeds and name in self._entries else None

    @contextlib.contextmanager
    def _locating(self, name: str) -> Iterator[None]:
        """Locate a decoding error of the reserved embed *name* in its file: the narrative
        for a fence, ``file_name!name`` for an archive entry (whose lines it counts)."""
        try:
            yield
        except (InvalidManifestError, InvalidSettingsError) as error:
            entry = self._entry_of(name)
            error.file = self.file_name if entry is None else f"{self.file_name}!{entry}"
            error.args = (error.format(),)  # str(error) reads the new location
            raise

    @functools.cached_property
    def manifest(self) -> dict[str, Any] | None:
        """The decoded ``manifest.json`` (inline fence or entry), or None without one.

        :raises InvalidManifestError: when it is not a JSON object.
        :raises UnresolvableReferenceError: when a bare ``.lmml`` only references it.
        :raises MissingEntryError: when it is referenced but absent from the archive.
        """
        found = self._reserved_source(MANIFEST_NAME)
        if found is None:
            return None
        data, line = found
        with self._locating(MANIFEST_NAME):
            return load_manifest(data, line=line)

    @functools.cached_property
    def front_matter(self) -> dict[str, Any] | None:
        """The narrative's YAML front matter (a leading ``---`` … ``---`` block) decoded as
        a mapping, or None without one. It is metadata: never a turn, never sent.

        Decoded with the settings' safe YAML loader and its limits; an empty block gives
        ``{}``.

        :raises InvalidSettingsError: (named ``front matter``, located in the narrative's
            file) for invalid YAML, a non-mapping, or a ``settings:`` key that is not a
            mapping.
        """
        text = self.narrative.front_matter
        if text is None:
            return None
        try:
            return load_front_matter(text)
        except InvalidSettingsError as error:
            error.locate(self.file_name)  # its lines are the narrative's
            raise

    @functools.cached_property
    def settings(self) -> dict[str, Any] | None:
        """The decoded settings, from ``settings.yaml``, ``settings.yml`` or
        ``settings.json`` (whichever the bundle has), merged over the ``settings:`` mapping
        of the front matter (the embed wins a conflicting key), or None without either.

        :raises InvalidSettingsError: for invalid content, a non-mapping, more than one
            settings embed, or an invalid front matter.
        """
        front = self.front_matter
        below: dict[str, Any] | None = None
        if front is not None and "settings" in front:
            below = dict(front["settings"])
        embedded = self._embedded_settings()
        if below is None:
            return embedded
        return {**below, **(embedded or {})}

    def _embedded_settings(self) -> dict[str, Any] | None:
        present = [name for name in SETTINGS_NAMES if self._has_reserved(name)]
        if not present:
            return None
        if len(present) > 1:
            raise InvalidSettingsError(
                f"the bundle has several settings embeds: {', '.join(present)}",
                name=present[1],
                hint="keep exactly one of them",
            )
        found = self._reserved_source(present[0])
        assert found is not None
        data, line = found
        with self._locating(present[0]):
            return load_settings(data, name=present[0], line=line)

    # -- validation ------------------------------------------------------------------------

    def validate(self) -> list[Issue]:
        """Cross-check narrative and entries (RFC 8); an empty list means clean.

        Kinds: ``missing_reference``, ``orphaned_entry``, ``malformed_embed_name``,
        ``conflicting_embed``, ``unclosed_embed``, ``integrity_mismatch``,
        ``invalid_manifest``, ``invalid_settings``, ``invalid_front_matter``,
        ``suspicious_delimiter`` (a heading shaped like a delimiter that is none, or a loose
        one holding more than the role), and (when :mod:`lmml_mdit.narrative.toolcalls` is
        present) ``unanswered_tool_call`` and ``unknown_tool_call_id``. Issues are ordered by
        line; those without a line (orphaned entries) come last.
        """
        issues = _validate(self)
        self._issues = tuple(issues)
        return issues

    @functools.cached_property
    def _issues(self) -> tuple[Issue, ...]:
        """The issues of the first validation, kept: the narrative never changes."""
        return tuple(_validate(self))

    def location(self, issue: Issue) -> str:
        """The file an issue's line counts in: :attr:`file_name`, or
        ``file_name!entry`` for a line inside an archive entry."""
        return self.file_name if issue.file is None else f"{self.file_name}!{issue.file}"

    def check_sendable(self, *, strict: bool = True) -> None:
        """Refuse to send a bundle with an error-level defect (:attr:`Issue.severity`).

        Validation runs once per bundle; later calls reuse its result.

        :param strict: when False, warn a :class:`~lmml_mdit.errors.DefectWarning` for each
            error-level defect instead of raising.
        :raises DefectError: for the first error-level defect, as :meth:`validate` reports
            it, located ``FILE:LINE:COL``.
        """
        for issue in self._issues:
            if issue.severity != "error":
                continue
            error = DefectError(issue, file=self.location(issue))
            if strict:
                raise error
            warnings.warn(DefectWarning(error), stacklevel=3)

    # -- writing ----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the bundle atomically: a text bundle as UTF-8, a zip bundle as an archive
        whose narrative entry is named after *path* (``out.lmmlz`` holds ``out.lmml``).

        Digests recorded in ``manifest.json`` are brought up to date. Only a regular file is
        replaced (a symbolic link is written through, keeping the link); a replaced file
        keeps its permissions. An archive :func:`open` would refuse is never written.

        :raises DuplicateEntryError: when an asset has the narrative entry's name.
        :raises CaseCollisionError: when an asset is named like the narrative entry in
            another case or Unicode form (or two assets are).
        :raises UnsafeEntryError: for an entry name (or a file name giving the narrative
            entry's) with a control character, a drive letter (``C:x``) or another unsafe
            form.
        :raises WriteError: when *path* is a folder, a device, a FIFO or a socket, or its
            folder cannot be written (missing, read-only, full); the old file is unchanged.
        """
        from .packing import save_bundle

        save_bundle(self, os.fspath(path))

    def pack(self) -> Bundle:
        """A zip bundle: every inline fence becomes an entry, replaced by a reference."""
        from .packing import pack

        return pack(self)

    def inline(self, *, orphans: Literal["error", "append", "drop"] = "append") -> Bundle:
        """A text bundle: every referenced text asset becomes a fence.

        :param orphans: what to do with entries the narrative never mentions: ``"append"``
            (default) adds them as fences at the end, ``"drop"`` leaves them out, both
            listing them in the result's ``inline_report`` and warning with
            :class:`~lmml_mdit.bundle.packing.OrphanedEntryWarning`; ``"error"`` raises.
        """
        from .packing import inline

        return inline(self, orphans=orphans)

    # -- delegations to higher modules ------------------------------------------------------

    def messages(self, provider: str = "openai", **options: Any) -> list[dict[str, Any]]:
        """Chat-API messages for *provider* (see :mod:`lmml_mdit.chat.outgoing`)."""
        from ..chat.outgoing import messages  # imported here: messages sits above bundles

        return messages(self, provider, **options)

    def to_request(
        self, provider: str = "openai", model: str | None = None, **options: Any
    ) -> dict[str, Any]:
        """A full chat request for *provider* (see :mod:`lmml_mdit.chat.outgoing`)."""
        from ..chat.outgoing import to_request  # imported here: messages sits above bundles

        return to_request(self, provider, model=model, **options)

    def _repr_html_(self) -> str:
        """The notebook preview (see :mod:`lmml_mdit.preview.page`)."""
        from ..preview.page import render_html  # imported here: the preview sits above bundles

        return render_html(self, fragment=True)


def _issue(kind: str, embed: Embed | None, name: str, message: str) -> Issue:
    return Issue(
        kind=kind,
        name=name,
        line=embed.line if embed is not None else None,
        column=embed.column if embed is not None else None,
        message=message,
    )


def first_fences(narrative: Narrative) -> dict[str, Embed]:
    """The first inline fence of each name, in document order."""
    first: dict[str, Embed] = {}
    for embed in narrative.embeds:
        if embed.kind == "inline":
            first.setdefault(embed.name, embed)
    return first


def _folder_files(root: str, name: str) -> list[str]:
    """The names of the files beside where *name* would lie under *root* (for a
    suggestion), as references would spell them."""
    folder, _, _ = name.rpartition("/")
    try:
        listed = os.listdir(os.path.join(root, *folder.split("/")) if folder else root)
    except OSError:
        return []
    prefix = folder + "/" if folder else ""
    return [prefix + entry for entry in listed if not entry.startswith(".")]


def did_you_mean(bundle: Bundle, name: str) -> str:
    """``did you mean X? `` (ready to go before what to do) for the asset name *name* most
    resembles (:meth:`Bundle.closest_asset`), or nothing."""
    close = bundle.closest_asset(name)
    return f"did you mean {close}? " if close else ""


_ESCAPE_ADVICE = "if it is not meant as an asset, escape the mention as \\@{name}"


def _unresolved_message(bundle: Bundle, name: str) -> tuple[str, str | None] | None:
    """Why the reference *name* does not resolve, with the command line's wording when it
    differs, or None when it resolves."""
    try:
        bundle._resolve(name)
    except UnsafeEntryError:
        # Names are checked before this, so only a base_dir link leading outside the folder
        # is left: it looks present in a file browser, so say why it does not count.
        return (
            f"{name!r} leads outside the folder through a symbolic link; copy the file into "
            "the folder instead of linking to it",
            None,
        )
    except BundleError:
        pass
    else:
        return None
    what, advice, cli_advice = _missing_wording(bundle, name)
    return f"{what}; {advice}", None if cli_advice is None else f"{what}; {cli_advice}"


def _missing_wording(bundle: Bundle, name: str) -> tuple[str, str, str | None]:
    """What ``missing_reference`` says about *name*, a reference that does not resolve:
    what is wrong, what to do (a near-miss name, how to escape a mention), and what to do
    in the command line's words when they differ. Validation and the error
    :meth:`Bundle.embed` raises both use it."""
    escape = _ESCAPE_ADVICE.format(name=name)
    guess = did_you_mean(bundle, name)
    if bundle.kind == "zip":
        what = f"no archive entry {name!r}"
        return what, f"{guess}add the file to the archive or fix the name; {escape}", None
    if bundle.base_dir is not None:
        what = f"no file {name!r} in the folder {bundle.base_dir}"
        return what, f"{guess}add it or fix the name; {escape}", None
    what = f"a bare .lmml read without a folder cannot resolve @{name}"
    return (
        what,
        f"{guess}inline it as a @@@ fence, pack the bundle into a .lmmlz, or open it with "
        f"base_dir=; {escape}",
        f"{guess}inline it as a @@@ fence, or pass --base-dir DIR; {escape}",
    )


def _validate(bundle: Bundle) -> list[Issue]:
    narrative = bundle.narrative
    issues: list[Issue] = []
    first = narrative.first_embeds
    inline = bundle._inline_embeds
    malformed: set[str] = set()

    for name, embed in first.items():
        reason = unsafe_reason(name)
        if reason is not None:
            malformed.add(name)
            issues.append(
                _issue(
                    "malformed_embed_name",
                    embed,
                    name,
                    f"{name!r} cannot be an archive entry name: {reason}; rename it to a "
                    "relative name with '/' separators",
                )
            )
        elif name in inline and not _is_reference_name(name):
            malformed.add(name)
            issues.append(
                _issue(
                    "malformed_embed_name",
                    inline[name],
                    name,
                    f"{name!r} cannot be written as an @reference, so the fence cannot be "
                    "packed; use letters, digits and _ . - / only, starting with a letter "
                    "or digit and not ending in . - /",
                )
            )

    tool_issues = tool_call_issues(narrative)
    # A tool turn naming no known call is reported as unknown_tool_call_id, not twice.
    unknown_calls = {i.name for i in tool_issues if i.kind == "unknown_tool_call_id"}
    for name, embed in first.items():
        if name in malformed or name in inline or name in unknown_calls:
            continue
        unresolved = _unresolved_message(bundle, name)
        if unresolved is not None:
            message, cli_message = unresolved
            issue = _issue("missing_reference", embed, name, message)
            issues.append(
                issue
                if cli_message is None
                else dataclasses.replace(issue, cli_message=cli_message)
            )

    for name in bundle.entries:
        if name not in first and name not in RESERVED_NAMES:
            issues.append(
                _issue(
                    "orphaned_entry",
                    None,
                    name,
                    f"the archive entry {name!r} is never mentioned in the narrative; "
                    f"reference it as @{name} or remove it",
                )
            )

    for embed in narrative.embeds:
        if embed.kind != "inline":
            continue
        if not embed.closed:
            issues.append(
                _issue(
                    "unclosed_embed",
                    embed,
                    embed.name,
                    f"the fence @@@{embed.name} is never closed and runs to the end of its "
                    "block; add a line holding only @@@ where its content ends",
                )
            )
        if inline[embed.name].content != embed.content:
            issues.append(
                _issue(
                    "conflicting_embed",
                    embed,
                    embed.name,
                    f"this fence @@@{embed.name} holds different bytes from an earlier one "
                    "of the same name; rename one or make them identical",
                )
            )
    for fence in bundle._fences_differing_from_entries():
        issues.append(
            _issue(
                "conflicting_embed",
                fence,
                fence.name,
                f"the fence @@@{fence.name} and the archive entry {fence.name!r} hold "
                "different bytes; rename one or make them identical",
            )
        )

    issues.extend(_reserved_issues(bundle))
    issues.extend(tool_issues)
    issues.extend(unsent_image_issues(bundle))
    issues.extend(delimiter_issues(narrative))
    if narrative.text.strip() and all(turn.delimiter_line is None for turn in narrative.turns):
        issues.append(
            Issue(
                "no_turns",
                bundle.narrative_name,
                None,
                None,
                "the narrative has no role delimiter, so it is all context (sent as one "
                "system message); start each turn with a heading such as '## Turn 1 -- user'",
            )
        )
    issues.sort(key=lambda issue: (issue.line is None, issue.line or 0, issue.column or 0))
    return issues


def _reserved_issue(bundle: Bundle, kind: str, name: str, error: BundleError) -> Issue:
    """The issue for a reserved embed that does not decode, its line counted in the file it
    lies in: the narrative for a fence, the entry itself for an archive entry."""
    message = error.message + (f" ({error.hint})" if error.hint else "")
    # A line without a known column (undecodable bytes, say) is pointed at from its start.
    column = error.column if error.column is not None or error.line is None else 1
    return Issue(kind, name, error.line, column, message, file=bundle._entry_of(name))


def _reserved_issues(bundle: Bundle) -> list[Issue]:
    issues: list[Issue] = []
    manifest: dict[str, Any] | None = None
    try:
        manifest = bundle.manifest
    except InvalidManifestError as error:
        issues.append(_reserved_issue(bundle, "invalid_manifest", MANIFEST_NAME, error))
    except BundleError:
        pass  # an unresolvable manifest reference is already a missing_reference
    try:
        _ = bundle.front_matter
    except InvalidSettingsError as error:
        issues.append(_reserved_issue(bundle, "invalid_front_matter", FRONT_MATTER_NAME, error))
    try:
        _ = bundle.settings
    except InvalidSettingsError as error:
        if error.name != FRONT_MATTER_NAME:  # reported above
            issues.append(
                _reserved_issue(bundle, "invalid_settings", error.name or "settings", error)
            )
    except BundleError:
        pass  # an unresolvable settings reference is already a missing_reference
    for name, recorded in manifest_digests(manifest).items():
        embed = bundle.narrative.embed(name)
        try:
            actual = sha256_hex(bundle.embed(name))
        except BundleError:
            issues.append(
                _issue(
                    "integrity_mismatch",
                    embed,
                    name,
                    f"manifest.json records a sha256 for {name!r}, but the bundle has no such "
                    "asset; add it or remove its record",
                )
            )
            continue
        if actual != recorded.lower():
            issues.append(
                _issue(
                    "integrity_mismatch",
                    embed,
                    name,
                    f"{name!r} has sha256 {actual}, but manifest.json records {recorded}; "
                    "the asset changed: restore it, or save the bundle to record the new digest",
                )
            )
    return issues


def _read_stream(stream: IO[bytes], limits: Limits, name: str | None = None) -> bytes:
    """Read a file object to its end, refusing more than the limits allow.

    Reads in chunks of at most :data:`STREAM_CHUNK` bytes (a pipe or raw stream may also
    return fewer than asked for). Once the first bytes tell a narrative from an archive,
    a narrative stops at ``max_narrative_bytes``, an archive at ``max_total_size`` plus
    room for its directory.

    :param name: the name given to :func:`open`, for the error.
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
                    cap = min(cap, _narrative_cap(limits))
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


def _narrative_cap(limits: Limits) -> int:
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


class _FolderNames:
    """The names a folder's files answer to, as ``known_names`` for the parser: a name is
    in it when it is a safe relative name of a regular file inside *root* (the same rule
    :meth:`Bundle.embed` resolves by, links leading outside refused)."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str) or unsafe_reason(name) is not None:
            return False
        candidate = _path_under(self.root, name)
        return candidate is not None and os.path.isfile(candidate)


def _path_under(root: str, name: str) -> str | None:
    """The real path of the relative entry name *name* inside the real folder *root*, or
    None when it leads outside (through a symbolic link) or is *root* itself.

    :param name: a name :func:`~lmml_mdit.bundle.archive.unsafe_reason` accepts ('/' separators).
    """
    candidate = os.path.realpath(os.path.join(root, *name.split("/")))
    if candidate == root or os.path.commonpath([root, candidate]) != root:
        return None
    return candidate


def _not_lmml(data: bytes, display: str, *, path: str | None = None) -> NotLmmlError | None:
    """The error for bytes that are plainly something other than a narrative: an image, a
    PDF, audio, or a JSON chat payload (the bridge's format guess); None for anything that
    may be a narrative, other JSON included."""
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
    stripped = data.lstrip()
    if not stripped.startswith((b"{", b"[")):
        return None
    try:
        value = parse_json(stripped)
    except (ValueError, RecursionError):  # not JSON (or nested too deeply): a narrative
        return None
    if not value:
        return None  # "[]" or "{}" is as much a (tiny) narrative as anything
    try:
        from ..chat.detect import FORMAT_DESCRIPTIONS, detect_format  # the bridge is above
    except ImportError:  # pragma: no cover - a build without the bridge
        return None
    try:
        chat = FORMAT_DESCRIPTIONS.get(detect_format(value), "a chat")
    except LmmlError:
        return None  # JSON, but no chat: Markdown text may hold anything
    return NotLmmlError(
        f"this is not an LMML narrative: it looks like {chat}; run `lmml import` to convert it",
        name=display,
        hint="or call lmml_mdit.chat.importer.import_path()",
        # Bytes reach the command line only from standard input, which lmml import reads as -.
        cli_hint=f"lmml import {path} -o {os.path.splitext(path)[0]}.lmmlz"
        if path is not None
        else "lmml import - -o chat.lmmlz",
    )


def _zip_bundle(
    archive: ZipArchive,
    file_name: str | None,
    explicit_name: str | None,
    limits: Limits,
    syntax: _SyntaxOptions,
) -> Bundle:
    members = archive.members
    given = explicit_name or file_name
    wanted = narrative_entry_name(given) if given else None
    if wanted is not None and wanted in members:
        chosen = wanted
    else:
        candidates = [
            entry for entry in members if "/" not in entry and entry.lower().endswith(_TEXT_SUFFIX)
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
    if archive.size(chosen) > _narrative_cap(limits):  # declared: refused before inflating
        raise _narrative_too_large(chosen, limits)
    known = frozenset(entry for entry in members if entry != chosen)
    narrative = parse(
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
class _SyntaxOptions:
    """The parse options :func:`open` passes on."""

    delimiters: DelimiterMode = "strict"
    references: ReferenceMode = "assets"


def _text_bundle(
    data: bytes,
    display: str,
    stem: str,
    limits: Limits,
    base_dir: str | None,
    syntax: _SyntaxOptions,
    *,
    path: str | None = None,
) -> Bundle:
    if len(data) > _narrative_cap(limits):
        raise _narrative_too_large(display, limits)
    other = _not_lmml(data, display, path=path)
    if other is not None:
        raise other
    known: Container[str] | None = _FolderNames(base_dir) if base_dir is not None else None
    return Bundle(
        kind="text",
        name=stem,
        narrative_name=stem + _TEXT_SUFFIX,
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


def open(
    source: str | os.PathLike[str] | bytes | IO[bytes],
    *,
    limits: Limits | None = None,
    base_dir: BaseDir = None,
    name: str | None = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
) -> Bundle:
    """Open a bundle from a path, bytes or a binary file object.

    Zip or text is decided by the first bytes (``PK\\x03\\x04`` or the empty-archive
    ``PK\\x05\\x06``), never by the extension. A path's archive is read lazily: only the
    central directory and the narrative are read now.

    A bare ``.lmml`` opened from a path sees its own folder: its references resolve against
    the files beside it (never outside that folder: no absolute names, no ``..``, no links
    leading out), and those file names count as known asset names for the parser.

    :param source: a path, the bundle's bytes, or a readable binary file object.
    :param limits: safety limits (see :class:`Limits`); defaults when None.
    :param base_dir: for a text bundle, the folder to resolve external references against:
        None (default) means the file's own folder for a path and none for bytes or a file
        object; False means no folder at all.
    :param name: the bundle or file name, when *source* is not a path (or to override it).
    :param delimiters: ``"strict"`` (default) or ``"loose"`` role headings, as for
        :func:`~lmml_mdit.narrative.narrative.parse`.
    :param references: ``"assets"`` (default) or ``"any"``, as for
        :func:`~lmml_mdit.narrative.narrative.parse`.
    :raises BundleNotFoundError: when the path does not exist (also a FileNotFoundError).
    :raises NotLmmlError: when the file is plainly something else (an image, a PDF, a JSON
        chat payload); :class:`MissingNarrativeError` for a zip without a narrative.
    :raises MissingNarrativeError: when an archive's narrative entry cannot be found.
    :raises LmmlSyntaxError: when the narrative is not valid UTF-8.
    :raises BundleError: when the file cannot be read; see
        :func:`lmml_mdit.bundle.archive.open_archive`
        for every archive error.
    """
    limits = limits if limits is not None else Limits()
    syntax = _SyntaxOptions(delimiters, references)
    base = os.fspath(base_dir) if base_dir is not None and base_dir is not False else None
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        file_name = os.path.basename(path)
        try:
            with builtins.open(path, "rb") as stream:
                head = stream.read(4)
                if not is_zip(head):
                    text = head + stream.read(_narrative_cap(limits) + 1 - len(head))
        except FileNotFoundError:
            raise BundleNotFoundError(
                "cannot read the file: no such file",
                name=path,
                hint="check the path and the current folder",
            ) from None
        except OSError as error:
            raise BundleError(
                f"cannot read the file: {error.strerror}", name=path, hint="check the path"
            ) from None
        if is_zip(head):
            return _zip_bundle(open_archive(path, limits), file_name, name, limits, syntax)
        if base_dir is None:
            base = os.path.dirname(os.path.abspath(path))
        display = name or file_name
        return _text_bundle(text, display, bundle_name(display), limits, base, syntax, path=path)
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
    stem = bundle_name(name) if name else _DEFAULT_NAME
    return _text_bundle(data, name or stem + _TEXT_SUFFIX, stem, limits, base, syntax)


def sha256_hex(data: bytes) -> str:
    """The lowercase hex SHA-256 of *data* (the digest form ``manifest.json`` records)."""
    return hashlib.sha256(data).hexdigest()


def manifest_digests(manifest: Mapping[str, Any] | None) -> dict[str, str]:
    """The asset digests a manifest records: ``{"assets": {name: {"sha256": hex}}}``."""
    if not manifest:
        return {}
    assets = manifest.get("assets")
    if not isinstance(assets, dict):
        return {}
    return {
        asset: record["sha256"]
        for asset, record in assets.items()
        if isinstance(record, dict) and isinstance(record.get("sha256"), str)
    }


def dump_manifest(manifest: Mapping[str, Any]) -> bytes:
    """Serialise a manifest the way :meth:`Bundle.save` writes it."""
    return (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
