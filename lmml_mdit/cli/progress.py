"""The documented path ``lmml_mdit.cli.progress``, kept: its names, from
``lmml_mdit.cli``'s private module ``_progress`` (see docs/architecture.md)."""

from __future__ import annotations

from ._progress import ProgressLine

__all__ = ["ProgressLine"]
