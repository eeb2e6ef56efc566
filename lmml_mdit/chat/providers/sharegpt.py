"""ShareGPT conversations: records read and written (ShareGPT has no request body).

The shape, the speaker names read and the record fields kept in ``manifest.json``:
docs/bridge.md.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ...conversation import ChatConversation, ChatMessage, TextPart, ToolCall
from ...errors import ImportFormatError, UnsupportedContentError, location
from ...jsonio import parse_json
from ...jsontypes import JSONMapping, JSONObject
from ...model import Role
from ...templates import template_of
from .._imported import as_text, expect, expect_items, reject_unknown_keys, shown_value, split_body
from .._native import call_keys_dropped, custom_call_dropped, warn_dropped
from .._reader import read_turns
from .base import ChatFormat, Detection

if TYPE_CHECKING:
    from ...bundle import BundleSource

__all__ = ["FORMAT", "MANIFEST_KEY", "NAME", "export_sharegpt", "read"]

NAME = "sharegpt"
ORDER = 90
"""Where the registry lists this format: by ``ORDER``, lowest first."""

MANIFEST_KEY = "sharegpt"
"""The ``manifest.json`` key holding a ShareGPT record's other top-level fields."""

_TEXT_ROLES: dict[str, Role] = {
    "system": "system",
    "human": "user",
    "user": "user",
    "gpt": "assistant",
    "assistant": "assistant",
    "model": "assistant",
    "chatgpt": "assistant",
}
_CALL_ROLES = {"function_call", "tool_call"}
_RESULT_ROLES = {"observation", "tool", "function_response", "function", "tool_response"}


def _calls(value: object, counter: list[int], *, where: str) -> list[ToolCall]:
    if isinstance(value, str):
        try:
            value = parse_json(value)
        except ValueError:
            raise ImportFormatError(
                "a function_call value is not JSON",
                name=where,
                hint='write {"name": ..., "arguments": {...}}',
            ) from None
    items = value if isinstance(value, list) else [value]
    calls: list[ToolCall] = []
    for item in items:
        call = expect(item, dict, where=where)
        counter[0] += 1
        calls.append(
            ToolCall(
                id=f"call_{counter[0]}",
                name=expect(call.get("name"), str, where=where),
                arguments=call.get("arguments", {}),
            )
        )
    return calls


def read_conversations(entries: object, *, where: str = "conversations") -> list[ChatMessage]:
    """Read a ShareGPT ``conversations`` list into turns."""
    turns: list[ChatMessage] = []
    open_calls: list[ToolCall] = []
    counter = [0]
    for here, entry in expect_items(entries, where=where):
        source = as_text(entry.get("from", "")).lower()
        value = entry.get("value", "")
        reject_unknown_keys(entry, ("from", "value"), where=here)
        if source in _TEXT_ROLES:
            role = _TEXT_ROLES[source]
            turns.append(ChatMessage(role, [TextPart(expect(value, str, where=here))]))
        elif source in _CALL_ROLES:
            calls = _calls(value, counter, where=here)
            open_calls.extend(calls)
            if turns and turns[-1].role == "assistant":
                turns[-1].parts.extend(calls)
            else:
                turns.append(ChatMessage("assistant", list(calls)))
        elif source in _RESULT_ROLES:
            if not open_calls:
                raise ImportFormatError(
                    f"a {shown_value(source)} entry answers no earlier function_call",
                    name=here,
                    hint="put the function_call entry before its result",
                )
            if not isinstance(value, str):
                value = json.dumps(value, ensure_ascii=False)
            turns.append(ChatMessage("tool", [TextPart(value)], open_calls.pop(0)))
        else:
            raise ImportFormatError(
                f"unknown 'from' value {shown_value(entry.get('from'))}",
                name=here,
                hint="use system, human, gpt, function_call or observation",
            )
    return turns


def read(data: object) -> ChatConversation:
    """Read a ShareGPT record (or its bare ``conversations`` list).

    :raises ImportFormatError: for anything outside the ShareGPT shape; a JSON array of
        records (a dataset file) is named as such.
    """
    if isinstance(data, list) and data and isinstance(data[0], dict) and "conversations" in data[0]:
        raise ImportFormatError(
            f"this is a JSON array of {len(data)} ShareGPT record(s), not one conversation",
            name="[0]",
            hint="write the records one per line as a .jsonl file and import that; each "
            "record becomes a bundle",
        )
    conversations, fields = split_body(
        data,
        "conversations",
        missing="a ShareGPT record needs a 'conversations' list",
        hint="give the record or its conversations list",
    )
    turns = read_conversations(conversations)
    if fields.get("system") not in (None, ""):
        # An empty or null one says nothing: it stays a record field, written back as given.
        system = expect(fields.pop("system"), str, where="system")
        turns.insert(0, ChatMessage("system", [TextPart(system)]))
    return ChatConversation(turns, metadata={MANIFEST_KEY: fields} if fields else {})


def _call_place(bundle: BundleSource, call: ToolCall) -> str:
    """The location of *call*'s fence, for a warning."""
    fence = bundle.narrative.first_embeds.get(call.embed_name)
    return location(bundle.file_name, call.line, None if fence is None else fence.column)


def export_sharegpt(bundle: BundleSource, *, strict: bool = True) -> JSONObject:
    """Turn *bundle* into a ShareGPT record.

    ``system`` and ``context`` turns become ``system`` entries, ``user`` ``human``,
    ``assistant`` ``gpt`` (then one ``function_call`` entry per call, the value
    ``{"name", "arguments"}`` as JSON text), ``tool`` ``observation``. The record fields
    kept at import (``manifest.json``, key ``"sharegpt"``) are written beside
    ``conversations``.

    ShareGPT has no call ids: observations are written in the order of the calls they
    answer within each run of ``tool`` turns (a reader pairs each with the earliest
    unanswered call).

    :param strict: False writes a bundle with an error-level defect anyway, warning each
        (:meth:`~lmml_mdit.bundle.bundle.Bundle.check_sendable`).
    :raises DefectError: for a bundle with an error-level defect, unless *strict* is False:
        a defective bundle is a failure, not a dataset line.
    :raises UnsupportedContentError: for a turn holding an asset (ShareGPT is text only),
        located at the asset's first reference (or fence) in the turn; for a ``tool`` turn
        a reader would pair with another call (at its delimiter); for a template (inputs
        declared, a ``{{ placeholder }}`` written; at the first one): its text is not filled.
    """
    bundle.check_sendable(strict=strict)
    placeholders = bundle.narrative.placeholders.found
    if placeholders and template_of(bundle).declarations.specs:
        # A template (it declares inputs) is filled by a provider export; here its text is
        # written as it stands, so a placeholder would reach the record unfilled. Without
        # declarations, "{{ name }}" is text to every export.
        first = placeholders[0]
        raise UnsupportedContentError(
            f"ShareGPT export does not fill a template: the placeholder {{{{ {first.name} }}}} "
            "would be written as it stands",
            name=bundle.file_name,
            line=first.line,
            column=first.column,
            hint="render the template with values for a provider (lmml render --cases), "
            "or write the text without placeholders",
        )
    entries: list[dict[str, str]] = []
    # Beside each entry: the fence name of the call it makes or answers, and for a result
    # its turn's line (None for any other entry).
    pairing: list[tuple[str, str | None, int] | None] = []
    custom: dict[str, ToolCall] = {}  # the custom calls left out, by fence name
    # read_turns gives one turn per turn of the narrative, in order.
    for source, turn in zip(bundle.narrative.turns, read_turns(bundle), strict=True):
        for item in turn.natives:
            warn_dropped(item, FORMAT.target, bundle.file_name)
        if turn.answers in custom:  # the result of a custom call: left out with it
            where = location(bundle.file_name, turn.line, 1)
            custom_call_dropped(custom[turn.answers], FORMAT.target, where, result=True)
            continue
        left_out = [call for call in turn.calls if call.is_custom]
        for call in left_out:  # a format with no custom tools: left out, with a warning
            custom[call.embed_name] = call
            turn.calls.remove(call)
            custom_call_dropped(call, FORMAT.target, _call_place(bundle, call), result=False)
        for call in turn.calls:  # sent as name and arguments only: any other key is lost
            call_keys_dropped(call, FORMAT.target, _call_place(bundle, call))
        if left_out and not (turn.text or turn.calls or turn.assets):
            continue
        if turn.natives and not (turn.text or turn.calls or turn.answers):
            continue  # a turn of provider-specific items only: nothing left to say
        # A reference that resolves to nothing is text (sent anyway, strict=False).
        carried = [name for name in turn.assets if bundle.has_asset(name)]
        if carried:
            embed = next(embed for embed in source.embeds if embed.name == carried[0])
            raise UnsupportedContentError(
                f"ShareGPT cannot carry the asset {carried[0]!r}",
                name=bundle.file_name,
                line=embed.line,
                column=embed.column,
                hint="export to a provider format, or remove the asset",
            )
        if turn.role in ("system", "context"):
            entries.append({"from": "system", "value": turn.text})
            pairing.append(None)
        elif turn.role == "user":
            entries.append({"from": "human", "value": turn.text})
            pairing.append(None)
        elif turn.role == "assistant":
            if turn.text or not turn.calls:
                entries.append({"from": "gpt", "value": turn.text})
                pairing.append(None)
            for call in turn.calls:
                payload = {"name": call.name, "arguments": call.arguments}
                entries.append(
                    {"from": "function_call", "value": json.dumps(payload, ensure_ascii=False)}
                )
                pairing.append(("call", call.embed_name, turn.line))
        else:
            entries.append({"from": "observation", "value": turn.text})
            pairing.append(("result", turn.answers, turn.line))
    entries = _paired(entries, pairing, bundle.file_name)
    fields = (bundle.manifest or {}).get(MANIFEST_KEY)
    record: JSONObject = dict(fields) if isinstance(fields, dict) else {}
    record.pop("conversations", None)
    return {"conversations": entries, **record}


def _paired(
    entries: list[dict[str, str]],
    pairing: list[tuple[str, str | None, int] | None],
    file_name: str,
) -> list[dict[str, str]]:
    """*entries* with each run of observations in the order of the calls they answer.

    ShareGPT has no call ids: a reader pairs each observation with the earliest
    function_call not answered yet (as :func:`read_conversations` does). Parallel results
    written in another order are put in their calls' order; a result that would still be
    paired with another call (it answers a later call while an earlier one waits, with no
    result between) is refused.

    :raises UnsupportedContentError: for a result ShareGPT would pair with another call.
    """
    waiting: list[str | None] = []  # the calls not answered yet, in order
    out: list[dict[str, str]] = []
    index = 0
    while index < len(entries):
        tag = pairing[index]
        if tag is None or tag[0] == "call":
            if tag is not None:
                waiting.append(tag[1])
            out.append(entries[index])
            index += 1
            continue
        end = index
        while end < len(entries) and (here := pairing[end]) is not None and here[0] == "result":
            end += 1
        run = [(i, tag) for i in range(index, end) if (tag := pairing[i]) is not None]
        # A result of a call not waiting (sent anyway with strict=False) keeps its place.
        run.sort(key=lambda item: waiting.index(item[1][1]) if _answers(item[1], waiting) else 0)
        for i, tag in run:
            if _answers(tag, waiting) and waiting[0] != tag[1]:
                raise UnsupportedContentError(
                    f"ShareGPT pairs an observation with the earliest unanswered function_call: "
                    f"this tool turn answers {tag[1]} while {waiting[0]} is unanswered, so it "
                    f"would be read as {waiting[0]}'s result",
                    name=file_name,
                    line=tag[2],
                    column=1,
                    hint=f"answer {waiting[0]} first (results of one assistant turn may come "
                    "in any order when nothing stands between them), or export to a provider "
                    "format, which keeps call ids",
                )
            if waiting:
                waiting.pop(0)
            out.append(entries[i])
        index = end
    return out


def _answers(tag: tuple[str, str | None, int], waiting: list[str | None]) -> bool:
    """Whether the result *tag* answers a call still *waiting*."""
    return tag[1] is not None and tag[1] in waiting


# -- detected ------------------------------------------------------------------------------


def _shows_format(message: JSONMapping) -> bool:
    return "from" in message and "value" in message


DETECTION = Detection(
    strength=50,
    body_keys=frozenset({"conversations"}),
    messages_key="conversations",
    message=_shows_format,
    exclusive=True,
)
"""A record's ``conversations``, or ``from``/``value`` entries."""


FORMAT = ChatFormat(
    name=NAME,
    title="ShareGPT",
    description="a ShareGPT conversation",
    read=read,
    detection=DETECTION,
)
"""ShareGPT, as the registry lists it: read here, written by :func:`export_sharegpt`."""
