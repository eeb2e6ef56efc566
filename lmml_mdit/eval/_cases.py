"""The cases of an evaluation, streamed from a JSONL, CSV or Parquet file (read by
:func:`~lmml_mdit.templates.read_cases_file`, as ``lmml render --cases`` reads them) or a
Hugging Face dataset (``hf:NAME`` or ``hf:FOLDER``), each with its number: the line of a
JSONL or CSV file, the 1-based row of a Parquet file or dataset. With no cases, each bundle
of a folder (or of a Parquet file of conversation rows) is one case:
:func:`iter_bundle_cases`.

What eval adds to a case is its ``expect`` list: a line's own, or the one beside its
wrapped ``inputs``; in a CSV or Parquet file or a dataset the ``expect`` column holds it as
JSON or YAML text (an empty cell: none; a dataset's may hold the list itself). A dataset
is read row by row (a Hub dataset streamed).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping

import yaml

from ..bundle import Bundle
from ..chat import iter_bundles
from ..chat import open as open_bundle
from ..errors import ExpectError, InputError, LmmlError
from ..formats import PARQUET_SUFFIX
from ..jsontypes import JSONObject
from ..syntax import DelimiterMode, ReferenceMode
from ..templates import (
    STDIN,
    CaseValues,
    InputDeclarations,
    UnreadCase,
    cases_format,
    jsonl_case,
    read_case_rows,
    read_cases_file,
)

__all__ = ["HF_PREFIX", "BundleFailure", "cases_folder", "iter_bundle_cases", "iter_cases"]

HF_PREFIX = "hf:"
"""What starts ``--cases`` naming a Hugging Face dataset (a Hub name or a saved folder)."""

_BATCH_ROWS = 64
"""Parquet rows read at a time."""

_EXPECT = "expect"
"""The field (or column) holding a case's assertions."""

_EXPECT_BYTES = _EXPECT.encode()


class BundleFailure(str):
    """Why a bundle of :func:`iter_bundle_cases` did not open: the text it always gave
    (the error without its hint), carrying the error itself as :attr:`error`, whose
    :meth:`~lmml_mdit.LmmlError.place` says where the failure lies.

    :ivar error: the error opening the bundle raised.
    """

    error: LmmlError

    def __new__(cls, error: LmmlError) -> BundleFailure:
        made = super().__new__(cls, error.format(hint=False))
        made.error = error
        return made


CaseRow = tuple[int, JSONObject | str]
"""A case's number and its values, or why it has none."""


def iter_cases(
    cases: str | os.PathLike[str], inputs: InputDeclarations | None = None
) -> Iterator[CaseRow]:
    """Each case of *cases* with its number, or why that case could not be read: the file
    read by :func:`~lmml_mdit.templates.read_cases_file` (JSONL, CSV or Parquet; a line's
    ``expect`` beside its wrapped ``inputs`` kept), or the rows of an ``hf:`` dataset.

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
        rows = read_case_rows(_hf(text[len(HF_PREFIX) :]), file=text, folder=cases_folder(text))
        return _with_expect(text, rows, rows=True, cells=True)
    rowed = cases_format(text) != "jsonl"
    return _with_expect(text, read_cases_file(text, inputs), rows=rowed, cells=rowed)


def iter_expect_cases(
    cases: str | os.PathLike[str], inputs: InputDeclarations | None = None
) -> Iterator[CaseRow | None]:
    """Each case of *cases* as :func:`iter_cases` yields it, but None for a line of a JSONL
    file that holds no ``expect`` (neither the word nor an escape that could spell it),
    left unread: what checking every ``expect`` before sending needs, at less cost.

    :raises InputError: as :func:`iter_cases` raises it.
    :raises ExpectError: likewise.
    """
    text = os.fspath(cases)
    if text.startswith(HF_PREFIX) or text == STDIN or cases_format(text) != "jsonl":
        yield from iter_cases(text, inputs)
        return
    read_cases_file(text, inputs)  # its error for a missing file; nothing is read yet
    folder = os.path.dirname(text)
    with open(text, "rb") as stream:
        for number, raw in enumerate(stream, 1):
            if _EXPECT_BYTES in raw or b"\\" in raw:
                case = jsonl_case(number, raw, text, folder, inputs)
                yield from _with_expect(text, iter((case,)), rows=False, cells=False)
            else:
                yield None


def cases_folder(cases: str | os.PathLike[str]) -> str:
    """The folder the ``image``, ``file`` and ``messages`` paths of *cases* name files
    inside: a cases file's own folder, an ``hf:FOLDER`` dataset's folder, the working
    directory for a Hub dataset."""
    text = os.fspath(cases)
    if text.startswith(HF_PREFIX):
        source = text[len(HF_PREFIX) :]
        return source if os.path.isdir(source) else ""
    return os.path.dirname(text)


def _with_expect(
    label: str, cases: Iterator[CaseValues | UnreadCase], *, rows: bool, cells: bool
) -> Iterator[CaseRow]:
    """Each case as its values with its ``expect`` (a line's own, or the one beside its
    wrapped ``inputs``); a row's empty ``expect`` left out (*rows*), its text read (*cells*)."""
    for case in cases:
        if isinstance(case, UnreadCase):
            yield case.number or 0, case.reason
            continue
        values: JSONObject = dict(case.values)
        if _EXPECT in case.fields:
            values[_EXPECT] = case.fields[_EXPECT]
        if _EXPECT in values:
            found = values[_EXPECT]
            if rows and (found is None or found == ""):
                del values[_EXPECT]  # an empty cell: the template's default
            elif cells and isinstance(found, str):
                values[_EXPECT] = _expect_text(found, label, case.number)
        yield case.number, values


def _hf(source: str) -> Iterator[Mapping[str, object]]:
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
        yield from loaded
        return
    name, _, split = source.partition(":")
    yield from datasets.load_dataset(name, split=split or "train", streaming=True)


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


def iter_bundle_cases(
    source: str | os.PathLike[str],
    *,
    base_dir: str | os.PathLike[str] | None = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
) -> Iterator[tuple[int, str, Bundle | BundleFailure]]:
    """Each bundle of the folder (or Parquet file of conversation rows, as
    ``lmml export --parquet`` writes) *source* as a case: its number, its name (the path
    under the folder, or the row's bundle name) and the bundle, or why it did not open: a
    :class:`BundleFailure`, text carrying the error as its ``error``.

    :param base_dir: the folder every bare ``.lmml`` of the folder resolves its references
        against (default: each file's own folder), as for :func:`lmml_mdit.open`.
    :param delimiters: how the folder's bundles are parsed, as for :func:`lmml_mdit.open`
        (a Parquet row keeps its own).
    :param references: likewise.
    :raises InputError: when *source* is neither a folder nor a Parquet file.
    """
    text = os.fspath(source)
    if os.path.isdir(text):
        for number, path in enumerate(iter_bundles(text), 1):
            name = os.path.relpath(path, text).replace(os.sep, "/")
            try:
                opened = open_bundle(
                    path, base_dir=base_dir, delimiters=delimiters, references=references
                )
                yield number, name, opened
            except LmmlError as error:
                yield number, name, BundleFailure(error)
        return
    if not text.lower().endswith(PARQUET_SUFFIX) or not os.path.isfile(text):
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
                yield number, name, BundleFailure(error)
