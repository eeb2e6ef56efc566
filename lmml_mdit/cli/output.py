"""The documented path ``lmml_mdit.cli.output``, kept: its names, from
``lmml_mdit.cli``'s private module ``_output`` (see docs/architecture.md)."""

from __future__ import annotations

from ._output import (
    PROGRAM,
    STDIO,
    CliError,
    deliver,
    ensure_folder,
    error,
    error_text,
    info,
    issue_line,
    missing_summary,
    one_line,
    save_bundle,
    shown,
    stdin_buffer,
    stdout_buffer,
    stdout_bytes,
    stdout_json,
    stdout_text,
    warn,
    writing,
)

__all__ = [
    "PROGRAM",
    "STDIO",
    "CliError",
    "deliver",
    "ensure_folder",
    "error",
    "error_text",
    "info",
    "issue_line",
    "missing_summary",
    "one_line",
    "save_bundle",
    "shown",
    "stdin_buffer",
    "stdout_buffer",
    "stdout_bytes",
    "stdout_json",
    "stdout_text",
    "warn",
    "writing",
]
