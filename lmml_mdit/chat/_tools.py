"""Tools and structured output declared once, in the settings, for every provider.

The portable keys are ``tools``, ``tool_choice`` and ``response_format`` /
``output_schema`` (any provider's own form is read too). :func:`portable_settings` rewrites
settings in the portable form (what an import stores), :func:`provider_settings` in one
provider's form (what a request sends), through each provider's
:class:`~lmml_mdit.chat.providers.base.ToolFormat`. See docs/messages.md, "Tools and
structured output".
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..errors import InvalidSettingsError
from ..jsontypes import JSONMapping, JSONObject
from ._tool_model import (
    DEFAULT_OUTPUT_NAME,
    HINT,
    PORTABLE_KEYS,
    TOOL_NAME,
    NativeTool,
    OutputSchema,
    Tool,
    ToolChoice,
    ToolSpec,
    Where,
    first,
    json_object,
    left_out,
    named_choice,
    nulls,
    portable_output,
    settings_error,
    tool_label,
    tool_spec,
)
from .providers import PROVIDERS
from .providers.base import ToolFormat

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

CHOICE_MODES = ("auto", "none", "required")
"""The ``tool_choice`` values that name no tool."""


# --- the providers' codecs ---------------------------------------------------------------


def _codecs() -> list[tuple[str, ToolFormat]]:
    """Every provider's tool codec, in the order its readers try a shape."""
    found = [(name, p.tools) for name, p in PROVIDERS.items() if p.tools is not None]
    return sorted(found, key=lambda pair: -pair[1].precedence)


def _codec(provider: str) -> ToolFormat:
    """*provider*'s tool codec.

    :raises InvalidSettingsError: for an unknown provider, or one that takes no tools.
    """
    known = PROVIDERS.get(provider)
    if known is not None and known.tools is not None:
        return known.tools
    if known is not None:
        raise _takes_none(provider)
    names = [name for name, p in PROVIDERS.items() if p.tools is not None]
    raise settings_error(
        f"unknown provider {provider!r}", "provider", hint=f"use one of {', '.join(names)}"
    )


def _takes_none(provider: str) -> InvalidSettingsError:
    return settings_error(
        f"{PROVIDERS[provider].title} takes no tools, tool_choice or response_format",
        "provider",
        hint="leave them out of the settings for this provider",
    )


# --- tools -------------------------------------------------------------------------------


def _read_item(item: object, where: Where) -> list[Tool]:
    """One ``tools`` item, in whichever form it is given."""
    tool = json_object(item, f"{where}: a tool", where)
    codecs = [codec for _, codec in _codecs()]
    for codec in codecs:
        read = codec.read_tool(tool, where)
        if read is not None:
            return read
    for codec in codecs:
        builtin = codec.read_builtin(tool, where)
        if builtin is not None:
            return [builtin]
    label = tool_label(tool, where)
    for key in tool:
        if key not in PORTABLE_KEYS:
            raise settings_error(
                f"{label}: unknown key {key!r}",
                f"{where}.{key}",
                hint=f"a tool takes {', '.join(sorted(PORTABLE_KEYS))}; {HINT}",
            )
    return [
        tool_spec(
            tool.get("name"),
            tool.get("description"),
            tool.get("parameters"),
            tool.get("strict"),
            where,
            label,
            nulls(tool),
        )
    ]


def portable_tools(value: object, *, where: Where = "tools") -> list[ToolSpec | NativeTool]:
    """The ``tools`` setting read as tools: portable items and any provider's own.

    A single tool object is read as a list of one.

    :raises InvalidSettingsError: for a malformed tool, naming the tool and the key: a
        name that is not 1 to 64 letters, digits, ``_`` or ``-``, ``parameters`` that are
        not an object schema, an unknown key in a portable item, two tools of one name.
    """
    items = [value] if isinstance(value, dict) else value
    if not isinstance(items, list):
        raise settings_error(
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
                    raise settings_error(
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
    _codec(provider)
    return portable_tools(value)


def to_native(provider: str, tools: list[ToolSpec | NativeTool]) -> list[JSONObject]:
    """*tools* as *provider*'s ``tools`` parameter.

    Gemini gets one tool object holding every function declaration, then its built-in
    tools. A :class:`NativeTool` of another provider is written in *provider*'s form when
    it has one (a custom tool between the two OpenAI APIs), else left out, and so is a tool's
    ``strict`` for Gemini (it has no such flag), each with an
    :class:`~lmml_mdit.UnknownSettingWarning` naming it.

    :raises InvalidSettingsError: for an unknown provider.
    """
    codec = _codec(provider)

    def own() -> Iterator[ToolSpec | NativeTool]:
        for tool in tools:
            if isinstance(tool, NativeTool) and tool.provider != provider:
                adopted = codec.adopt_tool(tool)
                if adopted is not None:
                    yield NativeTool(provider, adopted, tool.label)
                    continue
                left_out(
                    f"{tool.label} left out: {PROVIDERS[provider].title} does not take "
                    f"{PROVIDERS[tool.provider].title} tools"
                )
            else:
                yield tool

    return codec.write_tools(own())


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
        if TOOL_NAME.fullmatch(value):
            return ToolChoice("required", value)
        raise settings_error(
            f"'{where}' must be auto, none, required or a tool's name, not {value!r}", where
        )
    choice = json_object(value, f"'{where}'", where)
    kind = choice.get("type")
    name = choice.get("name")
    if kind is None and set(choice) == {"name"}:
        return named_choice(name, where)
    if kind == "function" and set(choice) == {"type", "function"}:
        function = json_object(choice["function"], f"'{where}.function'", f"{where}.function")
        return named_choice(function.get("name"), f"{where}.function")
    if kind == "function" and set(choice) == {"type", "name"}:
        return named_choice(name, where)
    if kind in ("auto", "any", "none") and set(choice) == {"type"}:
        return ToolChoice("required" if kind == "any" else kind)
    if kind == "tool" and set(choice) == {"type", "name"}:
        return named_choice(name, where)
    if isinstance(kind, str):
        return None
    raise settings_error(f"'{where}' has no known shape: {sorted(choice)}", where)


def choice_owner(value: object) -> str | None:
    """The provider whose own form a ``tool_choice`` with no portable equivalent is in,
    from its shape, or None when the shape does not tell."""
    if not isinstance(value, dict):
        return None
    return next((name for name, codec in _codecs() if codec.owns_choice(value)), None)


def choice_from_native(provider: str, value: object) -> ToolChoice | None:
    """*provider*'s tool choice read: ``tool_choice`` for OpenAI and Anthropic, Gemini's
    ``tool_config`` (``function_calling_config``, snake_case or camelCase).

    :returns: None when the value has no portable equivalent (Gemini ``VALIDATED`` mode,
        or ``ANY`` restricted to several names).
    :raises InvalidSettingsError: for a malformed value.
    """
    codec = _codec(provider)
    if codec.read_choice is None:
        return portable_choice(value)
    return codec.read_choice(value)


def choice_to_native(provider: str, choice: ToolChoice) -> JSONObject:
    """*choice* as *provider*'s parameter: ``{name: value}`` (``tool_choice``, or
    Gemini's ``tool_config``), to merge into a request's parameters.

    :raises InvalidSettingsError: for an unknown provider.
    """
    return _codec(provider).write_choice(choice)


# --- structured output -------------------------------------------------------------------


def output_from_native(
    provider: str, settings: JSONMapping
) -> tuple[OutputSchema | None, JSONObject]:
    """*provider*'s structured-output parameters read out of *settings*.

    :returns: the schema (or None) and the settings without the parameters read (a
        Responses ``text`` or Anthropic ``output_config`` keeps its other keys).
    :raises InvalidSettingsError: for a malformed value.
    """
    codec = _codec(provider)
    rest = dict(settings)
    if codec.read_output is not None:
        return codec.read_output(rest)
    found = (
        portable_output({"response_format": rest["response_format"]})
        if ("response_format" in rest)
        else None
    )
    if found is not None:
        del rest["response_format"]
    return found, rest


def output_to_native(provider: str, output: OutputSchema) -> JSONObject:
    """*output* as *provider*'s parameters (to merge into a request's).

    Anthropic's ``output_config.format`` has no name, strict flag or description, nor has
    Gemini's schema: those are left out with an
    :class:`~lmml_mdit.UnknownSettingWarning` when given.

    :raises InvalidSettingsError: for an unknown provider.
    """
    return _codec(provider).write_output(output)


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
    codecs = [p.tools for p in PROVIDERS.values() if p.tools is not None]
    for codec in codecs:
        if codec.read_output is None:
            continue  # its output is response_format, read below as the portable one
        found, rest = codec.read_output(rest)
        if found is not None:
            if output is not None:
                raise settings_error(
                    "structured output is declared twice",
                    "response_format",
                    hint="keep one declaration",
                )
            output = found
    portable = portable_output(rest)
    if portable is not None:
        if output is not None:
            raise settings_error(
                "structured output is declared twice", "response_format", hint="keep one"
            )
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
    for codec in codecs:
        config = first(rest, *codec.choice_keys)
        if codec.read_choice is None or config is None:
            continue
        native = codec.read_choice(config)
        if native is not None:
            if choice is not None or choice_native is not None:
                raise settings_error(
                    f"'tool_choice' and '{codec.choice_keys[0]}' both choose how tools are used",
                    "tool_choice",
                    hint="keep one of them",
                )
            choice = native
            for key in codec.choice_keys:
                rest.pop(key, None)
    if choice is not None and choice.name is None and choice.mode == "required" and tools is None:
        raise settings_error(
            "'tool_choice' requires a tool call, but the settings declare no 'tools'",
            "tool_choice",
            hint="declare the tools under 'tools', or remove 'tool_choice'",
        )
    if choice is not None and choice.name is not None and tools is None:
        raise settings_error(
            f"'tool_choice' names {choice.name!r}, but the settings declare no 'tools'",
            "tool_choice",
            hint=f"declare {choice.name!r} under 'tools', or remove 'tool_choice'",
        )
    if choice is not None and choice.name is not None and tools is not None:
        names = {tool.name for tool in tools if isinstance(tool, ToolSpec)}
        if choice.name not in names and not any(isinstance(t, NativeTool) for t in tools):
            raise settings_error(
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
    if provider in PROVIDERS and PROVIDERS[provider].tools is None:
        return _plugin_settings(settings, provider)
    codec = _codec(provider)
    declared = _declared(settings)
    out = declared.rest
    if declared.tools is not None:
        out["tools"] = to_native(provider, declared.tools)
        if declared.tools and not out["tools"]:
            del out["tools"]  # each tool was another provider's, reported as left out
    if declared.choice is not None and _choice_sendable(provider, declared):
        out.update(choice_to_native(provider, declared.choice))
    elif declared.choice_native is not None:
        owner = choice_owner(declared.choice_native)
        native = declared.choice_native
        adopted = None
        if owner not in (None, provider) and isinstance(native, dict):
            adopted = codec.adopt_choice(str(owner), native)
        if owner in (None, provider):
            out["tool_choice"] = declared.choice_native
        elif adopted is not None:
            out["tool_choice"] = adopted
        else:
            left_out(
                f"tool_choice {declared.choice_native!r} left out: it is in "
                f"{PROVIDERS[owner].title}'s form, {PROVIDERS[provider].title} has no equivalent"
            )
    if declared.output is not None:
        for key, value in output_to_native(provider, declared.output).items():
            given = out.get(key)
            out[key] = {**given, **value} if isinstance(given, dict) else value
    return out


def _native_name(tool: NativeTool) -> object:
    """The name a provider's own tool goes by (a Chat custom tool's is inside it)."""
    inner = tool.value.get("custom")
    return inner.get("name") if isinstance(inner, dict) else tool.value.get("name")


def _choice_sendable(provider: str, declared: _Declared) -> bool:
    """Whether the portable tool choice can go to *provider*: not when every declared tool
    was left out (another provider's own), nor when it names one of those; each such
    choice is reported as left out."""
    choice = declared.choice
    assert choice is not None
    if not declared.tools:
        return True
    foreign = [t for t in declared.tools if isinstance(t, NativeTool) and t.provider != provider]
    if len(foreign) == len(declared.tools):
        reason = "no tool is sent with it"
    elif (
        choice.name is not None
        and any(_native_name(tool) == choice.name for tool in foreign)
        and not any(isinstance(t, ToolSpec) and t.name == choice.name for t in declared.tools)
    ):
        reason = f"the tool {choice.name!r} is left out"
    else:
        return True
    left_out(f"tool_choice {choice.portable()!r} left out: {reason}")
    return False


def _plugin_settings(settings: JSONMapping, provider: str) -> JSONObject:
    """*settings* for a provider with no tool codec, which takes no tools, tool choice or
    structured output."""
    declared = _declared(settings)
    given = (declared.tools, declared.choice, declared.choice_native, declared.output)
    if any(value is not None for value in given):
        raise _takes_none(provider)
    return declared.rest
