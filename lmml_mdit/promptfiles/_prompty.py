"""Prompty (``.prompty``): YAML front matter (model, inputs, sample), then ``role:``
sections; read into a :class:`~._shared.Prompt` and written from one."""

from __future__ import annotations

import os

from ..text import clipped
from ._shared import (
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
)

NAME = "Prompty"
META_KEY = "prompty"
SUFFIX = ".prompty"

_JINJA = (("{%", "a Jinja statement"), ("{#", "a Jinja comment"))
_ROLES = {"system": "system", "user": "user", "assistant": "assistant"}
_OTHER_ROLES = frozenset({"function", "tool", "developer"})
_THREAD = "thread"
"""Prompty's conversation input: LMML's ``messages``."""
_THREAD_ROLES = ("system", "user", "assistant", "tool")
_INPUT_TYPES = {
    "string": "string",
    "str": "string",
    "number": "number",
    "float": "number",
    "integer": "integer",
    "int": "integer",
    "boolean": "boolean",
    "bool": "boolean",
    "object": "object",
}
_DESCRIPTIVE = frozenset(
    {"name", "description", "authors", "version", "tags", "metadata", "template"}
)
"""Keys kept as metadata without a warning: they describe the prompt, or (``template``)
were read to know its template language."""
_MODEL_KEYS = ("azure_deployment", "name", "model")
_OPTIONS = {
    "maxOutputTokens": "max_tokens",
    "topP": "top_p",
    "topK": "top_k",
    "frequencyPenalty": "frequency_penalty",
    "presencePenalty": "presence_penalty",
    "stopSequences": "stop",
}
"""Prompty 2's camel-case ``model.options`` names and the LMML settings they are."""
_OPTION_NAMES = {setting: option for option, setting in _OPTIONS.items()}


def looks_like(text: str) -> bool:
    """Whether *text* reads as a Prompty file: front matter, then a role line."""
    if not text.lstrip("\ufeff").startswith("---"):
        return False
    return any(_role_of(line) is not None for line in text.splitlines()[:2000])


def _role_of(line: str) -> str | None:
    stripped = line.strip().lstrip("#").strip()
    if not stripped.endswith(":"):
        return None
    word = stripped[:-1].strip().lower()
    return word if word in _ROLES or word in _OTHER_ROLES else None


def read(text: str, file: str) -> Prompt:
    """The prompt a ``.prompty`` file holds; its media resolved beside *file*."""
    front, body, first_line = split_front_matter(text, file)
    prompt = Prompt()
    meta: dict[str, object] = {}
    sample: dict[str, object] = {}
    for key, value in front.items():
        if key == "model":
            _read_model(value, prompt, meta, file, front_line(text, "model"))
        elif key == "inputs":
            _read_inputs(value, prompt, file, text)
            if isinstance(value, list):
                meta[key] = []  # Prompty 2's list with kind: written back in this form
        elif key == "inputSchema":
            properties = value.get("properties") if isinstance(value, dict) else None
            _read_inputs(properties, prompt, file, text)
            meta[key] = {"properties": []}  # written back in this form
        elif key == "sample":
            if not isinstance(value, dict):
                raise refuse(
                    "the sample is not a mapping of input values (a file reference?)",
                    file,
                    front_line(text, "sample"),
                    "give the sample inline as a mapping",
                )
            sample.update(value)
        else:
            if key not in _DESCRIPTIVE:
                warn(f"{file}: the Prompty key {key!r} is kept as metadata, unused by LMML")
            meta[key] = value
    if prompt.cases or sample:  # one sample: the inputs' own, then the sample mapping's
        prompt.cases = [{k: v for case in prompt.cases for k, v in case.items()} | sample]
    mustache = _template_format(meta) == "mustache"
    openers = () if mustache else _JINJA
    _read_body(body, first_line, prompt, file, openers)
    if prompt.assets and _second_form(meta):
        warn(
            f"{file}: Prompty 2 sends an image line as its text; the LMML template sends "
            f"the image ({', '.join(sorted(prompt.assets))})"
        )
    _placed_threads(prompt)
    prompt.meta = {META_KEY: meta}
    return prompt


def _second_form(meta: dict[str, object]) -> bool:
    """Whether the file is (or is written) in Prompty 2's form: ``inputSchema``, an
    ``inputs`` list, a model given by name alone or by ``model.id``, or ``model.options``."""
    model = meta.get("model")
    return (
        "inputSchema" in meta
        or isinstance(meta.get("inputs"), list)
        or isinstance(model, str)
        or (isinstance(model, dict) and ("options" in model or "id" in model))
    )


def _template_format(meta: dict[str, object]) -> str:
    template = meta.get("template")
    if isinstance(template, dict):
        template = template.get("format") or template.get("type")
    if isinstance(template, dict):
        template = template.get("kind")
    return str(template or "jinja2").lower()


def _read_model(
    value: object, prompt: Prompt, meta: dict[str, object], file: str, line: int | None
) -> None:
    if isinstance(value, str):
        prompt.settings["model"] = value
        meta["model"] = value  # Prompty 2's shorthand: written back as a name when it can be
        return
    if not isinstance(value, dict):
        raise refuse("model is neither a name nor a mapping", file, line)
    kept = {key: item for key, item in value.items() if key not in ("parameters", "options")}
    configuration = value.get("configuration") or value.get("connection")
    name = value.get("id")
    if isinstance(configuration, dict):
        name = next((configuration[key] for key in _MODEL_KEYS if key in configuration), name)
    if isinstance(name, str):
        prompt.settings["model"] = name
    known = known_settings()
    parameters = value.get("parameters", value.get("options")) or {}
    if not isinstance(parameters, dict):
        raise refuse("model parameters are not a mapping", file, line)
    for key, item in parameters.items():
        key = _OPTIONS.get(key, key) if "options" in value else key
        if key not in known:
            warn(f"{file}: the model parameter {key!r} has no LMML name; kept as a setting")
        prompt.settings[key] = item
    if "options" in value:
        kept["options"] = {}  # written back as Prompty 2 options
    meta["model"] = kept


def _read_inputs(value: object, prompt: Prompt, file: str, text: str) -> None:
    if isinstance(value, list):
        value = {
            str(item.get("name")): {k: v for k, v in item.items() if k != "name"}
            for item in value
            if isinstance(item, dict)
        }
    if not isinstance(value, dict):
        raise refuse("inputs is not a mapping", file, front_line(text, "inputs"))
    sample: dict[str, object] = {}
    for name, spec in value.items():
        line = front_line(text, str(name), ("inputs", "inputSchema"))
        if not str(name).isidentifier():
            raise refuse(f"the input name {name!r} is not a placeholder name", file, line)
        if not isinstance(spec, dict):
            spec = {"type": _type_of_value(spec, name, file, line), "sample": spec}
        kind = str(spec.get("type", spec.get("kind", "string"))).lower()
        if kind == _THREAD:
            prompt.inputs[name] = _thread(name, spec, sample, file)
            continue
        if kind in ("image", "file", "audio"):
            raise refuse(
                f"the input {clipped(repr(name), 80)} is a Prompty {kind} input, which is not "
                "converted (LMML's image and file inputs take a path, and attach where their "
                "placeholder stands alone)",
                file,
                line,
                f"convert the prompt without it, then declare an LMML {kind} input by hand"
                if kind != "audio"
                else "convert the prompt without it",
            )
        if kind not in _INPUT_TYPES:
            raise refuse(
                f"the input {clipped(repr(name), 80)} has the type {clipped(repr(kind), 80)}, "
                "which LMML has no type for",
                file,
                line,
                "declare it as a string, number, integer, boolean or object",
            )
        declared: dict[str, object] = {"type": _INPUT_TYPES[kind]}
        for key in ("description", "default"):
            if key in spec:
                declared[key] = spec[key]
        if "required" in spec and "default" not in spec:
            declared["required"] = bool(spec["required"])
        if "sample" in spec:
            sample[name] = spec["sample"]
        prompt.inputs[name] = declared
    if sample:
        prompt.cases.append(sample)


def _thread(
    name: str, spec: dict[object, object], sample: dict[str, object], file: str
) -> dict[str, object]:
    """The ``messages`` input a Prompty ``thread`` input stands for; its default (LMML's
    conversations take none) becomes its value in the sample case, with a warning."""
    declared: dict[str, object] = {"type": "messages", "roles": list(_THREAD_ROLES)}
    if "description" in spec:
        declared["description"] = spec["description"]
    if spec.get("required") is False or "default" in spec:
        declared["required"] = False
    if "sample" in spec:
        sample[name] = spec["sample"]
    elif "default" in spec:
        sample[name] = spec["default"]
        warn(
            f"{file}: the default of the thread input {name!r} is its value in the sample "
            "case (an LMML conversation input takes no default)"
        )
    return declared


def _placed_threads(prompt: Prompt) -> None:
    """Put each thread input no turn names at the end, where Prompty puts it."""
    for name, spec in prompt.inputs.items():
        line = "{{ " + name + " }}"
        if spec.get("type") != "messages" or any(
            spaced_placeholder(text_line) == line
            for _, text in prompt.turns
            for text_line in text.split("\n")
        ):
            continue
        if prompt.turns:
            role, text = prompt.turns[-1]
            prompt.turns[-1] = (role, f"{text}\n\n{line}" if text else line)
        else:
            prompt.turns.append(("user", line))


def _type_of_value(value: object, name: str, file: str, line: int | None) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    raise refuse(
        f"the input {name!r} has a value of no LMML type ({type(value).__name__})",
        file,
        line,
        "give a string, number, boolean or mapping, or declare it with a type "
        "(a list of messages is a thread input: kind: thread)",
    )


def _read_body(
    body: str,
    first_line: int,
    prompt: Prompt,
    file: str,
    openers: tuple[tuple[str, str], ...],
) -> None:
    role: str | None = None
    lines: list[str] = []
    start = first_line
    base = os.path.dirname(os.path.abspath(file))

    def close() -> None:
        joined = "\n".join(lines)
        text = joined.strip("\n")
        if role is None and not text.strip():
            return
        # The blank lines stripped from the start still count for the lines named.
        line = start + len(joined) - len(joined.lstrip("\n"))
        _no_escaped_braces(text, file, line)
        text = scan_placeholders(text, file, line, openers=openers)
        text = _media(text, file, line, prompt, base)
        prompt.turns.append((role or "system", text))

    for offset, line in enumerate(body.split("\n")):
        found = _role_of(line)
        if found is None:
            lines.append(line)
            continue
        if found in _OTHER_ROLES:
            raise refuse(
                f"the role {clipped(repr(found), 80)} has no LMML turn here",
                file,
                first_line + offset,
                "use system, user or assistant",
            )
        close()
        role, lines, start = _ROLES[found], [], first_line + offset + 1
    close()


def _no_escaped_braces(text: str, file: str, first_line: int) -> None:
    """Refuse a backslash before ``{{``: Prompty's template engines send the backslash and
    fill the placeholder, where LMML reads ``\\{{`` as literal braces."""
    index = text.find("\\{{")
    if index >= 0:
        raise refuse(
            "a backslash before '{{': Prompty sends the backslash and fills the placeholder, "
            "while an LMML template reads \\{{ as literal braces",
            file,
            first_line + text.count("\n", 0, index),
            "remove the backslash, or put a space between it and the braces",
        )


def _media(text: str, file: str, first_line: int, prompt: Prompt, base: str) -> str:
    """Each line that is only a Markdown image of a local file becomes ``@name``, the file
    bundled; an image elsewhere is refused (its text would be sent, not the image)."""
    out: list[str] = []
    for offset, line in enumerate(text.split("\n")):
        stripped = line.strip()
        if "![" not in line:
            out.append(line)
            continue
        if not (stripped.startswith("![") and stripped.endswith(")") and "](" in stripped):
            raise refuse(
                "an image inside a line of text",
                file,
                first_line + offset,
                "put the image on a line of its own",
            )
        source = stripped[stripped.index("](") + 2 : -1].strip()
        path = local_file(source, base)
        if path is None or not os.path.isfile(path):
            raise refuse(
                f"the image {source!r} is not a local file to bundle",
                file,
                first_line + offset,
                "download it beside the prompt file and name it by its path",
            )
        out.append(bundle_file(path, prompt))
    return "\n".join(out)


def write(prompt: Prompt, file: str, lossy: bool) -> tuple[str, dict[str, bytes]]:
    """*prompt* as a ``.prompty`` text, and the media files to write beside it."""
    front: dict[str, object] = {}
    kept = prompt.meta.get(META_KEY)
    meta = dict(kept) if isinstance(kept, dict) else {}
    order = list(meta)
    # A conversation input is a thread, which only Prompty 2 has.
    second = _second_form(meta) or any(
        spec.get("type") == "messages" for spec in prompt.inputs.values()
    )
    if prompt.assets and second:
        warn(
            f"{file}: Prompty 2 sends an image line as its text, not the image "
            f"({', '.join(sorted(prompt.assets))}): pass it through a kind: image input"
        )
    for key in ("name", "description", "authors"):
        if key in meta:
            front[key] = meta.pop(key)
    model = _written_model(prompt, meta, second)
    if model:
        front["model"] = model
    if prompt.inputs:
        inputs = _written_inputs(prompt, file, lossy)
        listed = [{"name": name, **_kind(spec)} for name, spec in inputs.items()]
        if "inputSchema" in meta:
            meta["inputSchema"] = {"properties": listed}
        elif second:
            meta.pop("inputs", None)
            front["inputs"] = listed
        else:
            front["inputs"] = inputs
    if prompt.cases:
        front["sample"] = prompt.cases[0]
        for number in range(2, len(prompt.cases) + 1):
            leave_out(NAME, f"case {number} (Prompty holds one sample)", file, lossy)
    front.update(meta)
    front = {key: front[key] for key in _key_order(order, front)}
    sections: list[str] = []
    for role, text in prompt.turns:
        sections.append(f"{role}:\n{_written_text(text, file, frozenset(prompt.assets))}")
    head = f"---\n{dump_yaml(front)}---\n" if front else "---\n---\n"
    return head + "\n\n".join(sections) + "\n", dict(prompt.assets)


_FIRST_KEYS = ("name", "description", "authors", "model", "inputs", "sample")
"""Where the front matter keys the file did not have go: in this order, first."""


def _key_order(order: list[str], front: dict[str, object]) -> list[str]:
    """*front*'s keys in the order the file had them (*order*), each key it did not have
    placed after the nearest one before it in :data:`_FIRST_KEYS`."""
    keys = [key for key in order if key in front]
    for index, key in enumerate(_FIRST_KEYS):
        if key in front and key not in keys:
            earlier = [item for item in _FIRST_KEYS[:index] if item in keys]
            keys.insert(keys.index(earlier[-1]) + 1 if earlier else 0, key)
    keys.extend(key for key in front if key not in keys)
    return keys


def _written_model(
    prompt: Prompt, meta: dict[str, object], second: bool
) -> dict[str, object] | str:
    """The ``model`` to write: as the file had it, else in the form written (Prompty 2's
    ``id`` and ``options``, or Prompty 1's ``configuration`` and ``parameters``)."""
    model = meta.pop("model", None)
    if model is None and second:
        settings = dict(prompt.settings)
        fresh: dict[str, object] = {}
        if "model" in settings:
            fresh["id"] = settings.pop("model")
        if settings:
            fresh["options"] = {_OPTION_NAMES.get(key, key): item for key, item in settings.items()}
        return fresh
    if isinstance(model, str):
        settings = dict(prompt.settings)
        name = settings.pop("model", model)
        if not settings:
            return str(name)
        model = {"id": name, "options": {}}
    written: dict[str, object] = dict(model) if isinstance(model, dict) else {"api": "chat"}
    settings = dict(prompt.settings)
    name = settings.pop("model", None)
    if name is not None:
        configuration = written.get("configuration")
        if isinstance(configuration, dict):
            configuration = dict(configuration)
            key = next((key for key in _MODEL_KEYS if key in configuration), None)
            if key is None and "id" in written:
                written["id"] = name
            else:
                configuration[key or "name"] = name
            written["configuration"] = configuration
        elif "id" in written:
            written["id"] = name
        else:  # Prompty 1 names the model in its configuration (its type and keys come
            # from the user's prompty.json, which Prompty merges in)
            written["configuration"] = {"name": name}
    if "options" in written:
        written["options"] = {_OPTION_NAMES.get(key, key): item for key, item in settings.items()}
    elif settings:
        written["parameters"] = settings
    return written if (name is not None or settings or model) else {}


def _kind(spec: object) -> dict[str, object]:
    """A declaration in Prompty 2's form: ``kind`` for ``type``."""
    assert isinstance(spec, dict)
    return {("kind" if key == "type" else key): value for key, value in spec.items()}


def _written_inputs(prompt: Prompt, file: str, lossy: bool) -> dict[str, object]:
    inputs: dict[str, object] = {}
    for name, spec in prompt.inputs.items():
        kind = spec.get("type", "string")
        if kind in ("image", "file"):
            leave_out(NAME, f"the {kind} input {name!r}", file, lossy)
            continue
        if kind == "messages":
            # The roles are LMML's own check; Prompty takes any message in a thread.
            inputs[name] = {
                key: (_THREAD if key == "type" else value)
                for key, value in spec.items()
                if key != "roles"
            }
            continue
        inputs[name] = {key: value for key, value in spec.items() if key != "schema"}
        if "schema" in spec:
            leave_out(NAME, f"the schema of the input {name!r}", file, lossy)
    return inputs


def _written_text(text: str, file: str, assets: frozenset[str]) -> str:
    """LMML turn text as a Prompty section: references as images; a line Prompty would
    read as a role, or Jinja it would run, is refused."""
    out: list[str] = []
    for line in text.split("\n"):
        if _role_of(line) is not None:
            raise refuse(
                f"the line {line.strip()!r} would start a new Prompty message",
                file,
                None,
                "reword it",
            )
        if "\\{{" in line:
            raise refuse(
                f"the text holds literal braces ({clipped(line.strip(), 80)}), which Prompty "
                "would fill as a placeholder (it has no escape for them)",
                file,
                None,
                "reword it",
            )
        if line.startswith("@") and line[1:] in assets:
            out.append(f"![{line[1:]}]({line[1:]})")
            continue
        out.append(line)
    written = "\n".join(out)
    scan_placeholders(written, file, 1, openers=_JINJA)
    return written
