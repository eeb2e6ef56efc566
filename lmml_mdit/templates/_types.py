"""The words of a template's inputs: the declaring key, the input types and the issue kinds."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "ASSET_TYPES",
    "INPUTS_KEY",
    "INPUT_KINDS",
    "INPUT_TYPES",
    "MESSAGES_TYPE",
    "InputType",
]

INPUTS_KEY = "inputs"
"""The front matter and settings key that declares the inputs (never sent as a setting)."""

InputType = Literal["string", "number", "integer", "boolean", "object", "image", "file", "messages"]
INPUT_TYPES: tuple[str, ...] = get_args(InputType)
ASSET_TYPES = frozenset({"image", "file"})
"""The input types whose value becomes an asset part rather than text."""
MESSAGES_TYPE = "messages"
"""The input type whose value is a conversation, put in as turns where its placeholder stands."""

INPUT_KINDS = ("undeclared_input", "missing_input", "invalid_input", "unused_input")
"""The issue kinds about inputs, as ``validate`` names them."""
