"""The documented path ``lmml_mdit.syntax.write``, kept: its names, from
``lmml_mdit.syntax``'s private module ``_write`` (see docs/architecture.md)."""

from __future__ import annotations

from ._write import (
    ESCAPE,
    FenceCharacter,
    check_fenceable,
    code_fence,
    code_fence_marker,
    embed_fence,
    escape_at,
    reference,
)

__all__ = [
    "ESCAPE",
    "FenceCharacter",
    "check_fenceable",
    "code_fence",
    "code_fence_marker",
    "embed_fence",
    "escape_at",
    "reference",
]
