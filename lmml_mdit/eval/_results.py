"""The results file: one JSON line per case and target, appended as each is done.

Each row goes out in one ``write``, so a killed run leaves whole rows; :func:`done_rows`
reads a file back for a resumed run. Parquet results are journalled as JSON lines beside
the file (:func:`journal_path`) and written whole at the end of each run
(:func:`write_parquet_results`). See docs/eval.md, "Parquet results".
"""

from __future__ import annotations

import json
import os
import time
from types import TracebackType
from typing import TYPE_CHECKING, BinaryIO

from ..atomic import atomic_write, check_destination
from ..errors import LmmlError
from ..formats import PARQUET_SUFFIX
from ..jsonio import escaped_surrogates, unicode_json
from ..jsontypes import JSONMapping

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["ResultsWriter", "done_rows", "journal_path", "write_parquet_results"]

_JSON_COLUMNS = ("inputs", "request", "calls")
"""Columns whose values vary in shape from row to row: JSON text in a Parquet file."""

_BATCH_ROWS = 256
"""Journal rows converted to Parquet at a time."""


def journal_path(out: str | os.PathLike[str]) -> str:
    """Where the rows of *out* are appended: *out* itself, or for a ``.parquet`` file its
    journal ``OUT.journal.jsonl`` beside it."""
    text = os.fspath(out)
    return text + ".journal.jsonl" if text.lower().endswith(PARQUET_SUFFIX) else text


def _schema() -> pa.Schema:
    import pyarrow as pa

    verdict = pa.struct([("kind", pa.string()), ("passed", pa.bool_()), ("reason", pa.string())])
    return pa.schema(
        [  # type: ignore[arg-type,unused-ignore]
            pa.field("case", pa.int64()),
            pa.field("bundle", pa.string()),
            pa.field("target", pa.string()),
            pa.field("inputs", pa.string()),
            pa.field("request", pa.string()),
            pa.field("answer", pa.string()),
            pa.field("calls", pa.string()),
            pa.field("assertions", pa.list_(verdict)),
            pa.field("passed", pa.bool_()),
            pa.field("input_tokens", pa.int64()),
            pa.field("output_tokens", pa.int64()),
            pa.field("latency", pa.float64()),
            pa.field("cached", pa.bool_()),
        ]
    )


def write_parquet_results(journal: str | os.PathLike[str], out: str | os.PathLike[str]) -> int:
    """Write every row of *journal* to the Parquet file *out*, atomically, a batch of rows
    at a time; ``inputs``, ``request`` and ``calls`` as JSON text. Returns the rows.

    :raises LmmlError: without pyarrow (the ``datasets`` extra).
    """
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise LmmlError(
            "writing Parquet results needs pyarrow",
            name=os.fspath(out),
            hint="install it: pip install 'lmml-mdit[datasets]', or name a .jsonl file",
        ) from None
    schema = _schema()
    names = schema.names
    count = 0
    with atomic_write(out) as stream, pq.ParquetWriter(stream, schema) as writer:
        batch: list[dict[str, object]] = []
        with open(journal, encoding="utf-8") as rows:
            for line in rows:
                if not line.strip():
                    continue
                row = json.loads(line)
                for key in _JSON_COLUMNS:
                    row[key] = unicode_json(row.get(key))
                # Parquet's strings are UTF-8: a lone surrogate there is written as its escape
                batch.append(escaped_surrogates({name: row.get(name) for name in names}))
                if len(batch) == _BATCH_ROWS:
                    writer.write_batch(pa.RecordBatch.from_pylist(batch, schema=schema))
                    count, batch = count + len(batch), []
        if batch or not count:
            writer.write_batch(pa.RecordBatch.from_pylist(batch, schema=schema))
            count += len(batch)
    return count


def done_rows(path: str | os.PathLike[str]) -> dict[tuple[int, str], bool]:
    """The (case, target) pairs of *path*'s whole rows, each with whether the row passed; a
    cut last line is cut off the file, so appending goes on after the last whole row. A
    missing file has none.

    :raises WriteError: when *path* (or the file a link there leads to) is not a regular
        file: a FIFO, a device, a folder or a socket is refused before it is opened.
    """
    check_destination(path)
    try:
        with open(path, "r+b") as stream:
            return _done_in(stream, os.fspath(path))
    except FileNotFoundError:
        return {}


def _done_in(stream: BinaryIO, path: str) -> dict[tuple[int, str], bool]:
    """:func:`done_rows` of the open *stream*, read a line at a time: only each row's key
    and verdict are kept, whatever the rows hold."""
    done: dict[tuple[int, str], bool] = {}
    whole = 0
    for number, line in enumerate(stream, 1):
        if not line.endswith(b"\n"):
            stream.truncate(whole)  # a line cut by a kill
            break
        whole += len(line)
        try:
            row = json.loads(line)
            done[(int(row["case"]), str(row["target"]))] = row.get("passed") is True
        except (ValueError, TypeError, KeyError):
            raise LmmlError(
                "not a results row of lmml eval",
                name=path,
                line=number,
                hint="name a new file, or the results file of the run to resume",
            ) from None
    return done


SYNC_SECONDS = 1.0
"""The longest a written row waits to be synced to disk (a power loss loses at most the
rows of that last second; a killed process loses none)."""


class ResultsWriter:
    """Appends rows to a JSONL file, each in one ``write`` as it comes (a killed process
    loses no written row: the kernel holds it), synced to disk at most
    :data:`SYNC_SECONDS` after a row and at the end."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        self._synced = time.monotonic()

    def write(self, row: JSONMapping) -> None:
        """Append *row* as one line (and sync, when the last sync is a second old)."""
        line = (unicode_json(row) + "\n").encode("utf-8")
        written = os.write(self._descriptor, line)
        if written < len(line):  # a short write: the rest, as often as it takes
            view = memoryview(line)[written:]
            while view:
                view = view[os.write(self._descriptor, view) :]
        now = time.monotonic()
        if now - self._synced >= SYNC_SECONDS:
            os.fsync(self._descriptor)
            self._synced = now

    def close(self) -> None:
        """Sync and close the file."""
        try:
            os.fsync(self._descriptor)
        finally:
            os.close(self._descriptor)

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
