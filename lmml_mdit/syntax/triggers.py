"""The documented path ``lmml_mdit.syntax.triggers``, kept: its names, from
``lmml_mdit.syntax``'s private module ``_triggers`` (see docs/architecture.md)."""

from __future__ import annotations

from ._triggers import INLINE_TRIGGERS, may_hold_lmml

__all__ = ["INLINE_TRIGGERS", "may_hold_lmml"]
