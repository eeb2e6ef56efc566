"""The names of the built-in chat formats that other modules use, apart from the formats.

Each provider module takes its ``NAME`` from here, and the default provider is one of them;
the lists of names (``PROVIDER_NAMES``, ``IMPORT_FORMATS``) are the registry's
(:mod:`lmml_mdit.chat.providers`), which finds the format modules itself.
"""

from __future__ import annotations

__all__ = [
    "ANTHROPIC",
    "DEFAULT_PROVIDER",
    "GEMINI",
    "OPENAI",
    "OPENAI_RESPONSES",
    "PLUGIN_GROUP",
    "SHAREGPT",
]

OPENAI = "openai"
OPENAI_RESPONSES = "openai-responses"
ANTHROPIC = "anthropic"
GEMINI = "gemini"
SHAREGPT = "sharegpt"

DEFAULT_PROVIDER = OPENAI
"""The provider ``provider=`` and ``--provider`` default to."""

PLUGIN_GROUP = "lmml_mdit.providers"
"""The entry point group through which an installed package adds a chat format."""
