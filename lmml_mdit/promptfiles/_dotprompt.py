"""dotprompt (``.prompt``): YAML front matter (model, config, input schema in Picoschema
or JSON Schema), then Handlebars text split by ``{{role "..."}}``; read and written."""

from __future__ import annotations

import dataclasses
import os
import re

from ..text import clipped
from ._shared import (
    HEAD_SIZE,
    Prompt,
    bundle_file,
    dump_yaml,
    front_line,
    known_settings,
    leave_out,
    local_file,
    refuse,
    scan_placeholders,
    spaced_placeholder,
    split_front_matter,
    warn,
    without_conversations,
)

NAME = "dotprompt"
META_KEY = "dotprompt"
SUFFIX = ".prompt"

_ROLES = {"system": "system", "user": "user", "model": "assistant", "assistant": "assistant"}
_ROLE_NAMES = {"system": "system", "user": "user", "assistant": "model"}
_HISTORY = "history"
"""The ``messages`` input ``{{history}}`` reads as (dotprompt takes it as its messages)."""
_HISTORY_LINE = "\x00lmml:history\x00"
"""Where a written turn's ``{{history}}`` goes (no LMML text line holds a NUL)."""
_CONFIG = {
    "maxOutputTokens": "max_tokens",
    "topP": "top_p",
    "topK": "top_k",
    "stopSequences": "stop",
}
"""dotprompt's (Genkit's) config names and the LMML settings they are."""
_CONFIG_NAMES = {setting: name for name, setting in _CONFIG.items()}
_TYPES = {"string": "string", "number": "number", "integer": "integer", "boolean": "boolean"}
_MARKER = "<<<dotprompt:role:"
# A helper's hash argument: a quoted value is one value, spaces and all, as Handlebars reads it.
_ARGUMENT = re.compile(r"""(\w+)=("[^"]*"|'[^']*'|\S+)""")


def looks_like(text: str) -> bool:
    """Whether *text* reads as a dotprompt file: a role helper or marker in it."""
    head = text[:HEAD_SIZE]
    return '{{role "' in head or "{{ role " in head or _MARKER in head


def read(text: str, file: str) -> Prompt:
    """The prompt a ``.prompt`` file holds; its media resolved beside *file*."""
    front, body, first_line = split_front_matter(text, file)
    prompt = Prompt()
    meta: dict[str, object] = {}
    known = known_settings()
    for key, value in front.items():
        if key == "model":
            prompt.settings["model"] = value
        elif key == "config":
            if not isinstance(value, dict):
                raise refuse("config is not a mapping", file, None)
            for name, item in value.items():
                setting = _CONFIG.get(str(name), str(name))
                if setting not in known:
                    warn(f"{file}: the config {name!r} has no LMML name; kept as a setting")
                prompt.settings[setting] = item
        elif key == "input":
            _read_input(value, prompt, file, text)
        else:
            meta[key] = value
    _read_body(body, first_line, prompt, file)
    if prompt.inputs.get(_HISTORY, {}).get("type") != "messages":  # no {{history}} in it
        _place_history(prompt, file)
    prompt.meta = {META_KEY: meta} if meta else {}
    return prompt


def _place_history(prompt: Prompt, file: str) -> None:
    """Declare the ``messages`` input of a body with no ``{{history}}`` and put it where
    dotprompt puts ``render``'s messages then: before the last turn when that is a user
    turn, else after it."""
    if _HISTORY in prompt.inputs:  # declared as a value: render's messages have no place
        warn(
            f"{file}: the input {_HISTORY!r} is not a list of messages, so the messages "
            "dotprompt's render takes have no place in the LMML template"
        )
        return
    _declare_history(prompt, file, 1)
    line = "{{ " + _HISTORY + " }}"
    if not prompt.turns:
        prompt.turns.append(("user", line))
        return
    role, text = prompt.turns[-1]
    if role == "user":
        prompt.turns[-1] = (role, f"{line}\n\n{text}" if text else line)
    else:
        prompt.turns[-1] = (role, f"{text}\n\n{line}" if text else line)


def _read_input(value: object, prompt: Prompt, file: str, text: str) -> None:
    if not isinstance(value, dict):
        raise refuse("input is not a mapping", file, None)
    schema = value.get("schema") or {}
    defaults = value.get("default") or {}
    if not isinstance(schema, dict) or not isinstance(defaults, dict):
        raise refuse("input.schema and input.default must be mappings", file, None)
    if schema.get("type") == "object" and isinstance(schema.get("properties"), dict):
        required = schema.get("required") or []
        for name, spec in schema["properties"].items():
            spec = spec if isinstance(spec, dict) else {}
            line = front_line(text, str(name), ("input",))
            declared = _declared(name, str(spec.get("type")), spec.get("description"), file, line)
            declared["required"] = name in required
            prompt.inputs[name] = declared
    else:
        for key, spec in schema.items():
            name, optional, kind = _picoschema_key(str(key))
            if kind is None:
                kind, _, description = (
                    str(spec).partition(",")
                    if isinstance(spec, str)
                    else ("object" if isinstance(spec, dict) else repr(spec), "", "")
                )
            else:
                description = ""
            line = front_line(text, str(name), ("input",))
            declared = _declared(name, kind.strip(), description.strip() or None, file, line)
            if optional:
                declared["required"] = False
            prompt.inputs[name] = declared
    for name, default in defaults.items():
        if name in prompt.inputs:
            prompt.inputs[name]["default"] = default
            prompt.inputs[name].pop("required", None)


def _picoschema_key(key: str) -> tuple[str, bool, str | None]:
    """``name?(array, text)`` as (name, optional, type in brackets or None)."""
    kind = None
    if key.endswith(")") and "(" in key:
        key, _, inside = key[:-1].partition("(")
        kind = inside.split(",", 1)[0].strip()
    optional = key.endswith("?")
    return key.rstrip("?"), optional, kind


def _declared(
    name: str, kind: str, description: object, file: str, line: int | None
) -> dict[str, object]:
    if kind not in _TYPES and kind != "object":
        raise refuse(
            f"the input {clipped(repr(name), 80)} has the type {clipped(repr(kind), 80)}, "
            "which LMML has no type for",
            file,
            line,
            "declare it as a string, number, integer, boolean or object",
        )
    declared: dict[str, object] = {"type": _TYPES.get(kind, "object")}
    if description:
        declared["description"] = description
    return declared


def _declare_history(prompt: Prompt, file: str, line: int) -> None:
    """Declare the ``messages`` input ``{{history}}`` stands for (once)."""
    declared = prompt.inputs.get(_HISTORY)
    if declared is not None and declared.get("type") != "messages":
        raise refuse(
            f"the input {_HISTORY!r} is declared, and {{{{history}}}} needs that name",
            file,
            line,
            "rename the input",
        )
    prompt.inputs[_HISTORY] = {
        "type": "messages",
        "roles": ["system", "user", "assistant", "tool"],
        "required": False,
        "description": "the conversation history (dotprompt's messages)",
    }


def _read_body(body: str, first_line: int, prompt: Prompt, file: str) -> None:
    base = os.path.dirname(os.path.abspath(file))
    role = "user"
    pieces: list[str] = []
    start = first_line
    position = 0

    after_history = False  # dotprompt gives the text after {{history}} to the model

    def close() -> None:
        joined = "".join(pieces)
        text = joined.strip("\n")
        if after_history and not text.strip():
            return
        if text.strip() or prompt.turns or role != "user":
            # The blank lines stripped from the start still count for the lines named.
            line = start + len(joined) - len(joined.lstrip("\n"))
            checked = scan_placeholders(text, file, line, openers=(), backslash=True)
            prompt.turns.append((role, checked))

    while True:
        opening = _next_structure(body, position)
        if opening is None:
            pieces.append(body[position:])
            break
        index, end, kind, argument = opening
        line = first_line + body.count("\n", 0, index)
        pieces.append(body[position:index])
        position = end
        if kind == "role":
            if argument not in _ROLES:
                raise refuse(f"the role {clipped(repr(argument), 80)} has no LMML turn", file, line)
            close()
            role, pieces, start, after_history = _ROLES[argument], [], line, False
            if body.startswith("\n", position):
                position += 1
                start += 1
        elif kind == "media":
            pieces.append("\n" + _media(argument, file, line, prompt, base) + "\n")
        elif kind == "history" and not argument:
            _declare_history(prompt, file, line)
            before = "".join(pieces).rstrip("\n")
            placeholder = "{{ " + _HISTORY + " }}"
            pieces = [f"{before}\n\n{placeholder}" if before.strip() else placeholder]
            close()
            role, pieces, start, after_history = "assistant", [], line, True
        else:
            raise refuse(f"the {kind} helper has no LMML equivalent", file, line)
    close()


def _next_structure(body: str, position: int) -> tuple[int, int, str, str] | None:
    """The next role marker, role or media helper, or history/section helper after
    *position*: (start, end, kind, argument)."""
    search = position
    while True:
        brace = body.find("{{", search)
        marker = body.find(_MARKER, search)
        if marker >= 0 and (brace < 0 or marker < brace):
            end = body.find(">>>", marker)
            if end < 0:
                return None
            return marker, end + 3, "role", body[marker + len(_MARKER) : end]
        if brace < 0:
            return None
        close = body.find("}}", brace)
        if close < 0:
            return None
        words = body[brace + 2 : close].split(None, 1)
        head = words[0] if words else ""
        rest = words[1].strip() if len(words) > 1 else ""
        escaped = brace > 0 and body[brace - 1] == "\\"
        if not escaped and head in ("role", "media", "history", "section"):
            return brace, close + 2, head, rest.strip("\"'") if head == "role" else rest
        search = close + 2


def _media(argument: str, file: str, line: int, prompt: Prompt, base: str) -> str:
    url = ""
    for key, value in _ARGUMENT.findall(argument):
        if key == "url":
            url = value
    if not (len(url) >= 2 and url[0] == url[-1] and url[0] in "\"'"):
        raise refuse(
            f"media from an input ({url or argument}) has no LMML equivalent here",
            file,
            line,
            'name a local file: {{media url="photo.png"}}',
        )
    path = local_file(url[1:-1], base)
    if path is None or not os.path.isfile(path):
        raise refuse(
            f"the media {url} is not a local file to bundle",
            file,
            line,
            "download it beside the prompt file and name it by its path",
        )
    return bundle_file(path, prompt)


def write(prompt: Prompt, file: str, lossy: bool) -> tuple[str, dict[str, bytes]]:
    """*prompt* as a ``.prompt`` text, and the media files to write beside it; its first
    ``messages`` input becomes ``{{history}}`` (dotprompt has that one)."""
    prompt = _without_default_history(_with_history(prompt))
    prompt = without_conversations(prompt, NAME, file, lossy)
    front: dict[str, object] = {}
    settings = dict(prompt.settings)
    if "model" in settings:
        front["model"] = settings.pop("model")
    if settings:
        front["config"] = {_CONFIG_NAMES.get(key, key): item for key, item in settings.items()}
    if prompt.inputs:
        front["input"] = _written_input(prompt, file, lossy)
    for number in range(1, len(prompt.cases) + 1):
        leave_out(NAME, f"case {number} (dotprompt holds no test data)", file, lossy)
    kept = prompt.meta.get(META_KEY)
    if isinstance(kept, dict):
        front.update(kept)
    assets = frozenset(prompt.assets)
    sections = [
        _written_turn(role, _written_text(text, file, assets)) for role, text in prompt.turns
    ]
    head = f"---\n{dump_yaml(front)}---\n" if front else ""
    return head + "\n\n".join(sections) + "\n", dict(prompt.assets)


def _written_turn(role: str, text: str) -> str:
    """A turn as dotprompt text. dotprompt gives what follows ``{{history}}`` to the
    model, so where more of the turn follows it, the turn's role is said again."""
    marker = f'{{{{role "{_ROLE_NAMES[role]}"}}}}'
    lines = text.split("\n")
    written = [marker]
    for index, line in enumerate(lines):
        if line != _HISTORY_LINE:
            written.append(line)
            continue
        written.append("{{history}}")
        if any(rest.strip() for rest in lines[index + 1 :]):
            written.append(marker)
    return "\n".join(written)


def _without_default_history(prompt: Prompt) -> Prompt:
    """*prompt* without its ``{{history}}`` line when that stands where dotprompt puts
    ``render``'s messages with none written (first in a last ``user`` turn, else last in
    the last turn): the file then reads as it did before it came into LMML."""
    places = [
        (index, line_index)
        for index, (_, text) in enumerate(prompt.turns)
        for line_index, line in enumerate(text.split("\n"))
        if line == _HISTORY_LINE
    ]
    if len(places) != 1 or places[0][0] != len(prompt.turns) - 1:
        return prompt
    role, text = prompt.turns[-1]
    lines = text.split("\n")
    line_index = places[0][1]
    rest = [line for line in lines if line != _HISTORY_LINE]
    default = line_index == 0 if role == "user" else line_index == len(lines) - 1
    if not default or not "\n".join(rest).strip():
        return prompt
    turns = [*prompt.turns[:-1], (role, "\n".join(rest).strip("\n"))]
    return dataclasses.replace(prompt, turns=turns)


def _with_history(prompt: Prompt) -> Prompt:
    """*prompt* with its first ``messages`` input taken out of the inputs and its
    placeholder lines marked to be written as ``{{history}}``."""
    name = next(
        (name for name, spec in prompt.inputs.items() if spec.get("type") == "messages"), None
    )
    if name is None:
        return prompt
    line = "{{ " + name + " }}"
    turns = [
        (
            role,
            "\n".join(
                _HISTORY_LINE if spaced_placeholder(text_line) == line else text_line
                for text_line in text.split("\n")
            ),
        )
        for role, text in prompt.turns
    ]
    inputs = {key: spec for key, spec in prompt.inputs.items() if key != name}
    return dataclasses.replace(prompt, turns=turns, inputs=inputs)


def _written_input(prompt: Prompt, file: str, lossy: bool) -> dict[str, object]:
    schema: dict[str, object] = {}
    defaults: dict[str, object] = {}
    for name, spec in prompt.inputs.items():
        kind = str(spec.get("type", "string"))
        if kind in ("image", "file"):
            leave_out(NAME, f"the {kind} input {name!r}", file, lossy)
            continue
        if "schema" in spec:
            leave_out(NAME, f"the schema of the input {name!r}", file, lossy)
        optional = spec.get("required") is False or "default" in spec
        description = spec.get("description")
        schema[f"{name}?" if optional else name] = f"{kind}, {description}" if description else kind
        if "default" in spec:
            defaults[name] = spec["default"]
    return {"schema": schema, **({"default": defaults} if defaults else {})}


def _written_text(text: str, file: str, assets: frozenset[str]) -> str:
    out: list[str] = []
    for line in text.split("\n"):
        if _MARKER in line:
            raise refuse(f"the text {line.strip()!r} would start a dotprompt message", file)
        if line.startswith("@") and line[1:] in assets:
            out.append(f'{{{{media url="{line[1:]}"}}}}')
            continue
        out.append(line)
    written = "\n".join(out)
    position = 0
    while (found := _next_structure(written, position)) is not None:
        if found[2] != "media":
            raise refuse(f"the text holds dotprompt's {found[2]} helper", file, None, "reword it")
        position = found[1]
    return written
