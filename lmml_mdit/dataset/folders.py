"""Conversation rows written back as bundle files under a folder: :func:`write_rows`.

Each row's bundle goes to the folder at the row's ``path``: an archive as an archive, a
bare narrative with the files it references beside it, so exporting a folder and writing
its rows back gives the tree again. Paths are checked like archive entry names (relative,
no ``..``); two bundles may share a file beside them only when its bytes agree.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..bundle.archive import Limits, unsafe_reason
from ..bundle.bundle import Bundle
from ..bundle.urls import is_url, local_path
from ..chat.importer import Progress
from ..errors import BundleError, LmmlError
from ..formats import NARRATIVE_SUFFIX
from .rows import row_bundle
from .storage import join, open_output

__all__ = ["ImportReport", "write_rows"]


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
    rows: Iterable[Mapping[str, Any]],
    folder: str | os.PathLike[str],
    *,
    limits: Limits | None = None,
    progress: Progress | None = None,
    errors: Literal["report", "raise"] = "report",
    report: ImportReport | None = None,
) -> ImportReport:
    """Write the bundle of each row under *folder* (a path or URL) at the row's ``path``.

    :param limits: the limits each row is held to (see
        :func:`~lmml_mdit.dataset.rows.row_bundle`).
    :param progress: called as ``progress(done, None, path)`` after each row.
    :param errors: ``"report"`` (default) lists a row that gives no bundle (a failed
        bundle's row, an unsafe path, a digest mismatch) in :attr:`ImportReport.failures`
        and goes on; ``"raise"`` raises its error.
    :param report: a report to add to (default: a new one).
    :raises BundleError: with ``errors="raise"``, for the first row that gives no bundle.
    """
    target = os.fspath(folder)
    report = report if report is not None else ImportReport()
    beside: dict[str, bytes] = {}
    for row in rows:
        relative = str(row.get("path") or str(row.get("name")) + NARRATIVE_SUFFIX)
        try:
            reason = unsafe_reason(relative)
            if reason is not None:
                raise BundleError(
                    f"the row's path is unsafe: {reason}",
                    name=relative,
                    hint="paths in the rows must be relative, without '..'",
                )
            bundle = row_bundle(row, limits)
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
        else:
            report.written.append(join(target, relative))
        if progress is not None:
            progress(len(report.written) + len(report.failures), None, relative)
    return report
