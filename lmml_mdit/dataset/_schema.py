"""The Arrow schema of a conversation row: one bundle, one row.

The columns (name and source, the narrative, its turns and their ordered parts, settings,
manifest, front matter, issues, assets, a read error, and ``request_<provider>`` columns
when asked for) and the metadata ``lmml.schema_version`` are listed, with every field, in
docs/datasets.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

import pyarrow as pa

from ..chat.providers import EXPORT_PROVIDERS
from ..errors import BundleError

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

SCHEMA_VERSION: Final = "1"
"""The version of the conversation schema, in the schema's ``lmml.schema_version``."""
SCHEMA_VERSION_KEY: Final = b"lmml.schema_version"

AssetMode = Literal["embed", "reference"]
ASSET_MODES: Final[tuple[AssetMode, ...]] = ("embed", "reference")
"""How assets are stored: their bytes in ``assets.data``, or where they live
(``assets.location`` and, inside an archive, ``assets.entry``)."""

PART_TYPE: Final = pa.struct(
    [
        pa.field("type", pa.string(), nullable=False),  # text, asset, tool_call, native
        pa.field("text", pa.large_string()),
        pa.field("asset", pa.string()),
        pa.field("line", pa.int32()),
    ]
)
TURN_TYPE: Final = pa.struct(
    [
        pa.field("role", pa.string(), nullable=False),
        pa.field("heading", pa.string()),
        pa.field("start_line", pa.int32(), nullable=False),
        pa.field("end_line", pa.int32(), nullable=False),
        pa.field("text", pa.large_string(), nullable=False),
        pa.field("parts", pa.list_(PART_TYPE), nullable=False),
    ]
)
ISSUE_TYPE: Final = pa.struct(
    [
        pa.field("kind", pa.string(), nullable=False),
        pa.field("severity", pa.string(), nullable=False),
        pa.field("name", pa.string(), nullable=False),
        pa.field("line", pa.int32()),
        pa.field("column", pa.int32()),
        pa.field("file", pa.string()),
        pa.field("message", pa.string(), nullable=False),
    ]
)
ASSET_TYPE: Final = pa.struct(
    [
        pa.field("name", pa.string(), nullable=False),
        pa.field("media_type", pa.string(), nullable=False),
        pa.field("size", pa.int64(), nullable=False),
        pa.field("sha256", pa.string(), nullable=False),
        pa.field("data", pa.large_binary()),
        pa.field("location", pa.string()),
        pa.field("entry", pa.string()),
    ]
)
ERROR_TYPE: Final = pa.struct(
    [
        pa.field("type", pa.string(), nullable=False),
        pa.field("message", pa.string(), nullable=False),
    ]
)
NOTE_TYPE: Final = pa.struct(
    [
        pa.field("provider", pa.string(), nullable=False),
        pa.field("severity", pa.string(), nullable=False),
        pa.field("message", pa.string(), nullable=False),
    ]
)

_BASE_FIELDS: Final = [
    pa.field("name", pa.string(), nullable=False),
    pa.field("path", pa.string(), nullable=False),
    pa.field("source", pa.string()),
    pa.field("kind", pa.string()),
    pa.field("narrative_name", pa.string()),
    pa.field("narrative", pa.large_string()),
    pa.field("delimiters", pa.string(), nullable=False),
    pa.field("references", pa.string(), nullable=False),
    pa.field("turns", pa.list_(TURN_TYPE), nullable=False),
    pa.field("settings", pa.large_string()),
    pa.field("manifest", pa.large_string()),
    pa.field("front_matter", pa.large_string()),
    pa.field("issues", pa.list_(ISSUE_TYPE), nullable=False),
    pa.field("assets", pa.list_(ASSET_TYPE), nullable=False),
    pa.field("error", ERROR_TYPE),
]


def request_column(provider: str) -> str:
    """The column holding *provider*'s request body: ``request_openai``."""
    return f"request_{provider}"


def checked_providers(providers: Sequence[str] | None) -> tuple[str, ...]:
    """*providers* as a tuple, each one of the export providers, none twice.

    :raises BundleError: for an unknown provider.
    """
    if providers is None:
        return ()
    if isinstance(providers, str):
        providers = [providers]
    chosen: list[str] = []
    for provider in providers:
        if provider not in EXPORT_PROVIDERS:
            raise BundleError(
                f"unknown provider {provider!r}",
                hint=f"use one of {', '.join(EXPORT_PROVIDERS)}",
            )
        if provider not in chosen:
            chosen.append(provider)
    return tuple(chosen)


def conversation_schema(providers: Sequence[str] | None = None) -> pa.Schema:
    """The schema of a conversation row, with a request column per provider asked for.

    :raises BundleError: for an unknown provider.
    """
    fields = list(_BASE_FIELDS)
    chosen = checked_providers(providers)
    fields.extend(pa.field(request_column(p), pa.large_string()) for p in chosen)
    if chosen:
        fields.append(pa.field("request_notes", pa.list_(NOTE_TYPE), nullable=False))
    return pa.schema(fields, metadata={SCHEMA_VERSION_KEY: SCHEMA_VERSION.encode()})
