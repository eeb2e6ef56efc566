"""The documented path ``lmml_mdit.transcript.plans``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_plans`` (see docs/architecture.md)."""

from __future__ import annotations

from ._plans import (
    Fault,
    Placement,
    Plan,
    Resolves,
    escalate,
    plan_messages,
    render_plans,
)

__all__ = ["Fault", "Placement", "Plan", "Resolves", "escalate", "plan_messages", "render_plans"]
