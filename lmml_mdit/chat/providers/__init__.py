"""The chat formats: one module per format, found in this package, and the registry of them.

Every public module of this package that defines a format is one: a
:class:`~lmml_mdit.chat.providers.base.Provider` ``PROVIDER`` (a chat API, written and read:
:mod:`~lmml_mdit.chat.providers.openai`, :mod:`~lmml_mdit.chat.providers.anthropic`, ...)
or a :class:`~lmml_mdit.chat.providers.base.ChatFormat` ``FORMAT`` (read only:
:mod:`~lmml_mdit.chat.providers.sharegpt`), with ``ORDER``, its place in the lists (lowest
first), and, to send, a :class:`~lmml_mdit.chat.providers.sending.Sender` ``SENDER``.

This registry is the one list of the format names: everything that names a format
(``format=``, ``provider=``, the command line's choices) reads it from here.
"""

from __future__ import annotations

import importlib
import pkgutil
import warnings
from types import ModuleType

from ...errors import ProviderPluginWarning
from .._format_names import PLUGIN_GROUP
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


def _format_modules() -> list[ModuleType]:
    """The modules of this package that define a format, by their ``ORDER`` (then name)."""
    found = []
    for info in pkgutil.iter_modules(__path__, f"{__name__}."):
        if info.name.rpartition(".")[2].startswith("_"):
            continue
        module = importlib.import_module(info.name)
        if hasattr(module, "PROVIDER") or hasattr(module, "FORMAT"):
            found.append(module)
    names = [(getattr(module, "PROVIDER", None) or module.FORMAT).name for module in found]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise RuntimeError(f"two format modules define the format named {', '.join(repeated)}")
    return sorted(found, key=lambda module: (module.ORDER, module.__name__))


_BUILT_IN = _format_modules()

PROVIDERS: dict[str, Provider] = {
    module.PROVIDER.name: module.PROVIDER for module in _BUILT_IN if hasattr(module, "PROVIDER")
}
"""The chat APIs written and read, by name: what ``messages()``/``to_request()`` take."""

FORMATS: dict[str, ChatFormat] = {
    **PROVIDERS,
    **{module.FORMAT.name: module.FORMAT for module in _BUILT_IN if hasattr(module, "FORMAT")},
}
"""Every chat format, by name: the providers, then the formats only read (ShareGPT)."""

SENDERS: dict[str, Sender] = {
    module.PROVIDER.name: module.SENDER for module in _BUILT_IN if hasattr(module, "SENDER")
}
"""The providers that send (:func:`sender`), by name: each one's module's ``SENDER``."""

PROVIDER_NAMES: tuple[str, ...] = tuple(PROVIDERS)
"""The names ``provider=`` takes (``lmml render --provider``), built-in ones, in order."""

IMPORT_FORMATS: tuple[str, ...] = tuple(FORMATS)
"""The built-in names ``format=`` takes (``lmml import --format``): the providers, then
the rest. A plugin's format is taken too: :data:`FORMATS` holds every name."""

EXPORT_PROVIDERS: tuple[str, ...] = IMPORT_FORMATS
"""The record shapes a dataset export writes (``lmml export --provider``): every format
read is written too, the providers as request bodies and ShareGPT as records."""


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
