"""The documented path ``lmml_mdit.chat.tools``, kept: its names, from ``lmml_mdit.chat``'s
private module ``_tools`` (see docs/architecture.md)."""

from __future__ import annotations

from ._tools import (
    CHOICE_MODES,
    DEFAULT_OUTPUT_NAME,
    NativeTool,
    OutputSchema,
    ToolChoice,
    ToolSpec,
    choice_from_native,
    choice_owner,
    choice_to_native,
    from_native,
    output_from_native,
    output_to_native,
    portable_choice,
    portable_output,
    portable_settings,
    portable_tools,
    provider_settings,
    to_native,
)

__all__ = [
    "CHOICE_MODES",
    "DEFAULT_OUTPUT_NAME",
    "NativeTool",
    "OutputSchema",
    "ToolChoice",
    "ToolSpec",
    "choice_from_native",
    "choice_owner",
    "choice_to_native",
    "from_native",
    "output_from_native",
    "output_to_native",
    "portable_choice",
    "portable_output",
    "portable_settings",
    "portable_tools",
    "provider_settings",
    "to_native",
]
