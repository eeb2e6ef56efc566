"""The documented path ``lmml_mdit.transcript.rendering``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_rendering`` (see docs/architecture.md)."""

from __future__ import annotations

from ._rendering import (
    Renderable,
)

__all__ = ["Renderable"]
