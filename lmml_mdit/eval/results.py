"""The results file: one JSON line per case and target, appended as each is done.

Each row goes out in one ``write`` and is flushed to disk before the next, so a run killed
at any moment leaves whole rows and at most one cut last line. :func:`done_rows` reads a
file back for a resumed run: the (case, target) pairs already written, the cut line
dropped.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import TracebackType

from ..errors import LmmlError
from ..jsontypes import JSONMapping

__all__ = ["ResultsWriter", "done_rows"]


def done_rows(path: str | os.PathLike[str]) -> set[tuple[int, str]]:
    """The (case, target) pairs of *path*'s whole rows; a cut last line is cut off the
    file, so appending goes on after the last whole row. A missing file has none."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return set()
    whole = data.rfind(b"\n") + 1
    if whole < len(data):
        with open(path, "r+b") as stream:
            stream.truncate(whole)
    done: set[tuple[int, str]] = set()
    for number, line in enumerate(data[:whole].splitlines(), 1):
        try:
            row = json.loads(line)
            done.add((int(row["case"]), str(row["target"])))
        except (ValueError, TypeError, KeyError):
            raise LmmlError(
                "not a results row of lmml eval",
                name=os.fspath(path),
                line=number,
                hint="name a new file, or the results file of the run to resume",
            ) from None
    return done


class ResultsWriter:
    """Appends rows to a JSONL file, each in one ``write`` as it comes (a killed process
    loses no written row: the kernel holds it), synced to disk once at the end."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)

    def write(self, row: JSONMapping) -> None:
        """Append *row* as one line."""
        line = json.dumps(row, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"
        view = memoryview(line)
        while view:
            view = view[os.write(self._descriptor, view) :]

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
