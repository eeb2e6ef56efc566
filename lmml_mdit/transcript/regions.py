"""The documented path ``lmml_mdit.transcript.regions``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_regions`` (see docs/architecture.md)."""

from __future__ import annotations

from ._regions import (
    fence_owners,
    message_turns,
    reference_owners,
    turn_text,
)

__all__ = ["fence_owners", "message_turns", "reference_owners", "turn_text"]
