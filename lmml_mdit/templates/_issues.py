"""The issues ``validate`` reports about a template's inputs: declarations, placeholders and,
when given, values."""

from __future__ import annotations

from collections.abc import Mapping

from ..bundle import BundleContents
from ..bundle.reserved_embeds import RESERVED_NAMES
from ..model import Issue
from ..narrative import Narrative, Placeholder, is_native_name, is_tool_call_name
from ._declarations import InputDeclarations
from ._values import value_problem

__all__ = ["input_issues", "misplaced_messages", "stranded_in_code", "structure_fence"]


def _invalid_at(placeholder: Placeholder, message: str, *, forceable: bool = True) -> Issue:
    """An ``invalid_input`` issue at *placeholder*."""
    return Issue(
        "invalid_input",
        placeholder.name,
        placeholder.line,
        placeholder.column,
        message,
        forceable=forceable,
    )


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
    in_code: dict[str, Placeholder] = {}  # the first placeholder of an input, in code only
    for placeholder in placeholders:
        spec = specs.get(placeholder.name)
        if spec is None:
            # a malformed declaration is reported as itself, never as undeclared too
            if placeholder.context == "text" and declarations.malformed(placeholder.name) is None:
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
            in_code.setdefault(spec.name, placeholder)
            continue
        used.add(spec.name)
        what = structure_fence(bundle.narrative, placeholder)
        if what is not None:
            issues.append(
                _invalid_at(
                    placeholder,
                    stranded_in_code(spec.name, placeholder, what) + "; move the placeholder "
                    "into the turn's text, or write the value into the fence",
                    forceable=False,
                )
            )
            continue
        if placeholder.fields and spec.type != "object":
            issues.append(
                _invalid_at(
                    placeholder,
                    f"{{{{ {placeholder.path} }}}} reads a field of the {spec.type} input "
                    f"{spec.name!r}; only an object input has fields",
                    forceable=False,
                )
            )
        elif spec.is_messages and not placeholder.holds_turns:
            issues.append(
                _invalid_at(
                    placeholder,
                    misplaced_messages(spec.name) + "; move it to a line of its own",
                    forceable=False,
                )
            )
        elif spec.is_asset and placeholder.context != "text":
            issues.append(
                _invalid_at(
                    placeholder,
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
                    _unused(name, in_code.get(name)),
                    file=spec.file,
                )
            )
    if values is not None:
        issues.extend(_value_issues(declarations, values))
    return issues


def _unused(name: str, in_code: Placeholder | None) -> str:
    """The ``unused_input`` message for *name*, saying so when its placeholders stand
    only in code (the first at *in_code*), where only an ``in_code`` input is filled."""
    if in_code is None:
        return (
            f"the input {name!r} is declared but no placeholder uses it; write "
            f"{{{{ {name} }}}} where it goes, or remove the declaration"
        )
    return (
        f"the input {name!r} is declared but its placeholders stand only in code (the first "
        f"at line {in_code.line}, column {in_code.column} of the narrative), where they are "
        "sent as written; declare it with 'in_code: true' to fill them there, or remove "
        "the declaration"
    )


def structure_fence(narrative: Narrative, placeholder: Placeholder) -> str | None:
    """What reads the embed fence holding *placeholder* once, at the parse, as the
    bundle's structure (``"the settings"``, ``"a tool call"``, ``"a provider item"``), or
    None when the placeholder stands in no such fence (an asset fence takes an ``in_code``
    value for one rendering; the other fences are sent as written)."""
    name = placeholder.fence
    if placeholder.context != "fence" or name is None:
        return None
    if name in RESERVED_NAMES:
        return "the settings" if name.startswith("settings.") else "the manifest"
    if is_native_name(name):
        return "a provider item"
    if is_tool_call_name(name):
        line = placeholder.line
        for turn in narrative.turns:
            if turn.start_line <= line <= turn.end_line:
                return "a tool call" if turn.role == "assistant" else None
    return None


def stranded_in_code(name: str, placeholder: Placeholder, what: str) -> str:
    """Why an ``in_code`` input's placeholder in a :func:`structure_fence` takes no value."""
    return (
        f"the in_code input {name!r} stands in the fence {placeholder.fence}, {what}, which "
        "is read once, when the file is parsed, so no value can be put there"
    )


def misplaced_messages(name: str) -> str:
    """Why a ``messages`` input's placeholder cannot stand where it does (it does not
    :attr:`~lmml_mdit.narrative.Placeholder.holds_turns`)."""
    return (
        f"the messages input {name!r} puts in turns, so its placeholder must stand alone on "
        "its line, outside any list, quote, table or code"
    )


def _value_issues(declarations: InputDeclarations, values: Mapping[str, object]) -> list[Issue]:
    issues: list[Issue] = []
    specs = declarations.specs
    for name in values:
        if name not in specs and declarations.malformed(str(name)) is None:
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
