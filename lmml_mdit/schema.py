"""The JSON Schemas the package ships, and the checker that applies them.

:data:`SETTINGS_SCHEMA_FILE` (the settings) and :data:`MANIFEST_SCHEMA_FILE`
(``manifest.json``) are the one source of their rules: :func:`schema_problems` checks a
value by interpreting the schema, in the subset of JSON Schema 2020-12 the shipped schemas
use, and refuses any other keyword rather than ignore it. See docs/bundles.md, "Settings
values and the schemas".
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass

from .jsontypes import JSONMapping, JSONObject

__all__ = [
    "MANIFEST_SCHEMA_FILE",
    "RANGES_KEYWORD",
    "SCHEMA_KEYWORDS",
    "SETTINGS_SCHEMA_FILE",
    "JsonPath",
    "SchemaProblem",
    "load_schema",
    "manifest_schema",
    "schema_problems",
    "settings_schema",
    "type_word",
]

SETTINGS_SCHEMA_FILE = "settings.schema.json"
"""The settings schema's file name, in the package's ``schemas`` folder."""

MANIFEST_SCHEMA_FILE = "manifest.schema.json"
"""The manifest schema's file name, in the package's ``schemas`` folder."""

_SCHEMAS_FOLDER = "schemas"

RANGES_KEYWORD = "x-provider-ranges"
"""The settings schema's annotation of a number setting: each provider's range (``minimum``,
``maximum``) from its API reference. A value outside one is a warning, not a problem."""

_ANNOTATIONS = frozenset({"$schema", "title", "description", "$comment", RANGES_KEYWORD})
SCHEMA_KEYWORDS = _ANNOTATIONS | frozenset(
    {
        "type",
        "enum",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "pattern",
        "minItems",
        "maxItems",
        "required",
        "items",
        "properties",
        "additionalProperties",
    }
)
"""Every keyword :func:`schema_problems` understands; a schema using another is refused."""

JsonPath = tuple["str | int", ...]
"""Where a value lies in a document: object keys and array indexes, from the top."""


@dataclass(frozen=True)
class SchemaProblem:
    """One way a value breaks a schema.

    :ivar path: where the value lies (``("stop", 1)`` for the second stop sequence).
    :ivar value: the value itself.
    :ivar problem: what is wrong, as the end of a sentence (``"must be at most 1"``).
    """

    path: JsonPath
    value: object
    problem: str


@functools.cache
def load_schema(file_name: str) -> JSONMapping:
    """The shipped schema *file_name* (read once), checked to use only :data:`SCHEMA_KEYWORDS`.

    :raises FileNotFoundError: for a name the package does not ship.
    :raises ValueError: for a schema using a keyword the checker does not know.
    """
    from importlib import resources  # costs more to import than the rest of validate

    text = resources.files(__package__ or "lmml_mdit").joinpath(_SCHEMAS_FOLDER).joinpath(file_name)
    schema: JSONObject = json.loads(text.read_text(encoding="utf-8"))
    _check_keywords(schema, file_name)
    return schema


def settings_schema() -> JSONMapping:
    """The settings schema (``lmml_mdit/schemas/settings.schema.json``)."""
    return load_schema(SETTINGS_SCHEMA_FILE)


def manifest_schema() -> JSONMapping:
    """The manifest schema (``lmml_mdit/schemas/manifest.schema.json``)."""
    return load_schema(MANIFEST_SCHEMA_FILE)


def _check_keywords(schema: JSONMapping, where: str) -> None:
    unknown = sorted(set(schema) - SCHEMA_KEYWORDS)
    if unknown:
        raise ValueError(f"{where} uses keywords the checker does not know: {unknown}")
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            _check_keywords(schema[key], f"{where}/{key}")
    for name, sub in schema.get("properties", {}).items():
        _check_keywords(sub, f"{where}/properties/{name}")


_TYPE_WORDS = {
    "null": "null",
    "boolean": "a boolean",
    "integer": "an integer",
    "number": "a number",
    "string": "a string",
    "array": "a list",
    "object": "a mapping",
}


def _is_type(value: object, name: str) -> bool:
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        if isinstance(value, float):
            return math.isfinite(value) and value.is_integer()
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    raise ValueError(f"unknown JSON Schema type {name!r}")


def type_word(value: object) -> str:
    """The schema's word for *value*'s type, with its article: ``a string``, ``a list``."""
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _is_type(value, name):
            return _TYPE_WORDS[name]
    return type(value).__name__


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _bound(bound: float) -> str:
    return repr(int(bound)) if isinstance(bound, float) and bound.is_integer() else repr(bound)


def schema_problems(value: object, schema: JSONMapping, path: JsonPath = ()) -> list[SchemaProblem]:
    """Every way *value* breaks *schema*, in document order; empty when it conforms.

    A value of the wrong type gets that one problem (its range is not checked too).

    :param path: where *value* lies, prefixed to each problem's path.
    """
    types = schema.get("type")
    if types is not None:
        if isinstance(types, str):
            conforms = _is_type(value, types)
            names = [types]
        else:
            names = list(types)
            conforms = any(_is_type(value, name) for name in names)
        if not conforms:
            wanted = _either([_TYPE_WORDS[name] for name in names])
            return [SchemaProblem(path, value, f"must be {wanted}, not {type_word(value)}")]
    problems: list[SchemaProblem] = []
    if "enum" in schema and not any(_same(value, choice) for choice in schema["enum"]):
        choices = ", ".join(json.dumps(choice) for choice in schema["enum"])
        problems.append(SchemaProblem(path, value, f"must be one of {choices}"))
    # The types are exclusive: the rules of the value's own type apply.
    if isinstance(value, dict):
        problems.extend(_mapping_problems(value, schema, path))
    elif isinstance(value, str):
        problems.extend(_string_problems(value, schema, path))
    elif isinstance(value, list):
        problems.extend(_list_problems(value, schema, path))
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        problems.extend(_number_problems(value, schema, path))
    return problems


def _number_problems(value: float, schema: JSONMapping, path: JsonPath) -> list[SchemaProblem]:
    found: list[str] = []
    if "minimum" in schema and value < schema["minimum"]:
        found.append(f"must be at least {_bound(schema['minimum'])}")
    if "maximum" in schema and value > schema["maximum"]:
        found.append(f"must be at most {_bound(schema['maximum'])}")
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        found.append(f"must be more than {_bound(schema['exclusiveMinimum'])}")
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        found.append(f"must be less than {_bound(schema['exclusiveMaximum'])}")
    return [SchemaProblem(path, value, problem) for problem in found]


def _string_problems(value: str, schema: JSONMapping, path: JsonPath) -> list[SchemaProblem]:
    found: list[str] = []
    if "minLength" in schema and len(value) < schema["minLength"]:
        found.append("must not be empty" if schema["minLength"] == 1 else "is too short")
    if "pattern" in schema and re.search(schema["pattern"], value) is None:
        found.append(f"must match {schema['pattern']}")
    return [SchemaProblem(path, value, problem) for problem in found]


def _list_problems(value: list[object], schema: JSONMapping, path: JsonPath) -> list[SchemaProblem]:
    problems: list[SchemaProblem] = []
    if "minItems" in schema and len(value) < schema["minItems"]:
        problems.append(
            SchemaProblem(path, value, f"must have at least {schema['minItems']} items")
        )
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        problems.append(SchemaProblem(path, value, f"must have at most {schema['maxItems']} items"))
    items = schema.get("items")
    if isinstance(items, dict):
        for index, item in enumerate(value):
            problems.extend(schema_problems(item, items, (*path, index)))
    return problems


def _mapping_problems(
    value: dict[str, object], schema: JSONMapping, path: JsonPath
) -> list[SchemaProblem]:
    problems: list[SchemaProblem] = []
    required = schema.get("required")
    if required:
        missing = [key for key in required if key not in value]
        if missing:
            problems.append(
                SchemaProblem(path, value, f"must have {_either([repr(key) for key in missing])}")
            )
    properties: JSONMapping | None = schema.get("properties")
    extra = schema.get("additionalProperties", True)
    if properties is None and extra is True:
        return problems  # no key has a rule
    if properties is None:
        properties = {}
    for key, item in value.items():
        sub = properties.get(key, extra)
        if sub is False:
            problems.append(SchemaProblem((*path, key), item, "is not a known key"))
        elif isinstance(sub, dict):
            problems.extend(schema_problems(item, sub, (*path, key)))
    return problems


def _same(value: object, choice: object) -> bool:
    """JSON equality: ``1`` and ``1.0`` are equal, ``True`` and ``1`` are not."""
    if isinstance(value, bool) or isinstance(choice, bool):
        return type(value) is type(choice) and value == choice
    return value == choice
