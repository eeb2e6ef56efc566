"""The documented path ``lmml_mdit.cli.toolchain``, kept: its names, from
``lmml_mdit.cli``'s private module ``_toolchain`` (see docs/architecture.md)."""

from __future__ import annotations

from ._toolchain import (
    FmtArguments,
    cmd_fmt,
)

__all__ = ["FmtArguments", "cmd_fmt"]
