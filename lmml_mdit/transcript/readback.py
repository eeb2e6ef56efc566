"""The documented path ``lmml_mdit.transcript.readback``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_readback`` (see docs/architecture.md)."""

from __future__ import annotations

from ._readback import (
    settle,
)

__all__ = ["settle"]
