"""The cases of an evaluation, streamed from a JSONL, CSV or Parquet file or a Hugging Face
dataset (``hf:NAME`` or ``hf:FOLDER``), each with its number: the line of a JSONL or CSV
file, the 1-based row of a Parquet file or dataset. With no cases, each bundle of a folder
(or of a Parquet file of conversation rows) is one case: :func:`iter_bundle_cases`.

Only a few rows are held at a time: a CSV file is read row by row, a Parquet file by small
row batches, a dataset row by row (a Hub dataset streamed). In a CSV or Parquet file the
``expect`` column holds the ``expect`` list as JSON or YAML text (an empty cell: none).
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterator, Mapping

import yaml

from ..bundle.bundle import Bundle
from ..chat.export import iter_bundles
from ..chat.opening import open as open_bundle
from ..errors import ExpectError, InputError, LmmlError
from ..jsontypes import JSONObject
from ..templates import InputDeclarations

__all__ = ["HF_PREFIX", "iter_bundle_cases", "iter_cases"]

HF_PREFIX = "hf:"
"""What starts ``--cases`` naming a Hugging Face dataset (a Hub name or a saved folder)."""

_BATCH_ROWS = 64
"""Parquet rows read at a time."""

CaseRow = tuple[int, JSONObject | str]
"""A case's number and its values, or why it has none."""


def iter_cases(
    cases: str | os.PathLike[str], inputs: InputDeclarations | None = None
) -> Iterator[CaseRow]:
    """Each case of *cases* with its number, or why that case could not be read.

    A CSV cell of a column that names one of *inputs* is read as that input's type
    (:meth:`~lmml_mdit.templates.InputSpec.from_text`: ``3`` an integer, ``true`` a
    boolean, JSON an object); an empty cell of an input that is not a ``string`` is not
    given. Other cells, and every cell without *inputs*, stay text.

    :raises InputError: when *cases* cannot be read at all (no such file, not Parquet, a
        CSV quoting error), naming the file and line.
    :raises ExpectError: an ``expect`` cell that is neither JSON nor YAML.
    """
    text = os.fspath(cases)
    if text.startswith(HF_PREFIX):
        return _values(text, _hf(text[len(HF_PREFIX) :]))
    if not os.path.isfile(text):
        raise InputError("no such cases file", name=text, hint="give a JSONL, CSV or Parquet file")
    suffix = os.path.splitext(text)[1].lower()
    if suffix == ".csv":
        return _values(text, _csv(text), cells=True, typed=inputs)
    if suffix == ".parquet":
        return _values(text, _parquet(text), cells=True)
    return _jsonl(text)


def _jsonl(path: str) -> Iterator[CaseRow]:
    with open(path, "rb") as stream:
        for number, line in enumerate(stream, 1):
            try:
                value = json.loads(line)
            except ValueError as error:
                yield number, f"not JSON: {error}"
                continue
            yield number, value if isinstance(value, dict) else "not a JSON object of inputs"


def _csv(path: str) -> Iterator[tuple[int, Mapping[str, object] | str]]:
    with open(path, encoding="utf-8-sig", newline="") as stream:
        reader = csv.DictReader(stream, restkey="\0")
        try:
            for row in reader:
                if "\0" in row:
                    yield reader.line_num, "more cells than the header names"
                    continue
                yield reader.line_num, {key: value for key, value in row.items() if key}
        except (csv.Error, UnicodeDecodeError) as error:
            raise InputError(
                f"cannot read this CSV file: {error}",
                name=path,
                line=reader.line_num + 1,
                hint="write one header line, then one case a row (RFC 4180 quoting)",
            ) from None


def _parquet(path: str) -> Iterator[tuple[int, Mapping[str, object] | str]]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InputError(
            "reading Parquet cases needs pyarrow",
            name=path,
            hint="install it: pip install 'lmml-mdit[datasets]'",
        ) from None
    try:
        parquet = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as error:
        raise InputError(f"this is not a Parquet file ({error})", name=path) from None
    number = 0
    with parquet:
        for batch in parquet.iter_batches(batch_size=_BATCH_ROWS):
            for row in batch.to_pylist():
                number += 1
                yield number, row


def _hf(source: str) -> Iterator[tuple[int, Mapping[str, object] | str]]:
    """The rows of a folder written by ``save_to_disk``, or of ``load_dataset(NAME)`` (a
    Hub name or a folder of data files; ``NAME:SPLIT``, split ``train`` by default)
    streamed."""
    try:
        import datasets
    except ImportError:
        raise InputError(
            "reading Hugging Face datasets needs the datasets package",
            name=HF_PREFIX + source,
            hint="install it: pip install datasets",
        ) from None
    saved = os.path.join(source, "dataset_dict.json"), os.path.join(source, "state.json")
    if any(os.path.isfile(path) for path in saved):
        loaded = datasets.load_from_disk(source)
        if isinstance(loaded, datasets.DatasetDict):
            splits = sorted(loaded)
            if "train" not in loaded and len(splits) != 1:
                raise InputError(
                    f"this dataset has the splits {splits}",
                    name=HF_PREFIX + source,
                    hint="give one split's folder",
                )
            loaded = loaded["train" if "train" in loaded else splits[0]]
        rows = iter(loaded)
    else:
        name, _, split = source.partition(":")
        rows = iter(datasets.load_dataset(name, split=split or "train", streaming=True))
    yield from enumerate(rows, 1)


def _values(
    label: str,
    rows: Iterator[tuple[int, Mapping[str, object] | str]],
    *,
    cells: bool = False,
    typed: InputDeclarations | None = None,
) -> Iterator[CaseRow]:
    """Each row as JSON values (its ``expect`` text read, when *cells* hold text; its
    text cells read as the *typed* inputs they give)."""
    for number, row in rows:
        if isinstance(row, str):
            yield number, row
            continue
        case: JSONObject = {}
        problem = None
        for key, value in row.items():
            if key == "expect" and (value is None or value == ""):
                continue
            if key == "expect" and isinstance(value, str) and cells:
                value = _expect_text(value, label, number)
            spec = None if typed is None else typed.specs.get(str(key))
            if spec is not None and isinstance(value, str):
                if value == "" and spec.type != "string":
                    continue  # an empty cell: not given (the default applies)
                try:
                    value = spec.from_text(value)
                except ValueError as error:
                    problem = f"column {key!r}: {error}"
                    break
            try:
                json.dumps(value)
            except (TypeError, ValueError):
                problem = f"column {key!r} holds a {type(value).__name__}, not a JSON value"
                break
            case[str(key)] = value
        yield number, case if problem is None else problem


def _expect_text(text: str, label: str, number: int) -> object:
    """An ``expect`` cell's JSON or YAML text, read."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ExpectError(
            f"the expect cell is neither JSON nor YAML: {str(error).splitlines()[0]}",
            name=label,
            line=number,
            hint="write expect as JSON or YAML text, e.g. [{contains: Paris}]",
        ) from None


def iter_bundle_cases(source: str | os.PathLike[str]) -> Iterator[tuple[int, str, Bundle | str]]:
    """Each bundle of the folder (or Parquet file of conversation rows, as
    ``lmml export --parquet`` writes) *source* as a case: its number, its name (the path
    under the folder, or the row's bundle name) and the bundle, or why it did not open.

    :raises InputError: when *source* is neither a folder nor a Parquet file.
    """
    text = os.fspath(source)
    if os.path.isdir(text):
        for number, path in enumerate(iter_bundles(text), 1):
            name = os.path.relpath(path, text).replace(os.sep, "/")
            try:
                yield number, name, open_bundle(path)
            except LmmlError as error:
                yield number, name, error.format(hint=False)
        return
    if not text.lower().endswith(".parquet") or not os.path.isfile(text):
        raise InputError(
            "with no --cases, PATH is a folder of bundles or a Parquet file of them",
            name=text,
            hint="give the cases with --cases, or a folder of bundles",
        )
    from ..dataset import iter_parquet, row_bundle

    number = 0
    for batch in iter_parquet(text, batch_rows=_BATCH_ROWS):
        for row in batch.to_pylist():
            number += 1
            name = str(row.get("path") or row.get("name") or f"row {number}")
            try:
                yield number, name, row_bundle(row)
            except LmmlError as error:
                yield number, name, error.format(hint=False)
