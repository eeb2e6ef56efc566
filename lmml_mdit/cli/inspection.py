"""The documented path ``lmml_mdit.cli.inspection``, kept: its names, from
``lmml_mdit.cli``'s private module ``_inspection`` (see docs/architecture.md)."""

from __future__ import annotations

from ._inspection import (
    CatArguments,
    cmd_cat,
    cmd_info,
    cmd_ls,
    cmd_turns,
    cmd_validate,
)

__all__ = ["CatArguments", "cmd_cat", "cmd_info", "cmd_ls", "cmd_turns", "cmd_validate"]
