"""Parse JSON text strictly, turning every way it can fail into one clear :class:`LmmlError`.

:func:`parse_json` is the library's one JSON reader: beyond the grammar it refuses repeated
keys, integers over :data:`MAX_NUMBER_DIGITS` digits, non-finite numbers and lone
surrogates, each a :class:`json.JSONDecodeError` at its place. :func:`load_json` wraps it
for the top-layer readers of whole JSON files; :func:`json_value_problem` holds a value
built in code (or read from YAML) to the same rules. :func:`unicode_json` writes JSON text that a
UTF-8 file can hold, and :func:`escaped_surrogates` makes a value's strings such text.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from json.decoder import scanstring  # type: ignore[attr-defined]
from json.scanner import NUMBER_RE
from typing import Any, TypeVar, cast

from .errors import LmmlError
from .jsontypes import JSONObject
from .text import is_unicode

__all__ = [
    "MAX_NUMBER_DIGITS",
    "MAX_VALUE_DEPTH",
    "MAX_VALUE_ITEMS",
    "escaped_surrogates",
    "json_value_problem",
    "load_json",
    "number_text_problem",
    "parse_json",
    "unicode_json",
]

MAX_NUMBER_DIGITS = 4300
"""Most characters a number may be written with (its digits, sign, point and exponent), in
any base: Python's own limit for decimal integers (``sys.int_info.default_max_str_digits``),
applied to every number. Bounds the cost of converting it and of writing it back."""


MAX_VALUE_DEPTH = 100
"""How deeply a setting given in code or with ``--set`` may nest; real settings nest two or
three levels."""

MAX_VALUE_ITEMS = 100_000
"""How many values such a setting may hold, a YAML alias counted as the copy the JSON
request writes out (ten nested aliases of ten items are ten billion)."""


def json_value_problem(value: object) -> str | None:
    """Why *value* is no JSON value, or None when it is one: a date, a set, a non-finite
    float, a key that is not a string, a structure that contains itself, nests past
    :data:`MAX_VALUE_DEPTH` or holds more than :data:`MAX_VALUE_ITEMS` values, an integer
    over :data:`MAX_NUMBER_DIGITS` decimal digits (YAML reads a hexadecimal, octal or binary
    numeral of any length). Walked without recursion, within that budget."""
    # Under 2**max_bits, a number has at most MAX_NUMBER_DIGITS decimal digits.
    max_bits = MAX_NUMBER_DIGITS * 33219 // 10000
    pending: list[tuple[object, int, frozenset[int]]] = [(value, 0, frozenset())]
    visited = 0
    while pending:
        item, depth, inside = pending.pop()
        visited += 1
        if visited > MAX_VALUE_ITEMS:
            return f"the value holds more than {MAX_VALUE_ITEMS:,} items (aliases counted)"
        if isinstance(item, (dict, list, tuple)):
            if id(item) in inside:
                return "the value contains itself"
            if depth >= MAX_VALUE_DEPTH:
                return f"the value nests deeper than {MAX_VALUE_DEPTH} levels"
            children: list[object]
            if isinstance(item, dict):
                if not all(isinstance(key, str) for key in item):
                    return "a mapping key is not a string"
                children = list(item.values())
            else:
                children = list(item)
            below = inside | {id(item)}
            pending.extend((child, depth + 1, below) for child in children)
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{item} is not a JSON number"
        elif isinstance(item, int) and not isinstance(item, bool):
            if item.bit_length() > max_bits:
                return f"a number written with more than {MAX_NUMBER_DIGITS:,} digits is too long"
        elif item is not None and not isinstance(item, str):
            kind = type(item).__name__
            return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind} is not a JSON value"
    return None


_LONG_DIGITS = re.compile(f"[0-9]{{{MAX_NUMBER_DIGITS}}}")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class _Refused(ValueError):
    """A JSON value the grammar allows but :func:`parse_json` refuses."""


_UNICODE_ENCODER = json.JSONEncoder(ensure_ascii=False)
"""``json.dumps(value, ensure_ascii=False)``'s encoder, made once (``dumps`` makes one a
call for any option but the defaults)."""


def unicode_json(value: object) -> str:
    """*value* as JSON text that encodes to UTF-8: its non-ASCII characters as they are,
    or all of them escaped (``\\u00e9``) when a string holds a lone surrogate, which UTF-8
    cannot hold; either reads back as the same value.

    :param value: what :func:`json.dumps` takes.
    """
    text = _UNICODE_ENCODER.encode(value)
    return text if is_unicode(text) else json.dumps(value)


_Value = TypeVar("_Value")


def escaped_surrogates(value: _Value) -> _Value:
    """*value* with each lone surrogate of its strings (keys too), which UTF-8 cannot hold,
    written as its escape: ``\\ud800``, six characters. For a UTF-8 file that holds the
    strings as text, not as JSON (where :func:`unicode_json` keeps them whole).

    :param value: a JSON value (dicts, lists, strings, numbers).
    """
    escaped: object = value
    if isinstance(value, str):
        if not is_unicode(value):
            escaped = value.encode("utf-8", "backslashreplace").decode("utf-8")
    elif isinstance(value, dict):
        escaped = {escaped_surrogates(k): escaped_surrogates(v) for k, v in value.items()}
    elif isinstance(value, list):
        escaped = [escaped_surrogates(item) for item in value]
    return cast(_Value, escaped)


def number_text_problem(numeral: str) -> str | None:
    """Why the number written *numeral* is refused, or None: too many characters.

    :param numeral: the number as written (JSON, or a YAML scalar).
    """
    if len(numeral) > MAX_NUMBER_DIGITS:
        return f"a number is written with more than {MAX_NUMBER_DIGITS} characters"
    return None


def _parse_int(numeral: str) -> int:
    problem = number_text_problem(numeral)
    if problem is not None:
        raise _Refused(problem)
    return int(numeral)


def _parse_float(numeral: str) -> float:
    problem = number_text_problem(numeral)
    if problem is not None:
        raise _Refused(problem)
    value = float(numeral)
    if not math.isfinite(value):
        raise _Refused(f"the number {numeral} is too large for a float")
    return value


def _parse_constant(constant: str) -> Any:
    raise _Refused(f"{constant} is not a JSON number")


def _unique_pairs(pairs: list[tuple[str, Any]]) -> JSONObject:
    value = dict(pairs)
    if len(value) != len(pairs):
        raise _Refused("a key appears twice in one object")
    return value


def _decoder(parse_int: Callable[[str], int] | None) -> json.JSONDecoder:
    return json.JSONDecoder(
        object_pairs_hook=_unique_pairs,
        parse_int=parse_int,
        parse_float=_parse_float,
        parse_constant=_parse_constant,
    )


# Made once: json.loads with these hooks makes a decoder (and its scanner) per call, which
# costs a short text more than parsing it does.
_DECODER = _decoder(None)
_LONG_DECODER = _decoder(_parse_int)


def _loads(text: str) -> Any:
    """*text* parsed as ``json.loads`` with the hooks above parses it."""
    if text.startswith("\ufeff"):
        return json.loads(text)  # its error for a byte order mark
    # Integers are checked in Python only when the text has a long run of digits.
    return (_LONG_DECODER if _LONG_DIGITS.search(text) else _DECODER).decode(text)


def _holds_surrogate(value: Any) -> bool:
    """Whether a string anywhere in *value* (keys included) holds a lone surrogate."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not is_unicode(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _locate(text: str) -> tuple[str, int]:
    """The first refused thing in the valid JSON *text*: (message, character offset).

    A linear scan that builds nothing: only the keys of the objects still open are kept.
    """
    open_objects: list[set[str] | None] = []  # None for an array
    previous = ""
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char in " \t\r\n":
            index += 1
            continue
        start = index
        if char == '"':
            string, index = scanstring(text, index + 1, True)
            if not is_unicode(string):
                return "a \\u escape leaves a lone surrogate, which is not valid Unicode", start
            keys = open_objects[-1] if open_objects else None
            if keys is not None and previous in "{,":
                if string in keys:
                    return f"the key {string!r} appears twice in one object", start
                keys.add(string)
        elif char in "{[":
            open_objects.append(set() if char == "{" else None)
            index += 1
        elif char in "}]":
            open_objects.pop()
            index += 1
        elif char in ",:":
            index += 1
        elif char in "NI" or text.startswith("-I", index):
            constant = "NaN" if char == "N" else "Infinity"
            return f"{'-' if char == '-' else ''}{constant} is not a JSON number", start
        else:
            match = NUMBER_RE.match(text, index)
            if match is None:  # true, false, null
                index += 4 if char in "tn" else 5
            else:
                integer, fraction, exponent = match.groups()
                try:
                    if fraction or exponent:
                        _parse_float(match.group())
                    else:
                        _parse_int(integer)
                except _Refused as problem:
                    return str(problem), start
                index = match.end()
        previous = char
    return "the JSON holds a refused value", 0


def parse_json(data: str | bytes, *, lone_surrogates: bool = False) -> object:
    """Parse *data* as strict JSON.

    :param data: JSON text, or UTF-8 bytes (a byte order mark is allowed).
    :param lone_surrogates: let strings keep lone surrogates, for a reader that refuses
        them itself naming their place in the value.
    :raises json.JSONDecodeError: for invalid JSON and for each refusal listed in the
        module docstring, with the position of the offending value.
    :raises UnicodeDecodeError: for bytes that are not UTF-8.
    :raises RecursionError: for nesting too deep for the json module.
    """
    text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    try:
        value = _loads(text)
    except _Refused:
        message, offset = _locate(text)
        raise json.JSONDecodeError(message, text, offset) from None
    if lone_surrogates:
        return value
    # Only a surrogate escape, or a str holding a surrogate, can leave one in a string; the
    # walk over the value runs only then.
    suspect = _SURROGATE_ESCAPE.search(text) is not None or (
        not isinstance(data, bytes) and not is_unicode(text)
    )
    if suspect and _holds_surrogate(value):
        message, offset = _locate(text)
        raise json.JSONDecodeError(message, text, offset)
    return value


def load_json(
    data: str | bytes,
    *,
    error_class: type[LmmlError],
    name: str | None,
    subject: str,
    hint: str,
    lone_surrogates: bool = False,
    wording: Callable[[json.JSONDecodeError | RecursionError], str] | None = None,
) -> object:
    """Parse *data* with :func:`parse_json`.

    :param data: JSON text, or UTF-8 bytes.
    :param error_class: the error raised for every failure.
    :param name: the file or place named in the error.
    :param subject: what the data is, to start the message (``"chat data"``).
    :param hint: what to do about JSON that does not parse.
    :param lone_surrogates: as for :func:`parse_json`.
    :param wording: the message for JSON that does not parse or nests too deeply, from the
        json module's error, for a reader whose messages are worded its own way (by default
        ``SUBJECT is not valid JSON (WHY)`` and ``SUBJECT nests too deeply to read``).
    :raises LmmlError: (as *error_class*) for bytes that are not UTF-8, invalid JSON or a
        refused value (with line and column), or nesting too deep for the json module.
    """
    try:
        return parse_json(data, lone_surrogates=lone_surrogates)
    except UnicodeDecodeError as error:
        raise error_class(
            f"{subject} is not UTF-8 ({error.reason})", name=name, hint="save it as UTF-8"
        ) from None
    except json.JSONDecodeError as error:
        raise error_class(
            f"{subject} is not valid JSON ({error.msg})" if wording is None else wording(error),
            name=name,
            line=error.lineno,
            column=error.colno,
            hint=hint,
        ) from None
    except RecursionError as error:
        # The json module recurses once per nesting level; real payloads nest a few levels.
        message = f"{subject} nests too deeply to read" if wording is None else wording(error)
        raise error_class(message, name=name, hint=hint) from None
