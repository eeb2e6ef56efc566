"""System turns past the start of a conversation, for providers that take system content
only up front.

For Anthropic and Gemini a ``system`` turn after another message goes where the
``midway_system`` option says (``"user"`` at its place, opened by
:data:`MIDWAY_SYSTEM_MARKER`; ``"hoist"``; ``"drop"``; ``"raise"``), each one reported.
See docs/bridge.md, "System turns in the middle of a conversation".
"""

from __future__ import annotations

from ..bundle import BundleSource
from ..conversation import ChatConversation, ChatMessage, TextPart
from ..errors import UnsupportedContentError, location
from ..narrative import numbered_turns, turn_label
from ..warn import warn
from ._content import Options, SystemContentWarning
from .providers._common import system_texts
from .providers.base import Provider

__all__ = ["MIDWAY_SYSTEM_MARKER", "place_midway_system"]

MIDWAY_SYSTEM_MARKER = "[system]"
"""The line that opens a mid-conversation system turn sent as user content."""

_DONE = {
    "user": f"sent at its place as user text opened by {MIDWAY_SYSTEM_MARKER!r}",
    "hoist": "moved up front, into the system content",
    "drop": "left out",
}


def _as_user(message: ChatMessage, provider: Provider) -> ChatMessage:
    """The system *message* as one user text part opened by the marker line; system
    content is text, so anything else is refused as it is up front."""
    text = "\n\n".join(system_texts(message, provider))
    return ChatMessage(
        "user", [TextPart(f"{MIDWAY_SYSTEM_MARKER}\n{text}")], message.call, message.turn
    )


def _dropped_assets(message: ChatMessage) -> str:
    """What a dropped *message*'s embed parts take along, named, for its warning: a later
    turn naming one of them sends no copy, since each embed is sent once, where it is
    first named."""
    names = list(
        dict.fromkeys(
            asset.name
            for part in message.parts
            if (asset := getattr(part, "asset", None)) is not None
        )
    )
    if not names:
        return ""
    return (
        f", and with it {', '.join(names)}, which a later turn naming "
        f"{'it' if len(names) == 1 else 'them'} does not send again"
    )


def place_midway_system(
    conversation: ChatConversation,
    provider: Provider,
    options: Options,
    bundle: BundleSource,
) -> ChatConversation:
    """*conversation* with each system message past the start placed by
    ``options.midway_system``, for a provider whose
    :attr:`~lmml_mdit.chat.providers.base.Provider.system_up_front` is set (any other
    provider gets it unchanged).

    :raises UnsupportedContentError: with ``midway_system="raise"``, naming the first such
        turn; for a part other than text in one sent as user content.
    """
    if not provider.system_up_front:
        return conversation
    numbers = {id(turn): number for number, turn in numbered_turns(bundle.narrative.turns)}
    started = False
    leading: list[ChatMessage] = []
    out: list[ChatMessage] = []
    policy = options.midway_system
    for message in conversation.messages:
        if message.role != "system":
            started = True
            out.append(message)
            continue
        if not started:
            out.append(message)
            continue
        turn = message.turn
        assert turn is not None  # every message built from a bundle keeps its turn
        line = turn.delimiter_line or turn.start_line
        label = turn_label(numbers.get(id(turn), 0), turn)
        if policy == "raise":
            raise UnsupportedContentError(
                f"{provider.target} takes system content only up front, and {label} comes "
                "after the conversation has started",
                name=bundle.narrative_name,
                line=line,
                column=1,
                hint="pass midway_system='user', 'hoist' or 'drop', or move the turn up",
                cli_hint="add --midway-system user, hoist or drop, or move the turn up",
            )
        # A part it cannot hold is refused before the turn is said to be sent.
        placed = _as_user(message, provider) if policy == "user" else None
        said = (
            f"{location(bundle.file_name, line, 1)}: {label} comes after the conversation "
            f"has started, and {provider.target} takes system content only up front: "
            f"{_DONE[policy]}"
        )
        dropped = _dropped_assets(message) if policy == "drop" else ""
        text = f"{said} (midway_system={policy!r}){dropped}"
        conversation.warnings.append(text)
        cli_said = f"{said} (--midway-system {policy}, on lmml render){dropped}"
        warn(SystemContentWarning(text, cli_message=cli_said))
        if placed is not None:
            out.append(placed)
        elif policy == "hoist":
            leading.append(message)
    index = next((i for i, m in enumerate(out) if m.role != "system"), len(out))
    messages = out[:index] + leading + out[index:]
    return ChatConversation(messages, conversation.warnings)
