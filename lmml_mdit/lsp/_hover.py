"""Hover over a reference or a fence name (what it resolves to, or why it does not, and
why no provider can take it when validation says so), or over a template placeholder (the
input it names)."""

from __future__ import annotations

import json

from lsprotocol import types

from ..bundle import Bundle
from ..narrative import Placeholder
from ..syntax import code_fence
from ..templates import InputSpec, declared_inputs, misplaced_messages
from ._assets import AssetInfo, describe
from ._document import Analysis
from ._positions import Columns
from ._targets import mention_at

__all__ = ["hover", "hover_text", "placeholder_text"]

_UNSENDABLE = "unsendable_embed"
"""The issue kind of an asset no provider can take, which its hover names."""

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


def placeholder_text(placeholder: Placeholder, spec: InputSpec | None) -> str:
    """The Markdown a hover shows for *placeholder*, filled by the input *spec* (or None)."""
    title = f"**{{{{ {placeholder.path} }}}}**"
    if spec is None:
        return f"{title}: no input declares {placeholder.name!r}; it is sent as written"
    if spec.required:
        need = "required"
    elif spec.has_default:
        need = f"default `{json.dumps(spec.default, ensure_ascii=False)}`"
    else:
        need = "optional"
    parts = [f"{title}: the `{spec.type}` input {spec.name!r} ({need})"]
    if spec.description:
        parts.append(spec.description)
    if spec.is_messages:
        roles = ", ".join(spec.roles) if spec.roles is not None else "the template's own roles"
        parts.append(f"Its value's messages are put in here as turns (roles: {roles}).")
        if not placeholder.holds_turns:
            why = misplaced_messages(spec.name)
            parts.append(why[:1].upper() + why[1:] + ".")
    return "\n\n".join(parts)


def _placeholder_at(bundle: Bundle, line: int, column: int) -> Placeholder | None:
    """The text placeholder of a template at the 0-based *line* and *column*, or None."""
    found = bundle.narrative.placeholders.found
    if not found:
        return None
    for placeholder in found:
        if placeholder.line - 1 == line and placeholder.column - 1 <= column < placeholder.end - 1:
            return placeholder if placeholder.context == "text" else None
    return None


def hover(analysis: Analysis, columns: Columns, line: int, column: int) -> types.Hover | None:
    """The hover at the 0-based code point *column* of *line*, or None off any mention."""
    bundle = analysis.bundle
    if bundle is None:
        return None
    placeholder = _placeholder_at(bundle, line, column)
    if placeholder is not None:
        declarations = declared_inputs(bundle)
        if declarations.declared:
            return types.Hover(
                contents=types.MarkupContent(
                    kind=types.MarkupKind.Markdown,
                    value=placeholder_text(placeholder, declarations.specs.get(placeholder.name)),
                ),
                range=columns.span(line, placeholder.column - 1, placeholder.end - 1),
            )
    found = mention_at(bundle.narrative, line, column)
    if found is None:
        return None
    text = hover_text(describe(bundle, found.name))
    # What validation says every send refuses of it (an asset that resolves all the same).
    refusals = [
        issue.cli_message or issue.message
        for issue in analysis.issues
        if issue.kind == _UNSENDABLE and issue.name == found.name
    ]
    if refusals:
        text += f"\n\n**Not sendable:** {refusals[0]}"
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
        range=columns.span(found.line, found.start, found.end),
    )
