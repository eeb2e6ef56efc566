"""``write_lmml``: a Ray dataset of conversation rows written back as bundle files.

Each write task writes its blocks' bundles under the folder (a path every node shares, or
an fsspec URL) at each row's ``path``, as :func:`~lmml_mdit.dataset.write_rows`
does; a row that gives no bundle is reported, not fatal. Before a block is written, its
rows claim their files from one actor that holds every claim of the write, so a row that
would overwrite another row's file is refused instead. The driver gathers the reports.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import ray
from ray.data import Datasink
from ray.data.block import BlockAccessor

from ..bundle import Limits
from ..dataset import ImportReport, PathClaims, absolute, write_rows
from ..jsontypes import JSONMapping

if TYPE_CHECKING:
    import ray.data

__all__ = ["LmmlDatasink", "write_lmml"]


_CLAIMED_COLUMNS = ("path", "name", "kind", "source", "assets")
"""The columns a row's claim reads (of ``assets``, only each asset's name and digest)."""


class _Claims:
    """The files every write task of one write has claimed (a Ray actor): the first row
    to claim a file writes it, a later one is refused."""

    def __init__(self, folder: str) -> None:
        self._claims = PathClaims(folder)
        self._count = 0

    def claim(self, rows: list[dict[str, Any]]) -> dict[int, str]:
        """Claim the files of *rows* (a block's, in order); the refused ones, by index,
        with why."""
        first = self._count
        self._count += len(rows)
        numbered = ((first + index, _label(row), row) for index, row in enumerate(rows))
        return {later - first: reason for later, _, reason, _ in self._claims.claim(numbered)}


def _label(row: JSONMapping) -> str:
    """How a refused row's message names this row: by where it was read from."""
    source = row.get("source")
    return f"the row read from {source}" if source else f"another row at {row.get('path')!r}"


def _claimed(table: pa.Table) -> list[dict[str, Any]]:
    """The columns of *table* that a claim reads, as rows: no narrative, and of the
    assets only their names and digests (their bytes stay in Arrow)."""
    names = [name for name in _CLAIMED_COLUMNS if name in table.column_names]
    rows: list[dict[str, Any]] = table.select([n for n in names if n != "assets"]).to_pylist()
    if "assets" in names:
        # The stubs type a column by its Arrow type, known here only at run time.
        assets: Any = table.column("assets").combine_chunks()
        flat: Any = pc.list_flatten(assets)
        parents: list[int] = pc.list_parent_indices(assets).to_pylist()
        digests = flat.field("sha256").to_pylist()
        named = zip(parents, flat.field("name").to_pylist(), digests, strict=True)
        for row in rows:
            row["assets"] = []
        for parent, name, digest in named:
            rows[parent]["assets"].append({"name": name, "sha256": digest})
    return rows


class LmmlDatasink(Datasink[ImportReport]):
    """A Ray Datasink writing each row's bundle under a folder (see :func:`write_lmml`).

    :ivar report: once the write completes, every task's report merged, in task order.
    """

    def __init__(self, folder: str | os.PathLike[str], limits: Limits | None = None) -> None:
        self._folder = absolute(folder)
        self._limits = limits
        # An actor handle: Ray types its methods only at run time.
        self._claims: Any = ray.remote(_Claims).options(num_cpus=0).remote(self._folder)
        self.report = ImportReport()

    def get_name(self) -> str:
        """The name Ray shows for the write."""
        return "LMML"

    def write(self, blocks: Iterable[pa.Table], ctx: object) -> ImportReport:
        """A write task's work: the bundles of *blocks*, written."""
        report = ImportReport()
        for block in blocks:
            table = BlockAccessor.for_block(block).to_arrow()
            refused: dict[int, str] = ray.get(self._claims.claim.remote(_claimed(table)))
            write_rows(
                table.to_pylist(),
                self._folder,
                limits=self._limits,
                report=report,
                refused=refused,
            )
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
        unsafe path, an asset whose digest does not match, a row whose file another row
        wrote first).
    """
    sink = LmmlDatasink(path, limits)
    dataset.write_datasink(sink, concurrency=concurrency)
    return sink.report
