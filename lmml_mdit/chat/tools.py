"""Tools and structured output declared once, in the settings, for every provider.

The portable settings keys:

``tools``
    A list of function tools, each ``{"name": ..., "description": ..., "parameters":
    {JSON Schema}, "strict": bool}`` (only ``name`` is required; ``parameters`` defaults
    to an object schema with no properties). An item may also be given in any provider's
    own form (Chat ``{"type": "function", "function": {...}}``, Responses ``{"type":
    "function", "name": ...}``, Anthropic ``{"name": ..., "input_schema": ...}``, Gemini
    ``{"function_declarations": [...]}``); it is read as the same :class:`ToolSpec`.
    A provider's built-in tool (Responses ``web_search``, an Anthropic server tool, Gemini
    ``google_search``), or a function tool with keys of its provider's own, is a
    :class:`NativeTool`: it is sent unchanged to its provider and left out, with an
    :class:`~lmml_mdit.chat.content.UnknownSettingWarning`, for every other one.
``tool_choice``
    ``"auto"``, ``"none"``, ``"required"``, a tool's name, or ``{"name": X}``; any
    provider's own form is read too (Gemini's is ``tool_config``).
``response_format`` / ``output_schema``
    Structured output: ``response_format`` is ``{"schema": {JSON Schema}, "name": ...,
    "strict": bool, "description": ...}`` (or Chat's own ``{"type": "json_schema",
    "json_schema": {...}}``); ``output_schema`` is the JSON Schema alone. Responses
    ``text.format``, Anthropic ``output_config.format`` and Gemini ``response_mime_type`` +
    ``response_json_schema`` (or ``response_schema``) are read too.

:func:`portable_settings` rewrites a settings mapping in the portable form (what an import
stores); :func:`provider_settings` rewrites it in one provider's form (what a request
sends). Gemini takes JSON Schema as ``parameters_json_schema`` and
``response_json_schema``: its ``parameters`` and ``response_schema`` are an OpenAPI subset
that refuses common JSON Schema (a list of types, ``const``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import InvalidSettingsError, UnknownSettingWarning
from ..jsontypes import JSONMapping, JSONObject
from ..warn import warn
from .providers import PROVIDERS, anthropic, gemini, openai, openai_responses

__all__ = [
    "CHOICE_MODES",
    "DEFAULT_OUTPUT_NAME",
    "NativeTool",
    "OutputSchema",
    "ToolChoice",
    "ToolSpec",
    "choice_from_native",
    "choice_owner",
    "choice_to_native",
    "from_native",
    "output_from_native",
    "output_to_native",
    "portable_choice",
    "portable_output",
    "portable_settings",
    "portable_tools",
    "provider_settings",
    "to_native",
]

_CHAT = openai.NAME
_RESPONSES = openai_responses.NAME
_ANTHROPIC = anthropic.NAME
_GEMINI = gemini.NAME
_PROVIDERS = (_CHAT, _RESPONSES, _ANTHROPIC, _GEMINI)

CHOICE_MODES = ("auto", "none", "required")
"""The ``tool_choice`` values that name no tool."""

DEFAULT_OUTPUT_NAME = "response"
"""The structured-output name Chat and Responses require, when the settings give none."""

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_EMPTY_OBJECT: JSONObject = {"type": "object", "properties": {}}
_PORTABLE_KEYS = frozenset({"name", "description", "parameters", "strict"})
_OUTPUT_KEYS = frozenset({"schema", "name", "strict", "description"})
_GEMINI_TOOL_KEYS = ("function_declarations", "functionDeclarations")
_HINT = "see 'Tools and structured output' in the messages docs"

Where = str


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
    parameters: JSONObject = field(default_factory=lambda: dict(_EMPTY_OBJECT))
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


# --- errors ------------------------------------------------------------------------------


def _error(message: str, where: Where, hint: str = _HINT) -> InvalidSettingsError:
    return InvalidSettingsError(message, name=where, hint=hint)


def _tool_label(item: JSONMapping, where: Where) -> str:
    """The tool as an error names it (the error's ``name`` is its place)."""
    name = item.get("name")
    return f"tool {name!r}" if isinstance(name, str) else f"the tool at {where}"


def _object(value: object, what: str, where: Where) -> JSONObject:
    if not isinstance(value, dict):
        raise _error(f"{what} must be a JSON object, not {type(value).__name__}", where)
    return value


def _optional(value: object, kind: type, what: str, where: Where) -> Any:
    if value is not None and not isinstance(value, kind):
        wanted = "true or false" if kind is bool else "a string"
        raise _error(f"{what} must be {wanted}, not {type(value).__name__}", where)
    return value


# --- tools: reading ----------------------------------------------------------------------


_NULLABLE = ("description", "strict")


def _nulls(mapping: JSONMapping) -> frozenset[str]:
    """The optional keys *mapping* gives as ``null``."""
    return frozenset(key for key in _NULLABLE if key in mapping and mapping[key] is None)


def _is_openapi(schema: object) -> bool:
    """Whether *schema* is written in Gemini's OpenAPI subset (upper-case types such as
    ``"OBJECT"``), which JSON Schema never uses."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    return isinstance(kind, str) and kind.isupper()


def _spec(
    name: object,
    description: object,
    parameters: object,
    strict: object,
    where: Where,
    label: str,
    nulls: frozenset[str] = frozenset(),
) -> ToolSpec:
    if not isinstance(name, str):
        raise _error(f"{label}: 'name' must be a string, not {type(name).__name__}", where)
    if not _NAME.fullmatch(name):
        raise _error(
            f"{label}: 'name' must be 1 to 64 letters, digits, '_' or '-'",
            f"{where}.name",
            hint="rename the tool: every provider takes names of that form",
        )
    text = _optional(description, str, f"{label}: 'description'", f"{where}.description")
    if parameters is None:
        schema = dict(_EMPTY_OBJECT)
    else:
        schema = _object(parameters, f"{label}: 'parameters'", f"{where}.parameters")
        if schema.get("type", "object") not in ("object", "OBJECT"):
            raise _error(
                f"{label}: 'parameters' must describe an object (type 'object'), not "
                f"{schema.get('type')!r}",
                f"{where}.parameters",
                hint="wrap the argument in an object schema's properties",
            )
    flag = _optional(strict, bool, f"{label}: 'strict'", f"{where}.strict")
    return ToolSpec(name, text, schema, flag, nulls)


def _check_keys(item: JSONMapping, known: frozenset[str], label: str, where: Where) -> None:
    for key in item:
        if key not in known:
            raise _error(
                f"{label}: unknown key {key!r}",
                f"{where}.{key}",
                hint=f"a tool takes {', '.join(sorted(known))}; {_HINT}",
            )


def _read_chat(item: JSONObject, where: Where) -> list[Tool]:
    given = item.get("function")
    label = _tool_label(given if isinstance(given, dict) else {}, where)
    function = _object(given, f"{label}: 'function'", f"{where}.function")
    if set(item) - {"type", "function"} or set(function) - _PORTABLE_KEYS:
        return [NativeTool(_CHAT, item, f"{label} ({where})")]
    return [
        _spec(
            function.get("name"),
            function.get("description"),
            function.get("parameters"),
            function.get("strict"),
            f"{where}.function",
            label,
            _nulls(function),
        )
    ]


def _read_responses(item: JSONObject, where: Where) -> list[Tool]:
    label = _tool_label(item, where)
    if set(item) - _PORTABLE_KEYS - {"type"}:
        return [NativeTool(_RESPONSES, item, f"{label} ({where})")]
    return [
        _spec(
            item.get("name"),
            item.get("description"),
            item.get("parameters"),
            item.get("strict"),
            where,
            label,
            _nulls(item) - {"strict"},  # Responses sends strict: null for "not given"
        )
    ]


def _read_anthropic(item: JSONObject, where: Where) -> list[Tool]:
    label = _tool_label(item, where)
    if item.get("type", "custom") != "custom" or set(item) - {
        "type",
        "name",
        "description",
        "input_schema",
        "strict",
    }:
        return [NativeTool(_ANTHROPIC, item, f"{label} ({where})")]
    return [
        _spec(
            item.get("name"),
            item.get("description"),
            item.get("input_schema"),
            item.get("strict"),
            where,
            label,
            _nulls(item),
        )
    ]


def _read_gemini(item: JSONObject, where: Where) -> list[Tool]:
    key = next(key for key in _GEMINI_TOOL_KEYS if key in item)
    declarations = item[key]
    if not isinstance(declarations, list):
        raise _error(
            f"{where}: '{key}' must be a list, not {type(declarations).__name__}", f"{where}.{key}"
        )
    tools: list[Tool] = []
    for index, raw in enumerate(declarations):
        here = f"{where}.{key}[{index}]"
        declaration = _object(raw, f"{here}: a function declaration", here)
        label = _tool_label(declaration, here)
        json_schema = _first(declaration, "parameters_json_schema", "parametersJsonSchema")
        openapi = declaration.get("parameters")
        if set(declaration) - {
            "name",
            "description",
            "parameters",
            "parameters_json_schema",
            "parametersJsonSchema",
        } or (json_schema is not None and openapi is not None):
            tools.append(
                NativeTool(_GEMINI, {"function_declarations": [declaration]}, f"{label} ({here})")
            )
            continue
        # An OpenAPI-style schema (upper-case types) is kept as written: Gemini gets it
        # back as its ``parameters``, every other provider as JSON Schema.
        if json_schema is not None or _is_openapi(openapi):
            schema = json_schema if json_schema is not None else openapi
        else:
            schema = _from_openapi(openapi)
        tools.append(
            _spec(
                declaration.get("name"),
                declaration.get("description"),
                schema,
                None,
                here,
                label,
                _nulls(declaration) - {"strict"},
            )
        )
    rest = {k: v for k, v in item.items() if k != key}
    if rest:
        tools.append(NativeTool(_GEMINI, rest, f"{where} ({', '.join(sorted(rest))})"))
    return tools


def _first(mapping: JSONMapping, *keys: str) -> Any:
    for key in keys:
        if key in mapping:
            return mapping[key]
    return None


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


def _from_openapi(schema: object) -> object:
    """A Gemini ``Schema`` (its OpenAPI subset: ``"STRING"`` types, ``nullable``,
    snake_case keys) as JSON Schema. Anything else is returned as it is."""
    if isinstance(schema, list):
        return [_from_openapi(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: JSONObject = {}
    for key, value in schema.items():
        target = _OPENAPI_KEYS.get(str(key), str(key))
        if key in ("properties", "defs", "$defs"):
            out[target] = (
                {name: _from_openapi(sub) for name, sub in value.items()}
                if isinstance(value, dict)
                else value
            )
        elif key in ("items", "any_of", "anyOf", "additional_properties", "additionalProperties"):
            out[target] = _from_openapi(value)
        elif key == "type" and isinstance(value, str):
            out[target] = value.lower()
        else:
            out[target] = value
    if out.pop("nullable", None) is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out


def _read_item(item: object, where: Where) -> list[Tool]:
    """One ``tools`` item, in whichever form it is given."""
    tool = _object(item, f"{where}: a tool", where)
    kind = tool.get("type")
    if "function" in tool and kind in (None, "function"):
        return _read_chat(tool, where)
    if any(key in tool for key in _GEMINI_TOOL_KEYS):
        return _read_gemini(tool, where)
    if "input_schema" in tool or (isinstance(kind, str) and _is_anthropic_type(kind)):
        return _read_anthropic(tool, where)
    if kind == "function":
        return _read_responses(tool, where)
    if kind is not None:
        # Chat's custom tools carry their definition under "custom"; the rest are
        # Responses' built-in tools (web_search, file_search, mcp, ...).
        owner = _CHAT if "custom" in tool else _RESPONSES
        return [NativeTool(owner, tool, f"{kind!s} tool ({where})")]
    if tool and not set(tool) & _PORTABLE_KEYS:
        # Gemini's built-in tools are objects keyed by the tool: {"google_search": {}}.
        return [NativeTool(_GEMINI, tool, f"{', '.join(sorted(tool))} tool ({where})")]
    label = _tool_label(tool, where)
    _check_keys(tool, _PORTABLE_KEYS, label, where)
    return [
        _spec(
            tool.get("name"),
            tool.get("description"),
            tool.get("parameters"),
            tool.get("strict"),
            where,
            label,
            _nulls(tool),
        )
    ]


def _is_anthropic_type(kind: str) -> bool:
    """Anthropic's server tools are versioned by date (``web_search_20250305``)."""
    return kind == "custom" or bool(re.search(r"_\d{8}$", kind))


def portable_tools(value: object, *, where: Where = "tools") -> list[ToolSpec | NativeTool]:
    """The ``tools`` setting read as tools: portable items and any provider's own.

    A single tool object is read as a list of one.

    :raises InvalidSettingsError: for a malformed tool, naming the tool and the key: a
        name that is not 1 to 64 letters, digits, ``_`` or ``-``, ``parameters`` that are
        not an object schema, an unknown key in a portable item, two tools of one name.
    """
    items = [value] if isinstance(value, dict) else value
    if not isinstance(items, list):
        raise _error(
            f"'{where}' must be a list of tools, not {type(value).__name__}",
            where,
        )
    tools: list[Tool] = []
    seen: dict[str, str] = {}
    for index, item in enumerate(items):
        here = f"{where}[{index}]"
        for tool in _read_item(item, here):
            if isinstance(tool, ToolSpec):
                if tool.name in seen:
                    raise _error(
                        f"two tools are named {tool.name!r} ({seen[tool.name]} and {here})",
                        here,
                        hint="give each tool its own name",
                    )
                seen[tool.name] = here
            tools.append(tool)
    return tools


def from_native(provider: str, value: object) -> list[ToolSpec | NativeTool]:
    """*provider*'s ``tools`` parameter read as tools (see :func:`portable_tools`).

    :raises InvalidSettingsError: for a malformed tool, or an unknown provider.
    """
    _check_provider(provider)
    return portable_tools(value)


# --- tools: writing ----------------------------------------------------------------------


_SCHEMA_KEYS = {
    _CHAT: "parameters",
    _RESPONSES: "parameters",
    _ANTHROPIC: "input_schema",
    _GEMINI: "parameters_json_schema",
}
"""Where each provider's function declaration holds the parameters' JSON Schema."""


def _native_tool(provider: str, spec: ToolSpec) -> JSONObject:
    tool: JSONObject = {"name": spec.name}
    # Only Responses (and Gemini) type the description as nullable.
    if spec.description is not None or (
        "description" in spec.nulls and provider in (_RESPONSES, _GEMINI)
    ):
        tool["description"] = spec.description
    if _is_openapi(spec.parameters):
        # Written in Gemini's OpenAPI subset: Gemini takes it as written.
        if provider == _GEMINI:
            tool["parameters"] = spec.parameters
        else:
            tool[_SCHEMA_KEYS[provider]] = _from_openapi(spec.parameters)
    else:
        tool[_SCHEMA_KEYS[provider]] = spec.parameters
    # Responses requires the key (null allowed), Chat takes a null; Gemini has no such flag.
    if (
        provider == _RESPONSES
        or (spec.strict is not None and provider != _GEMINI)
        or ("strict" in spec.nulls and provider == _CHAT)
    ):
        tool["strict"] = spec.strict
    if provider == _CHAT:
        return {"type": "function", "function": tool}
    if provider == _RESPONSES:
        return {"type": "function", **tool}
    return tool


def to_native(provider: str, tools: list[ToolSpec | NativeTool]) -> list[JSONObject]:
    """*tools* as *provider*'s ``tools`` parameter.

    Gemini gets one tool object holding every function declaration, then its built-in
    tools. A :class:`NativeTool` of another provider is left out, and so is a tool's
    ``strict`` for Gemini (it has no such flag), each with an
    :class:`~lmml_mdit.chat.content.UnknownSettingWarning` naming it.

    :raises InvalidSettingsError: for an unknown provider.
    """
    _check_provider(provider)
    out: list[JSONObject] = []
    declarations: list[JSONObject] = []
    for tool in tools:
        if isinstance(tool, NativeTool):
            if tool.provider == provider:
                if provider == _GEMINI and list(tool.value) == ["function_declarations"]:
                    declarations.extend(tool.value["function_declarations"])
                else:
                    out.append(tool.value)
            else:
                _warn(
                    f"{tool.label} left out: a {PROVIDERS[tool.provider].title} tool, which "
                    f"{PROVIDERS[provider].title} does not take"
                )
            continue
        if provider == _GEMINI:
            if tool.strict is not None:
                _warn(f"tool {tool.name!r}: 'strict' left out: Gemini has no strict flag")
            declarations.append(_native_tool(provider, tool))
        else:
            out.append(_native_tool(provider, tool))
    if declarations:
        out.insert(0, {"function_declarations": declarations})
    return out


def _warn(message: str) -> None:
    warn(UnknownSettingWarning(message))


def _check_provider(provider: str) -> None:
    if provider not in _PROVIDERS:
        raise _error(
            f"unknown provider {provider!r}",
            "provider",
            hint=f"use one of {', '.join(_PROVIDERS)}",
        )


# --- tool choice -------------------------------------------------------------------------


def portable_choice(value: object, *, where: Where = "tool_choice") -> ToolChoice | None:
    """The ``tool_choice`` setting read as a :class:`ToolChoice`, in the portable form or
    any provider's own (Gemini's ``tool_config`` is read by :func:`choice_from_native`).

    :returns: None for a provider's own form that has no portable equivalent (Chat's
        ``allowed_tools``, a built-in tool), which is then sent as it is.
    :raises InvalidSettingsError: for a value of no known shape.
    """
    if isinstance(value, str):
        if value in CHOICE_MODES:
            return ToolChoice(value)  # type: ignore[arg-type]  # checked just above
        if value == "any":
            return ToolChoice("required")
        if _NAME.fullmatch(value):
            return ToolChoice("required", value)
        raise _error(
            f"'{where}' must be auto, none, required or a tool's name, not {value!r}", where
        )
    choice = _object(value, f"'{where}'", where)
    kind = choice.get("type")
    name = choice.get("name")
    if kind is None and set(choice) == {"name"}:
        return _named(name, where)
    if kind == "function" and set(choice) == {"type", "function"}:
        function = _object(choice["function"], f"'{where}.function'", f"{where}.function")
        return _named(function.get("name"), f"{where}.function")
    if kind == "function" and set(choice) == {"type", "name"}:
        return _named(name, where)
    if kind in ("auto", "any", "none") and set(choice) == {"type"}:
        return ToolChoice("required" if kind == "any" else kind)
    if kind == "tool" and set(choice) == {"type", "name"}:
        return _named(name, where)
    if isinstance(kind, str):
        return None
    raise _error(f"'{where}' has no known shape: {sorted(choice)}", where)


def _named(name: object, where: Where) -> ToolChoice:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise _error(f"'{where}' must name a tool, not {name!r}", where)
    return ToolChoice("required", name)


def choice_owner(value: object) -> str | None:
    """The provider whose own form a ``tool_choice`` with no portable equivalent is in,
    from its shape, or None when the shape does not tell."""
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if kind in ("auto", "any", "tool", "none"):
        return _ANTHROPIC  # with disable_parallel_tool_use
    if kind == "allowed_tools":
        return _CHAT if "allowed_tools" in value else _RESPONSES
    if kind == "custom":
        return _CHAT if "custom" in value else _RESPONSES
    if isinstance(kind, str):
        return _RESPONSES  # a built-in tool: file_search, web_search_preview, mcp, ...
    return None


def choice_from_native(provider: str, value: object) -> ToolChoice | None:
    """*provider*'s tool choice read: ``tool_choice`` for OpenAI and Anthropic, Gemini's
    ``tool_config`` (``function_calling_config``, snake_case or camelCase).

    :returns: None when the value has no portable equivalent (Gemini ``VALIDATED`` mode,
        or ``ANY`` restricted to several names).
    :raises InvalidSettingsError: for a malformed value.
    """
    _check_provider(provider)
    if provider != _GEMINI:
        return portable_choice(value)
    config = _object(value, "'tool_config'", "tool_config")
    if set(config) - {"function_calling_config", "functionCallingConfig"}:
        return None
    calling = _object(
        _first(config, "function_calling_config", "functionCallingConfig") or {},
        "'tool_config.function_calling_config'",
        "tool_config.function_calling_config",
    )
    if set(calling) - {"mode", "allowed_function_names", "allowedFunctionNames"}:
        return None
    mode = str(calling.get("mode", "AUTO")).upper()
    names = _first(calling, "allowed_function_names", "allowedFunctionNames")
    if mode == "AUTO" and not names:
        return ToolChoice("auto")
    if mode == "NONE" and not names:
        return ToolChoice("none")
    if mode == "ANY":
        if not names:
            return ToolChoice("required")
        if isinstance(names, list) and len(names) == 1:
            return _named(names[0], "tool_config.function_calling_config.allowed_function_names")
    return None


def choice_to_native(provider: str, choice: ToolChoice) -> JSONObject:
    """*choice* as *provider*'s parameter: ``{name: value}`` (``tool_choice``, or
    Gemini's ``tool_config``), to merge into a request's parameters.

    :raises InvalidSettingsError: for an unknown provider.
    """
    _check_provider(provider)
    name = choice.name
    if provider == _CHAT:
        if name is None:
            return {"tool_choice": choice.mode}
        return {"tool_choice": {"type": "function", "function": {"name": name}}}
    if provider == _RESPONSES:
        return {"tool_choice": choice.mode if name is None else {"type": "function", "name": name}}
    if provider == _ANTHROPIC:
        if name is not None:
            return {"tool_choice": {"type": "tool", "name": name}}
        return {"tool_choice": {"type": {"required": "any"}.get(choice.mode, choice.mode)}}
    calling: JSONObject = {"mode": {"required": "ANY"}.get(choice.mode, choice.mode.upper())}
    if name is not None:
        calling["allowed_function_names"] = [name]
    return {"tool_config": {"function_calling_config": calling}}


# --- structured output -------------------------------------------------------------------


def _output(raw: JSONMapping, where: Where) -> OutputSchema:
    schema = _object(raw.get("schema"), f"'{where}.schema'", f"{where}.schema")
    name = _optional(raw.get("name"), str, f"'{where}.name'", f"{where}.name")
    if name is not None and not _NAME.fullmatch(name):
        raise _error(f"'{where}.name' must be 1 to 64 letters, digits, '_' or '-'", where)
    return OutputSchema(
        schema,
        name,
        _optional(raw.get("strict"), bool, f"'{where}.strict'", f"{where}.strict"),
        _optional(raw.get("description"), str, f"'{where}.description'", f"{where}.description"),
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
        raise _error(
            "both 'output_schema' and 'response_format' declare structured output",
            "output_schema",
            hint="keep one of them",
        )
    if not given:
        return None
    if given[0] == "output_schema":
        return OutputSchema(_object(settings["output_schema"], "'output_schema'", "output_schema"))
    raw = _object(settings["response_format"], "'response_format'", "response_format")
    if raw.get("type") == "json_schema" and "json_schema" in raw:
        inner = _object(
            raw["json_schema"], "'response_format.json_schema'", "response_format.json_schema"
        )
        if set(raw) != {"type", "json_schema"}:
            raise _error("'response_format' holds unknown keys", "response_format")
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
            raise _error(
                f"'{where}' has an unknown key {key!r}",
                f"{where}.{key}",
                hint=f"structured output takes {', '.join(sorted(_OUTPUT_KEYS))}",
            )


def output_from_native(
    provider: str, settings: JSONMapping
) -> tuple[OutputSchema | None, JSONObject]:
    """*provider*'s structured-output parameters read out of *settings*.

    :returns: the schema (or None) and the settings without the parameters read (a
        Responses ``text`` or Anthropic ``output_config`` keeps its other keys).
    :raises InvalidSettingsError: for a malformed value.
    """
    _check_provider(provider)
    rest = dict(settings)
    if provider == _CHAT:
        found = (
            portable_output({"response_format": rest["response_format"]})
            if ("response_format" in rest)
            else None
        )
        if found is not None:
            del rest["response_format"]
        return found, rest
    if provider == _RESPONSES:
        return _nested_output(rest, "text", "format")
    if provider == _ANTHROPIC:
        return _nested_output(rest, "output_config", "format")
    mime = _first(rest, "response_mime_type", "responseMimeType")
    json_schema = _first(rest, "response_json_schema", "responseJsonSchema")
    openapi = _first(rest, "response_schema", "responseSchema")
    if mime != "application/json" or (json_schema is None) == (openapi is None):
        return None, rest
    schema = json_schema if json_schema is not None else _from_openapi(openapi)
    for key in (
        "response_mime_type",
        "responseMimeType",
        "response_json_schema",
        "responseJsonSchema",
        "response_schema",
        "responseSchema",
    ):
        rest.pop(key, None)
    return OutputSchema(_object(schema, "'response_json_schema'", "response_json_schema")), rest


def _nested_output(
    rest: JSONObject, key: str, inner: str
) -> tuple[OutputSchema | None, JSONObject]:
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


def output_to_native(provider: str, output: OutputSchema) -> JSONObject:
    """*output* as *provider*'s parameters (to merge into a request's).

    Anthropic's ``output_config.format`` has no name, strict flag or description, nor has
    Gemini's schema: those are left out with an
    :class:`~lmml_mdit.chat.content.UnknownSettingWarning` when given.

    :raises InvalidSettingsError: for an unknown provider.
    """
    _check_provider(provider)
    if provider == _CHAT:
        json_schema: JSONObject = {"name": output.name or DEFAULT_OUTPUT_NAME}
        if output.description is not None:
            json_schema["description"] = output.description
        json_schema["schema"] = output.schema
        if output.strict is not None:
            json_schema["strict"] = output.strict
        return {"response_format": {"type": "json_schema", "json_schema": json_schema}}
    if provider == _RESPONSES:
        form: JSONObject = {"type": "json_schema", "name": output.name or DEFAULT_OUTPUT_NAME}
        if output.description is not None:
            form["description"] = output.description
        form["schema"] = output.schema
        if output.strict is not None:
            form["strict"] = output.strict
        return {"text": {"format": form}}
    dropped = [key for key in ("name", "strict", "description") if getattr(output, key) is not None]
    if dropped:
        title = "Anthropic" if provider == _ANTHROPIC else "Gemini"
        _warn(f"structured output {', '.join(dropped)} left out: {title} takes the schema only")
    if provider == _ANTHROPIC:
        return {"output_config": {"format": {"type": "json_schema", "schema": output.schema}}}
    return {"response_mime_type": "application/json", "response_json_schema": output.schema}


# --- whole settings ----------------------------------------------------------------------


@dataclass
class _Declared:
    tools: list[Tool] | None
    choice: ToolChoice | None
    choice_native: object
    output: OutputSchema | None
    rest: JSONObject


def _declared(settings: JSONMapping) -> _Declared:
    """Everything *settings* declare about tools and output, in whichever form, and the
    settings left."""
    rest = dict(settings)
    output: OutputSchema | None = None
    for provider in (_RESPONSES, _ANTHROPIC, _GEMINI):
        found, rest = output_from_native(provider, rest)
        if found is not None:
            if output is not None:
                raise _error(
                    "structured output is declared twice",
                    "response_format",
                    hint="keep one declaration",
                )
            output = found
    portable = portable_output(rest)
    if portable is not None:
        if output is not None:
            raise _error("structured output is declared twice", "response_format", hint="keep one")
        output = portable
        rest.pop("output_schema", None)
        rest.pop("response_format", None)
    tools = portable_tools(rest.pop("tools")) if "tools" in rest else None
    choice: ToolChoice | None = None
    choice_native: object = None
    if "tool_choice" in rest:
        choice = portable_choice(rest["tool_choice"])
        if choice is None:
            choice_native = rest["tool_choice"]
        del rest["tool_choice"]
    config = _first(rest, "tool_config", "toolConfig")
    if config is not None:
        from_gemini = choice_from_native(_GEMINI, config)
        if from_gemini is not None:
            if choice is not None or choice_native is not None:
                raise _error(
                    "'tool_choice' and 'tool_config' both choose how tools are used",
                    "tool_choice",
                    hint="keep one of them",
                )
            choice = from_gemini
            rest.pop("tool_config", None)
            rest.pop("toolConfig", None)
    if choice is not None and choice.name is not None and tools is not None:
        names = {tool.name for tool in tools if isinstance(tool, ToolSpec)}
        if choice.name not in names and not any(isinstance(t, NativeTool) for t in tools):
            raise _error(
                f"'tool_choice' names {choice.name!r}, which no tool in 'tools' is",
                "tool_choice",
                hint=f"name one of {', '.join(sorted(names)) or 'the declared tools'}",
            )
    return _Declared(tools, choice, choice_native, output, rest)


def portable_settings(settings: JSONMapping) -> JSONObject:
    """*settings* with tools, tool choice and structured output in the portable form (what
    an import writes to the bundle's settings); every other key as it is.

    :raises InvalidSettingsError: for a malformed tool, choice or schema.
    """
    declared = _declared(settings)
    out = declared.rest
    if declared.tools is not None:
        out["tools"] = [
            tool.portable() if isinstance(tool, ToolSpec) else tool.value for tool in declared.tools
        ]
    if declared.choice is not None:
        out["tool_choice"] = declared.choice.portable()
    elif declared.choice_native is not None:
        out["tool_choice"] = declared.choice_native
    if declared.output is not None:
        out["response_format"] = declared.output.portable()
    return out


def provider_settings(settings: JSONMapping, provider: str) -> JSONObject:
    """*settings* with tools, tool choice and structured output in *provider*'s own
    parameters; every other key as it is (a Responses ``text`` or Anthropic
    ``output_config`` given beside a schema is merged with it).

    :raises InvalidSettingsError: for a malformed tool, choice or schema, or an unknown
        provider.
    """
    if provider not in _PROVIDERS and provider in PROVIDERS:
        return _plugin_settings(settings, provider)
    _check_provider(provider)
    declared = _declared(settings)
    out = declared.rest
    if declared.tools is not None:
        out["tools"] = to_native(provider, declared.tools)
    if declared.choice is not None:
        out.update(choice_to_native(provider, declared.choice))
    elif declared.choice_native is not None:
        owner = choice_owner(declared.choice_native)
        if owner in (None, provider):
            out["tool_choice"] = declared.choice_native
        else:
            _warn(
                f"tool_choice {declared.choice_native!r} left out: it is in "
                f"{PROVIDERS[owner].title}'s form, {PROVIDERS[provider].title} has no equivalent"
            )
    if declared.output is not None:
        for key, value in output_to_native(provider, declared.output).items():
            given = out.get(key)
            out[key] = {**given, **value} if isinstance(given, dict) else value
    return out


def _plugin_settings(settings: JSONMapping, provider: str) -> JSONObject:
    """*settings* for an installed plugin's provider, which takes no tools, tool choice or
    structured output (their translations are the built-in providers')."""
    declared = _declared(settings)
    given = (declared.tools, declared.choice, declared.choice_native, declared.output)
    if any(value is not None for value in given):
        raise _error(
            f"{PROVIDERS[provider].title} takes no tools, tool_choice or response_format",
            "provider",
            hint="leave them out of the settings for this provider",
        )
    return declared.rest
