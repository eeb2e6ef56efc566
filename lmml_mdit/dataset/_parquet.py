"""Conversation rows in Parquet files: :func:`write_parquet`, :func:`read_parquet`,
:func:`import_parquet`.

A Parquet file is written batch by batch as :func:`~lmml_mdit.dataset.to_arrow`
streams them, so a folder of any size is written in bounded memory; it is read back the
same way (:func:`iter_parquet`), a row group at a time. Both take local paths and fsspec
URLs.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

import pyarrow as pa
import pyarrow.parquet as pq

from ..bundle import Limits
from ..chat import Progress
from ..errors import BundleError, WriteError
from ..syntax import DelimiterMode, ReferenceMode
from ._arrow import DEFAULT_BATCH_BYTES, DEFAULT_BATCH_ROWS, BundleItem, to_arrow
from ._folders import ImportReport, colliding_rows, write_rows
from ._schema import SCHEMA_VERSION_KEY, AssetMode
from ._storage import open_input, open_output

Compression: TypeAlias = Literal["zstd", "snappy", "gzip", "brotli", "lz4", "none"]
"""A Parquet codec."""

__all__ = [
    "ImportReport",
    "ParquetReport",
    "import_parquet",
    "iter_parquet",
    "read_parquet",
    "write_parquet",
]


@dataclass
class ParquetReport:
    """What :func:`write_parquet` wrote.

    :ivar output: the file written.
    :ivar rows: rows written (failed bundles included, each a row with its error).
    :ivar failures: ``(path, error)`` of each bundle that failed, in order.
    """

    output: str
    rows: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every bundle was read."""
        return not self.failures


def write_parquet(
    bundles: Iterable[BundleItem] | str | os.PathLike[str] | pa.RecordBatchReader,
    out: str | os.PathLike[str],
    providers: Iterable[str] | None = None,
    *,
    compression: Compression = "zstd",
    progress: Progress | None = None,
    assets: AssetMode = "embed",
    limits: Limits | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
    errors: Literal["row", "raise"] = "row",
    workers: int | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
) -> ParquetReport:
    """Write bundles to the Parquet file *out* (a path, replaced atomically, or a URL).

    :param bundles: what :func:`~lmml_mdit.dataset.to_arrow` takes, or a reader it
        made.
    :param providers: request columns to add, as for ``to_arrow``.
    :param compression: the Parquet codec.
    :param progress: called as ``progress(done, None, path)`` after each row.
    :param assets: and the options after it: as for ``to_arrow`` (not used for a reader
        it made).
    :raises BundleError: as ``to_arrow`` raises.
    :raises WriteError: when *out* cannot be written (a local file is then unchanged).
    """
    if isinstance(bundles, pa.RecordBatchReader):
        reader = bundles
    else:
        reader = to_arrow(
            bundles,
            None if providers is None else list(providers),
            assets=assets,
            limits=limits,
            base_dir=base_dir,
            delimiters=delimiters,
            references=references,
            errors=errors,
            workers=workers,
            batch_rows=batch_rows,
            batch_bytes=batch_bytes,
        )
    report = ParquetReport(output=os.fspath(out))
    with open_output(out) as stream:
        try:
            writer = pq.ParquetWriter(stream, reader.schema, compression=compression)
        except (pa.ArrowException, OSError) as error:
            raise WriteError(f"cannot write Parquet: {error}", name=report.output) from None
        try:
            for batch in reader:
                writer.write_batch(batch)
                for path, failure in zip(
                    batch.column("path").to_pylist(),
                    batch.column("error").to_pylist(),
                    strict=True,
                ):
                    report.rows += 1
                    if failure is not None:
                        report.failures.append((str(path), str(failure["message"])))
                    if progress is not None:
                        progress(report.rows, None, str(path))
        finally:
            writer.close()
    return report


@contextlib.contextmanager
def _parquet_file(path: str | os.PathLike[str]) -> Iterator[pq.ParquetFile]:
    """The Parquet file at *path*, its schema checked; the file is closed on leaving."""
    text = os.fspath(path)
    stream = open_input(text)
    try:
        try:
            parquet = pq.ParquetFile(stream)  # type: ignore[arg-type,unused-ignore]
        except (pa.ArrowException, OSError) as error:
            raise BundleError(
                f"this is not a Parquet file of conversation rows ({error})",
                name=text,
                hint="give a file written by lmml export --parquet",
            ) from None
        _check_schema(text, parquet.schema_arrow)
        yield parquet
    finally:
        stream.close()


def _check_schema(path: str, schema: pa.Schema) -> None:
    metadata = schema.metadata or {}
    if SCHEMA_VERSION_KEY not in metadata or "narrative" not in schema.names:
        raise BundleError(
            "this Parquet file holds no conversation rows (no lmml.schema_version)",
            name=path,
            hint="give a file written by lmml export --parquet or write_parquet()",
        )


def iter_parquet(
    path: str | os.PathLike[str], *, batch_rows: int = 256
) -> Iterator[pa.RecordBatch]:
    """The record batches of the Parquet file at *path* (a path or URL), read lazily.

    :raises BundleError: when it is no Parquet file of conversation rows.
    """
    with _parquet_file(path) as parquet:
        yield from parquet.iter_batches(batch_size=batch_rows)


def read_parquet(path: str | os.PathLike[str]) -> pa.Table:
    """The conversation rows of the Parquet file at *path* (a path or URL), as a table.

    :raises BundleError: when it is no Parquet file of conversation rows.
    """
    with _parquet_file(path) as parquet:
        table: pa.Table = parquet.read()
        return table


def import_parquet(
    path: str | os.PathLike[str],
    folder: str | os.PathLike[str],
    *,
    limits: Limits | None = None,
    progress: Progress | None = None,
    errors: Literal["report", "raise"] = "report",
    allow_remote: bool = False,
) -> ImportReport:
    """Write each bundle of a Parquet file of conversation rows under *folder* (a path or
    URL), at its ``path``: archives as archives, bare narratives with the files they
    reference beside them, so ``lmml export DIR --parquet X`` then ``lmml import X -o DIR2``
    gives back the tree.

    Before anything is written, every path the rows would write is checked against every
    other (case-insensitively where the folder's file system is): colliding rows are
    failures, and nothing overwrites anything. Row groups are read one at a time, each
    only after the sizes its metadata declares pass *limits* (``max_ratio`` per column,
    the rows' sizes in total), and a row whose narrative or assets are over the limits is
    a failure before its values are decoded.

    :param errors: ``"report"`` (default) lists a failed row in
        :attr:`ImportReport.failures` and goes on; ``"raise"`` raises.
    :param allow_remote: whether an asset stored by reference may be fetched from a URL
        (its ``location``); by default only a local regular file is read.
    :raises BundleError: for a file that is no Parquet file of conversation rows, an
        unsafe ``path`` (absolute, ``..``), or, with ``errors="raise"``, a failed row.
    """
    limits = limits if limits is not None else Limits()
    text = os.fspath(path)
    with _parquet_file(path) as parquet:
        refused = colliding_rows(_path_rows(parquet), os.fspath(folder))
    report = ImportReport()
    with _parquet_file(path) as parquet:
        rows = _guarded_rows(parquet, text, limits, report)
        return write_rows(
            rows,
            folder,
            limits=limits,
            progress=progress,
            errors=errors,
            report=report,
            refused=refused,
            allow_remote=allow_remote,
        )


_PATH_COLUMNS = ("path", "name", "kind", "assets.list.element.name", "assets.list.element.sha256")
"""The columns that say where a row's files are written (all :func:`colliding_rows`
reads)."""


def _path_rows(parquet: pq.ParquetFile) -> Iterator[dict[str, object]]:
    """Each row's path columns, a row group at a time (no narrative or asset bytes read)."""
    names = set(parquet.schema_arrow.names)
    columns = [column for column in _PATH_COLUMNS if column.split(".", 1)[0] in names]
    for batch in parquet.iter_batches(columns=columns):
        yield from batch.to_pylist()


def _declared_problem(parquet: pq.ParquetFile, group: int, limits: Limits) -> str | None:
    """Why row group *group* must not be read, from the sizes its metadata declares: a
    column chunk that decompresses more than ``max_ratio`` times its stored size (past
    ``ratio_floor``), or a row group larger than its rows may hold."""
    meta = parquet.metadata.row_group(group)
    total = 0
    for index in range(meta.num_columns):
        column = meta.column(index)
        size, stored = column.total_uncompressed_size, max(column.total_compressed_size, 1)
        total += size
        if size > limits.ratio_floor and size > stored * limits.max_ratio:
            return (
                f"the column {column.path_in_schema} declares {size} bytes stored in "
                f"{stored}, more than max_ratio ({limits.max_ratio}) times"
            )
    ceiling = meta.num_rows * (limits.max_total_size + 4 * limits.max_narrative_bytes)
    if total > ceiling:
        return f"it declares {total} bytes, more than its {meta.num_rows} rows may hold"
    return None


def _guarded_rows(
    parquet: pq.ParquetFile, path: str, limits: Limits, report: ImportReport
) -> Iterator[dict[str, object]]:
    """The rows, one row group in memory at a time; a row group whose declared sizes are
    refused, and a row whose narrative or asset bytes are over the limits (their lengths
    read from Arrow before the values become Python objects), are failures of *report*."""
    for group in range(parquet.metadata.num_row_groups):
        problem = _declared_problem(parquet, group, limits)
        if problem is not None:
            report.failures.append(
                (
                    f"{path}#row-group-{group + 1}",
                    f"the row group is not read: {problem} (pass limits=Limits(...) if you "
                    "trust the file)",
                )
            )
            continue
        table = parquet.read_row_group(group)
        for batch in table.to_batches(max_chunksize=64):
            over = _oversized(batch, limits)
            for index in range(batch.num_rows):
                if index in over:
                    report.failures.append((over[index][0], over[index][1]))
                    continue
                yield batch.slice(index, 1).to_pylist()[0]
        del table


def _oversized(batch: pa.RecordBatch, limits: Limits) -> dict[int, tuple[str, str]]:
    """The rows of *batch* whose narrative or one asset's bytes are over the limits, by
    index, with their path and why; read from Arrow's lengths, nothing decoded."""
    import pyarrow.compute as pc

    names = batch.schema.names
    paths = batch.column("path").to_pylist() if "path" in names else [None] * batch.num_rows
    over: dict[int, tuple[str, str]] = {}

    def note(index: int, reason: str) -> None:
        over.setdefault(index, (str(paths[index]), reason))

    # The stubs type a column by its Arrow type, known here only at run time.
    column: Any = batch.column("narrative")
    if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
        cap = min(limits.max_entry_size, limits.max_narrative_bytes)
        for index, length in enumerate(pc.binary_length(column).to_pylist()):
            if length is not None and length > cap:
                note(index, f"its narrative is over max_narrative_bytes ({cap} bytes)")
    if "assets" in names:
        assets = batch.column("assets")
        if pa.types.is_list(assets.type) and pa.types.is_struct(assets.type.value_type):
            fields = [field.name for field in assets.type.value_type]
            if "data" in fields:
                flat: Any = pc.list_flatten(assets)
                parents: list[int | None] = pc.list_parent_indices(assets).to_pylist()
                lengths: list[int | None] = pc.binary_length(flat.field("data")).to_pylist()
                totals: dict[int, int] = {}
                for parent, length in zip(parents, lengths, strict=True):
                    if parent is None or length is None:
                        continue
                    totals[parent] = totals.get(parent, 0) + length
                    if length > limits.max_entry_size:
                        note(parent, f"an asset is over max_entry_size ({limits.max_entry_size})")
                    elif totals[parent] > limits.max_total_size:
                        note(
                            parent, f"its assets are over max_total_size ({limits.max_total_size})"
                        )
    return over
