"""The reading modes a parse takes, as names: how strictly a heading opens a turn and which
``@name`` is a reference. A module of its own so that the command line's parser names the
choices without loading the syntax (and markdown-it) to print ``--help``."""

from __future__ import annotations

from typing import Literal

__all__ = ["DELIMITER_MODES", "REFERENCE_MODES", "DelimiterMode", "ReferenceMode"]

DelimiterMode = Literal["strict", "loose"]
DELIMITER_MODES: tuple[DelimiterMode, ...] = ("strict", "loose")

ReferenceMode = Literal["assets", "any"]
REFERENCE_MODES: tuple[ReferenceMode, ...] = ("assets", "any")
