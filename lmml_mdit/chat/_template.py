"""Flattening a role/content message list for strict chat templates.

Pure, idempotent functions that adapt ``[{"role", "content", "author"?}]`` lists to
templates that refuse a ``system`` role or require ``user``/``assistant`` to alternate
from ``user``; :func:`flatten` applies every step needed. See docs/transcript.md,
"Flattening".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..errors import ChatTemplateError, TranscriptTypeError
from ..jsonio import parse_json
from ..jsontypes import JSONMapping, JSONObject

__all__ = [
    "OPENING_USER_PLACEHOLDER",
    "SEPARATOR",
    "ChatMessage",
    "ChatTokenizer",
    "FlattenFlags",
    "detect_template_flags",
    "ensure_user_first",
    "flatten",
    "fold_system",
    "fold_tools",
    "merge_same_role",
]

ChatMessage = JSONObject
"""One message: ``role``, ``content`` (a string or a list of parts), optional ``author``."""

SEPARATOR = "\n\n"
"""What joins two merged or folded texts."""

OPENING_USER_PLACEHOLDER = "(The conversation so far follows.)"
"""The user turn :func:`ensure_user_first` inserts before a view that opens on the model."""

_UNMERGED_ROLES = frozenset({"system", "tool"})
"""Roles whose consecutive messages stay apart: each tool message answers its own call."""


class ChatTokenizer(Protocol):
    """What rendering through a chat template needs of a tokenizer: Hugging Face's
    ``apply_chat_template(conversation, *, tokenize=..., add_generation_prompt=..., **kwargs)``
    (any object with that method will do; nothing here imports ``transformers``).

    The protocol names only what every caller passes. A Hugging Face tokenizer also takes
    the template's own keyword arguments (``tools``, ``chat_template``, ...), which a caller
    may forward; a protocol spelling ``**kwargs`` out would match no tokenizer whose method
    names its other parameters.
    """

    def apply_chat_template(
        self,
        conversation: list[ChatMessage],
        /,
        *,
        tokenize: bool = ...,
        add_generation_prompt: bool = ...,
    ) -> object:
        """Render *conversation* with the template: a string, or token ids with *tokenize*."""
        ...


@dataclass(frozen=True)
class FlattenFlags:
    """What a chat template accepts.

    :ivar supports_system_role: the template takes a ``system`` message (and shows its
        text).
    :ivar requires_alternating_roles: the template needs ``user``/``assistant`` to alternate,
        opening on ``user``.
    :ivar supports_tool_calls: the template shows an assistant message's ``tool_calls``
        (several, with the text beside them) and a ``tool`` message's result; without it
        they are written as text (:func:`fold_tools`).
    :ivar supports_system_midway: the template shows a ``system`` message after the
        conversation has begun; without it such a message becomes a ``user`` message.
    :ivar supports_content_parts: the template shows text given as a list of parts
        (``[{"type": "text", "text": ...}]``, as :meth:`Bundle.messages
        <lmml_mdit.bundle.Bundle.messages>` gives it); without it each content is joined
        into one string (see :func:`flatten`'s *text_content*).
    """

    supports_system_role: bool = True
    requires_alternating_roles: bool = False
    supports_tool_calls: bool = True
    supports_system_midway: bool = True
    supports_content_parts: bool = True


def _checked(messages: object) -> Sequence[JSONMapping]:
    """*messages* when it is a list of message dicts, so that bad input fails here, clearly,
    and not deep inside a merge."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise TranscriptTypeError(
            f"messages must be a list of dicts, not {type(messages).__name__}",
            hint='pass [{"role": "user", "content": "hi"}]',
        )
    for position, message in enumerate(messages):
        if not isinstance(message, Mapping) or not isinstance(message.get("role"), str):
            raise TranscriptTypeError(
                f"message {position} must be a dict with a string role, not {message!r:.60}",
                hint='pass {"role": "user", "content": "hi"}',
            )
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            raise TranscriptTypeError(
                f"message {position} content must be a string or a list of parts, "
                f"not {type(content).__name__}"
            )
    return messages


def _copy(message: JSONMapping) -> ChatMessage:
    copied = dict(message)
    content = copied.get("content")
    if isinstance(content, list):
        copied["content"] = list(content)
    return copied


def _parts(content: Any) -> list[Any]:
    if isinstance(content, list):
        return list(content)
    return [{"type": "text", "text": str(content)}] if content else []


def _is_empty(content: Any) -> bool:
    return content is None or content == "" or content == []


def _join(contents: Sequence[Any]) -> Any:
    """Join contents with :data:`SEPARATOR`; empty ones are skipped."""
    present = [content for content in contents if not _is_empty(content)]
    if not present:
        return ""
    if all(isinstance(content, str) for content in present):
        return SEPARATOR.join(present)
    joined: list[Any] = []
    for content in present:
        if joined:
            joined.append({"type": "text", "text": SEPARATOR})
        joined.extend(_parts(content))
    return joined


def _labelled(author: str, content: Any) -> Any:
    label = f"{author}: "
    if isinstance(content, list):
        return [{"type": "text", "text": label}, *content]
    return label + str(content)


def fold_system(messages: Sequence[JSONMapping]) -> list[ChatMessage]:
    """Fold system text into the opening user turn, for templates without a system role.

    The leading ``system`` messages' texts are joined and put in front of the first message
    when that is a ``user`` message; otherwise (the view opens on the model's own turn, or
    is only system text) a ``user`` message holding the system text is put first. A
    ``system`` message later in the list becomes a ``user`` message. Empty system texts add
    nothing. The folded message has no ``"author"``, so no label lands on system text.

    :param messages: the messages; not changed.
    :raises TranscriptTypeError: when *messages* is not a list of dicts with a string
        ``role`` and a string, list or None ``content``.
    :returns: a new list without any ``system`` message.
    """
    messages = _checked(messages)
    index = 0
    leading: list[Any] = []
    while index < len(messages) and messages[index].get("role") == "system":
        leading.append(messages[index].get("content", ""))
        index += 1
    rest: list[ChatMessage] = []
    for message in messages[index:]:
        copied = _copy(message)
        if copied.get("role") == "system":
            copied["role"] = "user"
            copied.pop("author", None)
        rest.append(copied)
    system_text = _join(leading)
    if _is_empty(system_text):
        return rest
    if rest and rest[0].get("role") == "user":
        first = rest[0]
        return [
            {"role": "user", "content": _join([system_text, first.get("content", "")])},
            *rest[1:],
        ]
    return [{"role": "user", "content": system_text}, *rest]


_fold_system = fold_system  # flatten's flags of the same names shadow the functions


def _call_text(call: JSONMapping) -> str:
    given = call.get("function")
    function: JSONMapping = given if isinstance(given, Mapping) else call
    name = function.get("name", "")
    arguments = function.get("arguments", {})
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return f"[tool call {name}: {arguments}]"


def fold_tools(messages: Sequence[JSONMapping]) -> list[ChatMessage]:
    """Write tool calls and results as text, for templates that know no ``tool`` role or
    ``tool_calls``.

    An assistant message's ``tool_calls`` become lines ``[tool call NAME: ARGUMENTS]``
    after its text (the arguments as JSON); a ``tool`` message becomes a ``user`` message
    ``[tool result NAME]`` followed by its content (``NAME`` is the message's ``name``, or
    its ``tool_call_id``, or left out). Other messages are copied unchanged.

    :param messages: the messages; not changed.
    :raises TranscriptTypeError: for messages that are not a list of dicts with a string
        ``role`` and a string, list or None ``content``.
    """
    messages = _checked(messages)
    out: list[ChatMessage] = []
    for message in messages:
        copied = _copy(message)
        calls = copied.pop("tool_calls", None)
        if copied.get("role") == "assistant" and isinstance(calls, list) and calls:
            lines = SEPARATOR.join(_call_text(call) for call in calls if isinstance(call, Mapping))
            copied["content"] = _join([copied.get("content"), lines])
        elif copied.get("role") == "tool":
            label = copied.pop("name", None) or copied.get("tool_call_id")
            copied.pop("tool_call_id", None)
            head = f"[tool result {label}]" if label else "[tool result]"
            content = copied.get("content")
            if isinstance(content, list):
                copied = {"role": "user", "content": [{"type": "text", "text": head}, *content]}
            else:
                copied = {"role": "user", "content": f"{head}\n{content or ''}".rstrip("\n")}
        elif calls is not None:
            copied["tool_calls"] = calls
        out.append(copied)
    return out


_fold_tools = fold_tools


def merge_same_role(
    messages: Sequence[JSONMapping], *, label_authors: bool = True
) -> list[ChatMessage]:
    """Merge each run of consecutive messages with the same role into one message.

    ``system`` and ``tool`` messages are never merged (each tool message answers one call).
    When a run holds more than one distinct author and *label_authors* is true, each part
    is written as ``"{author}: {content}"``; a part without an author stays bare. A run of
    one message is copied unchanged.

    :param messages: the messages; not changed.
    :raises TranscriptTypeError: when *messages* is not a list of dicts with a string
        ``role`` and a string, list or None ``content``.
    :param label_authors: whether to label the parts of a run with several authors.
    :returns: a new list in which no two neighbours share a mergeable role.
    """
    messages = _checked(messages)
    merged: list[ChatMessage] = []
    run: list[JSONMapping] = []

    def close_run() -> None:
        if not run:
            return
        if len(run) == 1:
            merged.append(_copy(run[0]))
        else:
            authors = {message.get("author") for message in run} - {None, ""}
            label = label_authors and len(authors) > 1
            contents = [
                _labelled(message["author"], message.get("content", ""))
                if label and message.get("author")
                else message.get("content", "")
                for message in run
            ]
            merged.append({"role": run[0].get("role"), "content": _join(contents)})
        run.clear()

    for message in messages:
        role = message.get("role")
        if run and (role != run[0].get("role") or role in _UNMERGED_ROLES):
            close_run()
        run.append(message)
        if role in _UNMERGED_ROLES:
            close_run()
    close_run()
    return merged


def ensure_user_first(
    messages: Sequence[JSONMapping], *, placeholder: str = OPENING_USER_PLACEHOLDER
) -> list[ChatMessage]:
    """Open the conversation (after a leading ``system`` message) on a ``user`` turn.

    When the first message after an optional leading ``system`` message is not a ``user``
    message, a ``user`` message holding *placeholder* is inserted before it. No existing
    message changes role or text. An empty list, or one holding only a system message,
    is returned as is.

    :param messages: the messages; not changed.
    :raises TranscriptTypeError: when *messages* is not a list of dicts with a string
        ``role`` and a string, list or None ``content``.
    :param placeholder: the text of the inserted user turn.
    """
    messages = _checked(messages)
    copied = [_copy(message) for message in messages]
    lead = 1 if copied and copied[0].get("role") == "system" else 0
    if len(copied) <= lead or copied[lead].get("role") == "user":
        return copied
    return [*copied[:lead], {"role": "user", "content": placeholder}, *copied[lead:]]


def flatten(
    messages: Sequence[JSONMapping],
    *,
    flags: FlattenFlags | None = None,
    fold_tools: bool = False,
    fold_system: bool = False,
    merge: bool = False,
    user_first: bool = False,
    system_midway_as_user: bool = False,
    label_authors: bool = True,
    placeholder: str = OPENING_USER_PLACEHOLDER,
    text_content: bool = False,
) -> list[ChatMessage]:
    """Apply the selected flattening steps and drop the ``"author"`` keys.

    The order makes labels honest: runs are merged (and labelled) first, then the system
    text is folded in unlabelled, then the user opening is ensured. With *merge* (or
    *system_midway_as_user*) a ``system`` message after the opening becomes a ``user``
    message, since strict templates refuse a system message anywhere but first.

    :param messages: the messages; not changed.
    :param flags: what a template accepts (:func:`detect_template_flags`): each step it
        needs is added to the ones selected by the other parameters (tools folded without
        ``supports_tool_calls``, system text folded without ``supports_system_role``,
        later system messages made user messages without ``supports_system_midway``,
        merged and opened on ``user`` with ``requires_alternating_roles``).
    :raises TranscriptTypeError: when *messages* is not a list of dicts with a string
        ``role`` and a string, list or None ``content``.
    :param fold_tools: write tool calls and results as text first (see
        :func:`fold_tools`), for templates that know no tool role.
    :param fold_system: fold system text into the opening user turn (see
        :func:`fold_system`).
    :param merge: merge runs of the same role (see :func:`merge_same_role`).
    :param user_first: open on a user turn (see :func:`ensure_user_first`).
    :param label_authors: label the parts of a merged run that has several authors.
    :param placeholder: the text of an inserted opening user turn.
    :param system_midway_as_user: make a ``system`` message after the opening a ``user``
        message, and join several leading ``system`` messages into one (as *merge*
        does), for a template that keeps only one system text.
    :param text_content: give each content as one string, its text parts joined, for a
        template that takes no list of parts (added without ``supports_content_parts``).
    :raises ChatTemplateError: with *text_content*, for a part that is not text (an
        image), which such a template cannot show.

    A ``content`` that is ``None`` or missing (a turn that only calls) is given as ``""``.
    A call's ``arguments`` given as JSON text (as OpenAI's API writes them) are given as
    the object they hold, as Hugging Face templates take them.
    """
    messages = _checked(messages)
    if flags is not None:
        fold_tools = fold_tools or not flags.supports_tool_calls
        fold_system = fold_system or not flags.supports_system_role
        system_midway_as_user = system_midway_as_user or not flags.supports_system_midway
        merge = merge or flags.requires_alternating_roles
        user_first = user_first or flags.requires_alternating_roles
        text_content = text_content or not flags.supports_content_parts
    current = _fold_tools(messages) if fold_tools else [_copy(message) for message in messages]
    lead = 0
    while lead < len(current) and current[lead].get("role") == "system":
        lead += 1
    if merge or system_midway_as_user:
        for message in current[lead:]:
            if message.get("role") == "system":
                message["role"] = "user"
                message.pop("author", None)
    if merge:
        current = current[:lead] + merge_same_role(current[lead:], label_authors=label_authors)
    if fold_system:
        current = _fold_system(current)
    elif (merge or system_midway_as_user) and lead > 1:
        # a template keeping one system message only would show the last (or first) alone
        joined = _join([message.get("content", "") for message in current[:lead]])
        current = [{"role": "system", "content": joined}, *current[lead:]]
    if user_first:
        current = ensure_user_first(current, placeholder=placeholder)
    for position, message in enumerate(current):
        message.pop("author", None)
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            message["tool_calls"] = [_with_object_arguments(call) for call in calls]
        content = message.get("content")
        if content is None:
            # a turn that only calls (content null, as OpenAI writes it): templates read
            # the content as a string
            message["content"] = content = ""
        if text_content and isinstance(content, list):
            message["content"] = _text_of(content, position)
    return current


def _with_object_arguments(call: object) -> object:
    """*call* with its ``function.arguments`` as the JSON object their text holds (a
    copy; *call* unchanged when they are no such text)."""
    if not isinstance(call, Mapping):
        return call
    function = call.get("function")
    if not isinstance(function, Mapping) or not isinstance(function.get("arguments"), str):
        return call
    try:
        arguments = parse_json(function["arguments"])
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return call
    if not isinstance(arguments, dict):
        return call
    return {**call, "function": {**function, "arguments": arguments}}


def _text_of(parts: Sequence[object], position: int) -> str:
    """The text parts of one content joined into a string.

    :raises ChatTemplateError: for a part that is not text.
    """
    texts: list[str] = []
    for part in parts:
        text = part.get("text") if isinstance(part, Mapping) else None
        if not isinstance(part, Mapping) or part.get("type") != "text" or not isinstance(text, str):
            kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
            raise ChatTemplateError(
                f"message {position} of the view holds a part of type {kind!r}; the "
                "template takes text only",
                hint="leave that part out of the messages, or use a template that takes "
                "content parts",
            )
        texts.append(text)
    return "".join(texts)


_SYSTEM_PROBE = "Probe system text 7f3a: answer in English."
"""The system text :func:`detect_template_flags` looks for in the rendered probe."""

_MIDWAY_PROBE = "Probe midway text 9c1e: keep it short."
"""The text of the system message it puts after the conversation's start."""

_PARTS_PROBE = "Probe parts text 5d0b"
"""The text it gives as a list of parts."""

_PART_SPELLED = ("'type'", '"type"')
"""A part's key as a template that prints the list whole (``{{ content }}``, ``| tojson``)
would show it: then the template does not take parts, though the text is there."""


def _probe_call(tag: str) -> ChatMessage:
    return {
        "id": f"probe{tag}",  # nine letters and digits, as Mistral's templates demand
        "type": "function",
        "function": {"name": f"probe_tool_{tag}", "arguments": {"probe": f"arg-{tag}"}},
    }


def _probe_result(tag: str) -> ChatMessage:
    return {
        "role": "tool",
        "tool_call_id": f"probe{tag}",
        "name": f"probe_tool_{tag}",
        "content": f"Probe result {tag}",
    }


_TOOL_PROBE: list[ChatMessage] = [
    {"role": "user", "content": "u"},
    {
        "role": "assistant",
        "content": "Probe call text 7f3a",
        "tool_calls": [_probe_call("7f3a"), _probe_call("8c2b")],
    },
    _probe_result("7f3a"),
    _probe_result("8c2b"),
]
"""The tool round :func:`detect_template_flags` renders: the assistant's text beside two
calls, then their results (some templates drop the text beside a call, or refuse a
second call)."""

_TOOL_SHOWN = (
    "Probe call text 7f3a",
    *(f"{s}{tag}" for tag in ("7f3a", "8c2b") for s in ("probe_tool_", "arg-", "Probe result ")),
)
"""What must all show in the rendered tool round: the text, each call's name and argument,
and each result."""


def detect_template_flags(
    tokenizer: ChatTokenizer, *, render: Callable[..., object] | None = None
) -> FlattenFlags:
    """Find what a tokenizer's chat template accepts by rendering small probes: a
    system message (also in a finished conversation, without a generation prompt), two
    user turns in a row, a tool call with its result, a system message midway, and a
    text given as a list of parts (each must render with its text in the prompt; any
    exception counts as a refusal). The probes are described in the
    Transcript page of the docs. Only ``tokenizer.apply_chat_template`` is used, with
    ``tokenize=False``.

    :param tokenizer: any object with ``apply_chat_template``.
    :param render: a replacement for ``tokenizer.apply_chat_template``, called the same way
        (with the keyword arguments a caller forwards to the template bound in, say).
    """
    apply = render if render is not None else tokenizer.apply_chat_template

    def renders(
        view: list[ChatMessage], *, showing: Sequence[str] = (), generation_prompt: bool = True
    ) -> bool:
        try:
            prompt = apply(view, tokenize=False, add_generation_prompt=generation_prompt)
        except Exception:
            # Any refusal counts: templates raise jinja errors, ValueError or their own.
            return False
        return not showing or (isinstance(prompt, str) and all(s in prompt for s in showing))

    supports_system = renders(
        [{"role": "system", "content": _SYSTEM_PROBE}, {"role": "user", "content": "u"}],
        showing=[_SYSTEM_PROBE],
    ) and renders(  # some show it only beside the last user turn: a finished one loses it
        [
            {"role": "system", "content": _SYSTEM_PROBE},
            {"role": "user", "content": "u"},
            {"role": "assistant", "content": "a"},
        ],
        showing=[_SYSTEM_PROBE],
        generation_prompt=False,
    )
    strict = not renders([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    midway = supports_system and renders(
        [
            {"role": "system", "content": _SYSTEM_PROBE},
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "system", "content": _MIDWAY_PROBE},
            {"role": "user", "content": "c"},
        ],
        showing=[_SYSTEM_PROBE, _MIDWAY_PROBE],  # the later one may not replace the first
    )
    tools = renders(_TOOL_PROBE, showing=_TOOL_SHOWN)
    parts = _renders_parts(apply, system=supports_system, tools=tools)
    return FlattenFlags(
        supports_system_role=supports_system,
        requires_alternating_roles=strict,
        supports_tool_calls=tools,
        supports_system_midway=midway,
        supports_content_parts=parts,
    )


def _renders_parts(apply: Callable[..., object], *, system: bool, tools: bool) -> bool:
    """Whether *apply* shows a text given as a list of one text part in every role the
    template takes (a system message with *system*, a tool result with *tools*), and not
    the list itself."""

    def said(role: str, tag: str) -> ChatMessage:
        return {"role": role, "content": [{"type": "text", "text": f"{_PARTS_PROBE} {tag}"}]}

    view = [said("system", "s")] if system else []
    view += [said("user", "u"), said("assistant", "a")]
    if tools:
        call = {**said("assistant", "c"), "tool_calls": [_probe_call("7f3a")]}
        view += [said("user", "v"), call, {**_probe_result("7f3a"), **said("tool", "t")}]
    try:
        prompt = apply(view, tokenize=False, add_generation_prompt=True)
    except Exception:
        return False  # any refusal counts, as for the other probes
    if not isinstance(prompt, str):
        return False
    shown = all(str(m["content"][0]["text"]) in prompt for m in view)
    return shown and not any(spelled in prompt for spelled in _PART_SPELLED)
