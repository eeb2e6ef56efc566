"""The names of the chat formats, apart from the formats themselves.

The one source of each name: every provider module takes its ``NAME`` from here, and so do
the registry (:mod:`lmml_mdit.chat.providers`) and the command line's choices, which need
the names without loading any format.
"""

from __future__ import annotations

__all__ = [
    "ANTHROPIC",
    "DEFAULT_PROVIDER",
    "EXPORT_PROVIDERS",
    "GEMINI",
    "IMPORT_FORMATS",
    "OPENAI",
    "OPENAI_RESPONSES",
    "PROVIDER_NAMES",
    "SHAREGPT",
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
