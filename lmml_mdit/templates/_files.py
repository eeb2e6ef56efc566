"""Values files and cases files read: ``--inputs FILE`` (one JSON object of values) and the
cases of ``lmml render --cases`` and ``lmml eval --cases`` (a JSONL, CSV or Parquet file),
each case's values unwrapped, typed as declared and their paths held beside the file.

One reader for every caller: the command line keeps only its flags and its wording, eval
only what its cases add (an ``expect`` list). See docs/templates.md, "Values files and
cases files".
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import BinaryIO, Literal

from ..errors import InputError
from ..formats import PARQUET_SUFFIX
from ..jsonio import parse_json
from ..jsontypes import JSONObject
from ..stdin import STDIN_LABEL, stdin_buffer
from ._declarations import InputDeclarations
from ._types import INPUTS_KEY
from ._values import held_in_folder

__all__ = [
    "STDIN",
    "CaseValues",
    "CasesFormat",
    "UnreadCase",
    "cases_format",
    "jsonl_case",
    "read_case_rows",
    "read_cases_file",
    "read_values_file",
]

STDIN = "-"
"""The cases path that reads standard input (as JSONL)."""

_BATCH_ROWS = 64
"""Parquet rows read at a time."""

_EXTRA_CELLS = "\0"
"""The key the CSV reader puts a row's cells beyond the header under."""

CasesFormat = Literal["jsonl", "csv", "parquet"]
"""How a cases file is read, by its name's suffix."""


@dataclass(frozen=True)
class UnreadCase:
    """A case that could not be read (a line that is no JSON object, a row whose cells do
    not read), and why; the other cases go on.

    :ivar reason: what is wrong with it, in one line, without its place (:attr:`file`
        and :attr:`number` say where).
    :ivar number: the case's line (JSONL, CSV) or row (Parquet), when read from a file.
    :ivar file: the cases file it was found in, as errors name it (``<stdin>`` for
        standard input), or ``""``; as :attr:`CaseValues.file`. Not compared.
    """

    reason: str
    number: int | None = None
    file: str = field(default="", compare=False)


@dataclass(frozen=True)
class CaseValues:
    """One case read from a cases file.

    :ivar number: its line (JSONL; for CSV the line its row ends on) or its 1-based row
        (Parquet, dataset rows): what errors about it name.
    :ivar values: its input values by name: the line's object, or its ``inputs`` object
        when it wraps them; a CSV cell read as its input's declared type.
    :ivar fields: the line's other fields when it wraps its values under ``inputs`` (such
        as an eval case's ``expect``); empty otherwise.
    :ivar file: the cases file as errors name it (``<stdin>`` for standard input).
    :ivar folder: the folder its ``image``, ``file`` and ``messages`` paths name files
        inside.
    """

    number: int
    values: JSONObject
    fields: JSONObject = field(default_factory=dict)
    file: str = ""
    folder: str = ""

    def held(self, declarations: InputDeclarations) -> Mapping[str, object]:
        """:attr:`values` with the path of each ``image``, ``file`` and ``messages`` input
        held inside :attr:`folder` (:func:`~lmml_mdit.templates.held_in_folder`): a path
        leading out is refused when it is read, naming :attr:`file` and :attr:`number`."""
        return held_in_folder(
            self.values,
            _path_inputs(declarations),
            self.folder,
            file=self.file,
            place=lambda _: (self.number, None),
        )


def _path_inputs(declarations: InputDeclarations) -> list[str]:
    return [name for name, spec in declarations.specs.items() if spec.is_part]


def _label(path: str) -> str:
    return STDIN_LABEL if path == STDIN else path


def _folder(path: str, base_dir: str | os.PathLike[str] | None) -> str:
    if base_dir is not None:
        return os.fspath(base_dir)
    return "" if path == STDIN else os.path.dirname(path)


def _unwrapped(
    case: JSONObject, declarations: InputDeclarations | None
) -> tuple[JSONObject, JSONObject]:
    """A case's values and the fields beside them: the object itself, or its ``inputs``
    object when it wraps them (and no input is named ``inputs``)."""
    wrapped = case.get(INPUTS_KEY)
    named = declarations is not None and INPUTS_KEY in declarations.specs
    if isinstance(wrapped, dict) and not named:
        return dict(wrapped), {key: value for key, value in case.items() if key != INPUTS_KEY}
    return case, {}


def read_values_file(
    path: str | os.PathLike[str],
    declarations: InputDeclarations,
    *,
    base_dir: str | os.PathLike[str] | None = None,
) -> dict[str, object]:
    """The input values of the values file *path* (``--inputs FILE``; ``-`` reads
    standard input): a JSON object of values, or one wrapping them under ``inputs``
    (unless an input is named ``inputs``).

    Each ``image``, ``file`` or ``messages`` path in it is held inside *base_dir*, by
    default the file's folder (the working directory for ``-``), as a bundle's references
    are; a path leading out is refused when the value is read, naming this file and the
    value's line and column.

    :param declarations: the template's inputs (:func:`declared_inputs`).
    :raises InputError: naming *path* (and for JSON that does not parse, the line and
        column): it cannot be read, is not UTF-8, is not JSON, or is not a JSON object.
        Its :attr:`~lmml_mdit.errors.LmmlError.message` starts with ``cannot read:``,
        ``not JSON:`` or is ``not a JSON object of input values``; for ``-`` with
        standard input closed, its subclass :class:`~lmml_mdit.errors.StdinClosedError`.
    """
    from ..bundle import settings_value_positions
    from ..jsonio import load_json

    name = os.fspath(path)
    label = _label(name)
    hint = "give a JSON object of input values"
    stdin = stdin_buffer() if name == STDIN else None
    try:
        if stdin is not None:
            text = stdin.read().decode("utf-8-sig")
        else:
            with open(name, encoding="utf-8-sig") as stream:
                text = stream.read()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8"
        raise InputError(f"cannot read: {reason or error}", name=label, hint=hint) from None
    loaded = load_json(
        text,
        error_class=InputError,
        name=label,
        subject="the values file",
        hint=hint,
        wording=lambda error: f"not JSON: {error}",
    )
    if not isinstance(loaded, dict):
        raise InputError("not a JSON object of input values", name=label, line=1, hint=hint)
    values, _ = _unwrapped(loaded, declarations)
    positions = settings_value_positions(text, json_text=True)

    def place(input_name: str) -> tuple[int | None, int | None]:
        found = positions.get((input_name,)) or positions.get((INPUTS_KEY, input_name))
        return (found[0] + 1, found[1] + 1) if found else (None, None)

    held = held_in_folder(
        values, _path_inputs(declarations), _folder(name, base_dir), file=label, place=place
    )
    return dict(held)


def cases_format(path: str | os.PathLike[str]) -> CasesFormat:
    """How the cases file *path* is read: ``csv`` for a ``.csv`` name, ``parquet`` for a
    ``.parquet`` one, ``jsonl`` for any other (and for standard input, ``-``)."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    return "csv" if suffix == ".csv" else "parquet" if suffix == PARQUET_SUFFIX else "jsonl"


def read_cases_file(
    path: str | os.PathLike[str],
    declarations: InputDeclarations | None = None,
    *,
    base_dir: str | os.PathLike[str] | None = None,
) -> Iterator[CaseValues | UnreadCase]:
    """Each case of the cases file *path*, streamed as it is reached: a
    :class:`CaseValues`, or an :class:`UnreadCase` saying why that case has none (the
    other cases go on).

    - JSONL (any name but those below; ``-`` reads standard input): one JSON object of
      values a line, or ``{"inputs": {...}, ...}`` with fields of its own beside them; a
      blank line, a line that is not UTF-8, not JSON or not an object is an unread case,
      so the line numbers stay the cases' numbers.
    - CSV (``.csv``): a header line of input names, then one case a row (RFC 4180
      quoting, UTF-8); a cell of a column naming one of *declarations* is read as that
      input's type (:meth:`~lmml_mdit.templates.InputSpec.from_text`), an empty cell of an
      input that is not a ``string`` is not given; other cells stay text.
    - Parquet (``.parquet``, needs ``pyarrow``): one case a row, read by batches of 64.

    A value that is not JSON (a Parquet date, bytes) makes its case unread.

    :param declarations: the template's inputs: which CSV cells are typed, and whether a
        line's ``inputs`` is an input of that name or the wrapper of its values.
    :param base_dir: the folder the cases' paths name files inside (:attr:`CaseValues.
        folder`); by default the file's folder (the working directory for ``-``).
    :raises InputError: (at once) no such file, or for ``-`` standard input closed
        (:class:`~lmml_mdit.errors.StdinClosedError`); (when reached) a CSV quoting error,
        naming the file and line, CSV text that is not UTF-8 (the line named is where the
        reader stood, which may be before the bytes), or a file that is not Parquet.
    """
    name = os.fspath(path)
    if name != STDIN and not os.path.isfile(name):
        raise InputError("no such cases file", name=name, hint="give a JSONL, CSV or Parquet file")
    label, folder = _label(name), _folder(name, base_dir)
    found = cases_format(name)
    if found == "csv":
        return _row_cases(_csv(name), label, folder, declarations)
    if found == "parquet":
        return _row_cases(_parquet(name), label, folder, None)
    return _jsonl(stdin_buffer() if name == STDIN else name, label, folder, declarations)


def read_case_rows(
    rows: Iterable[Mapping[str, object]], *, file: str, folder: str = ""
) -> Iterator[CaseValues | UnreadCase]:
    """Each row of *rows* (a dataset's, one column per input) as a case numbered from 1;
    a row holding a value that is not JSON is an :class:`UnreadCase`.

    :param file: the source as errors name it.
    :param folder: the folder the cases' paths name files inside.
    """
    return _row_cases(enumerate(rows, 1), file, folder, None)


def _jsonl(
    source: str | BinaryIO, label: str, folder: str, declarations: InputDeclarations | None
) -> Iterator[CaseValues | UnreadCase]:
    """The cases of the JSONL file *source*, or of a stream (standard input, left open)."""
    # A file is closed when done; standard input is read and left open.
    opened: contextlib.AbstractContextManager[BinaryIO] = (
        open(source, "rb")  # noqa: SIM115
        if isinstance(source, str)
        else contextlib.nullcontext(source)
    )
    with opened as stream:
        for number, raw in enumerate(stream, 1):
            yield jsonl_case(number, raw, label, folder, declarations)


def jsonl_case(
    number: int, raw: bytes, label: str, folder: str, declarations: InputDeclarations | None
) -> CaseValues | UnreadCase:
    """The case of line *number* of a JSONL file, *raw* as read (its newline kept), or why
    it has none; *label* names the file, *folder* holds its paths."""
    try:
        # As raw.decode("utf-8-sig") (a leading byte order mark dropped), through the
        # interpreter's own UTF-8 decoder rather than that codec's Python code.
        text = (raw[3:] if raw.startswith(codecs.BOM_UTF8) else raw).decode("utf-8")
        text = text.strip()
    except UnicodeDecodeError:
        return UnreadCase("the line is not UTF-8", number, label)
    if not text:
        return UnreadCase("the line is blank; give a JSON object of input values", number, label)
    try:
        case = parse_json(text)
    except (ValueError, RecursionError) as error:
        return UnreadCase(f"not JSON: {error}", number, label)
    if not isinstance(case, dict):
        return UnreadCase("not a JSON object of input values", number, label)
    values, fields = _unwrapped(case, declarations)
    return CaseValues(number, values, fields, label, folder)


_Row = tuple[int, Mapping[str, object] | str]
"""A row's number and its cells, or why it has none."""


def _csv(path: str) -> Iterator[_Row]:
    with open(path, encoding="utf-8-sig", newline="") as stream:
        reader = csv.DictReader(stream, restkey=_EXTRA_CELLS)
        try:
            for row in reader:
                if _EXTRA_CELLS in row:
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


def _parquet(path: str) -> Iterator[_Row]:
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


def _row_cases(
    rows: Iterable[_Row], label: str, folder: str, typed: InputDeclarations | None
) -> Iterator[CaseValues | UnreadCase]:
    """Each row as a case of JSON values, its text cells read as the *typed* inputs they
    give."""
    for number, row in rows:
        if isinstance(row, str):
            yield UnreadCase(row, number, label)
            continue
        values: JSONObject = {}
        problem = _row_problem(row, typed, values)
        if problem is None:
            yield CaseValues(number, values, {}, label, folder)
        else:
            yield UnreadCase(problem, number, label)


def _row_problem(
    row: Mapping[str, object], typed: InputDeclarations | None, values: JSONObject
) -> str | None:
    """Fill *values* from *row*; what is wrong with the first cell that does not read."""
    for key, value in row.items():
        spec = None if typed is None else typed.specs.get(str(key))
        if spec is not None and isinstance(value, str):
            if value == "" and spec.type != "string":
                continue  # an empty cell: not given (the default applies)
            try:
                value = spec.from_text(value)
            except ValueError as error:
                return f"column {key!r}: {error}"
            except InputError as error:  # a messages cell that starts like JSON
                return f"column {key!r}: {error.message} ({error.hint})"
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            return f"column {key!r} holds a {type(value).__name__}, not a JSON value"
        values[str(key)] = value
    return None
