"""Template inputs declared: the ``inputs:`` of a bundle's front matter or settings read
into :class:`InputSpec` entries, each located at its name. The keys: docs/templates.md,
"Declaring inputs"."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from ..bundle import (
    FRONT_MATTER_FIRST_LINE,
    FRONT_MATTER_NAME,
    BundleContents,
    entry_holding,
    load_settings,
    settings_embed_source,
    settings_value_positions,
)
from ..errors import BundleError, InputError
from ..jsontypes import JSONMapping
from ..model import ROLES, Issue, Role
from ..narrative import Placeholder, Placeholders
from ..schema import SCHEMA_KEYWORDS, type_word
from ..text import clipped
from ._types import ASSET_TYPES, INPUT_TYPES, INPUTS_KEY, MESSAGES_TYPE, InputType
from ._values import value_problem

__all__ = ["InputDeclarations", "InputSpec", "declared_inputs"]


_JSON_OPENINGS = ("[", "{")
"""How a ``messages`` value given as text starts when it is JSON, not a path."""
_JSON_SPACE = " \t\r\n"
"""The white space JSON allows before a value."""

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
        others, where a ``messages`` text that is not a JSON list or object is a path,
        unless it starts like one (``[`` or ``{``).

        :raises ValueError: for text that is not JSON where JSON is needed, saying what
            to write.
        :raises InputError: (``invalid_input``) for a ``messages`` text that starts with
            ``[`` or ``{`` and is not valid JSON, with the JSON error and its line and
            column (never taken for a path).
        """
        if self.type in ("string", *ASSET_TYPES):
            return text
        from ..jsonio import parse_json

        try:
            found = parse_json(text)
        except (ValueError, RecursionError) as error:
            if self.is_messages:
                if text.lstrip(_JSON_SPACE)[:1] in _JSON_OPENINGS:
                    raise self._invalid_inline_json(error) from None
                return text
            raise ValueError(
                f'{text[:40]!r} is not a JSON {self.type} (write 3, true or {{"key": "value"}})'
            ) from None
        if self.is_messages and not isinstance(found, (list, dict)):
            return text
        return found

    def _invalid_inline_json(self, error: ValueError | RecursionError) -> InputError:
        """The error for a ``messages`` text that starts like JSON and does not parse."""
        if isinstance(error, json.JSONDecodeError):
            why = f"{error.msg} (line {error.lineno}, column {error.colno})"
        elif isinstance(error, RecursionError):
            why = "it nests too deeply to read"
        else:
            why = str(error)
        return InputError(
            f"the inline JSON is invalid: {why}",
            name=self.name,
            kind="invalid_input",
            hint="fix the JSON; a file's path starting with [ or { is written with ./ before it",
            cli_hint=f"fix the JSON, or name a conversation file with --input {self.name}=@PATH",
        )


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

    def malformed(self, name: str) -> Issue | None:
        """The issue of *name*'s declaration when it does not read (it is then in no
        :attr:`specs`), or None: a placeholder or a value naming it is that issue's, not
        an undeclared input."""
        return next((issue for issue in self.issues if issue.name == name), None)

    def fills(self, placeholder: Placeholder) -> InputSpec | None:
        """The input that fills *placeholder*, or None (undeclared, or in code)."""
        spec = self.specs.get(placeholder.name)
        return spec if spec is not None and spec.fills(placeholder) else None


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
        shown = clipped(repr(unknown[0]), 80)
        return None, f"unknown key {shown}; the keys are {', '.join(sorted(_KEYS))}"
    kind = declaration.get("type")
    if kind not in INPUT_TYPES:
        return None, f"the type is {clipped(repr(kind), 80)}; give one of {', '.join(INPUT_TYPES)}"
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
