"""The documented path ``lmml_mdit.dataset.hf``, kept: its names, from ``lmml_mdit.dataset``'s
private module ``_hf`` (see docs/architecture.md)."""

from __future__ import annotations

from ._hf import (
    TEMPLATE_ROLES,
    hf_features,
    hf_fingerprint,
    hf_rows,
    template_messages,
)

__all__ = [
    "TEMPLATE_ROLES",
    "hf_features",
    "hf_fingerprint",
    "hf_rows",
    "template_messages",
]
