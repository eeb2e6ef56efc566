"""The documented path ``lmml_mdit.cli.render``, kept: its names, from
``lmml_mdit.cli``'s private module ``_render`` (see docs/architecture.md)."""

from __future__ import annotations

from ._render import (
    RenderArguments,
    caught_warnings,
    cmd_preview,
    cmd_render,
    print_warnings,
    report_refusals,
)

__all__ = [
    "RenderArguments",
    "caught_warnings",
    "cmd_preview",
    "cmd_render",
    "print_warnings",
    "report_refusals",
]
