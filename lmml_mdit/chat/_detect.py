"""Tell which chat format a payload is in, from its shape alone.

Each registered format brings its own signals (its :class:`~.providers.base.Detection`);
this module weighs them, strongest first, and refuses a payload that shows none or two.
The rules are in ``docs/bridge.md`` ("Detection").
"""

from __future__ import annotations

from ..errors import ImportFormatError
from ..text import clipped
from .providers import FORMATS as _REGISTRY
from .providers.base import Detection

__all__ = ["FORMAT_DESCRIPTIONS", "detect_format"]

FORMAT_DESCRIPTIONS = {name: found.description for name, found in _REGISTRY.items()}
"""Each format as a sentence names a payload in it ("looks like an OpenAI chat")."""

_PLAIN_ROLES = ("user", "assistant")


def _ranked() -> list[tuple[str, Detection]]:
    """The registered formats that can be detected, strongest first."""
    found = [(name, chat.detection) for name, chat in _REGISTRY.items() if chat.detection]
    return sorted(found, key=lambda pair: -pair[1].strength)


def _either(names: list[str]) -> str:
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else "".join(names)


def _describe(data: object) -> str:
    if isinstance(data, dict):
        keys = ", ".join(clipped(key, 40) for key in sorted(map(str, data))[:8])
        return f"an object with keys {keys}" if keys else "an empty object"
    if isinstance(data, list):
        return f"a list of {len(data)} items"
    return f"a {type(data).__name__}"


def detect_format(data: object) -> str:
    """The format of *data* (a parsed JSON value): the name of a format of the registry
    (:data:`~lmml_mdit.chat.providers.FORMATS`, the plugins' included) that brings its
    detection.

    :raises ImportFormatError: when no format fits, or several do; the message says what was
        seen and the hint how to choose (``format=``).
    """
    ranked = _ranked()
    named = _either(list(_REGISTRY))
    found: set[str] = set()
    messages: object = None
    if isinstance(data, dict):
        for name, detection in ranked:
            if not detection.body_keys.isdisjoint(data):
                found.add(name)
                if detection.messages_key is not None:
                    messages = data.get(detection.messages_key)
        if len(found) == 1:
            # The container's own keys are the strongest signal.
            return found.pop()
        for name, detection in ranked:
            key = detection.messages_key
            if key is None or key not in data:
                continue
            if not detection.body_keys:
                messages = data[key]
            if not detection.beside_messages.isdisjoint(data):
                found.add(name)
        if not found and messages is None:
            keys = [chat.detection.messages_key for chat in _REGISTRY.values() if chat.detection]
            expected = _either(list(dict.fromkeys(key for key in keys if key is not None)))
            raise ImportFormatError(
                f"cannot tell the chat format of {_describe(data)}",
                hint=f"expected {expected}; pass format= ({named})",
                cli_hint=f"expected {expected}; give --format ({named})",
            )
    elif isinstance(data, list):
        messages = data
    else:
        raise ImportFormatError(
            f"cannot import {_describe(data)}",
            hint="give a JSON object or list of messages",
        )
    if isinstance(messages, list):
        for message in messages:
            if not isinstance(message, dict):
                continue
            for name, detection in ranked:
                if detection.message is not None and detection.message(message):
                    found.add(name)
                    if detection.exclusive:
                        break
        if not found:
            plain = next((name for name, detection in ranked if detection.plain), None)
            if plain is not None and all(
                isinstance(m, dict) and m.get("role") in _PLAIN_ROLES for m in messages
            ):
                return plain
            raise ImportFormatError(
                f"cannot tell the chat format of {_describe(data)}",
                hint=f"pass format= ({named})",
                cli_hint=f"give --format ({named})",
            )
    if len(found) > 1:
        raise ImportFormatError(
            f"ambiguous chat format: {_describe(data)} looks like {' and '.join(sorted(found))}",
            hint="pass format= to choose one",
            cli_hint="give --format to choose one",
        )
    if not found:
        raise ImportFormatError(
            f"cannot tell the chat format of {_describe(data)}",
            hint=f"pass format= ({named})",
            cli_hint=f"give --format ({named})",
        )
    return found.pop()
