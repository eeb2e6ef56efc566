"""The documented path ``lmml_mdit.cli.table``, kept: its names, from
``lmml_mdit.cli``'s private module ``_table`` (see docs/architecture.md)."""

from __future__ import annotations

from ._table import (
    Command,
    command,
    declared,
    modules,
    summaries,
    summary_parser,
    top_parser,
)

__all__ = [
    "Command",
    "command",
    "declared",
    "modules",
    "summaries",
    "summary_parser",
    "top_parser",
]
