"""A LangChain ``ChatPromptTemplate`` in its serialized JSON form (``dumpd``): message
prompt templates with f-string or mustache text, and ``MessagesPlaceholder`` as a
``messages`` input; read and written."""

from __future__ import annotations

import json

from ..errors import PromptFileError
from ..jsonio import load_json
from ..text import clipped
from ._shared import HEAD_SIZE, Prompt, leave_out, refuse, scan_placeholders, spaced_placeholder

NAME = "LangChain ChatPromptTemplate"
SUFFIX = ".json"

_PROMPT_ID = ["langchain", "prompts", "prompt", "PromptTemplate"]
_CHAT_ID = ["langchain", "prompts", "chat", "ChatPromptTemplate"]
_ROLES = {
    "SystemMessagePromptTemplate": "system",
    "HumanMessagePromptTemplate": "user",
    "AIMessagePromptTemplate": "assistant",
    "SystemMessage": "system",
    "HumanMessage": "user",
    "AIMessage": "assistant",
}
_PLACEHOLDER = "MessagesPlaceholder"
_HISTORY_ROLES = ["system", "user", "assistant", "tool"]
"""What a ``MessagesPlaceholder`` takes: any message, so every role."""
_CLASSES = {
    "system": "SystemMessagePromptTemplate",
    "user": "HumanMessagePromptTemplate",
    "assistant": "AIMessagePromptTemplate",
}


def looks_like(text: str) -> bool:
    """Whether *text* reads as a serialized ``ChatPromptTemplate``."""
    head = text[:4096]
    return '"lc"' in head and "ChatPromptTemplate" in text[:HEAD_SIZE]


def read(text: str, file: str) -> Prompt:
    """The prompt a serialized ``ChatPromptTemplate`` holds."""
    document = load_json(
        text,
        error_class=PromptFileError,
        name=file,
        subject="a LangChain prompt",
        hint="give the JSON langchain_core.load.dumpd writes",
    )
    if not isinstance(document, dict) or document.get("id") != _CHAT_ID:
        raise refuse("not a serialized ChatPromptTemplate", file, None)
    kwargs = _mapping(document.get("kwargs"), file, "kwargs")
    prompt = Prompt()
    partial = _mapping(kwargs.get("partial_variables") or {}, file, "partial_variables")
    waiting: list[str] = []  # placeholders before the first turn: they open the next one
    for index, item in enumerate(_list(kwargs.get("messages"))):
        message = _mapping(item, file, f"messages[{index}]")
        identifier = _list(message.get("id")) or [""]
        kind = str(identifier[-1])
        if kind == _PLACEHOLDER:
            line = "{{ " + _conversation_input(prompt, message, file, index) + " }}"
            if prompt.turns:
                last_role, text = prompt.turns[-1]
                prompt.turns[-1] = (last_role, f"{text}\n\n{line}" if text else line)
            else:
                waiting.append(line)
            continue
        role = _ROLES.get(kind)
        if role is None:
            raise refuse(f"messages[{index}] is a {kind}, which LMML has no turn for here", file)
        inner = _mapping(message.get("kwargs"), file, f"messages[{index}].kwargs")
        if kind.endswith("PromptTemplate"):
            template = _mapping(inner.get("prompt"), file, f"messages[{index}].prompt")
            if template.get("id") != _PROMPT_ID:
                raise refuse(
                    f"messages[{index}] holds a {clipped(str(template.get('id')), 80)}, not text",
                    file,
                )
            body = _mapping(template.get("kwargs"), file, "prompt.kwargs")
            text_value = body.get("template")
            style = body.get("template_format", "f-string")
            if not isinstance(text_value, str):
                raise refuse(f"messages[{index}] has no text template", file)
            converted = _template(text_value, str(style), file, index)
        else:
            content = inner.get("content")
            if not isinstance(content, str):
                raise refuse(f"messages[{index}] content is not text", file)
            converted = content.replace("{{", "\\{{")  # literal text: braces kept
        if waiting:
            converted = "\n\n".join([*waiting, converted] if converted else waiting)
            waiting = []
        prompt.turns.append((role, converted))
    if waiting:
        prompt.turns.append(("user", "\n\n".join(waiting)))
    for name in _list(kwargs.get("input_variables")):
        prompt.inputs.setdefault(str(name), {"type": "string"})
    for name, value in partial.items():
        if prompt.inputs.get(name, {}).get("type") == "messages":
            continue  # an optional placeholder's empty list
        if not isinstance(value, str):
            raise refuse(f"the partial variable {name!r} is not text", file)
        prompt.inputs[str(name)] = {"type": "string", "default": value}
    return prompt


def _conversation_input(prompt: Prompt, message: dict[str, object], file: str, index: int) -> str:
    """Declare the ``messages`` input a ``MessagesPlaceholder`` stands for; its name."""
    inner = _mapping(message.get("kwargs"), file, f"messages[{index}].kwargs")
    name = inner.get("variable_name")
    if not isinstance(name, str) or not name.isidentifier():
        raise refuse(f"messages[{index}] names no variable LMML can declare", file)
    if inner.get("n_messages") is not None:
        raise refuse(
            f"messages[{index}] keeps only the last n_messages, logic LMML lacks",
            file,
            None,
            "give the messages to keep as the value instead",
        )
    declaration: dict[str, object] = {"type": "messages", "roles": list(_HISTORY_ROLES)}
    if inner.get("optional") is True:
        declaration["required"] = False
    prompt.inputs[name] = declaration
    return name


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _mapping(value: object, file: str, where: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise refuse(f"{where} is not a JSON object", file)
    return value


def _template(text: str, style: str, file: str, index: int) -> str:
    if style == "mustache":
        return scan_placeholders(text, file, 1, openers=())
    if style != "f-string":
        raise refuse(
            f"messages[{index}] is a {style} template, logic LMML lacks",
            file,
            None,
            "use an f-string or mustache template",
        )
    out: list[str] = []
    literal: list[str] = []  # the text since the last field, braces unescaped

    def flush() -> None:
        # Literal braces stay literal in the template: LMML writes a literal {{ as \{{.
        out.append("".join(literal).replace("{{", "\\{{"))
        literal.clear()

    position = 0
    while position < len(text):
        brace = min(
            (i for i in (text.find("{", position), text.find("}", position)) if i >= 0), default=-1
        )
        if brace < 0:
            literal.append(text[position:])
            break
        literal.append(text[position:brace])
        if text.startswith("{{", brace):
            literal.append("{")
            position = brace + 2
        elif text.startswith("}}", brace):
            literal.append("}")
            position = brace + 2
        elif text[brace] == "}":
            raise refuse(f"messages[{index}] has a lone '}}'", file)
        else:
            end = text.find("}", brace)
            field = text[brace + 1 : end] if end >= 0 else ""
            if not field.replace(".", "_").isidentifier():
                raise refuse(
                    f"messages[{index}] has the format field {{{field}}}, logic LMML lacks",
                    file,
                    None,
                    "LMML fills {name} fields only, without conversions or specs",
                )
            flush()
            out.append(f"{{{{ {field} }}}}")
            position = end + 1
    flush()
    return "".join(out)


def write(prompt: Prompt, file: str, lossy: bool) -> tuple[str, dict[str, bytes]]:
    """*prompt* as serialized ``ChatPromptTemplate`` JSON (f-string templates)."""
    for key in prompt.settings:
        leave_out(
            f"a {NAME}",
            f"the setting {key!r} (a prompt template holds no model settings)",
            file,
            lossy,
        )
    for number in range(1, len(prompt.cases) + 1):
        leave_out(f"a {NAME}", f"case {number} (no test data)", file, lossy)
    partial: dict[str, object] = {}
    variables: list[str] = []
    optional: list[str] = []
    for name, spec in prompt.inputs.items():
        if spec.get("type") == "messages":
            if spec.get("required", True) is False:
                optional.append(name)
                partial[name] = []
            else:
                variables.append(name)
            continue
        if spec.get("type", "string") != "string":
            leave_out(f"a {NAME}", f"the type of the input {name!r}", file, lossy)
        if "default" in spec:
            partial[name] = spec["default"]
        else:
            variables.append(name)
    conversations = {
        "{{ " + name + " }}"
        for name, spec in prompt.inputs.items()
        if spec.get("type") == "messages"
    }
    messages: list[object] = []
    for role, text in prompt.turns:
        lines: list[str] = []
        for line in text.split("\n"):
            if line.startswith("@") and line[1:] in prompt.assets:
                leave_out(f"a {NAME}", f"the asset {line[1:]}", file, lossy)
            else:
                lines.append(line)
        # A messages placeholder alone on its line splits the turn there.
        pieces: list[list[str]] = [[]]
        names: list[str] = []
        for line in lines:
            if spaced_placeholder(line) in conversations:
                names.append(spaced_placeholder(line)[3:-3])
                pieces.append([])
            else:
                pieces[-1].append(line)
        if not names:
            messages.append(_message(role, "\n".join(lines), file))
            continue
        for index, piece in enumerate(pieces):
            if "\n".join(piece).strip():
                messages.append(_message(role, "\n".join(piece).strip("\n"), file))
            if index < len(names):
                arguments = {"variable_name": names[index], "optional": names[index] in optional}
                messages.append(
                    _constructor(["langchain", "prompts", "chat", _PLACEHOLDER], arguments, None)
                )
    kwargs: dict[str, object] = {"input_variables": sorted(variables), "messages": messages}
    if optional:
        kwargs["optional_variables"] = sorted(optional)
    if partial:
        kwargs["partial_variables"] = partial
    document = _constructor(_CHAT_ID, kwargs, "ChatPromptTemplate")
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n", {}


def _message(role: str, text: str, file: str) -> object:
    """One message prompt template of *role* holding the LMML *text*."""
    template, names = _f_string(text, file)
    return _constructor(
        ["langchain", "prompts", "chat", _CLASSES[role]],
        {
            "prompt": _constructor(
                _PROMPT_ID,
                {
                    "input_variables": sorted(names),
                    "template": template,
                    "template_format": "f-string",
                },
                "PromptTemplate",
            )
        },
        None,
    )


def _f_string(text: str, file: str) -> tuple[str, set[str]]:
    """LMML text (``{{ name }}``, ``\\\\{{``) as an f-string template and its fields."""
    out: list[str] = []
    names: set[str] = set()
    position = 0
    while True:
        start = text.find("{{", position)
        if start < 0:
            rest = text[position:]
            out.append(rest.replace("{", "{{").replace("}", "}}"))
            return "".join(out), names
        literal = text[position:start]
        if literal.endswith("\\"):
            out.append(literal[:-1].replace("{", "{{").replace("}", "}}") + "{{{{")
            position = start + 2
            continue
        end = text.find("}}", start)
        name = text[start + 2 : end].strip() if end >= 0 else ""
        if end < 0 or not name.replace(".", "_").isidentifier():
            raise refuse("the text holds '{{' that is no placeholder", file)
        out.append(literal.replace("{", "{{").replace("}", "}}") + "{" + name + "}")
        names.add(name.split(".")[0])
        position = end + 2


def _constructor(identifier: list[str], kwargs: dict[str, object], name: str | None) -> object:
    document: dict[str, object] = {"lc": 1, "type": "constructor", "id": identifier}
    document["kwargs"] = kwargs
    if name is not None:
        document["name"] = name
    return document
