"""Provider writers: neutral messages in, each chat API's own JSON out.

Each module has ``PROVIDER`` (its key), ``export(conversation, options) -> Payload``,
``request(payload, model, params) -> dict``, ``SETTINGS`` (LMML settings key -> parameter)
and ``NATIVE_SETTINGS`` (parameters a settings embed may name directly).
"""

from __future__ import annotations

from types import ModuleType

from . import anthropic, gemini, openai, openai_responses
from ._common import PROVIDER_TITLES, Payload

__all__ = ["PROVIDERS", "PROVIDER_TITLES", "Payload", "provider_module"]

PROVIDERS: dict[str, ModuleType] = {
    openai.PROVIDER: openai,
    openai_responses.PROVIDER: openai_responses,
    anthropic.PROVIDER: anthropic,
    gemini.PROVIDER: gemini,
}
"""Provider key -> writer module."""


def provider_module(provider: str) -> ModuleType:
    """The writer module of *provider*.

    :raises ValueError: for an unknown provider, listing the known ones.
    """
    module = PROVIDERS.get(provider)
    if module is None:
        raise ValueError(f"unknown provider {provider!r}; choose one of {', '.join(PROVIDERS)}")
    return module
