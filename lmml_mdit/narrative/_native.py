"""Provider-specific items in LMML narratives: the native-item fence convention.

An item with no portable meaning (a reasoning trace, a signature, a citation) travels as
an inline JSON fence ``<provider>.<kind>.<n>.json`` at its place in the turn (reserved
kinds ``part`` and ``message`` hold a neighbour's extra keys). This module owns the naming
and the reading; the chat layer writes and exports the fences. See docs/bridge.md,
"Provider-specific items".
"""

from __future__ import annotations

import json
import re

from ..conversation import MESSAGE_KEYS, PART_KEYS, NativeItem
from ..errors import UnsupportedContentError
from ..jsonio import parse_json
from ..jsontypes import JSONObject
from ..model import Embed
from ..syntax import embed_fence
from ._toolcalls import is_tool_call_name

__all__ = [
    "MESSAGE_KEYS",
    "NATIVE_PROVIDERS",
    "PART_KEYS",
    "NativeItem",
    "is_native_name",
    "is_structure_name",
    "native_fence",
    "native_name",
    "parse_native",
]

NATIVE_PROVIDERS = frozenset({"openai", "openai-responses", "anthropic", "gemini"})
"""The chat formats whose own items a narrative can carry (the registry's providers)."""

_NAME = re.compile(
    r"(?P<provider>[a-z-]+)\.(?P<kind>[A-Za-z0-9_-]+)\.(?P<number>[1-9][0-9]*)\.json"
)
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def native_name(provider: str, kind: str, number: int) -> str:
    """The fence name of the *number*-th native item of a conversation.

    :raises ValueError: for a provider outside :data:`NATIVE_PROVIDERS` or a number below 1.
    """
    if provider not in NATIVE_PROVIDERS:
        raise ValueError(f"no native items for provider {provider!r}")
    if number < 1:
        raise ValueError(f"native items count from 1, not {number!r}")
    slug = _UNSAFE.sub("_", kind) or "item"
    return f"{provider}.{slug}.{number}.json"


def is_native_name(name: str) -> bool:
    """Whether *name* follows the ``<provider>.<kind>.<n>.json`` naming."""
    match = _NAME.fullmatch(name)
    return match is not None and match["provider"] in NATIVE_PROVIDERS


def is_structure_name(name: str) -> bool:
    """Whether an embed named *name* is the conversation's structure rather than an asset:
    a tool call (:mod:`.toolcalls`) or a provider-specific item. A turn reads such a fence
    itself; it is never sent as an asset or as text, and packing leaves it in place."""
    return is_tool_call_name(name) or is_native_name(name)


def native_fence(name: str, value: JSONObject) -> str:
    """The fence text (ending in a newline) holding *value* as compact-spaced JSON."""
    text = json.dumps(value, ensure_ascii=False)
    return embed_fence(name, text + "\n") + "\n"


def parse_native(embed: Embed, content: bytes | None = None) -> NativeItem:
    """Read one native-item fence, or a reference to a packed one.

    :param content: the entry's bytes, for a reference (``@anthropic.thinking.1.json``
        after ``lmml pack``); an inline fence's own content otherwise.
    :raises UnsupportedContentError: when the fence is not one JSON object, located at it.
    """
    match = _NAME.fullmatch(embed.name)
    if match is None or match["provider"] not in NATIVE_PROVIDERS:
        raise ValueError(f"{embed.name!r} is not a native item name")
    try:
        data = content if content is not None else embed.content
        value = parse_json((data or b"").decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        value = None
    if not isinstance(value, dict):
        raise UnsupportedContentError(
            f"the native item fence {embed.name} must hold one JSON object",
            name=embed.name,
            line=embed.line,
            column=embed.column,
            hint="write the provider's item as a JSON object, or remove the fence",
        )
    return NativeItem(
        provider=match["provider"],
        kind=match["kind"],
        value=value,
        embed_name=embed.name,
        line=embed.line,
        column=embed.column,
    )
