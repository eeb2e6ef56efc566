"""Provider-specific items on export: kept for their own provider, dropped for another.

A narrative's native-item fences (:mod:`lmml_mdit.narrative`) become
:class:`~lmml_mdit.narrative.NativeItem` values among a message's items. Before a
provider writes the messages, :func:`keep_native` leaves out each item that belongs to
another provider, with a :class:`NativeItemDroppedWarning` naming it, and the messages
left empty by that; the provider's writer puts its own items back where they stood.
"""

from __future__ import annotations

import copy

from ..conversation import (
    MESSAGE_KEYS,
    PART_KEYS,
    ChatConversation,
    ChatMessage,
    MessagePart,
    NativeItem,
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
