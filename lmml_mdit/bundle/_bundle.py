"""Bundles: a narrative with its assets, as a bare ``.lmml`` or a ``.lmmlz`` archive.

:class:`Bundle` holds the narrative and resolves embed names to bytes (a fence, an archive
entry read lazily within the :class:`~lmml_mdit.bundle.Limits`, or a file in a bare
``.lmml``'s folder) and decodes the reserved embeds. Its other work it hands down: opening
is :mod:`~lmml_mdit.bundle._opening`, validation :mod:`~lmml_mdit.bundle._validation`,
rewriting :mod:`~lmml_mdit.bundle._packing` and writing :mod:`~lmml_mdit.bundle._saving`.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Literal, TypeVar

from ..errors import (
    BundleError,
    DefectError,
    DefectWarning,
    DuplicateEntryError,
    InvalidManifestError,
    InvalidSettingsError,
    LimitExceededError,
    LmmlError,
    MissingEntryError,
    UnresolvableReferenceError,
    UnsafeEntryError,
    file_location,
)
from ..formats import ARCHIVE_SUFFIX, DEFAULT_PROVIDER, MANIFEST_NAME, NARRATIVE_SUFFIX
from ..jsontypes import JSONObject
from ..model import Embed, Issue
from ..narrative import Narrative, parse
from ..severity import WARNED_KINDS
from ..warn import warn
from ._archive import LIMITS_CLI_HINT, Limits, ZipArchive, check_entry_names, unsafe_reason
from ._contents import BundleKind, entry_holding, first_fences, has_reserved, settings_embeds
from ._folder import FolderNames, folder_files, path_under
from ._names import DEFAULT_NAME, bundle_name
from ._reserved import (
    load_front_matter,
    load_manifest,
    load_settings,
)
from ._validation import UNSENDABLE_EMBED, find_issues, missing_wording
from .reserved_embeds import RESERVED_NAMES

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..chat import MessageList, RequestOptions
    from ..run import AsyncReplyStream, Reply, ReplyStream, SendOptions, StreamOptions
    from ..syntax import DelimiterMode, ReferenceMode
    from ._packing import InlineReport

__all__ = ["Bundle", "DefectWarning"]

if TYPE_CHECKING:
    # Pyright reads a ``functools.cached_property`` as the descriptor, not as the read-only
    # property it provides, so a Bundle would not match BundleSource in users' strict checks.
    _cached_property = property
else:
    _cached_property = functools.cached_property

_ReferenceError = TypeVar("_ReferenceError", MissingEntryError, UnresolvableReferenceError)


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


class _EntryNames(tuple[str, ...]):
    """Entry names in archive order, asked ``name in`` as a set is: a preview or an export
    asks it for every embed, and a tuple would scan them all each time."""

    _set: frozenset[str]

    def __new__(cls, names: Iterable[str]) -> _EntryNames:
        made = super().__new__(cls, names)
        made._set = frozenset(made)
        return made

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._set


CLOSEST_NAME_BUDGET = 5_000
"""How many candidate names :meth:`Bundle.closest_asset` compares, over all the names it is
asked about, before it stops suggesting (a comparison costs a few microseconds)."""


class Bundle:
    """A narrative and its assets.

    Build one with :func:`lmml_mdit.open`, :meth:`from_text` or :meth:`from_zip`. A bundle
    opened from a file keeps the file open for lazy reads; :meth:`close` it, or use ``with``.

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
        """Internal: use :func:`lmml_mdit.open`, :meth:`from_text` or :meth:`from_zip`.

        *entries* maps names to bytes, or to None for an entry read lazily from *archive*.
        """
        suffix = ARCHIVE_SUFFIX if kind == "zip" else NARRATIVE_SUFFIX
        self.file_name: str = file_name or (narrative_name if kind == "text" else name + suffix)
        self.kind: BundleKind = kind
        self.name = name
        self.narrative_name = narrative_name
        self.narrative = narrative
        self.limits = limits if limits is not None else Limits()
        self.base_dir = base_dir
        self.inline_report: InlineReport | None = None
        self._entries: dict[str, bytes | None] = dict(entries or {})
        self._names: _EntryNames | None = None  # entries, made on first use
        self._closest: dict[str, str | None] = {}  # closest_asset's answers, by name
        self._comparisons = 0  # how many names closest_asset has compared
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
        delimiters: DelimiterMode = "strict",
        references: ReferenceMode = "assets",
    ) -> Bundle:
        """A text bundle held in memory.

        :param name: the bundle name; a trailing ``.lmml``/``.lmmlz`` is stripped.
        :param text: the narrative.
        :param narrative: the parse of *text*, when the caller already made it (a writer
            that checked what it wrote), so the text is not parsed twice.
        :param base_dir: a folder to resolve external references against; its files are
            known names, as for :func:`lmml_mdit.open` (``@Dockerfile`` beside a file
            ``Dockerfile`` is a reference).
        :param delimiters: role headings, as :func:`lmml_mdit.parse` takes them.
        :param references: ``@name`` references, likewise.
        """
        stem = bundle_name(name) or DEFAULT_NAME
        narrative_name = stem + NARRATIVE_SUFFIX
        folder = os.fspath(base_dir) if base_dir is not None else None
        if narrative is None:
            narrative = parse(
                text,
                name=narrative_name,
                known_names=FolderNames(folder) if folder is not None else None,
                delimiters=delimiters,
                references=references,
            )
        return cls(
            kind="text",
            name=stem,
            narrative_name=narrative_name,
            narrative=narrative,
            base_dir=folder,
        )

    @classmethod
    def from_zip(
        cls,
        name: str,
        text: str,
        entries: Mapping[str, bytes],
        *,
        narrative: Narrative | None = None,
        delimiters: DelimiterMode = "strict",
        references: ReferenceMode = "assets",
    ) -> Bundle:
        """A zip bundle held in memory.

        :param name: the bundle name; a trailing ``.lmml``/``.lmmlz`` is stripped.
        :param text: the narrative.
        :param entries: asset names to bytes, in archive order.
        :param narrative: the parse of *text*, when the caller already made it.
        :param delimiters: role headings, as :func:`lmml_mdit.parse` takes them.
        :param references: ``@name`` references, likewise.
        :raises UnsafeEntryError: for an unsafe entry name.
        :raises CaseCollisionError: for names differing only in case.
        :raises DuplicateEntryError: for an entry named like the narrative entry.
        """
        stem = bundle_name(name) or DEFAULT_NAME
        narrative_name = stem + NARRATIVE_SUFFIX
        if narrative_name in entries:
            raise DuplicateEntryError(
                "an asset has the name the narrative entry needs",
                name=narrative_name,
                hint="rename that asset, or give the bundle another name",
            )
        check_entry_names([narrative_name, *entries])
        return cls(
            kind="zip",
            name=stem,
            narrative_name=narrative_name,
            narrative=narrative
            if narrative is not None
            else parse(
                text,
                name=narrative_name,
                known_names=frozenset(entries),
                delimiters=delimiters,
                references=references,
            ),
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
        names = self._names
        if names is None or len(names) != len(self._entries):
            names = self._names = _EntryNames(self._entries)
        return names

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
        what, advice, cli_advice = missing_wording(self, name)
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

    @_cached_property
    def fences(self) -> dict[str, Embed]:
        """The first inline fence of each name, in document order."""
        return first_fences(self.narrative)

    def _base_dir_path(self, name: str) -> str:
        """The real path of *name* under base_dir, refusing anything that leads outside."""
        assert self.base_dir is not None
        line, column = self._first_line(name)
        reason = unsafe_reason(name)
        if reason is not None:
            raise _unsafe_error(name, reason, line, column, self._file_of(line))
        candidate = path_under(os.path.realpath(self.base_dir), name)
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
        archive entries, or the files in the folder of a text bundle, and the fences.

        Each name is compared with every candidate, so the search is bounded: once a bundle
        has spent :data:`CLOSEST_NAME_BUDGET` comparisons (a narrative with hundreds of
        missing references among hundreds of assets), later names get None.
        """
        # Asked once per missing reference, and twice by validate (its message and the
        # error resolve() builds): found once per name, each over a list built in one pass.
        if name in self._closest:
            return self._closest[name]
        if self._comparisons >= CLOSEST_NAME_BUDGET:
            return None
        candidates: list[str] = list(self._entries)
        if self.kind == "text" and self.base_dir is not None:
            candidates = folder_files(self.base_dir, name)
        listed = set(candidates)
        candidates.extend(n for n in self.fences if n not in listed)
        candidates = [c for c in candidates if c not in (name, self.narrative_name)]
        self._comparisons += len(candidates)
        import difflib  # here: only a missing reference needs it, not opening a bundle

        close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
        self._closest[name] = result = close[0] if close else None
        return result

    def has_asset(self, name: str) -> bool:
        """Whether :meth:`embed` can resolve *name* (without reading any bytes)."""
        try:
            self.resolve(name)
        except BundleError:
            return False
        return True

    def resolve(self, name: str) -> Callable[[], bytes]:
        """Find where :meth:`embed` gets *name*'s bytes, without reading them yet.

        :returns: a reader of the bytes: the first inline fence's, the zip entry's, or the
            base_dir file's.
        :raises BundleError: the errors :meth:`embed` names, for a name it cannot resolve.
        """
        inline = self.fences.get(name)
        if inline is not None:
            content = inline.content
            assert content is not None
            return lambda: content
        line, column = self._first_line(name)
        reason = unsafe_reason(name)
        if reason is not None:
            raise _unsafe_error(name, reason, line, column, self._file_of(line))
        if name in self._entries:  # an archive entry, or a text bundle's asset held in memory
            return functools.partial(self.read, name)
        if self.kind == "zip":
            raise self._missing(name)
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

    def embed_head(self, name: str, size: int) -> bytes:
        """Up to the first *size* bytes :meth:`embed` gives for *name*, a base_dir file read
        only that far (what a media type is told by); the same errors as :meth:`embed`."""
        reader = self.resolve(name)
        if name not in self.fences and name in self._entries and self._entries[name] is None:
            assert self._archive is not None
            return self._archive.read_head(name, size)  # an archive entry inflated that far
        if name in self.fences or name in self._entries or self.base_dir is None:
            return reader()[:size]
        with builtins.open(self._base_dir_path(name), "rb") as stream:
            return stream.read(size)

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
        return self.resolve(name)()

    # -- reserved embeds ------------------------------------------------------------------

    def _reserved_source(self, name: str) -> tuple[bytes, int | None] | None:
        """The bytes of a reserved embed and the narrative line its content starts on."""
        if not has_reserved(self, name):
            return None
        inline = self.fences.get(name)
        line = inline.line + 1 if inline is not None else None
        return self.embed(name), line

    @contextlib.contextmanager
    def _locating(self, name: str, kind: str) -> Iterator[None]:
        """Locate a decoding error of the reserved embed *name* in its file: the narrative
        for a fence, ``file_name!name`` for an archive entry (whose lines it counts); the
        error carries *kind*, as ``validate`` names it."""
        try:
            yield
        except (InvalidManifestError, InvalidSettingsError) as error:
            error.kind = error.kind or kind
            self._place_error(error, entry_holding(self, name))  # str(error) reads both
            raise

    @_cached_property
    def manifest(self) -> JSONObject | None:
        """The decoded ``manifest.json`` (inline fence or entry), or None without one.

        :raises InvalidManifestError: when it is not a JSON object.
        :raises UnresolvableReferenceError: when a bare ``.lmml`` only references it.
        :raises MissingEntryError: when it is referenced but absent from the archive.
        """
        found = self._reserved_source(MANIFEST_NAME)
        if found is None:
            return None
        data, line = found
        with self._locating(MANIFEST_NAME, "invalid_manifest"):
            return load_manifest(data, line=line)

    @_cached_property
    def front_matter(self) -> JSONObject | None:
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
            error.kind = error.kind or "invalid_front_matter"
            error.locate(self.file_name)  # its lines are the narrative's
            raise

    @_cached_property
    def settings(self) -> JSONObject | None:
        """The decoded settings, from ``settings.yaml``, ``settings.yml`` or
        ``settings.json`` (whichever the bundle has), merged over the ``settings:`` mapping
        of the front matter (the embed wins a conflicting key), or None without either.

        :raises InvalidSettingsError: for invalid content, a non-mapping, more than one
            settings embed, or an invalid front matter.
        """
        front = self.front_matter
        below: JSONObject | None = None
        if front is not None and "settings" in front:
            below = dict(front["settings"])
        embedded = self._embedded_settings()
        if below is None:
            return embedded
        return {**below, **(embedded or {})}

    def _embedded_settings(self) -> JSONObject | None:
        present = settings_embeds(self)
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
        with self._locating(present[0], "invalid_settings"):
            return load_settings(data, name=present[0], line=line)

    # -- validation ------------------------------------------------------------------------

    def validate(self, *, inputs: Mapping[str, object] | None = None) -> list[Issue]:
        """Cross-check narrative and entries (RFC 8); an empty list means clean.

        A template's inputs (see :doc:`/templates`) add ``undeclared_input``,
        ``unused_input`` and ``invalid_input``; given *inputs* (values for one rendering),
        those values are checked too, adding ``missing_input`` and ``invalid_input``.

        Kinds: ``missing_reference``, ``orphaned_entry``, ``malformed_embed_name``,
        ``conflicting_embed``, ``unclosed_embed``, ``integrity_mismatch``,
        ``invalid_manifest``, ``invalid_settings``, ``invalid_front_matter``,
        ``suspicious_delimiter`` (a heading, label line or comment shaped like a delimiter
        that is none, or a loose one holding more than the role), ``invalid_tool_call``,
        ``unanswered_tool_call``, ``unknown_tool_call_id``, ``invalid_remote_asset``,
        ``unsendable_embed`` (bytes the built-in handlers refuse, with no handler registered
        for them), ``unsent_image`` and ``no_turns``; each kind's severity is the one
        :data:`lmml_mdit.severity.KIND_RULES` gives it. Issues are ordered by line; those
        without a line (orphaned entries) come last.
        """
        if inputs is not None:
            from ..chat import messages_issues

            issues = find_issues(self, inputs=inputs) + messages_issues(self, inputs)
            issues.sort(key=lambda issue: (issue.line is None, issue.line or 0, issue.column or 0))
            return issues
        issues = find_issues(self)
        self._issues = tuple(issues)
        return issues

    @functools.cached_property
    def _issues(self) -> tuple[Issue, ...]:
        """The issues of the first validation, kept: the narrative never changes."""
        return tuple(find_issues(self))

    def location(self, issue: Issue) -> str:
        """The file an issue's line counts in: :attr:`file_name`, ``file_name!entry`` for a
        line inside an archive entry, or the path of a file beside a bare narrative."""
        return self._file_holding(issue.file)

    def _file_holding(self, inner: str | None) -> str:
        return file_location(self.file_name, inner, archive=self.kind == "zip")

    def _place_error(self, error: LmmlError, inner: str | None) -> None:
        """Name the file *error*'s line counts in, as :meth:`location` does: an archive's
        entry kept apart from the archive (``str(error)`` joins them)."""
        if inner is not None and self.kind == "zip":
            error._lie_in(self.file_name, inner)
        else:
            error._lie_in(self._file_holding(inner))

    def _defect(self, issue: Issue) -> DefectError:
        """The error reporting *issue*, located in its file (:meth:`location`)."""
        error = DefectError(issue)
        self._place_error(error, issue.file)
        return error

    def check_sendable(self, *, strict: bool = True) -> None:
        """Warn each defect every send reports (:meth:`warn_defects`), then refuse to send a
        bundle with an error-level defect (:attr:`Issue.severity`).

        Validation runs once per bundle; later calls reuse its result.

        :param strict: when False, warn a :class:`~lmml_mdit.errors.DefectWarning` for each
            error-level defect instead of raising.
        :raises DefectError: for the first error-level defect, as :meth:`validate` reports
            it, located ``FILE:LINE:COL`` (after the warnings: a refusal hides none).
        """
        self.warn_defects()
        for issue in self._issues:
            if issue.severity != "error" or issue.kind == UNSENDABLE_EMBED:
                # An unsendable embed is refused where its parts are built, naming the
                # provider, after the call's own handlers had their say.
                continue
            error = self._defect(issue)
            if strict:
                raise error
            warn(DefectWarning(error))

    def warn_defects(self) -> None:
        """Warn a :class:`DefectWarning` for each warning-level defect every command that
        sends or shows a bundle reports (:data:`lmml_mdit.severity.WARNED_KINDS`, such as
        ``suspicious_delimiter``). ``warnings.simplefilter("error", DefectWarning)`` makes
        each one raise."""
        # The warned kinds are the delimiter ones (tests/test_severity.py holds this): a
        # bundle not yet validated (the preview, turns) reads them without validating.
        issues = self.__dict__.get("_issues") or self.narrative._delimiter_issues
        for issue in issues:
            if issue.kind in WARNED_KINDS:
                warn(DefectWarning(self._defect(issue)))

    # -- writing ----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the bundle atomically: a text bundle as UTF-8, a zip bundle as an archive
        whose narrative entry is named after *path* (``out.lmmlz`` holds ``out.lmml``).

        *path* may be an fsspec URL, as :func:`lmml_mdit.open` takes: ``file://`` is the
        local path (written atomically), ``memory://``, ``s3://`` and any installed
        filesystem are written through fsspec, whole once closed where the filesystem
        works so (object stores, memory), with a failed write's partial file removed.

        Digests recorded in ``manifest.json`` are brought up to date. Only a regular file is
        replaced (a symbolic link is written through, keeping the link); a replaced file
        keeps its permissions. An archive :func:`open` would refuse is never written. A text
        bundle whose references resolve in its folder, saved into another folder, warns
        with :class:`~lmml_mdit.FolderReferenceWarning` naming the files it leaves there.

        :raises DuplicateEntryError: when an asset has the narrative entry's name.
        :raises CaseCollisionError: when an asset is named like the narrative entry in
            another case or Unicode form (or two assets are).
        :raises UnsafeEntryError: for an entry name (or a file name giving the narrative
            entry's) with a control character, a drive letter (``C:x``) or another unsafe
            form.
        :raises WriteError: when *path* is a folder, a device, a FIFO or a socket, or its
            folder cannot be written (missing, read-only, full); the old file is unchanged.
        :raises BundleError: when *path* ends in the other kind's suffix: a zip bundle to a
            ``.lmml`` (:meth:`inline` it first), a text one to a ``.lmmlz`` (:meth:`pack` it
            first); nothing is written.
        """
        from ._saving import save_bundle  # writing is a job of its own: validate never loads it

        save_bundle(self, os.fspath(path))

    def pack(self) -> Bundle:
        """A zip bundle: every inline fence becomes an entry, replaced by a reference.

        Existing entries are all kept (unreferenced ones too); for a text bundle opened with
        ``base_dir``, referenced files found there become entries as well. The packed
        bundle reads its other entries from this bundle's archive file: close this one only
        when done with both.

        :raises UnsafeEntryError: for a fence name that cannot be an entry name.
        :raises BundleError: for a fence name ``@name`` cannot express, or a rewrite that
            would change the turns.
        :raises ConflictingEmbedError: when fences, or a fence and an entry, disagree on
            bytes.
        """
        from ._packing import pack_fences  # here: opening a bundle does not need it

        narrative, added = pack_fences(self)
        return Bundle(
            kind="zip",
            name=self.name,
            narrative_name=self.name + NARRATIVE_SUFFIX,
            narrative=narrative,
            entries={**self._entries, **added},
            archive=self._archive,
            limits=self.limits,
        )

    def inline(
        self, *, orphans: Literal["error", "append", "drop"] = "append", keep_binary: bool = False
    ) -> Bundle:
        """A text bundle: every referenced text asset becomes a fence.

        :param orphans: what to do with entries the narrative never mentions: ``"append"``
            (default) adds them as fences at the end, ``"drop"`` leaves them out, both
            listing them in the result's ``inline_report`` and warning with
            :class:`~lmml_mdit.bundle.OrphanedEntryWarning`; ``"error"`` raises.
        :param keep_binary: leave each asset no fence can hold (a binary one) an archive
            entry: when there is one, the result is a zip bundle holding those entries (and
            ``manifest.json`` and the settings as entries), its text assets as fences.
        :raises NotInlinableError: naming a binary or unfenceable asset.
        :raises MissingEntryError: for a reference to a missing entry (nothing is inlined).
        :raises UnresolvableReferenceError: for a reference a bare ``.lmml`` cannot resolve.
        :raises ConflictingEmbedError: when a fence and an entry of one name disagree.
        :raises BundleError: for unreferenced entries with ``orphans="error"``.
        """
        from ._packing import inline_assets  # here: opening a bundle does not need it

        narrative, report = inline_assets(self, orphans=orphans, keep_binary=keep_binary)
        if report.kept:
            inlined = Bundle(
                kind="zip",
                name=self.name,
                narrative_name=self.name + NARRATIVE_SUFFIX,
                narrative=narrative,
                entries={
                    name: self._entries[name] if name in self._entries else self.embed(name)
                    for name in report.kept
                },
                archive=self._archive,
                limits=self.limits,
            )
        else:
            inlined = Bundle(
                kind="text",
                name=self.name,
                narrative_name=self.name + NARRATIVE_SUFFIX,
                narrative=narrative,
                limits=self.limits,
            )
        inlined.inline_report = report
        return inlined

    # -- delegations to higher modules ------------------------------------------------------

    def messages(
        self, provider: str = DEFAULT_PROVIDER, **options: Unpack[RequestOptions]
    ) -> MessageList:
        """Chat-API messages for *provider* (see :mod:`lmml_mdit.chat`): a
        :class:`~lmml_mdit.MessageList`, the list with the provider's ``system`` content
        and the omissions beside it; a template's values go in ``inputs={...}`` (see
        :doc:`/templates`)."""
        from ..chat import messages  # imported here: messages sits above bundles

        return messages(self, provider, **options)

    def to_request(
        self,
        provider: str = DEFAULT_PROVIDER,
        model: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> JSONObject:
        """A full chat request for *provider* (see :mod:`lmml_mdit.chat`)."""
        from ..chat import to_request  # imported here: messages sits above bundles

        return to_request(self, provider, model=model, **options)

    def send(self, provider: str = DEFAULT_PROVIDER, **options: Unpack[SendOptions]) -> Reply:
        """Send the request ``to_request`` builds through the provider's SDK and return
        the :class:`~lmml_mdit.run.Reply` (see :mod:`lmml_mdit.run` and :doc:`/run`); the
        bundle is left as it is. The options are :func:`lmml_mdit.run.send`'s."""
        from ..run import send  # imported here: running sits above bundles

        return send(self, provider, **options)

    async def asend(
        self, provider: str = DEFAULT_PROVIDER, **options: Unpack[SendOptions]
    ) -> Reply:
        """:meth:`send` with the SDK's asyncio client."""
        from ..run import asend  # imported here: running sits above bundles

        return await asend(self, provider, **options)

    def stream(
        self, provider: str = DEFAULT_PROVIDER, **options: Unpack[StreamOptions]
    ) -> ReplyStream:
        """:meth:`send` with ``stream=True``, read live: iterate the
        :class:`~lmml_mdit.run.ReplyStream` for the text and tool calls as they arrive, then
        call its ``reply()``; takes :meth:`send`'s options but ``stream`` and ``on_event``."""
        from ..run import stream  # imported here: running sits above bundles

        return stream(self, provider, **options)

    def astream(
        self, provider: str = DEFAULT_PROVIDER, **options: Unpack[StreamOptions]
    ) -> AsyncReplyStream:
        """:meth:`stream` with the SDK's asyncio client: ``async for`` its events."""
        from ..run import astream  # imported here: running sits above bundles

        return astream(self, provider, **options)

    def _repr_html_(self) -> str:
        """The notebook preview (see :func:`lmml_mdit.preview.render_html`)."""
        from ..preview import render_html  # imported here: the preview sits above bundles

        return render_html(self, fragment=True)

    def _repr_markdown_(self) -> str:
        """The notebook's Markdown view (see
        :func:`lmml_mdit.preview.display_markdown`)."""
        from ..preview import display_markdown  # the preview sits above bundles

        return display_markdown(self)
