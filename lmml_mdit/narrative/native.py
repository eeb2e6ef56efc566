"""The documented path ``lmml_mdit.narrative.native``, kept: its names, from
``lmml_mdit.narrative``'s private module ``_native`` (see docs/architecture.md)."""

from __future__ import annotations

from ._native import (
    MESSAGE_KEYS,
    NATIVE_PROVIDERS,
    PART_KEYS,
    NativeItem,
    is_native_name,
    is_structure_name,
    native_fence,
    native_name,
    parse_native,
)

__all__ = [
    "MESSAGE_KEYS",
    "NATIVE_PROVIDERS",
    "PART_KEYS",
    "NativeItem",
    "is_native_name",
    "is_structure_name",
    "native_fence",
    "native_name",
    "parse_native",
]
