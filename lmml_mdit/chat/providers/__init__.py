"""The chat formats: one module per format, each with a writer and a reader.

Each provider module (:mod:`~lmml_mdit.chat.providers.openai`,
:mod:`~lmml_mdit.chat.providers.openai_responses`, :mod:`~lmml_mdit.chat.providers.anthropic`,
:mod:`~lmml_mdit.chat.providers.gemini`) defines a :class:`~lmml_mdit.chat.providers.base.Provider`
``PROVIDER``: its name and title, ``write`` (neutral messages to a payload), ``request`` (a
payload to a request body), ``read`` (a payload to an imported conversation) and its
settings map. :mod:`~lmml_mdit.chat.providers.sharegpt` defines a
:class:`~lmml_mdit.chat.providers.base.ChatFormat` ``FORMAT`` (read; a bundle is written
as ShareGPT by :func:`~lmml_mdit.chat.providers.sharegpt.export_sharegpt`).

This registry is the one list of the format names: everything that names a format
(``format=``, ``provider=``, the command line's choices) reads it from here.
"""

from __future__ import annotations

import warnings

from ...errors import ProviderPluginWarning
from ..format_names import EXPORT_PROVIDERS, IMPORT_FORMATS, PLUGIN_GROUP, PROVIDER_NAMES
from . import anthropic, gemini, openai, openai_responses, sharegpt
from .base import ChatFormat, Detection, Payload, Provider, ToolFormat
from .sending import Sender

__all__ = [
    "EXPORT_PROVIDERS",
    "FORMATS",
    "IMPORT_FORMATS",
    "PROVIDERS",
    "PROVIDER_NAMES",
    "SENDERS",
    "ChatFormat",
    "Detection",
    "Payload",
    "Provider",
    "ToolFormat",
    "provider",
    "sender",
]

PROVIDERS: dict[str, Provider] = {
    module.PROVIDER.name: module.PROVIDER
    for module in (openai, openai_responses, anthropic, gemini)
}
"""The chat APIs written and read, by name: what ``messages()``/``to_request()`` take."""

FORMATS: dict[str, ChatFormat] = {**PROVIDERS, sharegpt.FORMAT.name: sharegpt.FORMAT}
"""Every chat format, by name: the providers, then ShareGPT."""

SENDERS: dict[str, Sender] = {
    module.PROVIDER.name: module.SENDER for module in (openai, openai_responses, anthropic, gemini)
}
"""The providers that send (:func:`sender`), by name: each one's module's ``SENDER``."""

if tuple(PROVIDERS) != PROVIDER_NAMES or tuple(FORMATS) != IMPORT_FORMATS:
    raise RuntimeError("the format registry and lmml_mdit.chat.format_names disagree")


def _load_plugins() -> None:
    """Add the formats installed packages register in :data:`PLUGIN_GROUP`; one that fails
    to load, is not a format or takes a registered name is left out with a
    :class:`~lmml_mdit.errors.ProviderPluginWarning` naming its entry point."""
    from importlib.metadata import entry_points

    for point in entry_points(group=PLUGIN_GROUP):
        where = f"the chat format plugin {point.name} = {point.value} ({PLUGIN_GROUP})"
        if point.name in FORMATS:
            _left_out(f"{where} was left out: the name {point.name} is taken")
            continue
        try:
            found = point.load()
        except Exception as error:  # the plugin's own failure: reported, never raised
            _left_out(f"{where} was left out: loading it raised {type(error).__name__}: {error}")
            continue
        if not isinstance(found, ChatFormat):
            kind = type(found).__name__
            _left_out(f"{where} was left out: it is of type {kind}, not a ChatFormat")
            continue
        if found.name != point.name:
            _left_out(f"{where} was left out: the format it loads is named {found.name!r}")
            continue
        FORMATS[found.name] = found
        if isinstance(found, Provider):
            PROVIDERS[found.name] = found


def _left_out(message: str) -> None:
    warnings.warn(message, ProviderPluginWarning, stacklevel=3)


_load_plugins()


def provider(name: str) -> Provider:
    """The provider called *name*.

    :raises ValueError: for an unknown provider, listing the known ones.
    """
    found = PROVIDERS.get(name)
    if found is None:
        raise ValueError(f"unknown provider {name!r}; choose one of {', '.join(PROVIDERS)}")
    return found


def sender(name: str) -> Sender:
    """The :class:`~lmml_mdit.chat.providers.sending.Sender` of provider *name* (its SDK
    imported on first use).

    :raises ValueError: for a provider nothing sends to.
    """
    found = SENDERS.get(name)
    if found is None:
        raise ValueError(f"no sender for provider {name!r}; choose one of {', '.join(SENDERS)}")
    return found
