"""The format names needed without loading any format: the default provider (written in
:mod:`lmml_mdit.formats`, below the bundle layer), and the entry point group of the plugins.

Each format module holds its own ``NAME``; the lists of names (``PROVIDER_NAMES``,
``IMPORT_FORMATS``) are the registry's (:mod:`lmml_mdit.chat.providers`), which finds the
format modules itself.
"""

from __future__ import annotations

from ..formats import DEFAULT_PROVIDER, OPENAI

__all__ = [
    "DEFAULT_PROVIDER",
    "OPENAI",
    "PLUGIN_GROUP",
]

PLUGIN_GROUP = "lmml_mdit.providers"
"""The entry point group through which an installed package adds a chat format."""
