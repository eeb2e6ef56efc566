"""GitHub Models prompt files (``.prompt.yml``): one YAML document with ``messages``,
``model``, ``modelParameters``, ``testData`` and ``evaluators``; read and written."""

from __future__ import annotations

from ..bundle import load_front_matter
from ..errors import InvalidSettingsError
from ..text import clipped
from ._shared import (
    HEAD_SIZE,
    ROLES,
    Prompt,
    dump_yaml,
    known_settings,
    leave_out,
    refuse,
    scan_placeholders,
    warn,
    without_conversations,
)

NAME = "GitHub Models prompt file"
META_KEY = "github_models"
SUFFIX = ".prompt.yml"
SUFFIXES = (".prompt.yml", ".prompt.yaml")

_PARAMETERS = {
    "maxTokens": "max_tokens",
    "topP": "top_p",
    "maxCompletionTokens": "max_completion_tokens",
}
"""``modelParameters`` names and the LMML settings they are."""
_PARAMETER_NAMES = {setting: name for name, setting in _PARAMETERS.items()}
_KEPT = ("name", "description", "testData", "evaluators", "responseFormat", "jsonSchema")


def looks_like(text: str) -> bool:
    """Whether *text* reads as a ``.prompt.yml``: top-level ``messages:`` with roles."""
    head = text[:HEAD_SIZE]
    return not head.startswith("---") and "\nmessages:" in "\n" + head and "role:" in head


def read(text: str, file: str) -> Prompt:
    """The prompt a ``.prompt.yml`` holds."""
    try:
        document = load_front_matter(text.removeprefix("\ufeff"))
    except InvalidSettingsError as error:
        line = error.line - 1 if error.line is not None else None
        raise refuse(error.message, file, line, error.hint) from None
    prompt = Prompt()
    meta: dict[str, object] = {}
    known = known_settings()
    for key, value in document.items():
        if key == "model":
            prompt.settings["model"] = value
        elif key == "modelParameters":
            if not isinstance(value, dict):
                raise refuse("modelParameters is not a mapping", file, None)
            for name, item in value.items():
                setting = _PARAMETERS.get(str(name), str(name))
                if setting not in known:
                    warn(f"{file}: the parameter {name!r} has no LMML name; kept as a setting")
                prompt.settings[setting] = item
        elif key == "messages":
            _read_messages(value, text, prompt, file)
        elif key in _KEPT:
            meta[key] = value
        else:
            warn(f"{file}: the key {key!r} is kept as metadata, unused by LMML")
            meta[key] = value
    rows = meta.get("testData")
    for case in rows if isinstance(rows, list) else []:
        if isinstance(case, dict):
            prompt.cases.append({k: v for k, v in case.items() if k in prompt.inputs})
    prompt.meta = {META_KEY: meta} if meta else {}
    return prompt


def _read_messages(value: object, text: str, prompt: Prompt, file: str) -> None:
    if not isinstance(value, list):
        raise refuse("messages is not a list", file, None)
    for index, message in enumerate(value):
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            raise refuse(f"messages[{index}] has no text content", file, _item_line(text, index))
        role = message.get("role")
        if role not in ROLES:
            raise refuse(
                f"messages[{index}] has the role {clipped(repr(role), 80)}, which has no LMML turn",
                file,
                _item_line(text, index),
                "use system, user or assistant",
            )
        content = message["content"]
        line = _line_of(text, content)
        checked = scan_placeholders(
            _spaced_as_text(content, file, line), file, line, openers=(), backslash=True
        )
        for name in _names(checked):
            prompt.inputs.setdefault(name.split(".")[0], {"type": "string"})
        prompt.turns.append((str(role), checked.strip("\n")))


def _spaced_as_text(content: str, file: str, line: int) -> str:
    """*content* with each ``{{ name }}`` written with spaces inside its braces marked
    literal (``\\{{``): gh-models fills the exact text ``{{name}}`` only, and sends the
    other as written. A backslash before ``{{`` is refused: gh-models sends it and fills
    the placeholder, which LMML would read as literal braces."""
    out: list[str] = []
    position = 0
    while (start := content.find("{{", position)) >= 0:
        at = line + content.count("\n", 0, start)
        if start > 0 and content[start - 1] == "\\":
            raise refuse(
                "a backslash before '{{': gh-models sends the backslash and fills the "
                "placeholder, while an LMML template reads \\{{ as literal braces",
                file,
                at,
                "remove the backslash, or put a space between it and the braces",
            )
        end = content.find("}}", start + 2)
        inner = content[start + 2 : end] if end >= 0 else ""
        out.append(content[position:start])
        if inner.strip().isidentifier() and inner != inner.strip():
            warn(
                f"{file}:{at}: {{{{{inner}}}}} has spaces inside its braces, which gh-models "
                "does not fill: it is kept as text (write {{"
                + inner.strip()
                + "}} for a placeholder)"
            )
            out.append("\\")
        out.append("{{")
        position = start + 2
    out.append(content[position:])
    return "".join(out)


def _item_line(text: str, index: int) -> int | None:
    """The line of the *index*-th item of the top-level ``messages:`` list, if it is
    written in block style (``- role: ...``), else None."""
    lines = text.split("\n")
    start = next((n for n, line in enumerate(lines) if line.startswith("messages:")), None)
    if start is None:
        return None
    indent: int | None = None
    seen = -1
    for number, line in enumerate(lines[start + 1 :], start=start + 2):
        stripped = line.lstrip(" ")
        if stripped and not line.startswith((" ", "-")):
            return None  # the next top-level key
        if stripped.startswith("- ") or stripped == "-":
            depth = len(line) - len(stripped)
            indent = depth if indent is None else indent
            if depth == indent:
                seen += 1
                if seen == index:
                    return number
    return None


def _line_of(text: str, content: str) -> int:
    """The line where *content*'s first line stands in the file, or 1."""
    first = content.split("\n", 1)[0].strip()
    index = text.find(first) if first else -1
    return text.count("\n", 0, index) + 1 if index >= 0 else 1


def _names(text: str) -> list[str]:
    names: list[str] = []
    position = 0
    while (start := text.find("{{ ", position)) >= 0:
        end = text.find(" }}", start)
        if end < 0:
            break
        if not (start > 0 and text[start - 1] == "\\"):  # literal braces name no input
            names.append(text[start + 3 : end])
        position = end + 3
    return names


def _test_data(kept: object, prompt: Prompt) -> list[object]:
    """``testData`` from the cases: a case whose input values are those of a row kept from
    the original is that row (its other keys, ``expected``, kept); any other case is a row
    of its own. So a case added, changed or removed in the cases file is one here too."""
    rows = [row for row in kept if isinstance(row, dict)] if isinstance(kept, list) else []
    unused = list(range(len(rows)))
    written: list[object] = []
    for case in prompt.cases:
        match = next(
            (
                index
                for index in unused
                if {k: v for k, v in rows[index].items() if k in prompt.inputs} == case
            ),
            None,
        )
        if match is None:
            written.append(dict(case))
            continue
        unused.remove(match)
        written.append(rows[match])
    return written


def _written(text: str, file: str) -> str:
    """*text* (placeholders ``{{ name }}``, literal braces ``\\{{``) as gh-models reads
    it: a placeholder as ``{{name}}``, the exact text it fills; literal braces as they are,
    unless they read ``{{name}}``, which gh-models would fill (refused)."""
    out: list[str] = []
    position = 0
    while (start := text.find("{{", position)) >= 0:
        end = text.find("}}", start + 2)
        if end < 0:
            break
        inner = text[start + 2 : end]
        if start > 0 and text[start - 1] == "\\":
            if inner.isidentifier():
                raise refuse(
                    f"the text holds the literal braces {{{{{inner}}}}}, which gh-models "
                    "would fill as a placeholder (it has no escape for them)",
                    file,
                    None,
                    "reword it, or put spaces inside the braces",
                )
            out.append(text[position : start - 1] + "{{" + inner + "}}")
        else:
            out.append(text[position:start] + "{{" + inner.strip() + "}}")
        position = end + 2
    out.append(text[position:])
    return "".join(out)


def write(prompt: Prompt, file: str, lossy: bool) -> tuple[str, dict[str, bytes]]:
    """*prompt* as a ``.prompt.yml`` text (the format holds no media)."""
    prompt = without_conversations(prompt, f"a {NAME}", file, lossy)
    kept = prompt.meta.get(META_KEY)
    meta = dict(kept) if isinstance(kept, dict) else {}
    document: dict[str, object] = {}
    for key in ("name", "description"):
        if key in meta:
            document[key] = meta.pop(key)
    settings = dict(prompt.settings)
    if "model" in settings:
        document["model"] = settings.pop("model")
    if settings:
        document["modelParameters"] = {
            _PARAMETER_NAMES.get(key, key): item for key, item in settings.items()
        }
    for name, spec in prompt.inputs.items():
        extra = sorted(key for key in spec if key != "type")
        if spec.get("type", "string") != "string" or extra:
            what = ", ".join([f"type {spec.get('type')}", *extra])
            leave_out(f"a {NAME}", f"the declaration of the input {name!r} ({what})", file, lossy)
    messages: list[dict[str, object]] = []
    for role, text in prompt.turns:
        for line in text.split("\n"):
            if line.startswith("@") and line[1:] in prompt.assets:
                leave_out(f"a {NAME}", f"the asset {line[1:]} (no media)", file, lossy)
        content = "\n".join(
            line
            for line in text.split("\n")
            if not (line.startswith("@") and line[1:] in prompt.assets)
        )
        messages.append({"role": role, "content": _written(content, file)})
    document["messages"] = messages
    if "testData" in meta and prompt.cases:
        meta["testData"] = _test_data(meta["testData"], prompt)
    elif prompt.cases:
        document["testData"] = prompt.cases
    document.update(meta)
    return dump_yaml(document), {}
