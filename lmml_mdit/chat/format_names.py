"""The names of the chat formats, apart from the formats themselves.

The one source of each name: every provider module takes its ``NAME`` from here, and so do
the registry (:mod:`lmml_mdit.chat.providers`) and the command line's choices, which need
the names without loading any format.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

__all__ = [
    "ANTHROPIC",
    "DEFAULT_PROVIDER",
    "EXPORT_PROVIDERS",
    "GEMINI",
    "IMPORT_FORMATS",
    "OPENAI",
    "OPENAI_RESPONSES",
    "PLUGIN_GROUP",
    "PROVIDER_NAMES",
    "SHAREGPT",
    "PluginChoices",
    "plugin_names",
]

OPENAI = "openai"
OPENAI_RESPONSES = "openai-responses"
ANTHROPIC = "anthropic"
GEMINI = "gemini"
SHAREGPT = "sharegpt"

DEFAULT_PROVIDER = OPENAI
"""The provider ``provider=`` and ``--provider`` default to."""

PROVIDER_NAMES: tuple[str, ...] = (OPENAI, OPENAI_RESPONSES, ANTHROPIC, GEMINI)
"""The names ``provider=`` takes (``lmml render --provider``), in the registry's order."""

IMPORT_FORMATS: tuple[str, ...] = (*PROVIDER_NAMES, SHAREGPT)
"""The names ``format=`` takes (``lmml import --format``): the providers, then ShareGPT."""

EXPORT_PROVIDERS: tuple[str, ...] = IMPORT_FORMATS
"""The record shapes a dataset export writes (``lmml export --provider``): every format
read is written too, the providers as request bodies and ShareGPT as records."""

PLUGIN_GROUP = "lmml_mdit.providers"
"""The entry point group through which an installed package adds a chat format."""


@functools.cache
def plugin_names() -> tuple[str, ...]:
    """The names installed packages register in :data:`PLUGIN_GROUP`, sorted, leaving out
    the built-in ones, read from the packages' metadata without loading any of them."""
    from importlib.metadata import entry_points

    return tuple(
        sorted({point.name for point in entry_points(group=PLUGIN_GROUP)} - set(IMPORT_FORMATS))
    )


class PluginChoices:
    """A command line option's choices: the built-in names, then the installed plugins'.

    A built-in name is checked without reading any package metadata; the plugins' names are
    read (once) only for another name, or when the choices are listed.
    """

    def __init__(self, builtin: tuple[str, ...]) -> None:
        self.builtin = builtin

    def __contains__(self, name: object) -> bool:
        return name in self.builtin or name in plugin_names()

    def __iter__(self) -> Iterator[str]:
        return iter((*self.builtin, *plugin_names()))
