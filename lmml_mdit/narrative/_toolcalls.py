"""Tool calls and tool results in LMML narratives (the issue-8 convention).

A call is an inline ``<slug>.tool_call.json`` fence in an ``assistant`` turn; a ``tool``
turn answering it starts with a reference to that fence. This module reads calls and
results from a :class:`~lmml_mdit.narrative.Narrative`, writes call fences
(:func:`tool_call_fence`) and finds the tool-call validation issues. See docs/toolcalls.md.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import TYPE_CHECKING

from ..conversation import ToolCall
from ..errors import InvalidToolCallError
from ..jsonio import parse_json
from ..jsontypes import JSONMapping, JSONObject
from ..model import Embed, Issue, Turn
from ..syntax import embed_fence, reference
from ..text import blank_edges
from ._narrative import numbered_turns, turn_label

if TYPE_CHECKING:
    from ._narrative import Narrative

__all__ = [
    "TOOL_CALL_SUFFIX",
    "ToolCall",
    "call_slug",
    "is_tool_call_name",
    "parse_tool_call",
    "tool_call_fence",
    "tool_call_issues",
    "tool_calls",
    "tool_result_call",
    "tool_result_reference",
]

TOOL_CALL_SUFFIX = ".tool_call.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")
_REQUIRED_KEYS = ("id", "name", "arguments")


def is_tool_call_name(name: str) -> bool:
    """Whether *name* follows the ``<slug>.tool_call.json`` naming."""
    return name.endswith(TOOL_CALL_SUFFIX) and len(name) > len(TOOL_CALL_SUFFIX)


def call_slug(call_id: str) -> str:
    """The filename-safe slug of a call id: characters outside ``[A-Za-z0-9_.-]`` become
    ``_``, and ``call_`` is prefixed unless it starts with a letter or digit."""
    slug = _UNSAFE.sub("_", call_id)
    if not slug or not slug[0].isascii() or not slug[0].isalnum():
        slug = "call_" + slug
    return slug


def tool_call_fence(
    call_id: str, name: str, arguments: object, *, extra: JSONMapping | None = None
) -> tuple[str, str]:
    """The embed name and the fence text (ending in a newline) for one call.

    :param call_id: the provider's call id.
    :param name: the function name.
    :param arguments: the parsed arguments, or the raw argument string when it is not JSON.
    :param extra: optional further keys (e.g. ``{"type": "function"}``), written after the
        three required ones.
    """
    embed_name = call_slug(call_id) + TOOL_CALL_SUFFIX
    body: JSONObject = {"id": call_id, "name": name, "arguments": arguments}
    for key, value in (extra or {}).items():
        if key not in body:
            body[key] = value
    text = json.dumps(body, ensure_ascii=False)
    return embed_name, embed_fence(embed_name, text + "\n") + "\n"


_CALL_SHAPE_HINT = 'write {"id": ..., "name": ..., "arguments": {...}}'


def _invalid_call(
    embed: Embed, message: str, *, hint: str | None = _CALL_SHAPE_HINT
) -> InvalidToolCallError:
    """The error for the call fence *embed*, located at the fence."""
    return InvalidToolCallError(
        message, name=embed.name, line=embed.line, column=embed.column, hint=hint
    )


def parse_tool_call(embed: Embed) -> ToolCall:
    """Read one call fence.

    :raises InvalidToolCallError: when the fence is not a JSON object with a string ``id``,
        a string ``name`` and ``arguments``.
    """
    try:
        value = parse_json((embed.content or b"").decode("utf-8"))
    except json.JSONDecodeError as error:
        message = f"tool call is not valid JSON ({error.msg} at line {error.lineno})"
        raise _invalid_call(embed, message) from None
    except UnicodeDecodeError as error:
        raise _invalid_call(embed, f"tool call is not UTF-8 ({error.reason})") from None
    except RecursionError:
        raise _invalid_call(embed, "tool call JSON is nested too deeply to read") from None
    if not isinstance(value, dict):
        raise _invalid_call(embed, "tool call is not a JSON object")
    missing = [key for key in _REQUIRED_KEYS if key not in value]
    if missing:
        raise _invalid_call(embed, f"tool call lacks {', '.join(repr(key) for key in missing)}")
    if not isinstance(value["id"], str) or not isinstance(value["name"], str):
        raise _invalid_call(embed, "tool call 'id' and 'name' must be strings", hint=None)
    extra = {key: item for key, item in value.items() if key not in _REQUIRED_KEYS}
    return ToolCall(
        id=value["id"],
        name=value["name"],
        arguments=value["arguments"],
        embed_name=embed.name,
        line=embed.line,
        extra=extra,
    )


def _call_embeds(narrative: Narrative) -> list[Embed]:
    return [
        embed
        for turn in narrative.turns
        if turn.role == "assistant"
        for embed in turn.embeds
        if embed.is_inline and is_tool_call_name(embed.name)
    ]


def tool_calls(narrative: Narrative) -> list[ToolCall]:
    """Every call of the narrative's assistant turns, in document order.

    :raises InvalidToolCallError: for a malformed call fence.
    """
    return [parse_tool_call(embed) for embed in _call_embeds(narrative)]


def tool_result_reference(turn: Turn, narrative: Narrative) -> tuple[str, int] | None:
    """The call fence name a ``tool`` turn's first non-blank line refers to, and that line.

    None when the turn's first non-blank line is not only a reference to a
    ``*.tool_call.json`` name. The parser's own reference on that line decides (so a
    look-alike inside a code block does not count).
    """
    if turn.role != "tool":
        return None
    lines = narrative.lines
    first, last = blank_edges(lines, turn.start_line - 1, turn.end_line)
    if first == last:
        return None
    line = first + 1
    text = lines[first].strip()
    embeds = narrative.embeds
    index = bisect.bisect_left(embeds, line, key=_embed_line)
    while index < len(embeds) and embeds[index].line == line:
        embed = embeds[index]
        if embed.kind == "external" and text == reference(embed.name):
            return (embed.name, line) if is_tool_call_name(embed.name) else None
        index += 1
    return None


def _embed_line(embed: Embed) -> int:
    return embed.line


def tool_result_call(turn: Turn, narrative: Narrative) -> ToolCall | None:
    """The call a ``tool`` turn answers, or None when it names no known call.

    :raises InvalidToolCallError: when the named call's fence is malformed.
    """
    reference = tool_result_reference(turn, narrative)
    if reference is None:
        return None
    for embed in _call_embeds(narrative):
        if embed.name == reference[0]:
            return parse_tool_call(embed)
    return None


def tool_call_issues(narrative: Narrative) -> list[Issue]:
    """Validation issues of the tool-call convention, sorted by line (each an error: a
    provider refuses such a conversation).

    - ``invalid_tool_call``: a call fence that is not the expected JSON object;
    - ``unknown_tool_call_id``: a ``tool`` turn that names no call an earlier assistant
      turn makes;
    - ``unanswered_tool_call``: a call no ``tool`` turn answers before the next ``user``
      turn (or the end).
    """
    issues: list[Issue] = []
    made: dict[str, ToolCall] = {}  # the calls of the turns read so far
    pending: dict[str, ToolCall] = {}  # those not answered yet

    def close_pending(before: int | None) -> None:
        for name, call in pending.items():
            where = f" before the user turn at line {before}" if before is not None else ""
            issues.append(
                Issue(
                    "unanswered_tool_call",
                    name,
                    call.line,
                    _fence_column(narrative, name),
                    f"tool call {call.id or name} has no tool turn answering it{where} "
                    f"(add a tool turn starting with @{name} right after its assistant turn)",
                )
            )
        pending.clear()

    for number, turn in numbered_turns(narrative.turns):
        if turn.role == "user":
            close_pending(turn.delimiter_line or turn.start_line)
        elif turn.role == "assistant":
            for embed in turn.embeds:
                if not (embed.is_inline and is_tool_call_name(embed.name)):
                    continue
                try:
                    call = parse_tool_call(embed)
                except InvalidToolCallError as error:
                    issues.append(
                        Issue(
                            "invalid_tool_call",
                            embed.name,
                            embed.line,
                            embed.column,
                            error.message,
                        )
                    )
                    call = ToolCall("", "", None, embed.name, embed.line)
                if embed.name not in made:
                    made[embed.name] = call
                    pending[embed.name] = call
        elif turn.role == "tool":
            reference = tool_result_reference(turn, narrative)
            line = turn.delimiter_line or turn.start_line
            if reference is None:
                issues.append(
                    Issue(
                        "unknown_tool_call_id",
                        "",
                        line,
                        1,  # the turn's first line: its delimiter, or its text
                        f"{turn_label(number, turn)} does not start with a reference to the "
                        "call it answers (a line holding only @<id>.tool_call.json)",
                    )
                )
            elif reference[0] not in made:
                issues.append(
                    Issue(
                        "unknown_tool_call_id",
                        reference[0],
                        reference[1],
                        1,  # a line holding only the reference
                        f"{turn_label(number, turn)} answers {reference[0]}, which no earlier "
                        "assistant turn defines",
                    )
                )
            else:
                pending.pop(reference[0], None)
    close_pending(None)
    issues.sort(key=lambda issue: (issue.line is None, issue.line or 0))
    return issues


def _fence_column(narrative: Narrative, name: str) -> int | None:
    """The column of the call fence *name*'s first line (where its ``@@@`` stands)."""
    embed = narrative.first_embeds.get(name)
    return embed.column if embed is not None else None
