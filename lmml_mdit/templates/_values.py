"""Template values: each checked against its declaration, written as a turn's text, or read
as a file (an ``image`` or ``file`` input); :func:`bind_inputs` gives one rendering's values."""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import math
import os
import stat
import urllib.parse
from collections.abc import Callable, Collection, Container, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..bundle import path_under, unsafe_reason
from ..errors import InputError
from ..schema import schema_problems, type_word
from ..text import is_unicode
from ._types import MESSAGES_TYPE

if TYPE_CHECKING:
    from ..model import Issue
    from ._declarations import InputDeclarations, InputSpec

__all__ = [
    "MAX_INTEGER",
    "MAX_VALUE_DEPTH",
    "InputFile",
    "ValuesPath",
    "bind_inputs",
    "checked_values",
    "field_value",
    "held_in_folder",
    "input_file",
    "input_text",
    "value_problem",
    "values_file_path",
]


@dataclass(frozen=True)
class InputFile:
    """An ``image`` or ``file`` value read into bytes.

    :ivar name: the asset name it is sent under (a path's file name, else the input's name
        with the extension of its media type).
    :ivar data: its bytes.
    """

    name: str
    data: bytes


@dataclass(frozen=True)
class ValuesPath:
    """An ``image`` or ``file`` path read from a values file (``--inputs``, a ``--cases``
    line, a case given to :func:`~lmml_mdit.chat.render_cases`): it names a file
    inside *folder* under the rules a bundle's references follow (see :doc:`/templates`).

    :ivar path: the path as the values file writes it.
    :ivar folder: the folder it must lie in.
    :ivar file: the values file, for the error; None when the values come from code.
    :ivar line: the 1-based line of the value in *file*, where known.
    :ivar column: the 1-based column, where known.
    """

    path: str
    folder: str
    file: str | None = None
    line: int | None = None
    column: int | None = None

    def __fspath__(self) -> str:
        return self.path


MAX_INTEGER = 2**53 - 1
"""The largest ``integer`` input (and the smallest is its negative): the integers every JSON
reader holds exactly (a double's 53-bit mantissa; JavaScript's ``Number.MAX_SAFE_INTEGER``)."""


def _integer_problem(value: object) -> str | None:
    """Why *value* is no ``integer`` input: a JSON integer (``3``, or ``3.0`` as JSON
    Schema reads it) within :data:`MAX_INTEGER` either way, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"is {type_word(value)}, not an integer"
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return f"is {value!r}, not an integer"
    if abs(value) > MAX_INTEGER:
        return f"is out of range: an integer is at most {MAX_INTEGER} either side of 0"
    return None


def value_problem(spec: InputSpec, value: object) -> str | None:
    """Why *value* cannot be *spec*'s (worded to follow "the value"), or None."""
    if isinstance(value, int) and not isinstance(value, bool) and not _fits_float(value):
        return "is a number too large for JSON readers (beyond a double's range)"
    nested = _nested_problem(value)
    if nested is not None:
        return nested
    kind = spec.type
    if kind == "string":
        return None if isinstance(value, str) else f"is {type_word(value)}, not a string"
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"is {type_word(value)}, not a number"
        return None if math.isfinite(value) else "is not a finite number"
    if kind == "integer":
        return _integer_problem(value)
    if kind == "boolean":
        return None if isinstance(value, bool) else f"is {type_word(value)}, not a boolean"
    if kind == "object":
        if not isinstance(value, dict):
            return f"is {type_word(value)}, not an object (a mapping)"
        if spec.schema is not None:
            problems = schema_problems(value, spec.schema)
            if problems:
                first = problems[0]
                where = ".".join(str(step) for step in first.path)
                return f"does not meet its schema: {where or 'the value'} {first.problem}"
        return None
    if kind == MESSAGES_TYPE:
        if isinstance(value, (list, dict, os.PathLike)):
            return None
        if isinstance(value, str) and value:
            return None
        return (
            f"is {type_word(value)}; give a list of chat messages, or the path of a .lmml, "
            ".lmmlz or .json file holding one"
        )
    if isinstance(value, (bytes, bytearray, memoryview, os.PathLike)):
        return None
    if isinstance(value, str):
        return None if value else "is empty; give a path, bytes or a data: URI"
    return f"is {type_word(value)}; give a path, bytes or a data: URI"


def _fits_float(value: int) -> bool:
    try:
        float(value)
    except OverflowError:
        return False
    return True


_SURROGATE = "holds a lone surrogate, which is not valid Unicode (no UTF-8 request holds it)"
_HUGE = "holds a number too large for JSON readers (beyond a double's range)"
_CIRCULAR = "holds itself (a list or mapping inside itself), which no JSON can write"

MAX_VALUE_DEPTH = 500
"""How deeply lists and mappings may nest in an input's value: well past any real value,
and short of the recursion limit that writing it as JSON meets."""


def _nested_problem(value: object) -> str | None:
    """Why a string or number anywhere in *value* (keys and values, nested) cannot be sent:
    a lone surrogate (not valid Unicode), an integer beyond a double's range, a list or
    mapping inside itself, or nesting deeper than :data:`MAX_VALUE_DEPTH`; None.

    Walked without recursion; a container shared by two places (not inside itself) is
    fine, as JSON writes it twice."""
    if isinstance(value, str):  # most values: one test
        return None if is_unicode(value) else _SURROGATE
    if not isinstance(value, (dict, list, tuple)):
        return None
    # Each step enters a container, or (None) leaves the last one entered.
    pending: list[object] = [value]
    path: list[int] = []  # ids of the containers being walked, outermost first
    inside: set[int] = set()
    while pending:
        item = pending.pop()
        if item is None:
            inside.discard(path.pop())
            continue
        if id(item) in inside:
            return _CIRCULAR
        if len(path) >= MAX_VALUE_DEPTH:
            return f"nests deeper than {MAX_VALUE_DEPTH} levels of lists and mappings"
        path.append(id(item))
        inside.add(id(item))
        pending.append(None)
        children: Iterable[object]
        if isinstance(item, dict):
            children = itertools.chain(item.keys(), item.values())
        else:
            assert isinstance(item, (list, tuple))
            children = item
        for sub in children:
            if isinstance(sub, str):
                if not is_unicode(sub):
                    return _SURROGATE
            elif isinstance(sub, (dict, list, tuple)):
                pending.append(sub)
            elif isinstance(sub, int) and not isinstance(sub, bool) and not _fits_float(sub):
                return _HUGE
    return None


def input_text(value: object, name: str = "") -> str:
    """A text value as it stands in a turn: a string as it is, anything else as JSON.

    :raises InputError: (``invalid_input``) for a value JSON cannot write (a set, NaN).
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) or (isinstance(value, float) and math.isfinite(value)):
        return repr(value)  # what JSON writes, without the encoder's set-up per value
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise InputError(
            f"the value of {name or 'an input'!r} cannot be written as JSON ({error})",
            name=name or None,
            kind="invalid_input",
            hint="give JSON values: strings, numbers, booleans, lists and mappings",
        ) from None


def field_value(value: object, fields: tuple[str, ...]) -> object:
    """The value at *fields* inside *value*.

    :raises KeyError: naming the first key that is not there.
    """
    for key in fields:
        if not isinstance(value, dict) or key not in value:
            raise KeyError(key)
        value = value[key]
    return value


def _error(
    kind: str,
    spec: InputSpec | None,
    name: str,
    message: str,
    hint: str,
    cli_hint: str | None = None,
) -> InputError:
    return InputError(
        message,
        name=name,
        line=spec.line if spec is not None else None,
        column=spec.column if spec is not None else None,
        file=spec.file if spec is not None else None,
        kind=kind,
        hint=hint,
        cli_hint=cli_hint,
    )


def _malformed(issue: Issue) -> InputError:
    """The error for a value given to an input whose declaration does not read."""
    return InputError(
        issue.message,
        name=issue.name,
        line=issue.line,
        column=issue.column,
        file=issue.file,
        kind=issue.kind,
        hint="fix the declaration; the value cannot be read until it does",
    )


def _checked_mapping(values: object) -> Mapping[str, object]:
    if values is not None and not isinstance(values, Mapping):
        raise TypeError(f"inputs must be a mapping of names to values, not {type(values).__name__}")
    return values or {}


def _check_declared(declarations: InputDeclarations, given: Mapping[str, object]) -> None:
    specs = declarations.specs
    for name in given:
        malformed = None if name in specs else declarations.malformed(str(name))
        if malformed is not None:
            raise _malformed(malformed)
        if name not in specs:
            declared = ", ".join(specs) or "none"
            raise _error(
                "undeclared_input",
                None,
                str(name),
                f"no input {name!r} is declared (declared: {declared})",
                "declare it under 'inputs:' in the front matter or the settings, or fix the name",
            )


def _as_declared(spec: InputSpec, value: object) -> object:
    """*value* as its input is written: an ``integer`` given as ``3.0`` (JSON Schema's
    integer) as ``3``, never ``3.0``; any other value as it is."""
    if spec.type == "integer" and isinstance(value, float):
        return int(value)
    return value


def _check_value(spec: InputSpec, value: object) -> None:
    problem = value_problem(spec, value)
    if problem is not None:
        raise _error(
            "invalid_input",
            spec,
            spec.name,
            f"the value of the {spec.type} input {spec.name!r} {problem}",
            "give a value of the declared type",
        )


def checked_values(
    declarations: InputDeclarations, values: Mapping[str, object] | None
) -> dict[str, object]:
    """The values given, each checked as :func:`bind_inputs` checks it, with no default
    added and none required (what the preview shows: a placeholder without a value is
    marked unfilled).

    :raises InputError: for a given name no input declares (``undeclared_input``) or a
        value its declaration refuses (``invalid_input``).
    :raises TypeError: when *values* is not a mapping.
    """
    given = _checked_mapping(values)
    _check_declared(declarations, given)
    checked = dict(given)
    for name, spec in declarations.specs.items():
        if name in given:
            _check_value(spec, given[name])
            checked[name] = _as_declared(spec, given[name])
    return checked


def bind_inputs(
    declarations: InputDeclarations,
    values: Mapping[str, object] | None,
    *,
    used: Container[str] | None = None,
) -> dict[str, object]:
    """The value of every declared input for one rendering: each given value checked, a
    default where none is given, and an input neither given nor required left out.

    :param used: the inputs a placeholder uses, when known: a required input no
        placeholder uses (an ``unused_input``) needs no value.

    :raises InputError: for a given name no input declares (``undeclared_input``), a
        required input without a value (``missing_input``) or a value its declaration
        refuses (``invalid_input``), located at the declaration.
    :raises TypeError: when *values* is not a mapping.
    """
    given = _checked_mapping(values)
    _check_declared(declarations, given)
    bound: dict[str, object] = {}
    for name, spec in declarations.specs.items():
        if name in given:
            _check_value(spec, given[name])
            bound[name] = _as_declared(spec, given[name])
        elif spec.has_default:
            bound[name] = _as_declared(spec, spec.default)
        elif spec.required and (used is None or name in used):
            raise _error(
                "missing_input",
                spec,
                name,
                f"the required {spec.type} input {name!r} has no value",
                f"pass inputs={{{name!r}: ...}}, or declare a default or 'required: false'",
                f"give it with --input {name}=VALUE, --inputs or --cases (lmml render; "
                "validate and preview take --input and --inputs; export and run take none), "
                "or declare a default or 'required: false'",
            )
    return bound


def input_file(name: str, value: object, *, limit: int) -> InputFile:
    """Read an ``image`` or ``file`` value: a path (``str`` or path-like) read from disk, a
    ``data:`` URI decoded, or bytes taken as they are.

    :param name: the input's name (bytes and a data URI are sent as *name* plus the
        extension of the media type their bytes show).
    :param limit: the most bytes the value may hold (the bundle's ``max_entry_size``).
    :raises InputError: (``invalid_input``) for a path that does not read, a malformed data
        URI, or more than *limit* bytes.
    """
    from ..media import extension_for, media_type_for

    asset_name: str | None = None
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
    elif isinstance(value, str) and value.startswith("data:"):
        data = _data_uri(name, value)
    elif isinstance(value, ValuesPath):
        data = _read_regular(name, _contained(name, value), limit, value)
        asset_name = os.path.basename(value.path.rstrip("/")) or name
    elif isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        data = _read_regular(name, path, limit, None)
        asset_name = os.path.basename(os.path.normpath(path)) or name
    else:
        raise InputError(
            f"the input {name!r} is {type_word(value)}",
            name=name,
            kind="invalid_input",
            hint="give a path, bytes or a data: URI",
        )
    if len(data) > limit:
        raise _too_big(name, limit)
    if asset_name is None:
        asset_name = name + extension_for(media_type_for(name, data))
    return InputFile(asset_name, data)


def values_file_path(name: str, value: str | os.PathLike[str]) -> str:
    """The path a file value names: a :class:`ValuesPath` checked to lie inside its
    folder, any other path as it is.

    :raises InputError: for a values-file path that leads outside its folder.
    """
    return _contained(name, value) if isinstance(value, ValuesPath) else os.fspath(value)


def held_in_folder(
    values: Mapping[str, object],
    names: Collection[str],
    folder: str,
    *,
    file: str | None = None,
    place: Callable[[str], tuple[int | None, int | None]] | None = None,
) -> Mapping[str, object]:
    """*values* with the path of each input in *names* (a ``str`` or path-like, not a
    ``data:`` URI, not already held) made a :class:`ValuesPath` inside *folder*: what a
    values file (``--inputs``, a ``--cases`` line) or a case of ``render_cases`` gives.

    :param names: the inputs whose value may be a path (``image``, ``file``, ``messages``).
    :param file: the values file, for the error.
    :param place: the 1-based line and column of an input's value in *file*.
    """
    paths: dict[str, object] = {}
    for name in names:
        value = values.get(name)
        if not isinstance(value, (str, os.PathLike)) or isinstance(value, ValuesPath):
            continue
        if isinstance(value, str) and value.startswith("data:"):
            continue
        line, column = place(name) if place is not None else (None, None)
        paths[name] = ValuesPath(os.fspath(value), folder, file, line, column)
    return {**values, **paths} if paths else values


def _contained(name: str, value: ValuesPath) -> str:
    """The real path *value* names inside its folder, under the rules of a bundle's
    references: relative, ``/`` separators, no ``..``, no link leading out.

    :raises InputError: naming the values file, the line and the rule broken.
    """
    reason = unsafe_reason(value.path)
    if reason is None:
        found = path_under(os.path.realpath(value.folder or os.curdir), value.path)
        if found is not None:
            return found
        reason = "it leads outside the folder through a symbolic link"
    raise InputError(
        f"the {name!r} path {value.path!r} is refused: {reason}; a path in a values file "
        f"names a file inside {value.folder or '.'!r}",
        name=name,
        file=value.file,
        line=value.line,
        column=value.column,
        kind="invalid_input",
        hint="write it relative to the values file's folder (or --base-dir), or give the "
        "file itself with --input NAME=@PATH",
    )


def _read_regular(name: str, path: str, limit: int, given: ValuesPath | None) -> bytes:
    """At most *limit* + 1 bytes of the regular file *path* (opened without waiting, so a
    FIFO or a device is refused rather than read)."""
    file, line, column = (given.file, given.line, given.column) if given else (None, None, None)
    shown = given.path if given is not None else path
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as error:
        raise InputError(
            f"the input {name!r} names the file {shown!r}, which cannot be read "
            f"({error.strerror or error})",
            name=name,
            kind="invalid_input",
            hint="give the path of a readable file, bytes or a data: URI",
            file=file,
            line=line,
            column=column,
        ) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise InputError(
            f"the input {name!r} names {shown!r}, which is not a regular file (a "
            "folder, a FIFO or a device)",
            name=name,
            kind="invalid_input",
            hint="give the path of a regular file",
            file=file,
            line=line,
            column=column,
        )
    with os.fdopen(descriptor, "rb") as stream:
        if os.fstat(stream.fileno()).st_size > limit:  # refused unread, at its place
            raise _too_big(name, limit, file=file, line=line, column=column)
        return stream.read(limit + 1)


def _too_big(
    name: str,
    limit: int,
    *,
    file: str | None = None,
    line: int | None = None,
    column: int | None = None,
) -> InputError:
    """The error for a file value of more than *limit* bytes."""
    return InputError(
        f"the input {name!r} holds more than max_entry_size ({limit} bytes)",
        name=name,
        kind="invalid_input",
        hint="give a smaller file, or open the bundle with a larger Limits(max_entry_size=)",
        file=file,
        line=line,
        column=column,
    )


def _data_uri(name: str, uri: str) -> bytes:
    header, comma, payload = uri.partition(",")
    if not comma:
        raise InputError(
            f"the input {name!r} is a data: URI without a comma before its data",
            name=name,
            kind="invalid_input",
            hint="write data:<media type>;base64,<data>",
        )
    if header.endswith(";base64"):
        try:
            return base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            raise InputError(
                f"the input {name!r} is a data: URI whose base64 does not decode",
                name=name,
                kind="invalid_input",
                hint="encode the bytes as standard base64",
            ) from None
    return urllib.parse.unquote_to_bytes(payload)
