"""The documented path ``lmml_mdit.syntax.deferred``, kept: its names, from
``lmml_mdit.syntax``'s private module ``_deferred`` (see docs/architecture.md)."""

from __future__ import annotations

from ._deferred import (
    COLLECTED_KEY,
    DEFERRED_KEY,
    INLINE_ON_DEMAND_KEY,
    CollectedInlines,
    DeferredInlines,
    plain_line_spans,
    records_in_place,
    rules_after_inline,
)

__all__ = [
    "COLLECTED_KEY",
    "DEFERRED_KEY",
    "INLINE_ON_DEMAND_KEY",
    "CollectedInlines",
    "DeferredInlines",
    "plain_line_spans",
    "records_in_place",
    "rules_after_inline",
]
