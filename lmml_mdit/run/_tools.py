"""Python functions as tools: loaded from ``MODULE:FUNCTION``, declared, called.

A tool's definition is the settings' declaration of its name when there is one, else one
made from its signature (the parameters' annotations as JSON Schema types, those without a
default required) and its docstring's first paragraph.
"""

from __future__ import annotations

import importlib
import inspect
import json
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import ToolLoadError
from ..jsontypes import JSONMapping, JSONObject

__all__ = ["Tool", "load_tool", "tool_definition", "tool_result"]

Tool = Callable[..., object]
"""A function a model may call."""

_JSON_TYPES: dict[object, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    tuple: "array",
    dict: "object",
}


def load_tool(spec: str) -> Tool:
    """The function *spec* (``package.module:function``) names.

    :raises ToolLoadError: when the module cannot be imported or has no such function.
    """
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ToolLoadError(
            f"--tool {spec!r} is not MODULE:FUNCTION", hint="write --tool package.module:function"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ToolLoadError(
            f"cannot import {module_name!r} for --tool {spec}: {error}",
            hint="check the module name, and that its folder is on PYTHONPATH",
        ) from None
    found = module
    for name in attribute.split("."):
        found = getattr(found, name, None)  # type: ignore[assignment]
        if found is None:
            raise ToolLoadError(
                f"{module_name} has no {attribute!r} for --tool {spec}",
                hint="name a function the module defines",
            )
    if not callable(found):
        raise ToolLoadError(f"--tool {spec} is not a function", hint="name a function")
    return found


def _schema(annotation: object) -> JSONObject:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        return _schema(options[0]) if len(options) == 1 else {}
    if origin is typing.Literal:
        return {"enum": list(typing.get_args(annotation))}
    base = origin if origin is not None else annotation
    kind = _JSON_TYPES.get(base)
    if kind is None:
        return {}
    schema: JSONObject = {"type": kind}
    arguments = typing.get_args(annotation)
    if kind == "array" and arguments:
        schema["items"] = _schema(arguments[0])
    return schema


def tool_definition(name: str, function: Tool) -> JSONObject:
    """The portable declaration (``name``, ``description``, ``parameters``) of *function*."""
    try:
        hints = typing.get_type_hints(function)
    except (NameError, TypeError):
        hints = {}
    properties: JSONObject = {}
    required: list[str] = []
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        properties[parameter.name] = _schema(hints.get(parameter.name, parameter.annotation))
        if parameter.default is parameter.empty:
            required.append(parameter.name)
    definition: JSONObject = {"name": name}
    doc = inspect.getdoc(function)
    if doc:
        definition["description"] = doc.split("\n\n", 1)[0].replace("\n", " ")
    definition["parameters"] = {"type": "object", "properties": properties, "required": required}
    return definition


def declared_tools(
    settings: JSONMapping | None, functions: Mapping[str, Tool]
) -> list[JSONObject] | None:
    """The ``tools`` setting with a declaration added for each function the settings do
    not declare, or None when nothing is added."""
    existing: Sequence[Any] = (settings or {}).get("tools") or []
    named = {tool.get("name") for tool in existing if isinstance(tool, Mapping)}
    added = [
        tool_definition(name, function) for name, function in functions.items() if name not in named
    ]
    return [*existing, *added] if added else None


def tool_result(function: Tool, arguments: object) -> tuple[str, str | None]:
    """Call *function* with *arguments*; its result as text, and the name of the exception
    it raised, or None (the exception's text is then the result, for the model to see). A
    ``SystemExit`` (a script's ``main`` or argument parser wrapped as a tool) is such a
    failure too: it ends the tool, not the run."""
    try:
        if isinstance(arguments, Mapping):
            value = function(**arguments)
        elif arguments is None:
            value = function()
        else:
            value = function(arguments)
    except (Exception, SystemExit) as error:  # the model's to read, not a crash or an exit
        return f"error: {type(error).__name__}: {error}", type(error).__name__
    if isinstance(value, str):
        return value, None
    try:
        return json.dumps(value, ensure_ascii=False), None
    except (TypeError, ValueError):
        return str(value), None
