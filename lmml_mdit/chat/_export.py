"""Export a folder of bundles as one JSONL dataset, on all cores, streaming.

:func:`export_folder` walks the folder (``*.lmml`` and ``*.lmmlz``, recursively, in
sorted path order), converts each bundle in a
process pool and writes one JSON line per bundle in that walk order as results arrive.
At most ``2 * workers`` bundles are in flight, and neither the path list nor the results
are ever held whole, so memory stays flat however large the folder. A bundle that fails
is left out of the output and reported with its path and reason; the rest go on.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import sys
import warnings
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING

from ..atomic import atomic_write
from ..bundle import BundleSource
from ..errors import BundleError, LmmlError
from ..formats import ARCHIVE_SUFFIX, BUNDLE_SUFFIXES, not_an_archive
from ..jsontypes import JSONObject
from ..syntax import DelimiterMode, ReferenceMode
from ..workers import process_pool
from ._content import Options, UnknownSettings
from ._importer import Progress
from ._outgoing import request_body
from .providers import EXPORT_PROVIDERS, sharegpt
from .providers import provider as find_provider

if TYPE_CHECKING:
    from ..bundle import Bundle

    # The bundles opened here, and those Bundle.messages / Bundle.to_request hand to the
    # chat layer, are taken as BundleSource: mypy checks that Bundle provides all of it.
    _BUNDLE_IS_A_SOURCE: type[BundleSource] = Bundle

__all__ = ["EXPORT_PROVIDERS", "ExportReport", "export_bundle", "export_folder", "iter_bundles"]


@dataclass
class ExportReport:
    """What :func:`export_folder` did.

    :ivar output: the JSONL file written.
    :ivar total: bundles found.
    :ivar written: lines written (bundles converted).
    :ivar failures: ``(path, reason)`` for each bundle that could not be converted, in walk
        order.
    :ivar warnings: ``(path, defect)`` for each error-level defect of a bundle exported
        anyway (``strict=False``), located ``FILE:LINE:COL: kind: message`` as
        ``validate`` locates it, and for each system turn placed by the ``midway_system``
        policy (a :class:`~lmml_mdit.SystemContentWarning`'s text, located
        the same way), and for each ``.lmmlz`` file holding no zip archive, read as a
        bare narrative (``NAME.lmmlz: not a zip archive (...)``, as the command line's
        readers say it), in walk order.
    """

    output: str
    total: int = 0
    written: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every bundle was converted."""
        return not self.failures


def iter_bundles(folder: str | os.PathLike[str]) -> Iterator[str]:
    """The bundle paths under *folder*, recursively, in sorted order (by path components,
    files and subfolders interleaved by name). Only the sorted names of the folders being
    walked are held (a few dozen bytes per entry), never the whole list of paths or any
    per-bundle state. Symbolic links to folders are not followed.

    The walk keeps its own stack of open folders instead of recursing, so a tree of any
    depth is walked (a chain of thousands of nested folders included).
    """
    stack: list[Iterator[str]] = [_sorted_paths(os.fspath(folder))]
    while stack:
        path = next(stack[-1], None)
        if path is None:
            stack.pop()
        elif os.path.isdir(path) and not os.path.islink(path):
            stack.append(_sorted_paths(path))
        elif path.endswith(BUNDLE_SUFFIXES) and os.path.isfile(path):
            yield path


def _sorted_paths(folder: str) -> Iterator[str]:
    """The paths in *folder*, sorted by name; an unreadable subfolder holds none."""
    try:
        with os.scandir(folder) as listing:
            names = sorted(entry.name for entry in listing)
    except OSError:
        return iter(())
    return (os.path.join(folder, name) for name in names)


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity mask where the platform has one,
    else ``os.cpu_count()``): the most workers :func:`export_folder` starts."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        with contextlib.suppress(OSError):
            return max(1, len(affinity(0)))
    return os.cpu_count() or 1


def export_bundle(
    bundle: BundleSource,
    provider: str,
    *,
    strict: bool = True,
    unknown_settings: UnknownSettings = "pass",
) -> JSONObject:
    """One dataset record for *bundle*.

    For a messages provider this is the request body ``bundle.to_request(provider)`` gives
    (``{"messages": ...}`` for ``openai``, ``{"input": ...}`` for ``openai-responses``,
    ``{"system": ..., "messages": ...}`` for ``anthropic``, ``{"contents": ..., "config":
    ...}`` for ``gemini``, with ``model`` and mapped settings when the bundle's settings
    have them, and ``attachment_lines="drop"``), except that Anthropic's ``max_tokens`` is
    not required: a dataset line is not a live request. For ``sharegpt`` it is
    :func:`~lmml_mdit.chat.providers.sharegpt.export_sharegpt`.

    :param strict: False exports a bundle with an error-level defect anyway, warning each.
    :param unknown_settings: what becomes of a setting the provider has no parameter for:
        ``"pass"`` (the default: a dataset line keeps every setting) sends it as it is,
        ``"warn"`` leaves it out with an ``UnknownSettingWarning`` (the body then passes the
        provider's SDK, as ``to_request`` gives by default), ``"error"`` refuses the bundle.
    :raises DefectError: for a bundle with an error-level defect (see
        :meth:`~lmml_mdit.bundle.bundle.Bundle.check_sendable`), unless *strict* is False.
    :raises UnsupportedContentError: for content the provider cannot take.
    """
    if provider == sharegpt.NAME:
        return sharegpt.export_sharegpt(bundle, strict=strict)
    options = Options(attachment_lines="drop", strict=strict, unknown_settings=unknown_settings)
    return request_body(bundle, find_provider(provider), options, live=False)


@dataclass(frozen=True)
class _Syntax:
    """How every bundle of one export is opened (the options of :func:`open_bundle`)."""

    base_dir: str | None = None
    delimiters: DelimiterMode = "strict"
    references: ReferenceMode = "assets"


_Result = tuple[str | None, str | None, tuple[str, ...]]
"""A worker's answer: the JSON line or None, the failure reason or None, the defects of a
bundle exported anyway."""


def _convert(
    path: str,
    provider: str,
    strict: bool,
    strict_warnings: bool,
    syntax: _Syntax,
    unknown_settings: UnknownSettings,
) -> _Result:
    """Worker: the JSON line for one bundle, or the reason it failed, and the defects sent
    anyway or found before the failure, after the warning that a ``.lmmlz`` holds no zip
    (all worded for the command line, its main reader)."""
    from ..bundle import DefectWarning

    caught: list[warnings.WarningMessage] = []
    said = _mislabelled(path)
    try:
        from ._opening import open as open_bundle

        with (
            open_bundle(
                path,
                base_dir=syntax.base_dir,
                delimiters=syntax.delimiters,
                references=syntax.references,
            ) as bundle,
            warnings.catch_warnings(record=True) as caught,
        ):
            # A worker's warnings would reach no one: the defects go back with the result.
            warnings.simplefilter("always")
            if strict_warnings:
                warnings.simplefilter("error", DefectWarning)
            record = export_bundle(
                bundle, provider, strict=strict, unknown_settings=unknown_settings
            )
        return json.dumps(record, ensure_ascii=False), None, said + _reported(caught)
    except DefectWarning as raised:  # strict_warnings: the bundle is a failure
        return None, raised.error.format(cli=True), said + _reported(caught)
    except LmmlError as error:
        return None, error.format(cli=True), said + _reported(caught)
    except Exception as error:  # a failing bundle must not stop the rest
        return None, f"{type(error).__name__}: {error}", said


def _mislabelled(path: str) -> tuple[str, ...]:
    """The warning that *path*, named ``.lmmlz``, holds no zip archive and is read as a bare
    narrative (as the command line's readers say it), or nothing."""
    if not path.lower().endswith(ARCHIVE_SUFFIX):
        return ()
    try:
        with open(path, "rb") as stream:
            head = stream.read(4)
    except OSError:
        return ()  # opening the bundle reports it, in the library's words
    message = not_an_archive(os.path.basename(path), head)
    return () if message is None else (message,)


def _reported(caught: list[warnings.WarningMessage]) -> tuple[str, ...]:
    """The caught warnings an export reports, each as one line: the defects (sent anyway,
    or every send reports), each system turn placed by midway_system, each
    provider-specific item left out, each setting left out, and each number setting sent
    outside the provider's range (as ``lmml render --request`` and ``lmml run`` say it)."""
    from ..bundle import DefectWarning
    from ..errors import SettingRangeWarning
    from ._content import SystemContentWarning, UnknownSettingWarning
    from ._native import NativeItemDroppedWarning

    return tuple(
        warning.message.error.format(cli=True, hint=False)
        if isinstance(warning.message, DefectWarning)
        else str(warning.message)
        for warning in caught
        if isinstance(
            warning.message,
            (
                DefectWarning,
                SystemContentWarning,
                NativeItemDroppedWarning,
                UnknownSettingWarning,
                SettingRangeWarning,
            ),
        )
    )


def export_folder(
    folder: str | os.PathLike[str],
    provider: str,
    out: str | os.PathLike[str],
    workers: int | None = None,
    progress: Progress | None = None,
    *,
    strict: bool = True,
    base_dir: str | os.PathLike[str] | None = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
    unknown_settings: UnknownSettings = "pass",
    strict_warnings: bool = False,
) -> ExportReport:
    """Turn every bundle under *folder* into one JSONL line of *out*.

    :param provider: one of :data:`EXPORT_PROVIDERS`.
    :param out: the JSONL file, replaced atomically when done; ``-`` writes stdout.
    :param workers: processes to use; all cores (:func:`usable_cores`) by default, and
        never more than the cores or the bundles found (one bundle starts no pool).
    :param progress: called as ``progress(done, None, path)`` per bundle (the caller
        draws it; nothing is drawn without one).
    :param strict: True (default) reports a bundle with an error-level defect among the
        failures; False exports it anyway, listing each defect in
        :attr:`ExportReport.warnings`.
    :param base_dir: the folder every bare ``.lmml`` resolves its references against
        (default: each file's own folder), as for :func:`lmml_mdit.open`.
    :param delimiters: ``"strict"`` (default) or ``"loose"`` role headings, as for
        :func:`lmml_mdit.open`.
    :param references: ``"assets"`` (default) or ``"any"``, likewise.
    :param unknown_settings: as for :func:`export_bundle`; each setting left out is listed in
        :attr:`ExportReport.warnings`.
    :param strict_warnings: True reports a bundle with a warning every send reports
        (:data:`lmml_mdit.severity.WARNED_KINDS`: a suspicious delimiter) among the
        failures too (``lmml export --strict``); by default it is listed in
        :attr:`ExportReport.warnings`.
    :raises BundleError: for an unknown provider or a missing folder;
        :class:`~lmml_mdit.errors.WriteError` for an *out* that is not a regular file or
        cannot be written (the old file is then unchanged). A bundle that fails is reported
        in :attr:`ExportReport.failures` instead.
    """
    if provider not in EXPORT_PROVIDERS:
        raise BundleError(
            f"unknown export provider {provider!r}",
            hint=f"use one of {', '.join(EXPORT_PROVIDERS)}",
        )
    if not os.path.isdir(folder):
        raise BundleError("not a folder", name=str(folder), hint="give a folder of bundles")
    cores = usable_cores()
    count = min(workers, cores) if workers and workers > 0 else cores
    report = ExportReport(output=str(out))
    syntax = _Syntax(None if base_dir is None else os.fspath(base_dir), delimiters, references)
    if str(out) == "-":
        _run(
            folder,
            provider,
            count,
            sys.stdout,
            report,
            progress,
            (strict, strict_warnings, syntax, unknown_settings),
        )
    else:
        with atomic_write(out) as stream:
            handle = io.TextIOWrapper(stream, encoding="utf-8", newline="\n")
            _run(
                folder,
                provider,
                count,
                handle,
                report,
                progress,
                (strict, strict_warnings, syntax, unknown_settings),
            )
            handle.flush()
            handle.detach()  # the stream is atomic_write's to close
    return report


def _run(
    folder: str | os.PathLike[str],
    provider: str,
    workers: int,
    handle: IO[str],
    report: ExportReport,
    progress: Progress | None,
    choices: tuple[bool, bool, _Syntax, UnknownSettings],
) -> None:
    paths = iter_bundles(folder)
    # Look ahead by a full chunk for every worker, so a folder of fewer bundles starts
    # fewer processes (one bundle none at all) and shares its bundles out evenly.
    ahead = list(itertools.islice(paths, workers * _CHUNK_BUNDLES + 1))
    if len(ahead) <= 1:
        for path in ahead:
            report.total += 1
            _record(path, _convert(path, provider, *choices), handle, report, progress)
        return
    workers = min(workers, len(ahead))
    # Bundles go to the workers in chunks: a small bundle converts in about as long as a
    # round trip to a worker takes, and this process (the third on two cores) would
    # otherwise spend its time sending paths and receiving lines.
    size = min(_CHUNK_BUNDLES, -(-len(ahead) // workers))
    window = 2 * workers
    pending: deque[tuple[list[str], Future[list[_Result]]]] = deque()

    def drain_one() -> None:
        chunk, future = pending.popleft()
        for path, result in zip(chunk, future.result(), strict=True):
            _record(path, result, handle, report, progress)

    with process_pool(workers) as pool:
        remaining = itertools.chain(ahead, paths)
        while chunk := list(itertools.islice(remaining, size)):
            report.total += len(chunk)
            pending.append((chunk, pool.submit(_convert_chunk, chunk, provider, *choices)))
            if len(pending) >= window:
                drain_one()
        while pending:
            drain_one()


_CHUNK_BUNDLES = 8
"""How many bundles a worker converts per task (results still come back in folder order)."""


def _convert_chunk(
    paths: list[str],
    provider: str,
    strict: bool,
    strict_warnings: bool,
    syntax: _Syntax,
    unknown_settings: UnknownSettings,
) -> list[_Result]:
    """Worker: :func:`_convert` of each of *paths*, in order."""
    return [
        _convert(path, provider, strict, strict_warnings, syntax, unknown_settings)
        for path in paths
    ]


def _record(
    path: str,
    result: _Result,
    handle: IO[str],
    report: ExportReport,
    progress: Progress | None,
) -> None:
    line, reason, defects = result
    report.warnings.extend((path, defect) for defect in defects)
    if line is not None:
        handle.write(line + "\n")
        report.written += 1
    else:
        report.failures.append((path, reason or "unknown error"))
    if progress is not None:
        progress(report.written + len(report.failures), None, path)
