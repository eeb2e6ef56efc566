"""The documented path ``lmml_mdit.cli.commands``, kept: its names, from
``lmml_mdit.cli``'s private module ``_commands`` (see docs/architecture.md)."""

from __future__ import annotations

from ._commands import main

__all__ = ["main"]
