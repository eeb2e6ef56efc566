"""Hover over a reference or a fence name: what it resolves to, or why it does not."""

from __future__ import annotations

from lsprotocol import types

from ..syntax.write import code_fence
from .assets import AssetInfo, describe
from .document import Analysis
from .positions import Columns
from .targets import mention_at

__all__ = ["hover", "hover_text"]

_SOURCES = {
    "fence": "an inline fence on line {line}",
    "file": "the file beside the narrative",
    "entry": "an archive entry",
}


def hover_text(info: AssetInfo) -> str:
    """The Markdown a hover shows for *info*."""
    title = f"**@{info.name}**"
    if info.source == "missing":
        return f"{title}: resolves to nothing\n\n{info.problem}"
    where = _SOURCES[info.source].format(line=info.line)
    parts = [f"{title}: {where}", info.summary()]
    if info.path is not None:
        parts.append(f"`{info.path}`")
    if info.first_lines:
        parts.append(code_fence("\n".join(info.first_lines)))
    return "\n\n".join(parts)


def hover(analysis: Analysis, columns: Columns, line: int, column: int) -> types.Hover | None:
    """The hover at the 0-based code point *column* of *line*, or None off any mention."""
    bundle = analysis.bundle
    if bundle is None:
        return None
    found = mention_at(bundle.narrative, line, column)
    if found is None:
        return None
    return types.Hover(
        contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown, value=hover_text(describe(bundle, found.name))
        ),
        range=columns.span(found.line, found.start, found.end),
    )
