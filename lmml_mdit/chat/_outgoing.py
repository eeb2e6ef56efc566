"""Chat-API payloads from a bundle: ``messages``, ``render_turns`` and ``to_request``.

:mod:`lmml_mdit.chat._content` makes provider-neutral messages, the provider modules write
them in their JSON; this module picks the provider and maps the settings embed to request
parameters. See docs/messages.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..bundle import (
    BundleSource,
    check_setting_values,
    problem_message,
    range_problems,
    setting_location,
)
from ..conversation import NativeItem, ToolCall, sendable
from ..errors import BundleError, InvalidSettingsError, LmmlError, UnsupportedContentError
from ..jsontypes import JSONMapping, JSONObject
from ..templates import INPUTS_KEY
from ..warn import warn
from ._content import (
    TEXT_EMBEDS_CHOICES,
    TEXT_EMBEDS_SETTING,
    MissingSettingWarning,
    Options,
    SettingRangeWarning,
    SystemContentWarning,
    UnknownSettingWarning,
    build_conversation,
)
from ._midway import place_midway_system
from ._native import keep_call_keys, keep_custom_calls, keep_native
from ._tools import provider_settings
from .providers import PROVIDERS, Payload, Provider
from .providers import openai as openai_chat
from .providers import provider as find_provider

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._content import RequestOptions

__all__ = [
    "PROVIDERS",
    "MessageList",
    "Payload",
    "message_list",
    "messages",
    "render_payload",
    "render_turns",
    "request_body",
    "request_params",
    "sendable_settings",
    "system_outside",
    "to_request",
]

_ALIASES = {
    "max_completion_tokens": "max_tokens",
    "max_output_tokens": "max_tokens",
    "stop_sequences": "stop",
}
"""Settings spellings read as one LMML key (a provider's own spelling also works)."""

_SKIPPED = frozenset({"model", TEXT_EMBEDS_SETTING, INPUTS_KEY})


def render_payload(
    bundle: BundleSource, provider: str = openai_chat.NAME, **options: Unpack[RequestOptions]
) -> Payload:
    """Render *bundle* for *provider*: messages, top-level system content and warnings.

    :param provider: one of :data:`~lmml_mdit.chat.providers.PROVIDERS` (``openai``,
        ``openai-responses``, ``anthropic``, ``gemini``).
    :param options: see :class:`~lmml_mdit.chat.Options`.
    :raises DefectError: for an error-level defect in *bundle*, unless ``strict=False``.
    :raises UnsupportedContentError: for content the provider cannot take.
    """
    chosen = find_provider(provider)
    return _render(bundle, chosen, Options.from_kwargs(options))


def _render(bundle: BundleSource, chosen: Provider, options: Options) -> Payload:
    conversation = build_conversation(bundle, options, chosen.target)
    conversation = keep_native(conversation, chosen.name, chosen.target, bundle.file_name)
    conversation = keep_custom_calls(
        conversation, chosen.custom_calls, chosen.target, bundle.file_name
    )
    conversation = keep_call_keys(
        conversation, chosen.call_keys, chosen.target, bundle.file_name, chosen.adopt_call_keys
    )
    try:
        conversation = place_midway_system(conversation, chosen, options, bundle)
        return chosen.write(conversation, _bundle_defaults(bundle, options))
    except LmmlError as error:
        error.locate(bundle.file_name)  # a part's line counts in the narrative
        raise


def _bundle_defaults(bundle: BundleSource, options: Options) -> Options:
    """*options* with the bundle's ``text_embeds`` setting as that option's default.

    :raises InvalidSettingsError: for a value other than ``text`` or ``document``.
    """
    if options.text_embeds is not None:
        return options
    value = sendable_settings(bundle, strict=options.strict).get(TEXT_EMBEDS_SETTING)
    if value is None:
        return options
    if value not in TEXT_EMBEDS_CHOICES:
        allowed = " or ".join(repr(choice) for choice in TEXT_EMBEDS_CHOICES)
        raise InvalidSettingsError(
            f"setting {TEXT_EMBEDS_SETTING!r} must be {allowed}, not {value!r}",
            name=TEXT_EMBEDS_SETTING,
            hint=f"give {' or '.join(TEXT_EMBEDS_CHOICES)}, or remove it",
        )
    return dataclasses.replace(options, text_embeds=value)


class MessageList(list[JSONObject]):
    """What :func:`messages` returns: the provider's messages list, plus what travels
    beside it.

    It is a plain list of message dicts (JSON-serialisable, equal to a list with the same
    items); the attributes say what the list itself cannot carry:

    :ivar provider: the provider key.
    :ivar system: the system content Anthropic and Gemini take outside the list (Anthropic:
        a list of text blocks for ``system=``; Gemini: a ``Content`` dict for
        ``config["system_instruction"]``), or None.
    :ivar warnings: the omissions reported while rendering (``max_embed_bytes``).
    """

    provider: str
    system: list[JSONObject] | JSONObject | None
    warnings: list[str]

    def __init__(self, payload: Payload) -> None:
        super().__init__(payload.messages)
        self.provider = payload.provider
        self.system = payload.system
        self.warnings = list(payload.warnings)


def messages(
    bundle: BundleSource, provider: str = openai_chat.NAME, **options: Unpack[RequestOptions]
) -> MessageList:
    """The list for *provider*'s messages field (``messages``, ``input`` or ``contents``).

    Anthropic and Gemini keep system content outside that list. By default it is returned
    on the result's ``system`` attribute (ready for Anthropic's ``system=`` or Gemini's
    ``config["system_instruction"]``) with a :class:`~lmml_mdit.SystemContentWarning`,
    so it is never lost unnoticed; ``system="separate"`` does the same without the
    warning, ``system="user"`` sends it as user content in the list, ``system="drop"``
    leaves it out and ``system="raise"`` raises. :func:`to_request` places it for you.

    A bundle with an error-level defect (what :meth:`~lmml_mdit.bundle.bundle.Bundle.validate`
    reports with severity ``"error"``) is refused; ``strict=False`` sends it anyway, warning
    each defect as a :class:`~lmml_mdit.bundle.bundle.DefectWarning`.

    :raises DefectError: for an error-level defect, unless ``strict=False``.
    :raises UnsupportedContentError: for content the provider cannot take, or, with
        ``system="raise"``, system content the list cannot carry.
    """
    return message_list(bundle, find_provider(provider), Options.from_kwargs(options))


def system_outside(target: str) -> str:
    """What a messages list without the system content says of *target* (a provider that
    keeps system content apart: Anthropic, Gemini), for each place that refuses or warns."""
    return f"{target} keeps system content outside the messages list"


def message_list(bundle: BundleSource, chosen: Provider, parsed: Options) -> MessageList:
    """:func:`messages` with the provider found and the options checked (what a batch of
    cases renders with, so each case skips both).

    :raises DefectError: as :func:`messages`.
    :raises UnsupportedContentError: as :func:`messages`.
    """
    payload = _render(bundle, chosen, parsed)
    if payload.system and parsed.system is None:
        warn(
            SystemContentWarning(
                f"{system_outside(chosen.target)}: it is on the result's system "
                "attribute (pass system='separate' to silence this, or system='user' / "
                "'drop' / 'raise'; to_request() places it)"
            )
        )
    if payload.system and parsed.system == "raise":
        line = _first_system_line(bundle, parsed.context)
        raise UnsupportedContentError(
            system_outside(chosen.target),
            name=bundle.narrative_name,
            line=line,
            hint="use to_request(), or the default system='separate' (the result's "
            "system attribute), or system='user' / system='drop'",
            cli_hint="add --request for the whole request body, or --system separate|user|drop",
        )
    return MessageList(payload)


def _first_system_line(bundle: BundleSource, context: str) -> int | None:
    """The line of the first turn that gives system content, for the error above."""
    for turn in bundle.narrative.turns:
        if turn.role == "system" or (turn.role == "context" and context == "system"):
            return turn.delimiter_line or turn.start_line
    return None  # pragma: no cover - render_payload found system content


def render_turns(bundle: BundleSource, **options: Unpack[RequestOptions]) -> list[JSONObject]:
    """Each turn as ``{"role": role, "content": [part, ...]}`` in OpenAI Chat Completions
    form (the seed shape): one entry per non-empty turn, not merged, with no role limits.

    An assistant turn's calls are listed under ``tool_calls``; a tool turn carries its
    ``tool_call_id``. ``context`` turns follow the ``context`` option (``system`` by
    default), system content the ``system`` option (kept as ``system`` turns by default).

    :raises DefectError: for an error-level defect in *bundle*, unless ``strict=False``.
    """
    parsed = Options.from_kwargs(options)
    out: list[JSONObject] = []
    target = openai_chat.PROVIDER.target
    conversation = build_conversation(bundle, parsed, target)
    for message in keep_native(conversation, None, target, bundle.file_name).messages:
        content: list[JSONObject] = []
        calls: list[JSONObject] = []
        for item in sendable(message):
            if isinstance(item, ToolCall):
                calls.append(openai_chat.tool_call(item))
            elif not isinstance(item, NativeItem):  # every native item was left out above
                content.append(openai_chat.content_part(item, parsed))
        entry: JSONObject = {"role": message.role, "content": content}
        if calls:
            entry["tool_calls"] = calls
        if message.call is not None:
            entry["tool_call_id"] = message.call.id
        out.append(entry)
    return out


def request_params(
    settings: JSONMapping | None,
    provider: str,
    *,
    unknown: str = "warn",
    where: Callable[[str], str | None] | None = None,
) -> JSONObject:
    """Map a settings mapping to *provider*'s request parameters.

    ``temperature``, ``top_p``, ``top_k``, ``max_tokens`` (also spelled
    ``max_completion_tokens``/``max_output_tokens``), ``stop`` (or ``stop_sequences``),
    ``seed``, ``presence_penalty``, ``frequency_penalty`` and ``n`` go to the provider's
    names; the provider's own parameter names pass as they are. ``model`` is read by
    :func:`to_request`, not here. ``tools``, ``tool_choice`` and structured output
    (``response_format`` / ``output_schema``), in the portable form or any provider's, are
    written in *provider*'s form (:func:`~lmml_mdit.chat.provider_settings`).

    A number outside the range *provider*'s API reference gives (the settings schema's
    ``x-provider-ranges``) is sent as given, with a
    :class:`~lmml_mdit.SettingRangeWarning` naming the rule. Where *where* gives a key's
    place (``FILE:LINE:COL``), its warnings start with it.

    :param unknown: ``"warn"`` (default) leaves other keys out, each with an
        :class:`~lmml_mdit.UnknownSettingWarning` naming it; ``"pass"`` copies
        them as they are; ``"error"`` raises.
    :raises InvalidSettingsError: for a key the provider does not take, with
        ``unknown="error"``; for a malformed tool, tool choice or output schema.
    """
    chosen = find_provider(provider)
    out_of_range = {
        problem.path[0]: problem for problem in range_problems(settings or {}, chosen.name)
    }
    settings = provider_settings(settings or {}, chosen.name)
    mapping = chosen.settings
    native = chosen.native_settings
    as_list = chosen.list_settings
    params: JSONObject = {}
    for key, value in (settings or {}).items():
        if key in _SKIPPED:
            continue
        shape = chosen.native_shapes.get(key)
        if key in native and (shape is None or shape(value)):
            target = key
        else:
            lmml_key = _ALIASES.get(key, key)
            mapped = mapping.get(lmml_key)
            if mapped is None:
                if unknown == "error":
                    file, line, column = _place(where(key) if where is not None else None)
                    raise InvalidSettingsError(
                        f"{chosen.target} has no parameter for setting {key!r}",
                        name=key,
                        file=file,
                        line=line,
                        column=column,
                        hint="remove it, or pass unknown_settings='pass' to send it as is",
                        cli_hint="remove it, or add --unknown-settings pass to send it as is",
                    )
                if unknown == "warn":
                    why = (
                        "takes another shape under that name"
                        if key in native
                        else "has no parameter for it"
                    )
                    said = f"setting {key!r} left out: {chosen.target} {why}"
                    place = where(key) if where is not None else None
                    said = said if place is None else f"{place}: {said}"
                    warn(
                        UnknownSettingWarning(
                            f"{said} (unknown_settings='pass' would send it as is)",
                            cli_message=f"{said} (--unknown-settings pass, on lmml render "
                            "and export, would send it as is)",
                        )
                    )
                    continue
                target = key
            else:
                target = mapped
        if target in as_list and isinstance(value, str):
            value = [value]
        params[target] = value
        if key in out_of_range:  # sent as given: the provider's rule is named
            said = problem_message(out_of_range[key])
            place = where(key) if where is not None else None
            warn(SettingRangeWarning(said if place is None else f"{place}: {said}"))
    return params


def _place(where: str | None) -> tuple[str | None, int | None, int | None]:
    """``FILE:LINE:COL`` (as :func:`setting_location` gives it) as its three parts; no
    place (a key given by ``settings=``) or one of another form gives Nones."""
    if where is not None:
        file, _, rest = where.rpartition(":")
        file, _, line = file.rpartition(":")
        if file and line.isdigit() and rest.isdigit():
            return file, int(line), int(rest)
    return None, None, None


def sendable_settings(bundle: BundleSource, *, strict: bool = True) -> JSONObject:
    """The bundle's settings for a request (a copy; empty without any).

    :param strict: False gives no settings for invalid or unresolvable ones, which the
        send check has already reported as a :class:`~lmml_mdit.bundle.bundle.DefectWarning`.
    :raises BundleError: for invalid or unresolvable settings, when *strict*.
    """
    try:
        return dict(bundle.settings or {})
    except BundleError:
        if strict:
            raise
        return {}


def to_request(
    bundle: BundleSource,
    provider: str = openai_chat.NAME,
    model: str | None = None,
    **options: Unpack[RequestOptions],
) -> JSONObject:
    """A complete request body for *provider*: model, messages and mapped settings, one
    the provider's official SDK accepts as the keyword arguments of its create call
    (``client.chat.completions.create(**body)``, ``client.responses.create(**body)``,
    ``client.messages.create(**body)``, ``client.models.generate_content(**body)``).

    The model is *model*, else the settings' ``model``. With neither, OpenAI Responses
    (whose create call does not require one) gets a body without ``model`` and a
    :class:`~lmml_mdit.MissingSettingWarning`; the other providers require it,
    so it is an :class:`~lmml_mdit.errors.InvalidSettingsError`. A setting the provider
    has no parameter for is left out with an
    :class:`~lmml_mdit.UnknownSettingWarning` (``unknown_settings="pass"``
    keeps it, ``"error"`` raises). Anthropic's required ``max_tokens`` is
    :data:`~lmml_mdit.chat.providers.anthropic.DEFAULT_MAX_TOKENS` when the settings give
    none, with a :class:`~lmml_mdit.MissingSettingWarning`. Pass
    ``settings={...}`` to add to or override the bundle's settings; their values are
    checked as ``validate`` checks the bundle's.

    :raises DefectError: for a bundle with an error-level defect (an ``invalid_setting``
        among them), unless ``strict=False``.
    :raises InvalidSettingsError: for no model where the provider requires one, an unknown
        setting with ``unknown_settings="error"``, or a ``settings=`` value the settings
        schema refuses.
    :raises UnsupportedContentError: for content the provider cannot take.
    """
    chosen = find_provider(provider)
    return request_body(bundle, chosen, Options.from_kwargs(options), model=model)


def request_body(
    bundle: BundleSource,
    provider: Provider,
    options: Options,
    *,
    model: str | None = None,
    live: bool = True,
) -> JSONObject:
    """The request body for *provider*, from checked *options*: what :func:`to_request`
    and a dataset export (:func:`~lmml_mdit.chat.export_bundle`) both write.

    :param live: True completes the body for a live request: the model the provider
        requires, and a required parameter's default (Anthropic's ``max_tokens``); a
        dataset record (False) is not sent, so it need not have them.
    :raises InvalidSettingsError: for a missing model or required parameter without a
        default, when *live*; for an empty *model*; for a ``settings=`` value the settings
        schema refuses.
    """
    if options.settings:
        check_setting_values(options.settings)
    if model is not None and not model.strip():
        raise InvalidSettingsError(
            f"the model name {model!r} is empty",
            name="model",
            hint="pass model='NAME', or model=None to take the settings' model",
            cli_hint="give --model a name, or leave --model out to take the settings' model",
        )
    # Render first: it refuses a defective bundle (strict) before the settings are read,
    # so a broken settings embed is reported as validate does.
    payload = _render(bundle, provider, options)
    settings = sendable_settings(bundle, strict=options.strict)
    if options.settings:
        settings.update(options.settings)
    given = options.settings or {}

    def where(key: str) -> str | None:
        return None if key in given else setting_location(bundle, key)

    params = request_params(settings, provider.name, unknown=options.unknown_settings, where=where)
    chosen = model if model is not None else settings.get("model")
    if live:
        _complete(provider, params, model_given=chosen is not None)
    return provider.request(payload, None if chosen is None else str(chosen), params)


def _complete(provider: Provider, params: JSONObject, *, model_given: bool) -> None:
    """Check a live request has what the provider's create call requires: a model, and
    each required parameter, taking its default (with a warning) where it has one.

    :raises InvalidSettingsError: for a missing model or required parameter the provider
        cannot go without.
    """
    if not model_given and provider.requires_model:
        raise InvalidSettingsError(
            f"{provider.target} requires a model, and none is given",
            name="model",
            hint="pass model='NAME', or add 'model: NAME' to the settings embed",
            cli_hint="add --model NAME, or 'model: NAME' to the settings embed",
        )
    if not model_given:
        said = (
            f"no model given: the {provider.target} request has no 'model' (the API then "
            "takes it from a stored prompt)"
        )
        warn(
            MissingSettingWarning(
                f"{said}; pass model='NAME', or add 'model: NAME' to the settings",
                cli_message=f"{said}; add --model NAME, or 'model: NAME' to the settings embed",
            )
        )
    for name in sorted(provider.required_settings - params.keys()):
        if name not in provider.setting_defaults:
            raise InvalidSettingsError(
                f"{provider.title} requires {name}",
                name=name,
                hint=f"add {name} to the settings embed, or pass settings={{'{name}': N}}",
                cli_hint=f"add {name} to the settings embed, or add --set {name}=N",
            )
        params[name] = provider.setting_defaults[name]
        sending = f"{provider.target} requires {name} and the settings give none: sending "
        sending += f"{name}={params[name]!r}"
        warn(
            MissingSettingWarning(
                f"{sending} (add {name} to the settings, or pass settings={{'{name}': N}})",
                cli_message=f"{sending} (add --set {name}=N, or {name} to the settings embed)",
            )
        )
