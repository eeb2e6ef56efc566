"""The documented path ``lmml_mdit.cli.templates``, kept: its names, from
``lmml_mdit.cli``'s private module ``_templates`` (see docs/architecture.md)."""

from __future__ import annotations

from ._templates import (
    cmd_inputs,
    given_inputs,
    render_case_file,
)

__all__ = ["cmd_inputs", "given_inputs", "render_case_file"]
