"""The documented path ``lmml_mdit.narrative.toolcalls``, kept: its names, from
``lmml_mdit.narrative``'s private module ``_toolcalls`` (see docs/architecture.md)."""

from __future__ import annotations

from ._toolcalls import (
    TOOL_CALL_SUFFIX,
    ToolCall,
    call_slug,
    is_tool_call_name,
    parse_tool_call,
    tool_call_fence,
    tool_call_issues,
    tool_calls,
    tool_result_call,
    tool_result_reference,
)

__all__ = [
    "TOOL_CALL_SUFFIX",
    "ToolCall",
    "call_slug",
    "is_tool_call_name",
    "parse_tool_call",
    "tool_call_fence",
    "tool_call_issues",
    "tool_calls",
    "tool_result_call",
    "tool_result_reference",
]
