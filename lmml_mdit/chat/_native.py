"""Provider-specific items on export: kept for their own provider, dropped for another
(and custom tool calls, kept for the formats that take them).

A narrative's native-item fences (:mod:`lmml_mdit.narrative`) become
:class:`~lmml_mdit.narrative.NativeItem` values among a message's items. Before a
provider writes the messages, :func:`keep_native` leaves out each item that belongs to
another provider, with a :class:`NativeItemDroppedWarning` naming it, and the messages
left empty by that; the provider's writer puts its own items back where they stood.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from ..conversation import (
    MESSAGE_KEYS,
    PART_KEYS,
    ChatConversation,
    ChatMessage,
    MessagePart,
    NativeItem,
    ToolCall,
)
from ..errors import NativeItemDroppedWarning, UnsupportedContentError, location
from ..jsontypes import JSONObject
from ..warn import warn

__all__ = ["NativeItemDroppedWarning", "keep_native", "message_keys", "place_native"]


def dropped_message(item: NativeItem, target: str, file_name: str) -> str:
    """The warning text for *item* left out of an export to *target*."""
    where = location(file_name, item.line, item.column)
    return f"{where}: {item.describe} left out: {target} cannot take {item.provider} items"


def warn_dropped(item: NativeItem, target: str, file_name: str) -> str:
    """Warn that *item* is left out; returns the message."""
    message = dropped_message(item, target, file_name)
    warn(NativeItemDroppedWarning(message))
    return message


def _holds_a_value(value: object) -> bool:
    """Whether *value* holds anything but empty objects and lists: a marker such as a
    Gemini ``{"function_response": {"parts": []}}``, whose parts are the assets that follow
    it (exported to every provider), carries nothing another provider would miss."""
    pending = [value]  # walked without recursion: a fence's JSON may nest deep
    while pending:
        each = pending.pop()
        if isinstance(each, dict):
            pending.extend(each.values())
        elif isinstance(each, list):
            pending.extend(each)
        else:
            return True
    return False


def keep_native(
    conversation: ChatConversation, provider: str | None, target: str, file_name: str
) -> ChatConversation:
    """*conversation* with only *provider*'s own native items; each other one is left out
    with a :class:`NativeItemDroppedWarning` (also listed in its ``warnings``), unless it
    holds no value at all, and a message left with nothing to send is left out too.

    :param provider: the format's key (``anthropic``); None leaves out every native item
        (a form with no place for any, such as :func:`~lmml_mdit.chat.render_turns`).
    :param target: the format as messages name it.
    :param file_name: the narrative's file, for the warning's location.
    """
    kept: list[ChatMessage] = []
    for message in conversation.messages:
        items: list[MessagePart] = []
        dropped = False
        for item in message.parts:
            if isinstance(item, NativeItem) and item.provider != provider:
                if _holds_a_value(item.value):  # a bare marker loses nothing
                    conversation.warnings.append(warn_dropped(item, target, file_name))
                dropped = True
            else:
                items.append(item)
        if dropped:
            if not items and message.call is None:
                continue
            message.parts = items
        kept.append(message)
    conversation.messages = kept
    return conversation


def custom_call_dropped(call: ToolCall, target: str, where: str, *, result: bool) -> str:
    """Warn that the custom tool call *call* (or, with *result*, the tool turn answering it)
    is left out of an export to *target*, a format with no custom tools; returns the
    message.

    :param where: the location of the call's fence, or of the tool turn.
    """
    what = "the result of custom tool call" if result else "custom tool call"
    fence = f" ({call.embed_name})" if call.embed_name else ""
    message = f"{where}: {what} {call.name!r}{fence} left out: {target} takes no custom tools"
    warn(NativeItemDroppedWarning(message))
    return message


def _fence_column(message: ChatMessage, call: ToolCall) -> int | None:
    """The column of *call*'s fence in *message*'s turn, when the bundle holds it."""
    for embed in message.turn.embeds if message.turn is not None else ():
        if embed.name == call.embed_name:
            return embed.column
    return None


def keep_custom_calls(
    conversation: ChatConversation, takes: bool, target: str, file_name: str
) -> ChatConversation:
    """*conversation* without its custom tool calls (:attr:`ToolCall.is_custom`) and the
    tool turns answering them, each left out with a :class:`NativeItemDroppedWarning`
    (also listed in its ``warnings``), unless the target *takes* them (OpenAI Chat and
    Responses); an assistant message left with nothing is left out too.

    :param target: the format as messages name it.
    :param file_name: the narrative's file, for the warning's location.
    """
    if takes:
        return conversation
    kept: list[ChatMessage] = []
    for message in conversation.messages:
        call = message.call
        if message.role == "tool" and call is not None and call.is_custom:
            turn = message.turn
            line = None if turn is None else turn.delimiter_line or turn.start_line
            where = location(file_name, line, None if line is None else 1)
            conversation.warnings.append(custom_call_dropped(call, target, where, result=True))
            continue
        parts: list[MessagePart] = []
        for part in message.parts:
            if isinstance(part, ToolCall) and part.is_custom:
                where = location(file_name, part.line or None, _fence_column(message, part))
                conversation.warnings.append(custom_call_dropped(part, target, where, result=False))
            else:
                parts.append(part)
        if len(parts) != len(message.parts):
            if not parts:
                continue
            message.parts = parts
        kept.append(message)
    conversation.messages = kept
    return conversation


def dropped_call_keys(call: ToolCall) -> list[str]:
    """The keys of *call*'s ``extra`` a format that sends only the id, name and arguments
    would leave out: all but ``type`` (whose ``"custom"`` the custom-call rules cover)."""
    return [key for key in call.extra if key != "type"]


def call_keys_dropped(call: ToolCall, target: str, where: str) -> str | None:
    """Warn that *call*'s other keys (:func:`dropped_call_keys`) are left out of an export
    to *target*; returns the message, or None when it has none.

    :param where: the location of the call's fence.
    """
    keys = dropped_call_keys(call)
    if not keys:
        return None
    fence = f" ({call.embed_name})" if call.embed_name else ""
    named = ", ".join(repr(key) for key in keys)
    message = (
        f"{where}: key{'s' if len(keys) > 1 else ''} {named} of tool call {call.name!r}{fence} "
        f"left out: {target} cannot take them"
    )
    warn(NativeItemDroppedWarning(message))
    return message


AdoptCallKeys = Callable[[ToolCall], tuple[ToolCall, NativeItem | None]]
"""A target's own place for some of a call's other keys (see :func:`keep_call_keys`)."""


def keep_call_keys(
    conversation: ChatConversation,
    takes: bool,
    target: str,
    file_name: str,
    adopt: AdoptCallKeys | None = None,
) -> ChatConversation:
    """*conversation* with a :class:`NativeItemDroppedWarning` (also listed in its
    ``warnings``) for each tool call whose other keys (Gemini's ``extra_content`` read
    from an OpenAI Chat body) the target cannot send, unless it *takes* them (OpenAI Chat).

    :param adopt: the target's own place for some of those keys: each call is replaced by
        what it leaves, followed by the item it gives back (Gemini's thought signature
        as the keys of the call's part), and only the keys left are warned of.
    :param target: the format as messages name it.
    :param file_name: the narrative's file, for the warning's location.
    """
    if takes:
        return conversation
    for message in conversation.messages:
        parts: list[MessagePart] = []
        for part in message.parts:
            if not isinstance(part, ToolCall):
                parts.append(part)
                continue
            item = None
            if adopt is not None:
                part, item = adopt(part)
            parts.append(part)
            where = location(file_name, part.line or None, _fence_column(message, part))
            dropped = call_keys_dropped(part, target, where)
            if dropped is not None:
                conversation.warnings.append(dropped)
            if item is not None:
                parts.append(item)
        message.parts = parts
    return conversation


def place_native(parts: list[JSONObject], item: NativeItem) -> None:
    """Put *item* back among a message's *parts* (the provider's JSON blocks so far): a
    ``part`` fence's keys onto the last part (merged into its nested objects), any other
    item appended whole. A ``message``
    fence is the message's (see :func:`message_keys`) and adds nothing here.

    :raises UnsupportedContentError: for a ``part`` fence with no part before it.
    """
    if item.kind == MESSAGE_KEYS:
        return
    value = copy.deepcopy(item.value)
    if item.kind != PART_KEYS:
        parts.append(value)
        return
    if not parts:
        raise UnsupportedContentError(
            f"{item.embed_name} holds keys for the part before it, and there is none",
            name=item.embed_name,
            line=item.line,
            column=item.column,
            hint="move the fence right after the text or tool call it belongs to",
        )
    _merge(parts[-1], value)


def _merge(target: JSONObject, keys: JSONObject) -> None:
    """Add *keys* to *target*, merging into a nested object rather than replacing it (an
    image's ``{"image_url": {"detail": "low"}}`` keeps the URL the writer put there)."""
    for key, value in keys.items():
        inner = target.get(key)
        if isinstance(inner, dict) and isinstance(value, dict):
            _merge(inner, value)
        else:
            target[key] = value


def message_keys(items: list[MessagePart]) -> JSONObject:
    """The keys the ``message`` fences among *items* add to their message."""
    keys: JSONObject = {}
    for item in items:
        if isinstance(item, NativeItem) and item.kind == MESSAGE_KEYS:
            keys.update(copy.deepcopy(item.value))
    return keys
