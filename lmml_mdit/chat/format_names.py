"""The format names needed without loading any format: the default provider, and the
entry point group of the plugins.

Each format module holds its own ``NAME``; the lists of names (``PROVIDER_NAMES``,
``IMPORT_FORMATS``) are the registry's (:mod:`lmml_mdit.chat.providers`), which finds the
format modules itself.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_PROVIDER",
    "OPENAI",
    "PLUGIN_GROUP",
]

OPENAI = "openai"
"""The OpenAI Chat Completions format's name (its module's ``NAME``)."""

DEFAULT_PROVIDER = OPENAI
"""The provider ``provider=`` and ``--provider`` default to."""

PLUGIN_GROUP = "lmml_mdit.providers"
"""The entry point group through which an installed package adds a chat format."""
