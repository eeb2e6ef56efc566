"""A target: ``provider:model`` with an optional ``@base_url``, read and written back; a
run's targets checked."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..chat.providers import sender

__all__ = ["Target", "check_targets"]


@dataclass(frozen=True)
class Target:
    """Where a case is sent: a provider that sends, its model, and its base URL if any."""

    provider: str
    model: str
    base_url: str | None = None

    @classmethod
    def parse(cls, text: str) -> Target:
        """Read ``provider:model[@base_url]`` (``openai:llama3@http://localhost:11434/v1``).

        :raises ValueError: no model, or a provider nothing sends to.
        """
        spec, at, url = text.partition("@")
        provider, colon, model = spec.partition(":")
        if not colon or not provider or not model:
            raise ValueError(f"a target is PROVIDER:MODEL[@BASE_URL], not {text!r}")
        if at and not url.startswith(("http://", "https://")):
            raise ValueError(f"a target's base URL starts with http:// or https://, not {url!r}")
        sender(provider)  # raises ValueError, naming the providers that send
        return cls(provider, model, url if at else None)

    def __str__(self) -> str:
        text = f"{self.provider}:{self.model}"
        return f"{text}@{self.base_url}" if self.base_url else text


def check_targets(targets: Sequence[Target], rates: Mapping[str, float] | None = None) -> None:
    """Refuse no target, or one given twice: its every case would be sent twice, and its
    rows written twice; and *rates* (requests a minute, by target text) naming no target
    or not over 0.

    :raises ValueError: naming the target given twice, or the rate.
    """
    if not targets:
        raise ValueError("give at least one target")
    seen: set[str] = set()
    for target in targets:
        text = str(target)
        if text in seen:
            raise ValueError(f"the target {text} is given twice; give each target once")
        seen.add(text)
    for name, rate in (rates or {}).items():
        if name not in seen:
            raise ValueError(f"a rate names {name!r}, which is no target")
        if not 0 < rate <= math.inf:  # NaN fails both
            raise ValueError(f"the rate of {name} is requests a minute over 0, not {rate!r}")
