"""The documented path ``lmml_mdit.cli.interchange``, kept: its names, from
``lmml_mdit.cli``'s private module ``_interchange`` (see docs/architecture.md)."""

from __future__ import annotations

from ._interchange import (
    ConvertArguments,
    ExportArguments,
    ImportArguments,
    cmd_convert,
    cmd_export,
    cmd_import,
)

__all__ = [
    "ConvertArguments",
    "ExportArguments",
    "ImportArguments",
    "cmd_convert",
    "cmd_export",
    "cmd_import",
]
