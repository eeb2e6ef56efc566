"""The portable tool model: :class:`ToolSpec`, :class:`NativeTool`, :class:`ToolChoice` and
:class:`OutputSchema`, with the checks that build them, which every provider's tool codec
(its :class:`~lmml_mdit.chat.providers.base.ToolFormat`) and :mod:`lmml_mdit.chat._tools` share.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from ..errors import InvalidSettingsError, UnknownSettingWarning
from ..jsontypes import JSONMapping, JSONObject
from ..warn import warn

__all__ = ["DEFAULT_OUTPUT_NAME", "NativeTool", "OutputSchema", "Tool", "ToolChoice", "ToolSpec"]

DEFAULT_OUTPUT_NAME = "response"
"""The structured-output name Chat and Responses require, when the settings give none."""

TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A tool's name, as every provider takes it."""
EMPTY_OBJECT: JSONObject = {"type": "object", "properties": {}}
PORTABLE_KEYS = frozenset({"name", "description", "parameters", "strict"})
"""The keys of a portable ``tools`` item."""
_OUTPUT_KEYS = frozenset({"schema", "name", "strict", "description"})
HINT = "see 'Tools and structured output' in the messages docs"

Where = str
_T = TypeVar("_T")
"""A setting's place, as an error names it (``tools[0].function``)."""


@dataclass(frozen=True)
class ToolSpec:
    """One function tool, in no provider's form.

    :ivar name: what the model calls it (letters, digits, ``_`` and ``-``, up to 64).
    :ivar description: what it does, or None.
    :ivar parameters: the JSON Schema of its arguments (an object schema).
    :ivar strict: whether the provider must follow the schema exactly, or None (the
        provider's default).
    :ivar nulls: the optional keys (``description``, ``strict``) the tool gave as
        ``null``: a null is written back as null where the provider takes one, and an
        absent key stays absent.
    """

    name: str
    description: str | None = None
    parameters: JSONObject = field(default_factory=lambda: dict(EMPTY_OBJECT))
    strict: bool | None = None
    nulls: frozenset[str] = frozenset()

    def portable(self) -> JSONObject:
        """The tool as a ``tools`` item of the portable settings."""
        out: JSONObject = {"name": self.name}
        if self.description is not None or "description" in self.nulls:
            out["description"] = self.description
        out["parameters"] = self.parameters
        if self.strict is not None or "strict" in self.nulls:
            out["strict"] = self.strict
        return out


@dataclass(frozen=True)
class NativeTool:
    """A tool only its provider takes, kept in that provider's form.

    :ivar provider: the provider it belongs to.
    :ivar value: the tool as that provider writes it.
    :ivar label: a few words naming it in a warning.
    """

    provider: str
    value: JSONObject
    label: str


@dataclass(frozen=True)
class ToolChoice:
    """How the model may use the tools.

    :ivar mode: ``"auto"``, ``"none"`` or ``"required"``; ``"required"`` with *name*
        forces that tool.
    :ivar name: the one tool the model must call, or None.
    """

    mode: Literal["auto", "none", "required"]
    name: str | None = None

    def portable(self) -> str | JSONObject:
        """The choice as the portable ``tool_choice`` setting."""
        return self.mode if self.name is None else {"name": self.name}


@dataclass(frozen=True)
class OutputSchema:
    """Structured output: the JSON Schema the reply must follow.

    :ivar schema: the JSON Schema.
    :ivar name: its name (Chat and Responses require one: :data:`DEFAULT_OUTPUT_NAME`
        when None).
    :ivar strict: whether the schema must be followed exactly, or None.
    :ivar description: what the output is for, or None.
    """

    schema: JSONObject
    name: str | None = None
    strict: bool | None = None
    description: str | None = None

    def portable(self) -> JSONObject:
        """The schema as the portable ``response_format`` setting."""
        out: JSONObject = {"schema": self.schema}
        for key in ("name", "strict", "description"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


Tool = ToolSpec | NativeTool


# --- errors and checks -------------------------------------------------------------------


def settings_error(message: str, where: Where, hint: str = HINT) -> InvalidSettingsError:
    """The error for a malformed tool, choice or schema at *where*."""
    return InvalidSettingsError(message, name=where, hint=hint)


def left_out(message: str) -> None:
    """Report a setting left out of a request."""
    warn(UnknownSettingWarning(message))


def tool_label(item: JSONMapping, where: Where) -> str:
    """The tool as an error names it (the error's ``name`` is its place)."""
    name = item.get("name")
    return f"tool {name!r}" if isinstance(name, str) else f"the tool at {where}"


def json_object(value: object, what: str, where: Where) -> JSONObject:
    """*value*, which must be a JSON object."""
    if not isinstance(value, dict):
        raise settings_error(f"{what} must be a JSON object, not {type(value).__name__}", where)
    return value


def optional(value: object, kind: type[_T], what: str, where: Where) -> _T | None:
    """*value*, which must be None or of *kind* (``bool`` or ``str``)."""
    if value is None:
        return None
    if not isinstance(value, kind):
        wanted = "true or false" if kind is bool else "a string"
        raise settings_error(f"{what} must be {wanted}, not {type(value).__name__}", where)
    return value


def first(mapping: JSONMapping, *keys: str) -> object:
    """The value of the first of *keys* in *mapping*, or None."""
    for key in keys:
        if key in mapping:
            return mapping[key]
    return None


# --- tools -------------------------------------------------------------------------------


_NULLABLE = ("description", "strict")


def nulls(mapping: JSONMapping) -> frozenset[str]:
    """The optional keys *mapping* gives as ``null``."""
    return frozenset(key for key in _NULLABLE if key in mapping and mapping[key] is None)


def tool_spec(
    name: object,
    description: object,
    parameters: object,
    strict: object,
    where: Where,
    label: str,
    nulls: frozenset[str] = frozenset(),
) -> ToolSpec:
    """A function tool's parts checked into a :class:`ToolSpec`."""
    if not isinstance(name, str):
        raise settings_error(f"{label}: 'name' must be a string, not {type(name).__name__}", where)
    if not TOOL_NAME.fullmatch(name):
        raise settings_error(
            f"{label}: 'name' must be 1 to 64 letters, digits, '_' or '-'",
            f"{where}.name",
            hint="rename the tool: every provider takes names of that form",
        )
    text = optional(description, str, f"{label}: 'description'", f"{where}.description")
    if parameters is None:
        schema = dict(EMPTY_OBJECT)
    else:
        schema = json_object(parameters, f"{label}: 'parameters'", f"{where}.parameters")
        if schema.get("type", "object") not in ("object", "OBJECT"):
            raise settings_error(
                f"{label}: 'parameters' must describe an object (type 'object'), not "
                f"{schema.get('type')!r}",
                f"{where}.parameters",
                hint="wrap the argument in an object schema's properties",
            )
    flag = optional(strict, bool, f"{label}: 'strict'", f"{where}.strict")
    return ToolSpec(name, text, schema, flag, nulls)


def is_openapi(schema: object) -> bool:
    """Whether *schema* is written in Gemini's OpenAPI subset (upper-case types such as
    ``"OBJECT"``), which JSON Schema never uses."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    return isinstance(kind, str) and kind.isupper()


_OPENAPI_KEYS = {
    "any_of": "anyOf",
    "additional_properties": "additionalProperties",
    "max_items": "maxItems",
    "min_items": "minItems",
    "max_length": "maxLength",
    "min_length": "minLength",
    "max_properties": "maxProperties",
    "min_properties": "minProperties",
    "property_ordering": "propertyOrdering",
    "defs": "$defs",
    "ref": "$ref",
}


def from_openapi(schema: object) -> object:
    """A Gemini ``Schema`` (its OpenAPI subset: ``"STRING"`` types, ``nullable``,
    snake_case keys) as JSON Schema. Anything else is returned as it is."""
    if isinstance(schema, list):
        return [from_openapi(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: JSONObject = {}
    for key, value in schema.items():
        target = _OPENAPI_KEYS.get(str(key), str(key))
        if key in ("properties", "defs", "$defs"):
            out[target] = (
                {name: from_openapi(sub) for name, sub in value.items()}
                if isinstance(value, dict)
                else value
            )
        elif key in ("items", "any_of", "anyOf", "additional_properties", "additionalProperties"):
            out[target] = from_openapi(value)
        elif key == "type" and isinstance(value, str):
            out[target] = value.lower()
        else:
            out[target] = value
    if out.pop("nullable", None) is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out


def json_parameters(spec: ToolSpec) -> JSONObject:
    """*spec*'s parameters as JSON Schema (converted when written in Gemini's OpenAPI subset)."""
    if is_openapi(spec.parameters):
        converted = from_openapi(spec.parameters)
        assert isinstance(converted, dict)  # a dict stays a dict
        return converted
    return spec.parameters


# --- tool choice and structured output ---------------------------------------------------


def written_in_order(
    tools: Iterable[ToolSpec | NativeTool], write: Callable[[ToolSpec], JSONObject]
) -> list[JSONObject]:
    """A ``tools`` parameter: each portable tool written by *write*, each native one as it
    is, in order."""
    return [tool.value if isinstance(tool, NativeTool) else write(tool) for tool in tools]


def named_choice(name: object, where: Where) -> ToolChoice:
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
        raise settings_error(f"'{where}' must name a tool, not {name!r}", where)
    return ToolChoice("required", name)


def _output(raw: JSONMapping, where: Where) -> OutputSchema:
    schema = json_object(raw.get("schema"), f"'{where}.schema'", f"{where}.schema")
    name = optional(raw.get("name"), str, f"'{where}.name'", f"{where}.name")
    if name is not None and not TOOL_NAME.fullmatch(name):
        raise settings_error(f"'{where}.name' must be 1 to 64 letters, digits, '_' or '-'", where)
    return OutputSchema(
        schema,
        name,
        optional(raw.get("strict"), bool, f"'{where}.strict'", f"{where}.strict"),
        optional(raw.get("description"), str, f"'{where}.description'", f"{where}.description"),
    )


def portable_output(settings: JSONMapping) -> OutputSchema | None:
    """The structured output the portable keys declare: ``output_schema`` (a JSON
    Schema) or ``response_format`` (portable, or Chat's ``json_schema`` form).

    :returns: None without either, or for Chat's ``json_object``/``text`` formats (sent
        to Chat as they are).
    :raises InvalidSettingsError: for both keys at once, or a malformed value.
    """
    given = [key for key in ("output_schema", "response_format") if key in settings]
    if len(given) == 2:
        raise settings_error(
            "both 'output_schema' and 'response_format' declare structured output",
            "output_schema",
            hint="keep one of them",
        )
    if not given:
        return None
    if given[0] == "output_schema":
        return OutputSchema(
            json_object(settings["output_schema"], "'output_schema'", "output_schema")
        )
    raw = json_object(settings["response_format"], "'response_format'", "response_format")
    if raw.get("type") == "json_schema" and "json_schema" in raw:
        inner = json_object(
            raw["json_schema"], "'response_format.json_schema'", "response_format.json_schema"
        )
        if set(raw) != {"type", "json_schema"}:
            raise settings_error("'response_format' holds unknown keys", "response_format")
        _check_output_keys(inner, "response_format.json_schema")
        return _output(inner, "response_format.json_schema")
    if raw.get("type") == "json_schema":
        _check_output_keys({k: v for k, v in raw.items() if k != "type"}, "response_format")
        return _output(raw, "response_format")
    if "type" in raw:
        return None
    _check_output_keys(raw, "response_format")
    return _output(raw, "response_format")


def _check_output_keys(raw: JSONMapping, where: Where) -> None:
    for key in raw:
        if key not in _OUTPUT_KEYS:
            raise settings_error(
                f"'{where}' has an unknown key {key!r}",
                f"{where}.{key}",
                hint=f"structured output takes {', '.join(sorted(_OUTPUT_KEYS))}",
            )


def nested_output(rest: JSONObject, key: str, inner: str) -> tuple[OutputSchema | None, JSONObject]:
    """The ``json_schema`` format held at ``rest[key][inner]`` read out of *rest* (a
    Responses ``text.format``, an Anthropic ``output_config.format``); the holder keeps
    its other keys."""
    holder = rest.get(key)
    if not isinstance(holder, dict) or not isinstance(holder.get(inner), dict):
        return None, rest
    value = holder[inner]
    if value.get("type") != "json_schema":
        return None, rest
    found = portable_output({"response_format": value})
    remaining = {k: v for k, v in holder.items() if k != inner}
    if remaining:
        rest[key] = remaining
    else:
        del rest[key]
    return found, rest


def schema_only(output: OutputSchema, title: str) -> JSONObject:
    """*output*'s schema, for a provider (*title*) that takes no name, strict flag or
    description: those are left out with a warning when given."""
    dropped = [key for key in ("name", "strict", "description") if getattr(output, key) is not None]
    if dropped:
        left_out(f"structured output {', '.join(dropped)} left out: {title} takes the schema only")
    return output.schema
