"""What a send returns: :class:`Reply`, the assistant's message and what came with it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..chat.providers.sending import TextDelta, ToolCallEvent
from ..conversation import ChatMessage, TextPart, ToolCall
from ..jsontypes import JSONObject

__all__ = ["Reply", "ReplyEvent", "TextDelta", "ToolCallEvent", "ToolRun", "Usage"]

ReplyEvent = TextDelta | ToolCallEvent
"""What iterating a reply yields: its text as it streamed, and each complete tool call."""


@dataclass(frozen=True)
class Usage:
    """The tokens one send counted (None where the provider gave no count)."""

    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True)
class ToolRun:
    """One tool call a run answered: the call, the function's result as sent back, and
    whether the function raised (the error text is then the result)."""

    call: ToolCall
    result: str
    failed: bool = False


@dataclass
class Reply:
    """The provider's answer, in the library's conversation model.

    :ivar message: the (last) assistant message: text, tool calls and provider-specific
        items, in order.
    :ivar turns: every turn the send added, in order: each assistant message and, with
        tools, each tool result.
    :ivar raw: the SDK's response (a list of stream events when streamed).
    :ivar usage: the tokens counted, summed over the rounds.
    :ivar metadata: what the file records for the (last) reply: provider, model, finish
        reason, tokens, latency, request id.
    :ivar lmml: the LMML text the turns are written as.
    :ivar stopped: why the run ended early, if it did (tool calls without tools, the round
        limit), else None.
    """

    message: ChatMessage
    provider: str
    model: str | None = None
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    latency: float = 0.0
    request_id: str | None = None
    raw: object = None
    turns: list[ChatMessage] = field(default_factory=list)
    events: list[ReplyEvent] = field(default_factory=list)
    tool_runs: list[ToolRun] = field(default_factory=list)
    metadata: JSONObject = field(default_factory=dict)
    lmml: str = ""
    rounds: int = 1
    complete: bool = True
    stopped: str | None = None

    def __iter__(self) -> Iterator[ReplyEvent]:
        """The text pieces and tool calls, in the order they arrived."""
        return iter(self.events)

    @property
    def text(self) -> str:
        """The assistant message's text."""
        return "".join(part.text for part in self.message.parts if isinstance(part, TextPart))

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool calls of the assistant message."""
        return [part for part in self.message.parts if isinstance(part, ToolCall)]
