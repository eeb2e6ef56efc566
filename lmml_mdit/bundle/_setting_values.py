"""Settings values checked against the settings schema, each problem located.

:func:`setting_issues` gives validation one ``invalid_setting`` issue per value the schema
refuses, at its line and column (from the bounded YAML loader's marks, or a walk of the
JSON text); :func:`range_problems` reads the providers' ranges (``x-provider-ranges``), a
warning, never a refusal. See docs/bundles.md, "Settings values and the schemas".
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import NamedTuple

from ..errors import BundleError, InvalidSettingsError, file_location, location
from ..jsonio import json_value_problem
from ..jsontypes import JSONMapping
from ..model import Issue
from ..schema import RANGES_KEYWORD, JsonPath, SchemaProblem, schema_problems, settings_schema
from ._contents import BundleContents, entry_holding, settings_embeds
from ._reserved import (
    FRONT_MATTER_FIRST_LINE,
    FRONT_MATTER_NAME,
    load_settings,
    yaml_value_marks,
)

__all__ = [
    "INVALID_SETTING",
    "SETTING_OUT_OF_RANGE",
    "check_setting_values",
    "json_value_offsets",
    "problem_message",
    "range_problems",
    "setting_issues",
    "setting_location",
    "setting_problems",
    "settings_embed_source",
    "settings_value_positions",
]

INVALID_SETTING = "invalid_setting"
"""The issue kind of a settings value the schema refuses."""

SETTING_OUT_OF_RANGE = "setting_out_of_range"
"""The issue kind (a warning) of a number outside every range the providers' API references
give; a value outside only some of them is reported when it is sent to one of those."""

_SHOWN_CHARS = 40
_LOCATED_DEPTH = 3
"""How deep positions are recorded: a key, an item of its list, a key of that item."""

Position = tuple[int, int]
"""A 0-based (line, column) inside a settings text."""


def setting_problems(settings: JSONMapping) -> list[SchemaProblem]:
    """Every value of *settings* the settings schema refuses, in order."""
    return schema_problems(dict(settings), settings_schema())


def _range_text(rule: Mapping[str, float]) -> str:
    low, high = rule.get("minimum"), rule.get("maximum")
    if low is not None and high is not None:
        return f"{low:g} to {high:g}"
    return f"at least {low:g}" if low is not None else f"at most {high:g}"


def _outside(number: float, rule: Mapping[str, float]) -> bool:
    return number < rule.get("minimum", number) or number > rule.get("maximum", number)


def range_problems(settings: JSONMapping, provider: str | None = None) -> list[SchemaProblem]:
    """Each number in *settings* outside the range *provider*'s API reference gives (the
    schema's ``x-provider-ranges``), its rule named; with no *provider*, each number no
    provider takes (a provider without a rule for the key takes any). Values of the wrong
    type are left to :func:`setting_problems`."""
    properties: JSONMapping = settings_schema().get("properties", {})
    everyone = {name for schema in properties.values() for name in schema.get(RANGES_KEYWORD, {})}
    problems: list[SchemaProblem] = []
    for key, value in settings.items():
        rules: Mapping[str, Mapping[str, float]] = properties.get(key, {}).get(RANGES_KEYWORD, {})
        if not rules or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        broken = {name: rule for name, rule in rules.items() if _outside(value, rule)}
        if provider is not None and provider in broken:
            problem = (
                f"is outside the range {provider}'s API reference gives "
                f"({_range_text(broken[provider])}); it is sent as given"
            )
        elif provider is None and broken.keys() == everyone:
            given = "; ".join(f"{name}: {_range_text(rule)}" for name, rule in rules.items())
            problem = f"is outside the range every provider's API reference gives ({given})"
        else:
            continue
        problems.append(SchemaProblem((key,), value, problem))
    return problems


def _shown(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def _dotted(path: JsonPath) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def problem_message(problem: SchemaProblem) -> str:
    """The sentence an issue or error gives for *problem*."""
    return (
        f"setting {_dotted(problem.path)!r} is {_shown(problem.value)}: it {problem.problem}; "
        "fix the value or remove the setting"
    )


def check_setting_values(settings: JSONMapping, *, name: str = "settings") -> None:
    """Refuse settings given in code or on the command line (``settings=``, ``--set``)
    that the schema refuses, as :func:`setting_issues` reports those of a bundle.

    :raises InvalidSettingsError: for the first refused value, named *name*, a value that
        is no JSON value (:func:`lmml_mdit.jsonio.json_value_problem`: NaN, a nesting too
        deep, ...) first.
    """
    message: str | None = None
    for key, value in settings.items():
        reason = json_value_problem(value)
        if reason is not None:
            message = f"setting {key!r} cannot be sent: {reason}"
            break
    else:
        problems = setting_problems(settings)
        message = problem_message(problems[0]) if problems else None
    if message is not None:
        raise InvalidSettingsError(
            message,
            name=name,
            hint="fix the value passed in settings=",
            cli_hint="fix the value given with --set",
        )


# --- where each value is -----------------------------------------------------------------


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


_DECODER = json.JSONDecoder()


def json_value_offsets(text: str, depth: int = _LOCATED_DEPTH) -> dict[JsonPath, int]:
    """Where each value of the JSON document *text* starts (an offset into *text*), by its
    path, down to *depth* levels; deeper values are skipped whole.

    *text* must be JSON :func:`~lmml_mdit.jsonio.parse_json` accepted; a leading byte-order
    mark is skipped.
    """
    offsets: dict[JsonPath, int] = {}

    def walk(index: int, path: JsonPath) -> int:
        index = _skip_space(text, index)
        offsets[path] = index
        opener = text[index : index + 1]
        if opener not in ("{", "[") or len(path) >= depth:
            return int(_DECODER.raw_decode(text, index)[1])
        closer = "}" if opener == "{" else "]"
        index = _skip_space(text, index + 1)
        position = 0
        while text[index] != closer:
            if opener == "{":
                key, index = scanstring(text, index + 1)
                index = _skip_space(text, index) + 1  # the colon
                index = walk(index, (*path, key))
            else:
                index = walk(index, (*path, position))
                position += 1
            index = _skip_space(text, index)
            if text[index] == ",":
                index = _skip_space(text, index + 1)
        return index + 1

    walk(1 if text.startswith("\ufeff") else 0, ())
    return offsets


def _json_positions(text: str) -> dict[JsonPath, Position]:
    positions: dict[JsonPath, Position] = {}
    for path, offset in json_value_offsets(text).items():
        line = text.count("\n", 0, offset)
        positions[path] = (line, offset - (text.rfind("\n", 0, offset) + 1))
    return positions


def _positions(text: str, json_text: bool) -> dict[JsonPath, Position]:
    """The positions of *text*'s values; empty when *text* does not read (that is an
    ``invalid_settings`` issue of its own)."""
    try:
        if json_text:
            return _json_positions(text)
        return yaml_value_marks(text, _LOCATED_DEPTH + 1)
    except (ValueError, IndexError, RecursionError):
        return {}


# --- the issues ----------------------------------------------------------------------------


def _located(
    problems: list[SchemaProblem],
    positions: Mapping[JsonPath, Position],
    prefix: JsonPath,
    *,
    name: str,
    first_line: int | None,
    file: str | None,
    kind: str = INVALID_SETTING,
) -> list[Issue]:
    """One issue per problem, at its value's position (or its nearest located parent's)."""
    issues: list[Issue] = []
    for problem in problems:
        path = (*prefix, *problem.path)
        while path not in positions and len(path) > len(prefix):
            path = path[:-1]
        position = positions.get(path)
        if position is None:
            line, column = (first_line or 1), 1
        else:
            line = position[0] + (1 if first_line is None else first_line)
            column = position[1] + 1
        issues.append(Issue(kind, name, line, column, problem_message(problem), file=file))
    return issues


def _embedded(bundle: BundleContents) -> tuple[str, bytes, int | None] | None:
    """The one settings embed: its name, bytes and the narrative line its content starts on
    (None for an entry of its own); None without one, with several, or unreadable (each
    reported as ``invalid_settings`` or ``missing_reference``)."""
    present = settings_embeds(bundle)
    if len(present) != 1:
        return None
    name = present[0]
    try:
        data = bundle.embed(name)
    except BundleError:
        return None
    fence = bundle.fences.get(name)
    return name, data, (fence.line + 1 if fence is not None else None)


PORTABLE_TOOL_KEYS = ("tools", "tool_choice", "response_format", "output_schema")
"""The portable settings keys of tools, tool choice and structured output."""

TOOL_KEYS = frozenset(
    {
        *PORTABLE_TOOL_KEYS,
        # each provider's own forms, which the tool codecs read too
        "tool_config",
        "toolConfig",
        "text",
        "output_config",
        "response_mime_type",
        "responseMimeType",
        "response_json_schema",
        "responseJsonSchema",
        "response_schema",
        "responseSchema",
    }
)
"""The settings keys that declare tools, how they are used and structured output: read by
the chat layer's tool codecs, which every request goes through."""


def _path(where: str) -> JsonPath:
    """A place as the tool codecs name it (``tools[1].parameters``) as a path."""
    path: list[str | int] = []
    for step in re.findall(r"[^.\[\]]+|\[\d+\]", where):
        path.append(int(step[1:-1]) if step.startswith("[") else step)
    return tuple(path)


def tool_problems(values: JSONMapping) -> list[SchemaProblem]:
    """The first fault a request would raise in *values*' tools, tool choice or structured
    output (a malformed tool, a choice naming no declared tool, ...), located by its
    place; none when no such key is given."""
    if not TOOL_KEYS & values.keys():
        return []  # nothing to read
    if any(
        problem.path[:1] and problem.path[0] in TOOL_KEYS for problem in setting_problems(values)
    ):
        return []  # a value of the wrong type, reported on its own
    from ..chat import portable_settings  # imported here: the tool codecs sit above bundles

    try:
        portable_settings(values)
    except InvalidSettingsError as error:
        path = _path(error.name or "tools")
        if path[:1] and path[0] not in values:
            # A provider's own form, read as the portable key the error names: the fault
            # lies at the key as written (the first own form given).
            own = [key for key in values if key in TOOL_KEYS and key not in PORTABLE_TOOL_KEYS]
            path = (own[0] if own else path[0],)
        value: object = values
        for step in path:
            inner = _step(value, step)
            if inner is _MISSING:
                break
            value = inner
        return [SchemaProblem(path, value, f"cannot be sent: {error.message}")]
    return []


_MISSING = object()


def _step(value: object, step: str | int) -> object:
    if isinstance(step, int) and isinstance(value, list) and 0 <= step < len(value):
        return value[step]
    if isinstance(step, str) and isinstance(value, dict) and step in value:
        return value[step]
    return _MISSING


def _problems(
    values: JSONMapping, tools: Sequence[SchemaProblem] = ()
) -> list[tuple[str, list[SchemaProblem]]]:
    """The values' problems by issue kind: refused ones (with those of *tools*, the merged
    settings' tool faults, whose key is one of *values*), then ranges no provider takes."""
    found = [
        (
            INVALID_SETTING,
            setting_problems(values) + [p for p in tools if p.path and p.path[0] in values],
        ),
        (SETTING_OUT_OF_RANGE, range_problems(values)),
    ]
    return [(kind, problems) for kind, problems in found if problems]


def setting_issues(bundle: BundleContents) -> list[Issue]:
    """An ``invalid_setting`` issue for each settings value the schema refuses, and a
    ``setting_out_of_range`` warning for each number outside every provider's range.

    The settings embed's values are checked, and the front matter's ``settings:`` values
    the embed does not override (those are never sent). Settings that do not decode are
    left to the ``invalid_settings`` and ``invalid_front_matter`` issues.
    """
    # The merged settings (decoded once, cached by the bundle) hold exactly the values
    # checked below: when none is refused, nothing needs locating or decoding again.
    try:
        merged = bundle.settings
    except BundleError:
        return []  # reported as invalid_settings, invalid_front_matter or missing_reference
    # The tools, tool choice and structured output are read together, from the merged
    # settings (a choice in the front matter may name a tool of the embed).
    tools = tool_problems(merged) if merged else []
    if not merged or not _problems(merged, tools):
        return []
    issues: list[Issue] = []
    embedded = _embedded_values(bundle)
    overridden: set[str] = set()
    if embedded is not None:
        overridden = set(embedded.values)
        found = _problems(embedded.values, tools)
        for kind, problems in found:
            issues.extend(embedded.located(bundle, problems, kind))
    below = _front_settings(bundle)
    if below is not None:
        kept = {key: value for key, value in below.items() if key not in overridden}
        found = _problems(kept, tools)
        positions = _front_positions(bundle) if found else {}
        for kind, problems in found:
            issues.extend(_in_front_matter(problems, positions, kind))
    return issues


def setting_location(bundle: BundleContents, key: str) -> str | None:
    """Where the bundle's settings value *key* is written, as ``FILE:LINE:COL``: in the
    settings embed, else under the front matter's ``settings:``; None when it is in
    neither (or they do not read)."""
    embedded = _embedded_values(bundle)
    if embedded is not None and key in embedded.values:
        found = [SchemaProblem((key,), embedded.values[key], "")]
        return _where(bundle, embedded.located(bundle, found, INVALID_SETTING)[0])
    below = _front_settings(bundle)
    if below is None or key not in below:
        return None
    found = [SchemaProblem((key,), below[key], "")]
    return _where(bundle, _in_front_matter(found, _front_positions(bundle), INVALID_SETTING)[0])


class _Embedded(NamedTuple):
    """The one settings embed, read: its name, bytes, the narrative line its content
    starts on (None for an entry of its own) and its values."""

    name: str
    data: bytes
    first_line: int | None
    values: JSONMapping

    def located(
        self, bundle: BundleContents, problems: list[SchemaProblem], kind: str
    ) -> list[Issue]:
        """One issue of *kind* per problem, at its value in the embed."""
        positions = _positions(self.data.decode("utf-8-sig"), self.name.lower().endswith(".json"))
        return _located(
            problems,
            positions,
            (),
            name=self.name,
            first_line=self.first_line,
            file=entry_holding(bundle, self.name),
            kind=kind,
        )


def _embedded_values(bundle: BundleContents) -> _Embedded | None:
    """The one settings embed, read; None without one, or when it does not read (reported
    as ``invalid_settings``)."""
    embedded = _embedded(bundle)
    if embedded is None:
        return None
    name, data, first_line = embedded
    try:
        values = load_settings(data, name=name, line=first_line)
    except InvalidSettingsError:
        return None
    return _Embedded(name, data, first_line, values)


def _front_settings(bundle: BundleContents) -> JSONMapping | None:
    """The front matter's ``settings:`` mapping, or None (absent, or no mapping)."""
    try:
        front = bundle.front_matter
    except InvalidSettingsError:
        return None
    below = front.get("settings") if front is not None else None
    return below if isinstance(below, dict) else None


def _front_positions(bundle: BundleContents) -> dict[JsonPath, Position]:
    return _positions(bundle.narrative.front_matter or "", json_text=False)


def _in_front_matter(
    problems: list[SchemaProblem], positions: Mapping[JsonPath, Position], kind: str
) -> list[Issue]:
    return _located(
        problems,
        positions,
        ("settings",),
        name=FRONT_MATTER_NAME,
        first_line=FRONT_MATTER_FIRST_LINE,
        file=None,
        kind=kind,
    )


def _where(bundle: BundleContents, issue: Issue) -> str:
    held = file_location(bundle.file_name, issue.file, archive=bundle.kind == "zip")
    return location(held, issue.line, issue.column)


def settings_embed_source(bundle: BundleContents) -> tuple[str, bytes, int | None] | None:
    """The one settings embed's name, bytes and the narrative line its content starts on
    (None for an entry of its own); None without one, with several, or unreadable."""
    return _embedded(bundle)


def settings_value_positions(text: str, *, json_text: bool) -> dict[JsonPath, Position]:
    """Where each value of a settings text starts, as a 0-based (line, column) by its path
    (four levels deep); empty when the text does not read."""
    return _positions(text, json_text)
