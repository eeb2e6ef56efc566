"""Conversation rows in Parquet files: :func:`write_parquet`, :func:`read_parquet`,
:func:`import_parquet`.

A Parquet file is written batch by batch as :func:`~lmml_mdit.dataset.arrow.to_arrow`
streams them, so a folder of any size is written in bounded memory; it is read back the
same way (:func:`iter_parquet`), a row group at a time. Both take local paths and fsspec
URLs.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

import pyarrow as pa
import pyarrow.parquet as pq

from ..bundle.archive import Limits
from ..chat.importer import Progress
from ..errors import BundleError, WriteError
from .arrow import BundleItem, to_arrow
from .folders import ImportReport, write_rows
from .schema import SCHEMA_VERSION_KEY
from .storage import open_input, open_output

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
    **options: object,
) -> ParquetReport:
    """Write bundles to the Parquet file *out* (a path, replaced atomically, or a URL).

    :param bundles: what :func:`~lmml_mdit.dataset.arrow.to_arrow` takes, or a reader it
        made.
    :param providers: request columns to add, as for ``to_arrow``.
    :param compression: the Parquet codec.
    :param progress: called as ``progress(done, None, path)`` after each row.
    :param options: the other keyword arguments of ``to_arrow`` (``assets``, ``limits``,
        ``workers``, ``batch_rows``, ...).
    :raises BundleError: as ``to_arrow`` raises.
    :raises WriteError: when *out* cannot be written (a local file is then unchanged).
    """
    if isinstance(bundles, pa.RecordBatchReader):
        reader = bundles
    else:
        reader = to_arrow(
            bundles,
            None if providers is None else list(providers),
            **options,  # type: ignore[arg-type]
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
) -> ImportReport:
    """Write each bundle of a Parquet file of conversation rows under *folder* (a path or
    URL), at its ``path``: archives as archives, bare narratives with the files they
    reference beside them, so ``lmml export DIR --parquet X`` then ``lmml import X -o DIR2``
    gives back the tree.

    :param errors: ``"report"`` (default) lists a failed row in
        :attr:`ImportReport.failures` and goes on; ``"raise"`` raises.
    :raises BundleError: for a file that is no Parquet file of conversation rows, an
        unsafe ``path`` (absolute, ``..``), or, with ``errors="raise"``, a failed row.
    """
    rows = (row for batch in iter_parquet(path) for row in batch.to_pylist())
    return write_rows(rows, folder, limits=limits, progress=progress, errors=errors)
