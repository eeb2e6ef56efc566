"""A custom tool's declaration and choice (OpenAI's free-form tools) between the two OpenAI
APIs: Chat's tool ``{"type": "custom", "custom": {"name", "description", "format"}}``
and choice ``{"type": "custom", "custom": {"name"}}``; Responses' tool ``{"type":
"custom", "name", "description", "format"}`` and choice ``{"type": "custom", "name"}``.
A grammar format's ``definition`` and ``syntax`` sit under ``grammar`` in Chat's, beside
``type`` in Responses'. A key the other API has no place for is left out with a warning.
"""

from __future__ import annotations

import copy

from ...jsontypes import JSONMapping, JSONObject
from .._format_names import OPENAI
from .._tool_model import NativeTool, left_out

__all__ = [
    "OPENAI_RESPONSES",
    "chat_custom_choice",
    "chat_custom_tool",
    "responses_custom_choice",
    "responses_custom_tool",
]

OPENAI_RESPONSES = "openai-responses"
"""The Responses format's name (its module reads the Chat one, so Chat's cannot read it)."""

_CUSTOM = "custom"
_SHARED = ("name", "description")
_GRAMMAR_KEYS = ("definition", "syntax")


def _left_out(tool: NativeTool, keys: set[str], target: str) -> None:
    """Warn that each of *keys* of *tool* is left out of its form for *target*."""
    for key in sorted(keys):
        left_out(f"{tool.label}: key {key!r} left out: {target} takes no such key")


def _format(value: object, *, nested: bool) -> JSONObject | None:
    """A custom tool's input ``format`` in the other API's form: a ``grammar`` format's
    ``definition`` and ``syntax`` moved under ``grammar`` (*nested*, Chat's form) or out
    of it (Responses'); ``text`` as it is; None for any other shape."""
    if not isinstance(value, dict):
        return None
    if value.get("type") == "text" and set(value) == {"type"}:
        return {"type": "text"}
    if value.get("type") != "grammar":
        return None
    if nested:  # Responses' flat grammar into Chat's
        if set(value) != {"type", *_GRAMMAR_KEYS}:
            return None
        return {"type": "grammar", "grammar": {key: value[key] for key in _GRAMMAR_KEYS}}
    inner = value.get("grammar")
    if set(value) != {"type", "grammar"} or not isinstance(inner, dict):
        return None
    if set(inner) != set(_GRAMMAR_KEYS):
        return None
    return {"type": "grammar", **{key: inner[key] for key in _GRAMMAR_KEYS}}


def responses_custom_tool(tool: NativeTool, target: str) -> JSONObject | None:
    """*tool*, a Chat custom tool, in Responses' form; None when it is none, or its format
    has no Responses form (it is then left out as another API's tool)."""
    value = tool.value
    custom = value.get(_CUSTOM)
    if tool.provider != OPENAI or value.get("type") != _CUSTOM or not isinstance(custom, dict):
        return None
    out: JSONObject = {"type": _CUSTOM}
    out.update({key: copy.deepcopy(custom[key]) for key in _SHARED if key in custom})
    if "format" in custom:
        converted = _format(custom["format"], nested=False)
        if converted is None:
            return None
        out["format"] = converted
    others = {f"{_CUSTOM}.{key}" for key in custom if key not in (*_SHARED, "format")}
    _left_out(tool, others | (set(value) - {"type", _CUSTOM}), target)
    return out


def chat_custom_tool(tool: NativeTool, target: str) -> JSONObject | None:
    """*tool*, a Responses custom tool, in Chat's form; None when it is none, or its format
    has no Chat form (it is then left out as another API's tool)."""
    value = tool.value
    if tool.provider != OPENAI_RESPONSES or value.get("type") != _CUSTOM or _CUSTOM in value:
        return None
    inner: JSONObject = {key: copy.deepcopy(value[key]) for key in _SHARED if key in value}
    if "format" in value:
        converted = _format(value["format"], nested=True)
        if converted is None:
            return None
        inner["format"] = converted
    _left_out(tool, set(value) - {"type", "format", *_SHARED}, target)
    return {"type": _CUSTOM, _CUSTOM: inner}


def responses_custom_choice(owner: str, value: JSONMapping) -> JSONObject | None:
    """A Chat custom tool's ``tool_choice`` in Responses' form; None for any other choice."""
    inner = value.get(_CUSTOM)
    if owner != OPENAI or value.get("type") != _CUSTOM or set(value) != {"type", _CUSTOM}:
        return None
    if not isinstance(inner, dict) or set(inner) != {"name"}:
        return None
    return {"type": _CUSTOM, "name": copy.deepcopy(inner["name"])}


def chat_custom_choice(owner: str, value: JSONMapping) -> JSONObject | None:
    """A Responses custom tool's ``tool_choice`` in Chat's form; None for any other choice."""
    if owner != OPENAI_RESPONSES or value.get("type") != _CUSTOM or set(value) != {"type", "name"}:
        return None
    return {"type": _CUSTOM, _CUSTOM: {"name": copy.deepcopy(value["name"])}}
