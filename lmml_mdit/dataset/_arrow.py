"""Bundles to Arrow record batches and back: :func:`to_arrow`, :func:`from_arrow`.

:func:`to_arrow` streams: it takes an iterable (of bundles, paths or URLs, or a folder to
walk) and yields record batches of at most *batch_rows* rows and about *batch_bytes* bytes
of assets, so memory is bounded by one batch however many bundles there are. With
*workers* the bundles behind paths are read in a process pool, at most ``2 * workers`` in
flight, the rows still in input order.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future
from typing import Literal, TypeAlias

import pyarrow as pa

from ..bundle import Bundle, Limits
from ..chat import usable_cores
from ..errors import BundleError
from ..syntax import DelimiterMode, ReferenceMode
from ..workers import process_pool
from ._rows import OpenOptions, Row, bundle_row, error_row, row_bundle, source_row
from ._schema import ASSET_MODES, AssetMode, checked_providers, conversation_schema
from ._storage import absolute, is_folder, walk

__all__ = [
    "ArrowInput",
    "BundleItem",
    "from_arrow",
    "iter_from_arrow",
    "iter_rows",
    "rows_to_batches",
    "to_arrow",
]

BundleItem = Bundle | str | os.PathLike[str]
"""One item :func:`to_arrow` reads: a bundle, or the path or fsspec URL of one."""
ArrowInput: TypeAlias = (
    "pa.Table | pa.RecordBatch | pa.RecordBatchReader | Iterable[pa.RecordBatch]"
)
"""What :func:`from_arrow` reads: a table, a batch, a reader or batches."""

DEFAULT_BATCH_ROWS = 256
DEFAULT_BATCH_BYTES = 64 * 1024 * 1024


def _items(
    bundles: Iterable[BundleItem] | str | os.PathLike[str],
) -> Iterator[tuple[BundleItem, str | None]]:
    """Each item with its path inside the dataset (None: derived from the item)."""
    if isinstance(bundles, (str, os.PathLike)):
        if is_folder(bundles):
            yield from walk(bundles)
            return
        yield bundles, None
        return
    for item in bundles:
        if isinstance(item, (str, os.PathLike)) and is_folder(item):
            yield from walk(item)
        else:
            yield item, None


def _default_path(source: str) -> str:
    return os.path.basename(source.rstrip("/")) or source


def _one_row(item: BundleItem, path: str | None, options: OpenOptions) -> Row:
    if isinstance(item, Bundle):
        return bundle_row(item, path=path, options=options)
    source = absolute(item)
    return source_row(source, path or _default_path(source), options)


def _converted(source: str, path: str, options: OpenOptions) -> Row:
    """Worker: the row of one bundle (an error row when it fails)."""
    return source_row(source, path, options)


def iter_rows(
    bundles: Iterable[BundleItem] | str | os.PathLike[str],
    options: OpenOptions,
    *,
    errors: Literal["row", "raise"] = "row",
    workers: int | None = None,
) -> Iterator[Row]:
    """The row of each bundle, in input order (see :func:`to_arrow` for the parameters)."""
    items = _items(bundles)
    count = min(workers, usable_cores()) if workers and workers > 1 else 1
    rows = _pooled(items, options, count) if count > 1 else _serial(items, options)
    for row in rows:
        if errors == "raise" and row["error"] is not None:
            raise BundleError(
                f"cannot read the bundle: {row['error']['message']}",
                name=row["path"],
                hint="fix it, or pass errors='row' to keep its error as a row",
            )
        yield row


def _serial(items: Iterator[tuple[BundleItem, str | None]], options: OpenOptions) -> Iterator[Row]:
    for item, path in items:
        try:
            yield _one_row(item, path, options)
        except Exception as error:  # a bundle object whose asset fails to read
            name = path or (item.file_name if isinstance(item, Bundle) else os.fspath(item))
            yield error_row(name, None, error, options)


def _pooled(
    items: Iterator[tuple[BundleItem, str | None]], options: OpenOptions, workers: int
) -> Iterator[Row]:
    """Rows read by *workers* processes, at most ``2 * workers`` bundles in flight (a
    bundle object, already open here, is read in this process in its turn)."""
    window = 2 * workers
    pending: deque[Future[Row] | Row] = deque()
    with process_pool(workers) as pool:
        for item, path in items:
            if isinstance(item, Bundle):
                pending.append(next(_serial(iter([(item, path)]), options)))
            else:
                source = absolute(item)
                pending.append(
                    pool.submit(_converted, source, path or _default_path(source), options)
                )
            while len(pending) >= window:
                yield _result(pending.popleft())
        while pending:
            yield _result(pending.popleft())


def _result(entry: Future[Row] | Row) -> Row:
    return entry.result() if isinstance(entry, Future) else entry


def _size(row: Row) -> int:
    size = len(row.get("narrative") or "")
    return size + sum(len(asset["data"] or b"") for asset in row["assets"])


def rows_to_batches(
    rows: Iterable[Row],
    schema: pa.Schema,
    *,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
) -> Iterator[pa.RecordBatch]:
    """*rows* as record batches of *schema*: at most *batch_rows* rows, and closed as soon
    as their narratives and asset bytes reach *batch_bytes* (a single larger row makes a
    batch of its own)."""
    if batch_rows < 1 or batch_bytes < 1:
        raise ValueError("batch_rows and batch_bytes must be positive")
    batch: list[Row] = []
    size = 0
    for row in rows:
        batch.append(row)
        size += _size(row)
        if len(batch) >= batch_rows or size >= batch_bytes:
            yield pa.RecordBatch.from_pylist(batch, schema=schema)
            batch, size = [], 0
    if batch:
        yield pa.RecordBatch.from_pylist(batch, schema=schema)


def to_arrow(
    bundles: Iterable[BundleItem] | str | os.PathLike[str],
    providers: Sequence[str] | None = None,
    *,
    assets: AssetMode = "embed",
    limits: Limits | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
    errors: Literal["row", "raise"] = "row",
    workers: int | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    strict: bool = True,
) -> pa.RecordBatchReader:
    """Bundles as a stream of record batches in the conversation schema
    (:func:`~lmml_mdit.dataset.conversation_schema`).

    Nothing is read until the reader is: ``to_arrow(...).read_all()`` makes a table,
    iterating the reader (or passing it to :func:`~lmml_mdit.dataset.write_parquet`)
    holds one batch at a time.

    :param bundles: bundles, paths or fsspec URLs of bundles, or folders to walk (a folder
        may also be given alone); each path opens as :func:`lmml_mdit.open` opens it, and
        its ``source`` is the absolute path.
    :param providers: export providers (``"openai"``, ``"anthropic"``, ...) whose request
        body to add as a JSON column ``request_<provider>`` each.
    :param assets: ``"embed"`` puts each asset's bytes in the row; ``"reference"`` records
        where it lives instead (``location``, and ``entry`` inside an archive) for bundles
        read from a path or URL.
    :param limits: the safety limits each bundle is opened with.
    :param base_dir: the folder bare ``.lmml`` files resolve against (default: their own).
    :param delimiters: as for :func:`lmml_mdit.open`.
    :param references: likewise.
    :param errors: ``"row"`` (default) makes a bundle that fails a row holding its
        ``error``; ``"raise"`` raises a :class:`~lmml_mdit.errors.BundleError` instead.
    :param workers: read paths in this many processes (default: this process only; never
        more than the CPUs this process may use).
    :param batch_rows: the most rows in one batch.
    :param batch_bytes: close a batch once its narratives and assets reach this many bytes.
    :param strict: build the request columns strictly (the default): a bundle with an
        error-level defect gets a null body, the defect in ``request_notes``; False builds
        it anyway, as ``to_request(strict=False)`` and ``--force`` do, the defect a warning
        note.
    :raises BundleError: for an unknown provider or asset mode (at once), or, with
        ``errors="raise"``, a bundle that fails (when the reader reaches it).
    """
    if assets not in ASSET_MODES:
        raise BundleError(f"unknown asset mode {assets!r}", hint="use 'embed' or 'reference'")
    if errors not in ("row", "raise"):
        raise ValueError("errors must be 'row' or 'raise'")
    chosen = checked_providers(providers)
    options = OpenOptions(
        limits=limits if limits is not None else Limits(),
        base_dir=None if base_dir is None else absolute(base_dir),
        delimiters=delimiters,
        references=references,
        assets=assets,
        providers=chosen,
        strict=strict,
    )
    schema = conversation_schema(chosen)
    rows = iter_rows(bundles, options, errors=errors, workers=workers)
    batches = rows_to_batches(rows, schema, batch_rows=batch_rows, batch_bytes=batch_bytes)
    return pa.RecordBatchReader.from_batches(schema, batches)


def _batches(data: ArrowInput) -> Iterator[pa.RecordBatch]:
    if isinstance(data, pa.Table):
        yield from data.to_batches()
    elif isinstance(data, pa.RecordBatch):
        yield data
    elif isinstance(data, pa.RecordBatchReader):
        yield from data
    else:
        yield from data


def iter_from_arrow(
    data: ArrowInput,
    *,
    limits: Limits | None = None,
    errors: Literal["raise", "skip"] = "raise",
) -> Iterator[Bundle]:
    """The bundles of conversation rows, one batch in memory at a time (see
    :func:`from_arrow`)."""
    if errors not in ("raise", "skip"):
        raise ValueError("errors must be 'raise' or 'skip'")
    for batch in _batches(data):
        for row in batch.to_pylist():
            if errors == "skip" and row.get("error") is not None:
                continue
            yield row_bundle(row, limits)


def from_arrow(
    data: ArrowInput,
    *,
    limits: Limits | None = None,
    errors: Literal["raise", "skip"] = "raise",
) -> list[Bundle]:
    """The bundles conversation rows hold, rebuilt in memory: the same kind, name,
    narrative and assets, byte for byte, so ``to_arrow`` of the result gives the same rows
    (a bundle read beside its folder keeps the files it references as assets).

    :param data: a table, record batch, reader or batches in the conversation schema
        (columns it does not use, such as ``request_openai``, may be there or not).
    :param limits: the limits each row is held to, as an archive is when opened.
    :param errors: ``"raise"`` (default) refuses a row holding an ``error``; ``"skip"``
        leaves such rows out.
    :raises BundleError: for a failed row (with ``errors="raise"``), an asset whose bytes
        do not match their digest, or a row of another shape; see
        :func:`~lmml_mdit.dataset.row_bundle`.
    """
    return list(iter_from_arrow(data, limits=limits, errors=errors))
