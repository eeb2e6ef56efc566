"""The JSON types of the public signatures: one name for each shape JSON takes there.

A JSON object the library builds or reads (a request body, a message, settings, metadata)
is a :data:`JSONObject` it returns, or a :data:`JSONMapping` it takes. Their values are
typed as ``json.loads`` types them (``Any``), so a caller indexes nested values freely; the
names say what the values are: JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

__all__ = ["JSONMapping", "JSONObject"]

JSONObject: TypeAlias = dict[str, Any]
"""A JSON object: string keys, JSON values."""

JSONMapping: TypeAlias = Mapping[str, Any]
"""A JSON object taken read-only: any mapping of string keys to JSON values."""
