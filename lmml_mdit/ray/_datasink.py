"""``write_lmml``: a Ray dataset of conversation rows written back as bundle files.

Each write task writes its blocks' bundles under the folder (a path every node shares, or
an fsspec URL) at each row's ``path``, as :func:`~lmml_mdit.dataset.write_rows`
does; a row that gives no bundle is reported, not fatal. The driver gathers the reports.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

import pyarrow as pa
from ray.data import Datasink
from ray.data.block import BlockAccessor

from ..bundle import Limits
from ..dataset import ImportReport, absolute, write_rows

if TYPE_CHECKING:
    import ray.data

__all__ = ["LmmlDatasink", "write_lmml"]


class LmmlDatasink(Datasink[ImportReport]):
    """A Ray Datasink writing each row's bundle under a folder (see :func:`write_lmml`).

    :ivar report: once the write completes, every task's report merged, in task order.
    """

    def __init__(self, folder: str | os.PathLike[str], limits: Limits | None = None) -> None:
        self._folder = absolute(folder)
        self._limits = limits
        self.report = ImportReport()

    def get_name(self) -> str:
        """The name Ray shows for the write."""
        return "LMML"

    def write(self, blocks: Iterable[pa.Table], ctx: object) -> ImportReport:
        """A write task's work: the bundles of *blocks*, written."""
        report = ImportReport()
        for block in blocks:
            table = BlockAccessor.for_block(block).to_arrow()
            write_rows(table.to_pylist(), self._folder, limits=self._limits, report=report)
        return report

    def on_write_complete(self, write_result: object) -> None:
        """Gather the write tasks' reports into :attr:`report`."""
        for report in getattr(write_result, "write_returns", []):
            self.report.written.extend(report.written)
            self.report.failures.extend(report.failures)


def write_lmml(
    dataset: ray.data.Dataset,
    path: str | os.PathLike[str],
    *,
    limits: Limits | None = None,
    concurrency: int | None = None,
) -> ImportReport:
    """Write the bundles of a dataset of conversation rows (from
    :func:`~lmml_mdit.ray.read_lmml`, or any with the schema's columns) under
    the folder *path*, each at its row's ``path``.

    :param path: a folder every node can write (a shared file system), or an fsspec URL.
    :param limits: the limits each row is held to.
    :param concurrency: the most write tasks run at once.
    :returns: the bundles written and the rows that gave none (a failed bundle's row, an
        unsafe path, an asset whose digest does not match).
    """
    sink = LmmlDatasink(path, limits)
    dataset.write_datasink(sink, concurrency=concurrency)
    return sink.report
