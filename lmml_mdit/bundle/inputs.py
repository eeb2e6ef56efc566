"""Template inputs: the ``inputs:`` declarations of a bundle, and the values given for them.

Declarations are read from the front matter or the settings and each value is checked
against its declaration here; where a value is put is the chat layer's work
(:mod:`lmml_mdit.chat.content`), and the issues ``validate`` reports about inputs come from
:func:`input_issues`. The keys: docs/templates.md, "Declaring inputs".
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import functools
import json
import math
import os
import stat
import urllib.parse
from collections.abc import Container, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

from ..errors import BundleError, InputError
from ..jsontypes import JSONMapping
from ..model import ROLES, Issue, Role
from ..narrative.placeholders import Placeholder, Placeholders
from ..schema import SCHEMA_KEYWORDS, schema_problems, type_word
from ..text import is_unicode
from .archive import unsafe_reason
from .contents import BundleContents, entry_holding
from .folder import path_under
from .reserved import FRONT_MATTER_FIRST_LINE, FRONT_MATTER_NAME, load_settings
from .setting_values import settings_embed_source, settings_value_positions

__all__ = [
    "INPUTS_KEY",
    "INPUT_KINDS",
    "MESSAGES_TYPE",
    "InputDeclarations",
    "InputFile",
    "InputSpec",
    "InputType",
    "ValuesPath",
    "bind_inputs",
    "declared_inputs",
    "input_file",
    "input_issues",
    "input_text",
    "misplaced_messages",
    "value_problem",
    "values_file_path",
]

INPUTS_KEY = "inputs"
"""The front matter and settings key that declares the inputs (never sent as a setting)."""

InputType = Literal["string", "number", "integer", "boolean", "object", "image", "file", "messages"]
INPUT_TYPES: tuple[str, ...] = get_args(InputType)
ASSET_TYPES = frozenset({"image", "file"})
"""The input types whose value becomes an asset part rather than text."""
MESSAGES_TYPE = "messages"
"""The input type whose value is a conversation, put in as turns where its placeholder stands."""

INPUT_KINDS = ("undeclared_input", "missing_input", "invalid_input", "unused_input")
"""The issue kinds about inputs, as ``validate`` names them."""

_KEYS = frozenset({"type", "required", "default", "description", "schema", "in_code", "roles"})


@dataclass(frozen=True)
class InputSpec:
    """One declared input.

    :ivar name: its name, as placeholders write it.
    :ivar type: ``string``, ``number``, ``integer``, ``boolean``, ``object``, ``image`` or
        ``file``.
    :ivar required: whether a value must be given.
    :ivar default: the value used when none is given (when :attr:`has_default`).
    :ivar description: what it is, for a person; or None.
    :ivar schema: an ``object`` input's JSON Schema, or None.
    :ivar in_code: whether its placeholders are filled in code and embed fences too.
    :ivar roles: for a ``messages`` input, the roles its turns may have as declared, or
        None (the template's own roles).
    :ivar where: where it is declared, as issues name it (``front matter``,
        ``settings.yaml``).
    :ivar line: the 1-based line of its declaration, where known.
    :ivar column: the 1-based column, where known.
    :ivar file: the archive entry *line* counts in, or None for the narrative.
    """

    name: str
    type: InputType
    required: bool = True
    default: object = None
    has_default: bool = False
    description: str | None = None
    schema: JSONMapping | None = field(default=None, repr=False)
    in_code: bool = False
    roles: tuple[Role, ...] | None = None
    where: str = FRONT_MATTER_NAME
    line: int | None = None
    column: int | None = None
    file: str | None = None

    @property
    def is_asset(self) -> bool:
        """Whether a value becomes an asset part (``image``, ``file``) rather than text."""
        return self.type in ASSET_TYPES

    @property
    def is_messages(self) -> bool:
        """Whether a value is a conversation, put in as turns (``messages``)."""
        return self.type == MESSAGES_TYPE

    @property
    def is_part(self) -> bool:
        """Whether a value is put in as something other than text (an asset or turns)."""
        return self.type in ASSET_TYPES or self.type == MESSAGES_TYPE

    def fills(self, placeholder: Placeholder) -> bool:
        """Whether this input fills *placeholder*: in text always, in code and embed
        fences only when declared ``in_code``."""
        return placeholder.context == "text" or self.in_code

    def from_text(self, text: str) -> object:
        """A value given as text (a command-line flag, a CSV cell) read as this input's
        type: as it is for ``string``, ``image`` and ``file`` (a path); JSON for the
        others, where a ``messages`` text that is not a JSON list or object is a path.

        :raises ValueError: for text that is not JSON where JSON is needed, saying what
            to write.
        """
        if self.type in ("string", *ASSET_TYPES):
            return text
        from ..jsonio import parse_json

        try:
            found = parse_json(text)
        except (ValueError, RecursionError):
            if self.is_messages:
                return text
            raise ValueError(
                f'{text[:40]!r} is not a JSON {self.type} (write 3, true or {{"key": "value"}})'
            ) from None
        if self.is_messages and not isinstance(found, (list, dict)):
            return text
        return found


@dataclass(frozen=True)
class InputDeclarations:
    r"""A bundle's declared inputs, and the issues of declarations that do not read.

    :ivar specs: the inputs by name, in declaration order.
    :ivar issues: an ``invalid_input`` issue for each malformed declaration (left out of
        :attr:`specs`).
    :ivar declared: whether the bundle has an ``inputs:`` key at all, that is, whether it
        is a template. In a bundle that is not, ``{{ ... }}`` and ``\{{`` are ordinary
        text (a chat about Jinja or Handlebars stays as written, with no issue).
    """

    specs: Mapping[str, InputSpec] = field(default_factory=dict)
    issues: tuple[Issue, ...] = ()
    declared: bool = False

    def placeholders(self, found: Placeholders) -> Placeholders:
        """The placeholders and escapes of *found* that take effect: all of them in a
        template, none in a bundle that declares no inputs (the one place that rule lives;
        validation, the chat layer and the preview read what this returns)."""
        return found if self.declared else Placeholders()

    def fills(self, placeholder: Placeholder) -> InputSpec | None:
        """The input that fills *placeholder*, or None (undeclared, or in code)."""
        spec = self.specs.get(placeholder.name)
        return spec if spec is not None and spec.fills(placeholder) else None


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
    line, a case given to :func:`~lmml_mdit.chat.cases.render_cases`): it names a file
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


# --- declarations --------------------------------------------------------------------------


Positions = Mapping[tuple[str | int, ...], tuple[int, int]]


def _sources(bundle: BundleContents) -> Iterator[tuple[str, object, Positions, int, str | None]]:
    """Each place that declares inputs: ``(where, declarations, positions, first line,
    file)``, *positions* the 0-based places of that text's values by path, *first line* the
    line its text starts on in *file* (None: the narrative)."""
    try:
        front = bundle.front_matter
    except BundleError:
        front = None  # an invalid_front_matter issue of its own
    if front is not None:
        text = bundle.narrative.front_matter or ""
        below = front.get("settings")
        for prefix, holder in (((), front), (("settings",), below)):
            if isinstance(holder, dict) and INPUTS_KEY in holder:
                positions = settings_value_positions(text, json_text=False)
                shifted = {
                    path[len(prefix) :]: place
                    for path, place in positions.items()
                    if path[: len(prefix)] == prefix
                }
                yield FRONT_MATTER_NAME, holder[INPUTS_KEY], shifted, FRONT_MATTER_FIRST_LINE, None
    embedded = settings_embed_source(bundle)
    if embedded is None:
        return
    name, data, first_line = embedded
    try:
        values = load_settings(data, name=name, line=first_line)
    except BundleError:
        return  # an invalid_settings issue of its own
    if INPUTS_KEY not in values:
        return
    positions = settings_value_positions(
        data.decode("utf-8-sig"), json_text=name.lower().endswith(".json")
    )
    file = entry_holding(bundle, name)
    yield name, values[INPUTS_KEY], positions, first_line or 1, file


def declared_inputs(bundle: BundleContents) -> InputDeclarations:
    """Read *bundle*'s ``inputs:`` declarations (the front matter's, then the settings',
    a later one replacing an earlier of the same name), each located at its name."""
    specs: dict[str, InputSpec] = {}
    issues: list[Issue] = []
    found = False
    for where, declared, positions, first_line, file in _sources(bundle):
        found = True
        locate = functools.partial(_locate, positions, first_line)

        if not isinstance(declared, dict):
            line, column = locate((INPUTS_KEY,))
            issues.append(
                Issue(
                    "invalid_input",
                    INPUTS_KEY,
                    line,
                    column,
                    f"'inputs' in the {where} is {type_word(declared)}, not a mapping of "
                    "input names to declarations; write 'name: {type: string}' lines under it",
                    file=file,
                )
            )
            continue
        for name, declaration in declared.items():
            line, column = locate((INPUTS_KEY, name))
            spec, problem = _read_declaration(str(name), declaration)
            if problem is not None:
                issues.append(
                    Issue(
                        "invalid_input",
                        str(name),
                        line,
                        column,
                        f"the input {name!r} declared in the {where}: {problem}",
                        file=file,
                    )
                )
                continue
            assert spec is not None
            specs[spec.name] = dataclasses.replace(
                spec, where=where, line=line, column=column, file=file
            )
    return InputDeclarations(specs, tuple(issues), declared=found)


def _locate(positions: Positions, first_line: int, path: tuple[str, ...]) -> tuple[int, int]:
    """The 1-based line and column of the value at *path* (or its nearest located parent)."""
    while path and path not in positions:
        path = path[:-1]
    found = positions.get(path)
    if found is None:
        return first_line, 1
    return found[0] + first_line, found[1] + 1


def _read_declaration(name: str, declaration: object) -> tuple[InputSpec | None, str | None]:
    """The spec a declaration gives, or why it cannot be one."""
    if not _is_name(name):
        return None, "a name is letters, digits, _ and -, starting with a letter or _"
    if isinstance(declaration, str):
        declaration = {"type": declaration}
    if not isinstance(declaration, dict):
        return None, (
            f"the declaration is {type_word(declaration)}; give a type ('string') or a "
            "mapping with type, required or default, description"
        )
    unknown = sorted(set(declaration) - _KEYS)
    if unknown:
        return None, f"unknown key {unknown[0]!r}; the keys are {', '.join(sorted(_KEYS))}"
    kind = declaration.get("type")
    if kind not in INPUT_TYPES:
        return None, f"the type is {kind!r}; give one of {', '.join(INPUT_TYPES)}"
    required = declaration.get("required")
    if required is not None and not isinstance(required, bool):
        return None, "required must be true or false"
    in_code = declaration.get("in_code", False)
    if not isinstance(in_code, bool):
        return None, "in_code must be true or false"
    description = declaration.get("description")
    if description is not None and not isinstance(description, str):
        return None, "the description must be text"
    roles, problem = _roles(kind, declaration.get("roles"))
    if problem is not None:
        return None, problem
    if in_code and kind == MESSAGES_TYPE:
        return None, "a messages input puts in turns, which code cannot hold; remove in_code"
    schema = declaration.get("schema")
    if schema is not None:
        if kind != "object":
            return None, "only an object input takes a schema"
        problem = _schema_problem(schema)
        if problem is not None:
            return None, problem
    has_default = "default" in declaration
    default = declaration.get("default")
    if has_default:
        if kind in ASSET_TYPES or kind == MESSAGES_TYPE:
            return None, (
                f"{_article(kind)} {kind} input takes no default; declare it 'required: false' "
                "to let it go unattached"
            )
        if required:
            return None, "a required input has no use for a default; remove one of the two"
        spec = InputSpec(name, kind, required=False, schema=schema)
        problem = value_problem(spec, default)
        if problem is not None:
            return None, f"its default {problem}"
    spec = InputSpec(
        name=name,
        type=kind,
        required=required if required is not None else not has_default,
        default=default,
        has_default=has_default,
        description=description,
        schema=schema,
        in_code=in_code,
        roles=roles,
    )
    return spec, None


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _roles(kind: object, roles: object) -> tuple[tuple[Role, ...] | None, str | None]:
    """The roles a ``messages`` declaration allows, or why its ``roles`` do not read."""
    if roles is None:
        return None, None
    if kind != MESSAGES_TYPE:
        return None, "only a messages input takes roles"
    if not isinstance(roles, list) or not roles:
        return None, f"roles must be a list of roles ({', '.join(ROLES)})"
    chosen: list[Role] = []
    for role in roles:
        if role not in ROLES:
            return None, f"roles holds {role!r}; give roles from {', '.join(ROLES)}"
        chosen.append(role)
    return tuple(dict.fromkeys(chosen)), None


def _is_name(name: str) -> bool:
    return (
        bool(name)
        and (name[0].isascii() and (name[0].isalpha() or name[0] == "_"))
        and all(
            character.isascii() and (character.isalnum() or character in "_-") for character in name
        )
    )


def _schema_problem(schema: object) -> str | None:
    """Why *schema* is no schema :mod:`lmml_mdit.schema` can apply, or None."""
    pending = [schema]
    while pending:
        item = pending.pop()
        if not isinstance(item, dict):
            return f"the schema holds {type_word(item)} where a schema (a mapping) belongs"
        unknown = sorted(set(item) - SCHEMA_KEYWORDS)
        if unknown:
            return (
                f"the schema uses {unknown[0]!r}, which is not checked here; use only "
                f"{', '.join(sorted(SCHEMA_KEYWORDS))}"
            )
        for key in ("items", "additionalProperties"):
            if isinstance(item.get(key), dict):
                pending.append(item[key])
        properties = item.get("properties", {})
        if isinstance(properties, dict):
            pending.extend(properties.values())
    return None


# --- values ---------------------------------------------------------------------------------


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
    if not _encodable(value):
        return "holds a lone surrogate, which is not valid Unicode (no UTF-8 request holds it)"
    if isinstance(value, int) and not isinstance(value, bool) and not _fits_float(value):
        return "is a number too large for JSON readers (beyond a double's range)"
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


def _encodable(value: object) -> bool:
    """Whether every string in *value* (keys and values, nested) is valid Unicode."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not is_unicode(item):
                return False
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return True


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
    if values is not None and not isinstance(values, Mapping):
        raise TypeError(f"inputs must be a mapping of names to values, not {type(values).__name__}")
    given = values or {}
    specs = declarations.specs
    for name in given:
        if name not in specs:
            declared = ", ".join(specs) or "none"
            raise _error(
                "undeclared_input",
                None,
                str(name),
                f"no input {name!r} is declared (declared: {declared})",
                "declare it under 'inputs:' in the front matter or the settings, or fix the name",
            )
    bound: dict[str, object] = {}
    for name, spec in specs.items():
        if name in given:
            problem = value_problem(spec, given[name])
            if problem is not None:
                raise _error(
                    "invalid_input",
                    spec,
                    name,
                    f"the value of the {spec.type} input {name!r} {problem}",
                    "give a value of the declared type",
                )
            bound[name] = given[name]
        elif spec.has_default:
            bound[name] = spec.default
        elif spec.required and (used is None or name in used):
            raise _error(
                "missing_input",
                spec,
                name,
                f"the required {spec.type} input {name!r} has no value",
                f"pass inputs={{{name!r}: ...}}, or declare a default or 'required: false'",
                f"add --input {name}=VALUE (or give it in --inputs / each --cases line), or "
                "declare a default or 'required: false'",
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
        raise InputError(
            f"the input {name!r} holds more than max_entry_size ({limit} bytes)",
            name=name,
            kind="invalid_input",
            hint="give a smaller file, or open the bundle with a larger Limits(max_entry_size=)",
        )
    if asset_name is None:
        asset_name = name + extension_for(media_type_for(name, data))
    return InputFile(asset_name, data)


def values_file_path(name: str, value: str | os.PathLike[str]) -> str:
    """The path a file value names: a :class:`ValuesPath` checked to lie inside its
    folder, any other path as it is.

    :raises InputError: for a values-file path that leads outside its folder.
    """
    return _contained(name, value) if isinstance(value, ValuesPath) else os.fspath(value)


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
        return stream.read(limit + 1)


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


# --- validation -------------------------------------------------------------------------------


def input_issues(
    bundle: BundleContents,
    declarations: InputDeclarations,
    placeholders: tuple[Placeholder, ...],
    values: Mapping[str, object] | None = None,
) -> list[Issue]:
    """The issues ``validate`` reports about inputs: malformed declarations and fields into
    non-objects (``invalid_input``), placeholders no input declares (``undeclared_input``),
    declared inputs no placeholder uses (``unused_input``); and, when *values* are given,
    what :func:`bind_inputs` would refuse (``missing_input``, ``invalid_input``,
    ``undeclared_input``)."""
    issues = list(declarations.issues)
    specs = declarations.specs
    used: set[str] = set()
    for placeholder in placeholders:
        spec = specs.get(placeholder.name)
        if spec is None:
            if placeholder.context == "text":
                issues.append(
                    Issue(
                        "undeclared_input",
                        placeholder.name,
                        placeholder.line,
                        placeholder.column,
                        f"the placeholder {{{{ {placeholder.path} }}}} names no declared "
                        "input, so it is sent as written; declare it under 'inputs:' in the "
                        "front matter, or write \\{{ for literal braces",
                    )
                )
            continue
        if not spec.fills(placeholder):
            continue
        used.add(spec.name)
        if placeholder.fields and spec.type != "object":
            issues.append(
                Issue(
                    "invalid_input",
                    placeholder.name,
                    placeholder.line,
                    placeholder.column,
                    f"{{{{ {placeholder.path} }}}} reads a field of the {spec.type} input "
                    f"{spec.name!r}; only an object input has fields",
                )
            )
        elif spec.is_messages and not placeholder.holds_turns:
            issues.append(
                Issue(
                    "invalid_input",
                    placeholder.name,
                    placeholder.line,
                    placeholder.column,
                    misplaced_messages(spec.name) + "; move it to a line of its own",
                )
            )
        elif spec.is_asset and placeholder.context != "text":
            issues.append(
                Issue(
                    "invalid_input",
                    placeholder.name,
                    placeholder.line,
                    placeholder.column,
                    f"the {spec.type} input {spec.name!r} stands in code, where no asset can "
                    "be attached; move the placeholder out of the code",
                )
            )
    for name, spec in specs.items():
        if name not in used:
            issues.append(
                Issue(
                    "unused_input",
                    name,
                    spec.line,
                    spec.column,
                    f"the input {name!r} is declared but no placeholder uses it; write "
                    f"{{{{ {name} }}}} where it goes, or remove the declaration",
                    file=spec.file,
                )
            )
    if values is not None:
        issues.extend(_value_issues(declarations, values))
    return issues


def misplaced_messages(name: str) -> str:
    """Why a ``messages`` input's placeholder cannot stand where it does (it does not
    :attr:`~lmml_mdit.narrative.placeholders.Placeholder.holds_turns`)."""
    return (
        f"the messages input {name!r} puts in turns, so its placeholder must stand alone on "
        "its line, outside any list, quote, table or code"
    )


def _value_issues(declarations: InputDeclarations, values: Mapping[str, object]) -> list[Issue]:
    issues: list[Issue] = []
    specs = declarations.specs
    for name in values:
        if name not in specs:
            issues.append(
                Issue(
                    "undeclared_input",
                    str(name),
                    None,
                    None,
                    f"a value is given for {name!r}, which no input declares",
                )
            )
    for name, spec in specs.items():
        if name in values:
            problem = value_problem(spec, values[name])
            if problem is not None:
                issues.append(
                    Issue(
                        "invalid_input",
                        name,
                        spec.line,
                        spec.column,
                        f"the value given for the {spec.type} input {name!r} {problem}",
                        file=spec.file,
                    )
                )
        elif spec.required:
            issues.append(
                Issue(
                    "missing_input",
                    name,
                    spec.line,
                    spec.column,
                    f"the required {spec.type} input {name!r} has no value; give one",
                    file=spec.file,
                )
            )
    return issues
