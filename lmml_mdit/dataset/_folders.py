"""Conversation rows written back as bundle files under a folder: :func:`write_rows`.

Each row's bundle goes to the folder at the row's ``path``: an archive as an archive, a
bare narrative with the files it references beside it, so exporting a folder and writing
its rows back gives the tree again. Paths are checked like archive entry names (relative,
no ``..``); two bundles may share a file beside them only when its bytes agree.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from ..bundle import Bundle, Limits, collision_key, is_url, local_path, unsafe_reason
from ..chat import Progress
from ..errors import BundleError, LmmlError
from ..formats import NARRATIVE_SUFFIX
from ..jsontypes import JSONMapping
from ._rows import row_bundle
from ._storage import join, open_output

__all__ = ["ImportReport", "PathClaims", "colliding_rows", "row_path", "write_rows"]


@dataclass
class ImportReport:
    """What :func:`write_rows` wrote.

    :ivar written: the bundle files written, in row order.
    :ivar failures: ``(path, reason)`` of each row that gave no bundle.
    """

    written: list[str] = field(default_factory=list)
    failures: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every row was written."""
        return not self.failures


def row_path(row: JSONMapping) -> str:
    """The path a row's bundle is written at, inside the folder."""
    return str(row.get("path") or str(row.get("name")) + NARRATIVE_SUFFIX)


def _case_blind(folder: str) -> bool:
    """Whether the local *folder* (or its nearest existing parent) tells names apart by
    case only as one name; False for a URL."""
    local = folder if not is_url(folder) else local_path(folder)
    if local is None:
        return False
    probe = os.path.abspath(local)
    while not os.path.isdir(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)
    try:
        with tempfile.NamedTemporaryFile(prefix="lmml-Case-", dir=probe) as marker:
            folder_name, base = os.path.split(marker.name)
            return os.path.exists(os.path.join(folder_name, base.swapcase()))
    except OSError:
        return False


class PathClaims:
    """The files written under one folder so far, by whom: each row's bundle path and,
    for a bare narrative, the files written beside it (with their ``sha256``). A row
    claims its files; one that would overwrite a file another row claimed is refused.
    Names are compared case-insensitively where *folder*'s file system is.

    Rows are told apart by a number the caller gives and shown by a label (``row 3``, or
    the row's path), so that claims can come in several calls (a write task's block at a
    time, as :func:`~lmml_mdit.ray.write_lmml` sends them).
    """

    def __init__(self, folder: str) -> None:
        self._key: Callable[[str], str] = collision_key if _case_blind(folder) else str
        self._bundles: dict[str, tuple[int, str, str]] = {}
        self._assets: dict[str, tuple[int, str, str, object]] = {}

    def claim(
        self, rows: Iterable[tuple[int, str, JSONMapping]]
    ) -> list[tuple[int, int, str, str]]:
        """Claim the files of each ``(number, label, row)``; each collision as ``(refused,
        other, reason, other_reason)``: the later row, the row it collides with, and why
        each one would overwrite the other (naming the other by its label).

        :param rows: each row's ``path``, ``name``, ``kind`` and its assets' ``name`` and
            ``sha256`` are read, nothing more.
        """
        found: list[tuple[int, int, str, str]] = []
        for number, label, row in rows:
            relative = row_path(row)
            if unsafe_reason(relative) is not None:
                continue  # refused when written, with its own reason
            at = self._key(relative)
            if at in self._bundles or at in self._assets:
                other, other_label, written = (
                    self._bundles[at] if at in self._bundles else self._assets[at][:3]
                )
                what = "path" if at in self._bundles else "file"
                found.append(
                    (
                        number,
                        other,
                        f"its path {relative!r} is also written by {other_label}",
                        f"its {what} {written!r} is also written by {label}",
                    )
                )
            else:
                self._bundles[at] = (number, label, relative)
            if row.get("kind") != "text":
                continue
            parent = relative.rsplit("/", 1)[0] + "/" if "/" in relative else ""
            for asset in row.get("assets") or ():
                if not isinstance(asset, Mapping):
                    continue
                name = parent + str(asset.get("name"))
                at = self._key(name)
                if at in self._bundles:
                    other, other_label, other_path = self._bundles[at]
                    if other != number:
                        found.append(
                            (
                                number,
                                other,
                                f"its file {name!r} is {other_label}'s bundle",
                                f"its path {other_path!r} is also written by {label}",
                            )
                        )
                elif at in self._assets and self._assets[at][3] != asset.get("sha256"):
                    other, other_label, other_name = self._assets[at][:3]
                    found.append(
                        (
                            number,
                            other,
                            f"its file {name!r} differs from {other_label}'s",
                            f"its file {other_name!r} differs from {label}'s",
                        )
                    )
                else:
                    self._assets.setdefault(at, (number, label, name, asset.get("sha256")))
        return found


def colliding_rows(rows: Iterable[JSONMapping], folder: str) -> dict[int, str]:
    """The rows (0-based, in order) whose files would overwrite one another's under
    *folder*, each with why: two bundles at one path, a bundle at a path another row's
    asset is written to, or two assets at one path with different bytes (by ``sha256``).
    Both rows of a collision are refused. Names are compared case-insensitively where
    *folder*'s file system is.

    :param rows: each row's ``path``, ``name``, ``kind`` and its assets' ``name`` and
        ``sha256`` (nothing more is read).
    """
    claims = PathClaims(folder)
    numbered = ((index, f"row {index + 1}", row) for index, row in enumerate(rows))
    refused: dict[int, str] = {}
    for later, other, reason, other_reason in claims.claim(numbered):
        refused.setdefault(other, other_reason)
        refused.setdefault(later, reason)
    return refused


def _beside(bundle: Bundle, relative: str) -> list[tuple[str, bytes]]:
    """For a text bundle holding assets, the files to write beside it (folder-relative)."""
    if bundle.kind != "text":
        return []
    parent = relative.rsplit("/", 1)[0] + "/" if "/" in relative else ""
    return [(parent + name, bundle.read(name)) for name in bundle.entries]


def _saved_bytes(bundle: Bundle) -> bytes:
    """The file :meth:`Bundle.save` writes, for a destination that is no local path."""
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, bundle.file_name)
        bundle.save(path)
        with open(path, "rb") as stream:
            return stream.read()


def _write_bundle(bundle: Bundle, out: str, files: list[tuple[str, bytes]], folder: str) -> None:
    local = out if not is_url(out) else local_path(out)
    if local is not None:
        os.makedirs(os.path.dirname(os.path.abspath(local)), exist_ok=True)
        bundle.save(local)
    else:
        with open_output(out) as stream:
            stream.write(_saved_bytes(bundle))
    for name, data in files:
        with open_output(join(folder, name)) as stream:
            stream.write(data)


def write_rows(
    rows: Iterable[JSONMapping],
    folder: str | os.PathLike[str],
    *,
    limits: Limits | None = None,
    progress: Progress | None = None,
    errors: Literal["report", "raise"] = "report",
    report: ImportReport | None = None,
    refused: Mapping[int, str] | None = None,
    allow_remote: bool = True,
) -> ImportReport:
    """Write the bundle of each row under *folder* (a path or URL) at the row's ``path``.

    :param limits: the limits each row is held to (see
        :func:`~lmml_mdit.dataset.row_bundle`).
    :param progress: called as ``progress(done, None, path)`` after each row.
    :param errors: ``"report"`` (default) lists a row that gives no bundle (a failed
        bundle's row, an unsafe path, a digest mismatch) in :attr:`ImportReport.failures`
        and goes on; ``"raise"`` raises its error.
    :param report: a report to add to (default: a new one).
    :param refused: rows (0-based) not to write, with why (:func:`colliding_rows`): each
        is a failure of the report.
    :param allow_remote: whether an asset's ``location`` may be a URL (else only a local
        regular file).
    :raises BundleError: with ``errors="raise"``, for the first row that gives no bundle.
    """
    target = os.fspath(folder)
    report = report if report is not None else ImportReport()
    beside: dict[str, bytes] = {}
    for index, row in enumerate(rows):
        relative = row_path(row)
        try:
            if refused and index in refused:
                raise BundleError(
                    f"the row is not written: {refused[index]}, which would overwrite it",
                    name=relative,
                    hint="give each row its own path; nothing of either row was written",
                )
            reason = unsafe_reason(relative)
            if reason is not None:
                raise BundleError(
                    f"the row's path is unsafe: {reason}",
                    name=relative,
                    hint="paths in the rows must be relative, without '..'",
                )
            bundle = row_bundle(row, limits, allow_remote=allow_remote)
            files = _beside(bundle, relative)
            for name, data in files:
                if beside.get(name, data) != data:
                    raise BundleError(
                        f"two bundles of this folder hold different files named {name!r}",
                        name=relative,
                        hint="write them into separate folders",
                    )
            _write_bundle(bundle, join(target, relative), files, target)
            beside.update(files)
        except LmmlError as error:
            if errors == "raise":
                raise
            report.failures.append((relative, error.format(cli=True)))
        except (TypeError, ValueError, KeyError, AttributeError, OSError, RecursionError) as error:
            # A row of the wrong shape, or a path the file system refuses (too deep, too long).
            failure = BundleError(
                f"the row cannot be written: {error}",
                name=relative,
                hint="check the row's columns against the conversation schema",
            )
            if errors == "raise":
                raise failure from None
            report.failures.append((relative, failure.format(cli=True)))
        else:
            report.written.append(join(target, relative))
        if progress is not None:
            progress(len(report.written) + len(report.failures), None, relative)
    return report
