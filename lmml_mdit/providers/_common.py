"""What the provider writers share: capability errors, text-file text, call arguments."""

from __future__ import annotations

import re
from typing import Any

from ..content import Message, Options
from ..errors import InvalidToolCallError, UnsupportedContentError
from ..handlers import AudioPart, DocumentPart, ImagePart, Part, TextFilePart
from ..toolcalls import ToolCall

__all__ = [
    "PROVIDER_TITLES",
    "Payload",
    "arguments_object",
    "describe",
    "text_file_text",
    "text_mode",
    "unsupported",
]

PROVIDER_TITLES = {
    "openai": "OpenAI Chat Completions",
    "openai-responses": "OpenAI Responses",
    "anthropic": "Anthropic Messages",
    "gemini": "Gemini",
}

_BACKTICKS = re.compile(r"`{3,}")


def describe(part: Part) -> str:
    """A few words naming what *part* holds, for error messages."""
    if isinstance(part, ImagePart):
        return f"an image ({part.media_type})"
    if isinstance(part, DocumentPart):
        return f"a document ({part.media_type})"
    if isinstance(part, AudioPart):
        return f"audio ({part.format})"
    if isinstance(part, TextFilePart):
        return f"a text file ({part.media_type})"
    return "text"


def unsupported(
    part: ImagePart | DocumentPart | AudioPart | TextFilePart,
    provider: str,
    message: Message,
    *,
    hint: str | None = None,
) -> UnsupportedContentError:
    """The error for *part* that *provider* cannot take in *message*'s role."""
    asset = part.asset
    role = message.role
    return UnsupportedContentError(
        f"{PROVIDER_TITLES[provider]} ({provider}) cannot take {describe(part)} "
        f"in a {role} message",
        name=asset.name,
        line=asset.embed.line,
        column=asset.embed.column,
        hint=hint or "move it to a user turn, pick another provider, or register a handler",
    )


def text_file_text(part: TextFilePart) -> str:
    """A text file as Markdown: its name on a line, then its text in a code fence long
    enough that no backtick run inside can close it."""
    text = part.text[:-1] if part.text.endswith("\n") else part.text
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    info = part.asset.extension.lstrip(".")
    return f"{part.asset.name}:\n{fence}{info}\n{text}\n{fence}"


def text_mode(options: Options, default: str) -> str:
    """How text files go: the option when given, else the provider's *default*."""
    return options.text_embeds or default


def arguments_object(call: ToolCall, provider: str) -> dict[str, Any]:
    """The call's arguments as the JSON object Anthropic and Gemini require.

    :raises InvalidToolCallError: when the arguments are not a JSON object.
    """
    if isinstance(call.arguments, dict):
        return call.arguments
    raise InvalidToolCallError(
        f"{PROVIDER_TITLES[provider]} ({provider}) needs the call's arguments as a JSON "
        f"object, not {type(call.arguments).__name__}",
        name=call.embed_name,
        line=call.line,
        hint="write the arguments as a JSON object",
    )


class Payload:
    """One provider's rendering of a bundle.

    :ivar provider: the provider key, e.g. ``"anthropic"``.
    :ivar messages: the list for the provider's messages field (``messages``, ``input`` or
        ``contents``).
    :ivar system: top-level system content for providers that keep it outside the list
        (Anthropic: a list of text blocks; Gemini: a ``Content`` dict), else None.
    :ivar warnings: omissions reported while rendering (``max_embed_bytes``).
    """

    def __init__(
        self,
        provider: str,
        messages: list[dict[str, Any]],
        system: Any = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.provider = provider
        self.messages = messages
        self.system = system
        self.warnings = warnings or []

    def __repr__(self) -> str:
        return (
            f"Payload(provider={self.provider!r}, messages=<{len(self.messages)}>, "
            f"system={'yes' if self.system else 'no'}, warnings={len(self.warnings)})"
        )
