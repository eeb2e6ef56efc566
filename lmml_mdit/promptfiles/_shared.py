"""What every prompt-file format shares: the prompt read from one, written as LMML, and
read back from an LMML bundle; placeholders scanned; refusals and lossy warnings."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import yaml

from ..bundle import is_reference_name, load_front_matter
from ..bundle.reserved_embeds import RESERVED_NAMES
from ..chat import BodyWriter, without_escapes
from ..conversation import ChatMessage, ImportedAsset, MessagePart, TextPart
from ..errors import InvalidSettingsError, PromptFileError, PromptFileWarning
from ..media import media_type_for
from ..model import MESSAGE_ROLES, Role
from ..narrative import is_tool_call_name
from ..schema import settings_schema
from ..syntax import reference as written_reference
from ..text import clipped, normalize_newlines, trim_blank_lines
from ..warn import warn as warn_at_caller

if TYPE_CHECKING:
    from ..bundle import Bundle
    from ..narrative import Narrative

ROLES = ("system", "user", "assistant")
"""The roles every prompt format here holds; LMML's others (``tool``) are refused."""

LMML_INPUT_TYPES = ("string", "number", "integer", "boolean", "object", "image", "file")


@dataclass
class Prompt:
    """A prompt file's content in LMML's terms.

    :ivar turns: ``(role, text)`` with placeholders written ``{{ name }}``; an asset stands
        on a line of its own as ``@name`` (the only structure the text may hold).
    :ivar settings: the LMML settings (model and parameters).
    :ivar inputs: the typed input declarations, as a template's ``inputs:`` holds them.
    :ivar cases: test data: one mapping of input values per case.
    :ivar assets: the media the turns reference, bundled.
    :ivar meta: each format's own keys kept as they were (name, description), under the
        format's key (``prompty``): front matter metadata in LMML, never sent.
    """

    turns: list[tuple[str, str]] = field(default_factory=list)
    settings: dict[str, object] = field(default_factory=dict)
    inputs: dict[str, dict[str, object]] = field(default_factory=dict)
    cases: list[dict[str, object]] = field(default_factory=list)
    assets: dict[str, bytes] = field(default_factory=dict)
    meta: dict[str, object] = field(default_factory=dict)


HEAD_SIZE = 64 * 1024
"""How much of a file's start (bytes read, then characters looked at) tells its format."""


def known_settings() -> frozenset[str]:
    """The setting names LMML's settings schema knows."""
    properties = settings_schema().get("properties")
    return frozenset(properties) if isinstance(properties, dict) else frozenset()


def warn(message: str) -> None:
    """One :class:`PromptFileWarning` naming one item, at the line of the caller's code."""
    warn_at_caller(PromptFileWarning(message))


def refuse(
    message: str, file: str, line: int | None = None, hint: str | None = None
) -> PromptFileError:
    """The error for *message* about *file* at *line*."""
    return PromptFileError(message, name=file, line=line, hint=hint)


def leave_out(holder: str, item: str, file: str, lossy: bool) -> None:
    """Refuse *item*, which *holder* (the format written) cannot hold; with *lossy*, warn
    that it is left out instead."""
    if not lossy:
        raise refuse(
            f"{holder} cannot hold {item}", file, None, "convert with --lossy to leave it out"
        )
    warn(f"{file}: {holder} cannot hold {item}; left out")


def without_conversations(prompt: Prompt, holder: str, file: str, lossy: bool) -> Prompt:
    """*prompt* without its ``messages`` inputs and their placeholder lines, for a format
    with no conversation input: each refused, or left out with a warning when *lossy*."""
    names = [name for name, spec in prompt.inputs.items() if spec.get("type") == "messages"]
    if not names:
        return prompt
    for name in names:
        leave_out(
            holder, f"the messages input {name!r} (a conversation put in as turns)", file, lossy
        )
    lines = {"{{ " + name + " }}" for name in names}
    turns = [
        (
            role,
            "\n".join(line for line in text.split("\n") if spaced_placeholder(line) not in lines),
        )
        for role, text in prompt.turns
    ]
    inputs = {name: spec for name, spec in prompt.inputs.items() if name not in names}
    return dataclasses.replace(prompt, turns=turns, inputs=inputs)


def spaced_placeholder(line: str) -> str:
    """A placeholder line as ``{{ name }}`` (one space inside the braces), else *line*."""
    inner = line.strip()
    if inner.startswith("{{") and inner.endswith("}}"):
        return "{{ " + inner[2:-2].strip() + " }}"
    return line


def split_front_matter(text: str, file: str) -> tuple[dict[str, object], str, int]:
    """A ``---`` front matter decoded with the project's safe YAML limits, the body after
    it, and the body's first 1-based line. A file without one is all body."""
    text = normalize_newlines(text).removeprefix("\ufeff")
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return {}, text, 1
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            yaml_text = "\n".join(lines[1:index])
            try:
                front = load_front_matter(yaml_text)
            except InvalidSettingsError as error:
                raise refuse(error.message, file, error.line, error.hint) from None
            return dict(front), "\n".join(lines[index + 1 :]), index + 2
    raise refuse("the front matter has no closing '---' line", file, 1, "close it with ---")


def front_line(text: str, key: str, section: tuple[str, ...] = ()) -> int | None:
    """The 1-based line of *text*'s front matter where *key* is declared (``key:``,
    Picoschema's ``key?:`` and ``key(type):``, or a list item ``- name: key``), looked for
    after the first top-level line naming one of *section* when given; None if not found."""
    lines = normalize_newlines(text).removeprefix("\ufeff").split("\n")
    front = lines[0].rstrip() == "---"
    inside = not section
    declared = re.compile(
        r"\s*(?:-\s+)?(?:name:\s*)?[\"']?" + re.escape(key) + r"[\"']?\s*(?:[?(:]|$)"
    )
    for index, line in enumerate(lines[1:] if front else lines, start=2 if front else 1):
        if front and line.rstrip() == "---":
            return None
        if not inside:
            inside = any(line.startswith(f"{name}:") for name in section)
            continue
        if declared.match(line):
            return index
    return None


def scan_placeholders(
    text: str,
    file: str,
    first_line: int,
    *,
    openers: tuple[tuple[str, str], ...],
    backslash: bool = False,
) -> str:
    """*text* with each ``{{ expression }}`` that names a value written ``{{ name }}``;
    anything else a template engine would run is refused, naming *file*, its line and the
    construct. *openers* pairs each other opening mark with what it is
    (``("{%", "a Jinja statement")``). With *backslash*, ``\\{{`` is literal text (as in
    Handlebars and LMML), kept as written."""
    out: list[str] = []
    position = 0
    while True:
        found = _next_opener(text, position, openers)
        if found is None:
            out.append(text[position:])
            return "".join(out)
        start, opener, what = found
        if backslash and start > 0 and text[start - 1] == "\\":
            out.append(text[position : start + 2])
            position = start + 2
            continue
        line = first_line + text.count("\n", 0, start)
        if opener != "{{":
            raise refuse(
                f"{what} ({_snippet(text, start)}) has no LMML equivalent",
                file,
                line,
                "LMML templates only fill {{ name }} placeholders; write the logic out",
            )
        end = text.find("}}", start + 2)
        if end < 0:
            raise refuse("a '{{' is never closed", file, line, "close it with }}")
        expression = text[start + 2 : end].strip()
        if not is_dotted_name(expression):
            raise refuse(
                f"the expression {{{{{clipped(expression, 80)}}}}} is logic or a helper LMML lacks",
                file,
                line,
                "LMML templates only fill {{ name }} or {{ name.field }}",
            )
        out.append(text[position:start])
        out.append(f"{{{{ {expression} }}}}")
        position = end + 2


def _next_opener(
    text: str, position: int, openers: tuple[tuple[str, str], ...]
) -> tuple[int, str, str] | None:
    best: tuple[int, str, str] | None = None
    for opener, what in (("{{", "a placeholder"), *openers):
        index = text.find(opener, position)
        if index >= 0 and (best is None or index < best[0]):
            best = (index, opener, what)
    if best is not None and best[1] == "{{" and text.startswith("{{{", best[0]):
        return best[0], "{{{", "an unescaped triple-brace expression"
    if best is not None and best[1] == "{{":
        inner = text[best[0] + 2 : best[0] + 3].strip() or text[best[0] + 2 :].lstrip()[:1]
        marks = {
            "#": "a block helper or section",
            "/": "a block end",
            "^": "an inverted section",
            ">": "a partial",
            "!": "a template comment",
            "&": "an unescaped expression",
        }
        if inner[:1] in marks:
            return best[0], inner[:1], marks[inner[:1]]
    return best


def _snippet(text: str, start: int) -> str:
    end = text.find("\n", start)
    piece = text[start : end if end >= 0 else len(text)]
    return piece if len(piece) <= 40 else piece[:39] + "…"


def is_dotted_name(expression: str) -> bool:
    """Whether *expression* is ``name`` or ``name.field.more``: identifiers only."""
    parts = expression.split(".")
    return bool(expression) and all(part.isidentifier() for part in parts)


def lmml_text(prompt: Prompt, file: str = "") -> str:
    """*prompt* as an LMML narrative: front matter with settings and typed inputs, then one
    turn per message, its body written as import writes one
    (:class:`~lmml_mdit.chat.BodyWriter`).

    The prompt formats fill a placeholder in code as anywhere else, and send literal
    braces there as braces; LMML sends code as written. So an input with a placeholder in
    code is declared ``in_code``, and the backslash of a literal ``\\{{`` in code is left
    out (an input both filled and written as literal braces in code is refused)."""
    from ..bundle import Bundle

    text = _narrative(prompt)
    found = Bundle.from_text("prompt.lmml", text).narrative.placeholders
    in_code = {p.name for p in found.found if p.context == "code"}
    literal = {e.name for e in found.escapes if e.context == "code"}
    if in_code & literal:
        raise refuse(
            f"the input {sorted(in_code & literal)[0]!r} is both filled and written as "
            "literal braces in code, which an LMML template cannot tell apart",
            file,
            None,
            "reword the literal braces",
        )
    if in_code:
        prompt = dataclasses.replace(
            prompt,
            inputs={
                name: ({**spec, "in_code": True} if name in in_code else spec)
                for name, spec in prompt.inputs.items()
            },
        )
        text = _narrative(prompt)
        found = Bundle.from_text("prompt.lmml", text).narrative.placeholders
    escapes = sorted(
        ((e.line, e.column) for e in found.escapes if e.context == "code"), reverse=True
    )
    if not escapes:
        return text
    lines = text.split("\n")
    for line, column in escapes:  # right to left: the columns before stay where they are
        lines[line - 1] = lines[line - 1][: column - 1] + lines[line - 1][column:]
    return "\n".join(lines)


def _narrative(prompt: Prompt) -> str:
    front: dict[str, object] = {"inputs": prompt.inputs}
    if prompt.settings:
        front["settings"] = prompt.settings
    front.update(prompt.meta)
    sections = ["---\n" + dump_yaml(front) + "---"]
    named: dict[int, str] = {}  # each asset part's entry name, by the part's identity
    writer = BodyWriter(frozenset(prompt.assets), lambda part: named[id(part)])
    for number, (role, text) in enumerate(prompt.turns, 1):
        message = ChatMessage(_ROLE_OF[role], _parts(text, prompt.assets, named))
        sections.append(writer.section(number, message))
    return "\n\n".join(sections) + "\n"


_ROLE_OF: dict[str, Role] = {role: role for role in MESSAGE_ROLES}


def _parts(text: str, assets: Mapping[str, bytes], named: dict[int, str]) -> list[MessagePart]:
    """The parts of a turn's *text*: runs of text, and an asset for each line ``@name``
    naming a bundled one (recorded in *named*)."""
    parts: list[MessagePart] = []
    chunk: list[str] = []
    for line in text.split("\n"):
        name = line[1:]
        if line.startswith("@") and name in assets:
            parts.append(TextPart("\n".join(chunk)))
            chunk = []
            asset = ImportedAsset(assets[name], media_type_for(name, assets[name]))
            named[id(asset)] = name
            parts.append(asset)
        else:
            chunk.append(line)
    parts.append(TextPart("\n".join(chunk)))
    return parts


def read_bundle(bundle: Bundle, lossy: bool, target: str) -> Prompt:
    """The prompt an LMML bundle holds, for the writer of *target* (a format's name):
    turns with their sent text, settings, inputs and referenced assets. A role or an embed
    the prompt formats cannot hold is refused, or left out with a warning when *lossy*."""
    prompt = Prompt()
    front = bundle.front_matter or {}
    inputs = front.get("inputs")
    if isinstance(inputs, dict):
        prompt.inputs = {
            key: dict(value) if isinstance(value, dict) else {"type": value}
            for key, value in inputs.items()
        }
    prompt.meta = {key: value for key, value in front.items() if key not in ("inputs", "settings")}
    prompt.settings = dict(bundle.settings or {})
    prompt.settings.pop("inputs", None)
    narrative = bundle.narrative
    lines = narrative.source.split("\n")
    escapes = narrative.escape_columns
    literal = _literal_braces(narrative, prompt.inputs, "inputs" in front, bundle.file_name)
    # The formats fill a placeholder in code as anywhere: in_code is LMML's own, and told.
    prompt.inputs = {
        name: {key: value for key, value in spec.items() if key != "in_code"}
        for name, spec in prompt.inputs.items()
    }
    # Every line of an inline fence (its opening, content and closing lines) is the fence's.
    fenced = {
        line: fence for fence in narrative.index.fences for line in range(fence.start, fence.end)
    }
    for turn in narrative.turns:
        where = f"turn at line {turn.delimiter_line or turn.start_line}"
        if turn.role not in ROLES:
            _drop(f"a {turn.role} turn ({where})", target, bundle.file_name, lossy, turn.start_line)
            continue
        embeds = {embed.name: embed for embed in turn.embeds}
        kept: list[str] = []
        for offset in range(turn.start_line - 1, turn.end_line):
            line = lines[offset]
            stripped = line.strip()
            if stripped.startswith("@") and stripped[1:] in embeds:
                name = stripped[1:]
                embed = embeds[name]
                if embed.kind != "external" or not bundle.has_asset(name):
                    _drop(
                        f"the embed {name} ({where})", target, bundle.file_name, lossy, offset + 1
                    )
                    continue
                prompt.assets[name] = bundle.resolve(name)()
                kept.append(written_reference(name))
                continue
            fence = fenced.get(offset)
            if fence is not None:
                if offset == fence.start:
                    kind = "tool call" if is_tool_call_name(fence.name) else "inline fence"
                    _drop(
                        f"the {kind} {fence.name} ({where}, line {offset + 1})",
                        target,
                        bundle.file_name,
                        lossy,
                        offset + 1,
                    )
                continue
            inside = [embed.name for embed in embeds.values() if embed.line == offset + 1]
            if inside:
                # Left out is the attachment only: the line's text is what the model was
                # sent anyway (a reference inside prose stays in the text).
                _drop(
                    f"an embed inside the text ({where}, line {offset + 1}: "
                    + ", ".join(written_reference(name) for name in inside)
                    + ")",
                    target,
                    bundle.file_name,
                    lossy,
                    offset + 1,
                    kept="the line's text is kept",
                )
            columns = literal.get(offset)
            if columns:  # braces the template sends as written: literal in the prompt text
                shifted = [c + sum(1 for at in columns if at <= c) for c in escapes.get(offset, ())]
                for column in reversed(columns):
                    line = line[:column] + "\\" + line[column:]
                kept.append(without_escapes(line, shifted))
                continue
            kept.append(without_escapes(line, escapes.get(offset, ())))
        prompt.turns.append((turn.role, trim_blank_lines("\n".join(kept))))
    return prompt


def _literal_braces(
    narrative: Narrative, inputs: Mapping[str, Mapping[str, object]], template: bool, file: str
) -> dict[int, list[int]]:
    """The 0-based columns, by 0-based line, of each ``{{`` the bundle sends as written (in
    code, unless its input is ``in_code``; anywhere in a bundle that is no template): the
    prompt text writes them ``\\{{``, literal braces, which each format then writes in its
    own way or refuses. A ``\\{{`` sent as written (in code, or in no template) is refused:
    no prompt format writes a backslash before literal braces."""
    found = narrative.placeholders
    literal: dict[int, list[int]] = {}
    for placeholder in found.found:
        if placeholder.context == "fence":  # a fence's lines are left out or refused
            continue
        live = template and (
            placeholder.context == "text"
            or bool((inputs.get(placeholder.name) or {}).get("in_code"))
        )
        if not live:
            literal.setdefault(placeholder.line - 1, []).append(placeholder.column - 1)
    for escape in found.escapes:
        if escape.context == "code" or (not template and escape.context == "text"):
            raise refuse(
                "a backslash before '{{' that the bundle sends as written (in code, or in a "
                "bundle with no inputs), which a prompt format cannot write",
                file,
                escape.line,
                "reword it",
            )
    return {line: sorted(columns) for line, columns in literal.items()}


def _drop(
    item: str, target: str, file: str, lossy: bool, line: int | None, kept: str | None = None
) -> None:
    if not lossy:
        raise refuse(
            f"{target} cannot hold {item}", file, line, "remove it, or convert with --lossy"
        )
    warn(f"{file}: {target} cannot hold {item}; left out" + (f" ({kept})" if kept else ""))


def bundled_name(path: str, assets: Mapping[str, bytes]) -> str:
    """The entry name the local file *path* is bundled under: its basename, with each run of
    characters ``@name`` cannot spell made ``-`` (``Chart (1).png`` gives ``Chart-1.png``),
    numbered past a name *assets* already holds (``logo-2.png``) or a reserved embed's (a
    user's ``manifest.json`` is an asset, not the bundle's manifest)."""
    base = os.path.basename(path)
    stem, dot, extension = base.rpartition(".") if "." in base[1:] else (base, "", "")
    if not is_reference_name(base):
        stem = _UNSPELLABLE.sub("-", stem).strip("-_.") or "asset"
    name, number = stem + dot + extension, 1
    while name in assets or name in RESERVED_NAMES:
        number += 1
        name = f"{stem}-{number}{dot}{extension}"
    return name


_UNSPELLABLE = re.compile(r"[^\w.-]+")
"""What a reference name cannot hold (``/`` is a folder in an entry name, not here)."""


def bundle_file(path: str, prompt: Prompt) -> str:
    """Bundle the local file *path* into *prompt*'s assets; the reference that sends it."""
    name = bundled_name(path, prompt.assets)
    with open(path, "rb") as stream:
        prompt.assets[name] = stream.read()
    return written_reference(name)


def local_file(reference: str, base: str) -> str | None:
    """The local file a media reference names, relative to *base*, or None for a URL."""
    if "://" in reference or reference.startswith("data:"):
        return None
    path = reference.removeprefix("file:") if reference.startswith("file:") else reference
    return os.path.normpath(os.path.join(base, path))


class _Dumper(yaml.SafeDumper):
    """Safe YAML writing, text of several lines as a literal block."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def dump_yaml(value: object) -> str:
    """*value* as block YAML, keys in their order, text as written."""
    return yaml.dump(value, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1_000_000)


def declare_used(prompt: Prompt) -> None:
    """Declare as a ``string`` input each placeholder the turns use and nothing declares
    (the formats render such a name as text)."""
    for _, text in prompt.turns:
        position = 0
        while (start := text.find("{{ ", position)) >= 0:
            end = text.find(" }}", start)
            if end < 0:
                break
            name = text[start + 3 : end].split(".")[0]
            escaped = start > 0 and text[start - 1] == "\\"
            if not escaped and name.isidentifier() and name not in prompt.inputs:
                prompt.inputs[name] = {"type": "string"}
            position = end + 3
