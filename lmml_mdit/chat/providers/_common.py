"""What the provider modules share: capability errors, text-file text, call arguments,
the typed parts detection looks at, a request body read and written, a named schema."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator

from ...conversation import (
    AudioPart,
    ChatConversation,
    ChatMessage,
    DocumentPart,
    ImagePart,
    Item,
    MessagePart,
    NativeItem,
    Part,
    RemotePart,
    TextFilePart,
    TextPart,
    ToolCall,
    VideoPart,
    sendable,
)
from ...errors import InvalidToolCallError, UnsupportedContentError
from ...jsontypes import JSONMapping, JSONObject
from ...syntax import code_fence
from .._content import Options
from .._imported import split_body, tools_listed
from .._tool_model import DEFAULT_OUTPUT_NAME, OutputSchema
from .base import ChatFormat, Payload, Provider

__all__ = [
    "append_merged",
    "arguments_object",
    "checked_image",
    "custom_input",
    "describe",
    "list_body",
    "named_schema",
    "read_body",
    "start_body",
    "system_text",
    "system_texts",
    "text_file_text",
    "text_mode",
    "typed_parts",
    "unsupported",
]


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
    if isinstance(part, VideoPart):
        return f"a video ({part.media_type})"
    if isinstance(part, RemotePart):
        return f"a remote {part.remote.kind} ({part.remote.label})"
    return "text"


def unsupported(
    part: ImagePart | DocumentPart | AudioPart | TextFilePart | VideoPart | RemotePart,
    provider: ChatFormat,
    message: ChatMessage,
    *,
    hint: str | None = None,
) -> UnsupportedContentError:
    """The error for *part* that *provider* cannot take in *message*'s role; by default
    its hint says to move it to a user turn, or, when a user message cannot take it either,
    what the provider says of it there (``Anthropic takes no audio input``)."""
    article = "an" if message.role.startswith(("a", "e", "i", "o")) else "a"  # a user
    if hint is None and message.role != "user":
        hint = _nowhere(part, message, provider)
    return part.asset.unsupported(
        f"{provider.target} cannot take {part.asset.name}, {describe(part)}, in {article} "
        f"{message.role} message",
        hint=hint or "move it to a user turn, pick another provider, or register a handler",
    )


def checked_image(part: ImagePart, provider: ChatFormat, accepted: frozenset[str]) -> ImagePart:
    """*part*, when *provider* takes its media type (one of *accepted*).

    :raises UnsupportedContentError: for another type (an ``image/svg+xml`` part a custom
        handler made), naming the asset, its type and the types the provider takes.
    """
    if part.media_type in accepted:
        return part
    taken = ", ".join(sorted(accepted))
    raise part.asset.unsupported(
        f"{provider.target} cannot take {part.asset.name}, {describe(part)}: it takes "
        f"{taken} images only",
        hint="convert it to PNG in the handler that made this image part, or pick another provider",
    )


def text_file_text(part: TextFilePart) -> str:
    """A text file as Markdown: its name on a line, then its text in a code fence long
    enough that no backtick run inside can close it."""
    text = part.text[:-1] if part.text.endswith("\n") else part.text
    info = part.asset.extension.lstrip(".")
    return f"{part.asset.name}:\n{code_fence(text, info)}"


def system_texts(
    message: ChatMessage, provider: ChatFormat, *, hint: str | None = None
) -> list[str]:
    """The text of a system message for a provider that keeps system content apart (text
    parts as they are, text files as :func:`text_file_text`).

    :raises UnsupportedContentError: for any other part (an image, a document, audio).
    """
    texts = (system_text(item, message, provider, hint=hint) for item in sendable(message))
    return [text for text in texts if text is not None]


def system_text(
    item: Item, message: ChatMessage, provider: ChatFormat, *, hint: str | None = None
) -> str | None:
    """One item of the system *message* as text (None for a tool call, which adds none).

    :raises UnsupportedContentError: for a part that is not text, or a provider-specific
        item.
    """
    if isinstance(item, TextPart):
        return item.text
    if isinstance(item, TextFilePart):
        return text_file_text(item)
    if isinstance(item, NativeItem):
        raise UnsupportedContentError(
            f"{provider.target} takes only text as system content, not {item.describe}",
            name=item.embed_name,
            line=item.line,
            column=item.column,
            hint="move the fence to a user or assistant turn, or remove it",
        )
    if isinstance(item, ToolCall):
        return None
    raise unsupported(item, provider, message, hint=hint)


def _nowhere(part: Part, message: ChatMessage, provider: ChatFormat) -> str | None:
    """What *provider* says of *part* in a user message, when it takes it there neither
    (``Anthropic takes no audio input``): moving it to a user turn would not help. None
    when a user message takes it."""
    if not isinstance(provider, Provider):
        return None
    probe = ChatConversation([ChatMessage("user", [part], None, message.turn)])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            provider.write(probe, Options())
    except UnsupportedContentError as refused:
        return refused.hint
    return None


def append_merged(messages: list[JSONObject], role: str, key: str, items: list[JSONObject]) -> None:
    """Append a message of *role* holding *items* under *key*, or extend the last message
    when it has the same role (consecutive messages of one role become one)."""
    if messages and messages[-1]["role"] == role:
        messages[-1][key].extend(items)
    else:
        messages.append({"role": role, key: items})


def start_body(model: str | None) -> JSONObject:
    """A request body's first key: ``model``, when one is given."""
    return {} if model is None else {"model": model}


def list_body(payload: Payload, model: str | None, key: str, params: JSONObject) -> JSONObject:
    """A request body of ``model``, the payload's messages under *key*, then *params*."""
    body = start_body(model)
    body[key] = payload.messages
    body.update(params)
    return body


def read_body(
    data: object,
    key: str,
    read_turns: Callable[[object], list[ChatMessage]],
    *,
    missing: str,
    hint: str,
    system: tuple[str, Callable[[object], list[MessagePart]]] | None = None,
) -> ChatConversation:
    """A list under *key*, or a request body holding one, read as a conversation: its turns
    by *read_turns*, the body's other keys as settings (``tools`` listed).

    :param missing: the error message when a body has no *key*; *hint*, what to do.
    :param system: the body key holding system content, and how it reads into the parts of
        the system turn put first.
    :raises ImportFormatError: from :func:`split_body` and the readers.
    """
    found, settings = split_body(data, key, missing=missing, hint=hint)
    turns = read_turns(found)
    if system is not None:
        value = settings.pop(system[0], None)
        if value is not None:
            turns.insert(0, ChatMessage("system", system[1](value)))
    return ChatConversation(turns, settings=tools_listed(settings))


def typed_parts(message: JSONMapping) -> Iterator[tuple[str, JSONMapping]]:
    """The parts of a message's ``content`` list that name a ``type`` (a string: the values
    are untrusted), each with its type."""
    content = message.get("content")
    for part in content if isinstance(content, list) else ():
        if isinstance(part, dict) and isinstance(part.get("type"), str):
            yield part["type"], part


def text_mode(options: Options, default: str, part: TextFilePart) -> str:
    """How the text file *part* goes: the option when given, else the part's own
    conversation's mode, else the provider's *default*."""
    return options.text_embeds or part.mode or default


def named_schema(output: OutputSchema) -> JSONObject:
    """The structured output as OpenAI's named JSON Schema: ``name`` (the default when it
    has none), ``description``, ``schema``, ``strict``."""
    named: JSONObject = {"name": output.name or DEFAULT_OUTPUT_NAME}
    if output.description is not None:
        named["description"] = output.description
    named["schema"] = output.schema
    if output.strict is not None:
        named["strict"] = output.strict
    return named


def arguments_object(call: ToolCall, provider: ChatFormat) -> JSONObject:
    """The call's arguments as the JSON object Anthropic and Gemini require.

    :raises InvalidToolCallError: when the arguments are not a JSON object.
    """
    if isinstance(call.arguments, dict):
        return call.arguments
    raise InvalidToolCallError(
        f"{provider.target} needs the call's arguments as a JSON "
        f"object, not {type(call.arguments).__name__}",
        name=call.embed_name,
        line=call.line,
        hint="write the arguments as a JSON object",
    )


def custom_input(call: ToolCall) -> str:
    """A custom call's input (OpenAI Chat and Responses): its arguments, which must be the
    free-form text the tool takes, sent verbatim.

    :raises InvalidToolCallError: when the arguments are not a string.
    """
    if isinstance(call.arguments, str):
        return call.arguments
    raise InvalidToolCallError(
        f"custom tool call {call.id!r} needs its input as text, not "
        f"{type(call.arguments).__name__}",
        name=call.embed_name,
        line=call.line,
        hint='write the input as a JSON string: "arguments": "..."',
    )
