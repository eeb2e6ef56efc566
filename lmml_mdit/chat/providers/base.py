"""The typed interface every chat format implements: :class:`ChatFormat` and
:class:`Provider`, the :class:`Payload` a provider writes, and the :class:`ToolFormat` it
reads and writes tools with.

A :class:`ChatFormat` is a format lmml_mdit reads (a payload into an
:class:`~lmml_mdit.conversation.ChatConversation`); a :class:`Provider` is a chat API it
also writes (a :class:`~lmml_mdit.conversation.ChatConversation` into a
:class:`Payload`, then a request body). Each provider module defines one value of these;
:mod:`lmml_mdit.chat.providers` lists them, and every format name comes from there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...jsontypes import JSONMapping, JSONObject

if TYPE_CHECKING:
    from ...conversation import ChatConversation, NativeItem, ToolCall
    from .._content import Options
    from .._tool_model import NativeTool, OutputSchema, Tool, ToolChoice, ToolSpec

__all__ = ["ChatFormat", "Detection", "Payload", "Provider", "ToolFormat"]


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
        messages: list[JSONObject],
        system: list[JSONObject] | JSONObject | None = None,
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


@dataclass(frozen=True)
class Detection:
    """How a payload shows a chat format, for :func:`~lmml_mdit.chat.detect_format`
    (the rules: ``docs/bridge.md``, "Detection").

    :ivar strength: the format's rank among the signals, strongest first (ties in the
        registry's order).
    :ivar body_keys: top-level keys of a request body that show the format; alone, they decide.
    :ivar messages_key: where a body holds the messages; a format without body keys is
        shown by this key alone, looked at after the body keys.
    :ivar beside_messages: top-level keys that show the format beside its messages.
    :ivar message: whether one message (a JSON object) shows the format.
    :ivar exclusive: a message that shows the format is not looked at for weaker ones.
    :ivar plain: a list of ``user``/``assistant`` messages with no signal is taken as this
        format (the first such format).
    """

    strength: int = 0
    body_keys: frozenset[str] = frozenset()
    messages_key: str | None = None
    beside_messages: frozenset[str] = frozenset()
    message: Callable[[JSONMapping], bool] | None = None
    exclusive: bool = False
    plain: bool = False


@dataclass(frozen=True)
class ChatFormat:
    """A chat format lmml_mdit reads.

    :ivar name: the format's key, e.g. ``"anthropic"`` (``format=``, ``--format``).
    :ivar title: its name in messages, e.g. ``"Anthropic Messages"``.
    :ivar description: a payload in it, as a sentence names one ("an Anthropic chat").
    :ivar read: a parsed JSON payload (a messages list or a request body) into the
        neutral conversation; raises :class:`~lmml_mdit.errors.ImportFormatError` for
        anything outside the format's shapes.
    :ivar detection: how a payload shows the format; without it, the format is imported
        only when named (``format=``).
    """

    name: str
    title: str
    description: str
    read: Callable[[object], ChatConversation]
    detection: Detection | None = field(default=None, kw_only=True)

    @property
    def target(self) -> str:
        """The format as errors name it: ``"Anthropic Messages (anthropic)"``."""
        return f"{self.title} ({self.name})"


def _never(value: JSONMapping) -> bool:
    return False


def _no_builtin(item: JSONObject, where: str) -> NativeTool | None:
    return None


def _adopts_none(tool: NativeTool) -> JSONObject | None:
    return None


def _adopts_no_choice(owner: str, value: JSONMapping) -> JSONObject | None:
    return None


@dataclass(frozen=True)
class ToolFormat:
    """A provider's tools, tool choice and structured output, read and written
    (:mod:`lmml_mdit.chat._tools` takes them through it).

    :ivar read_tool: a ``tools`` item (a JSON object) at a place (``tools[0]``) read as
        tools when it is in the provider's form of a function tool, else None.
    :ivar write_tools: the provider's ``tools`` parameter for the given tools, in order
        (portable ones and its own :class:`~lmml_mdit.chat.NativeTool`; another
        provider's were left out before).
    :ivar write_choice: a tool choice as the provider's parameters (``{"tool_choice": ...}``).
    :ivar write_output: structured output as the provider's parameters.
    :ivar read_builtin: a ``tools`` item no provider's ``read_tool`` took, kept as the
        provider's built-in tool when it is in the provider's shape, else None.
    :ivar read_choice: the provider's own tool-choice parameter (under *choice_keys*) read,
        None when it has no portable equivalent; None when the provider's choice is
        ``tool_choice`` in a form the portable reader takes.
    :ivar choice_keys: the settings keys *read_choice* reads, first the one errors name.
    :ivar owns_choice: whether a ``tool_choice`` with no portable equivalent is in the
        provider's form (it is then sent to that provider only).
    :ivar read_output: the provider's own structured-output parameters read out of a copy
        of the settings: the schema (or None) and the settings left; None when the
        provider takes structured output as ``response_format``.
    :ivar precedence: the order readers try an item or a choice in (highest first, then
        the registry's order), for the shapes several providers share.
    :ivar adopt_tool: another provider's own tool in this provider's form (a Chat custom
        tool for Responses), warning of each key left out on the way; None when it has
        none (the tool is then left out with a warning).
    :ivar adopt_choice: another provider's own ``tool_choice`` (its owner's name and the
        value) in this provider's form (a Chat custom tool's choice for Responses); None
        when it has none (the choice is then left out with a warning).
    """

    read_tool: Callable[[JSONObject, str], list[Tool] | None]
    write_tools: Callable[[Iterable[ToolSpec | NativeTool]], list[JSONObject]]
    write_choice: Callable[[ToolChoice], JSONObject]
    write_output: Callable[[OutputSchema], JSONObject]
    read_builtin: Callable[[JSONObject, str], NativeTool | None] = _no_builtin
    read_choice: Callable[[object], ToolChoice | None] | None = None
    choice_keys: tuple[str, ...] = ()
    owns_choice: Callable[[JSONMapping], bool] = _never
    read_output: Callable[[JSONObject], tuple[OutputSchema | None, JSONObject]] | None = None
    precedence: int = 0
    adopt_tool: Callable[[NativeTool], JSONObject | None] = _adopts_none
    adopt_choice: Callable[[str, JSONMapping], JSONObject | None] = _adopts_no_choice


@dataclass(frozen=True)
class Provider(ChatFormat):
    """A chat API lmml_mdit writes as well as reads.

    :ivar write: the neutral messages of a bundle into the provider's :class:`Payload`;
        raises :class:`~lmml_mdit.errors.UnsupportedContentError` for a part the provider
        cannot take.
    :ivar request: a payload, a model (or None) and the mapped parameters into the
        request body.
    :ivar settings: LMML settings key -> the provider's parameter.
    :ivar native_settings: the provider's parameters a settings embed may name directly.
    :ivar list_settings: parameters the API takes as a list (a single value is wrapped).
    :ivar required_settings: parameters a request cannot go without.
    :ivar system_up_front: whether the provider takes system content only before the
        conversation (outside its messages list), so a later system turn needs the
        ``midway_system`` policy (:mod:`lmml_mdit.chat._midway`).
    :ivar setting_defaults: the value a live request takes, with a
        :class:`~lmml_mdit.MissingSettingWarning`, for a required parameter the
        settings do not give (Anthropic's ``max_tokens``); a required parameter without a
        default is an :class:`~lmml_mdit.errors.InvalidSettingsError` when missing.
    :ivar requires_model: whether the API's create call requires ``model`` (all but
        OpenAI Responses, whose model may come from a stored prompt).
    :ivar native_shapes: for a native parameter whose shape differs between providers
        under one name (``metadata``), the test a value must pass to be sent; one that
        fails is an unknown setting for this provider (left out with a warning by default).
    :ivar tools: how the provider reads and writes tools, tool choice and structured
        output, or None when it takes none of them.
    :ivar custom_calls: whether *write* takes custom tool calls (OpenAI's free-form tools,
        :attr:`~lmml_mdit.conversation.ToolCall.is_custom`) and the tool messages answering
        them; when False, each is left out before *write* sees the messages, with a
        :class:`~lmml_mdit.NativeItemDroppedWarning`.
    :ivar call_keys: whether *write* sends a tool call's other keys
        (:attr:`~lmml_mdit.conversation.ToolCall.extra`, such as Gemini's
        ``extra_content`` in an OpenAI Chat call); when False, each call holding some is
        sent without them, with a :class:`~lmml_mdit.NativeItemDroppedWarning`.
    :ivar adopt_call_keys: when *call_keys* is False, takes out of a call's other keys
        those the provider has its own place for: the call without them, and the
        provider's ``part`` item that puts them on the call's part (None when there were
        none). Gemini reads its OpenAI-compatible endpoint's thought signature this way.
    """

    write: Callable[[ChatConversation, Options], Payload]
    request: Callable[[Payload, str | None, JSONObject], JSONObject]
    settings: Mapping[str, str]
    native_settings: frozenset[str]
    list_settings: frozenset[str] = frozenset()
    required_settings: frozenset[str] = frozenset()
    system_up_front: bool = False
    setting_defaults: JSONMapping = field(default_factory=dict)
    requires_model: bool = True
    native_shapes: Mapping[str, Callable[[object], bool]] = field(default_factory=dict)
    tools: ToolFormat | None = None
    custom_calls: bool = False
    call_keys: bool = False
    adopt_call_keys: Callable[[ToolCall], tuple[ToolCall, NativeItem | None]] | None = None
