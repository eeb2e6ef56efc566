"""The documented path ``lmml_mdit.dataset.schema``, kept: its names, from ``lmml_mdit.dataset``'s
private module ``_schema`` (see docs/architecture.md)."""

from __future__ import annotations

from ._schema import (
    ASSET_MODES,
    ASSET_TYPE,
    ERROR_TYPE,
    ISSUE_TYPE,
    PART_TYPE,
    SCHEMA_VERSION,
    TURN_TYPE,
    AssetMode,
    checked_providers,
    conversation_schema,
    request_column,
)

__all__ = [
    "ASSET_MODES",
    "ASSET_TYPE",
    "ERROR_TYPE",
    "ISSUE_TYPE",
    "PART_TYPE",
    "SCHEMA_VERSION",
    "TURN_TYPE",
    "AssetMode",
    "checked_providers",
    "conversation_schema",
    "request_column",
]
