"""Quick fixes for the issues validation reports.

``unclosed_embed``: close the fence; ``missing_reference``: the closest asset's name
(:meth:`Bundle.closest_asset <lmml_mdit.bundle.Bundle.closest_asset>`), a new file
beside the narrative, or an escape; ``suspicious_delimiter``: the role meant, a spaced
``--`` separator, or the heading a speaker label stands for. See docs/editors.md.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from lsprotocol import types

from ..bundle import Bundle, unsafe_reason
from ..model import MESSAGE_ROLES, Issue
from ..narrative import Narrative
from ..syntax import (
    COMMENT_OPEN,
    ESCAPE,
    MARKER,
    SUSPICIOUS_DELIMITER,
    corrected_heading,
    label_role,
    strict_heading_role,
    suggested_role,
)
from ._diagnostics import issue_diagnostic
from ._document import Analysis
from ._navigation import file_uri
from ._positions import Columns
from ._targets import mentions

__all__ = ["code_actions"]

_QUICK_FIX = types.CodeActionKind.QuickFix


def code_actions(
    analysis: Analysis,
    columns: Columns,
    first_line: int,
    last_line: int,
    *,
    create_files: bool = True,
) -> list[types.CodeAction]:
    """The quick fixes for the issues shown on the 0-based lines ``first_line`` to
    ``last_line``. ``create_files=False`` (a client that cannot apply a ``CreateFile``
    operation) leaves out the fix that creates a missing file."""
    bundle = analysis.bundle
    if bundle is None:
        return []
    shown: list[tuple[Issue, types.Diagnostic]] = []
    missing: dict[str, list[types.Diagnostic]] = {}
    for issue in analysis.issues:
        diagnostic = issue_diagnostic(issue, analysis, columns)
        span = diagnostic.range
        if span.end.line < first_line or span.start.line > last_line:
            continue
        if issue.kind == "missing_reference" and issue.line is not None:
            # One set of fixes per name, each changing every mention: not one per mention.
            if issue.name not in missing:
                shown.append((issue, diagnostic))
            missing.setdefault(issue.name, []).append(diagnostic)
        else:
            shown.append((issue, diagnostic))
    found: list[types.CodeAction] = []
    for issue, diagnostic in shown:
        about = missing[issue.name] if issue.kind == "missing_reference" else [diagnostic]
        for action in _fixes(issue, bundle, analysis, columns, create_files):
            action.diagnostics = about
            found.append(action)
    return found


def _line_end(analysis: Analysis) -> str:
    """The line end the document is written with: a fix adds lines ending the same way."""
    return "\r\n" if "\r\n" in analysis.text else "\n"


def _action(
    title: str, analysis: Analysis, edits: list[types.TextEdit], *, preferred: bool = False
) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=_QUICK_FIX,
        is_preferred=preferred or None,
        edit=types.WorkspaceEdit(changes={analysis.uri: edits}),
    )


def _fixes(
    issue: Issue, bundle: Bundle, analysis: Analysis, columns: Columns, create_files: bool
) -> Iterator[types.CodeAction]:
    if issue.line is None:
        return
    if issue.kind == "unclosed_embed":
        yield from _close_fence(issue, bundle.narrative, analysis, columns)
    elif issue.kind == "missing_reference":
        yield from _missing(issue, bundle, analysis, columns, create_files)
    elif issue.kind == SUSPICIOUS_DELIMITER:
        yield from _role_word(issue, bundle.narrative, analysis, columns)


def _close_fence(
    issue: Issue, narrative: Narrative, analysis: Analysis, columns: Columns
) -> Iterator[types.CodeAction]:
    assert issue.line is not None
    for fence in narrative.index.fences_in(issue.line - 1, issue.line):
        if fence.name != issue.name or fence.closed:
            continue
        opening = columns.line(fence.start)[: fence.column - 1]
        # The container's prefix: a quote's ">" stays, a list marker becomes its indentation.
        prefix = "".join(char if char in "> \t" else " " for char in opening)
        lines = len(columns.lines)
        eol = _line_end(analysis)
        if fence.end < lines:
            at = columns.position(fence.end, 0)
            new_text = f"{prefix}{MARKER}{eol}"
        else:
            at = columns.end_of(lines - 1)
            ends_with_newline = analysis.text.endswith(("\n", "\r"))
            new_text = f"{prefix}{MARKER}{eol}" if ends_with_newline else f"{eol}{prefix}{MARKER}"
            if ends_with_newline:
                at = types.Position(line=lines, character=0)
        edit = types.TextEdit(range=types.Range(start=at, end=at), new_text=new_text)
        yield _action(f"Close the fence @@@{fence.name}", analysis, [edit], preferred=True)
        return


def _missing(
    issue: Issue, bundle: Bundle, analysis: Analysis, columns: Columns, create_files: bool
) -> Iterator[types.CodeAction]:
    name = issue.name
    every = [m for m in mentions(bundle.narrative, name) if m.kind == "reference"]
    close = bundle.closest_asset(name)
    if close is not None:
        edits = [
            types.TextEdit(range=columns.span(m.line, m.name_start, m.end), new_text=close)
            for m in every
        ]
        yield _action(
            f"Did you mean {close}? Change @{name} to @{close}", analysis, edits, preferred=True
        )
    if create_files and bundle.base_dir is not None and unsafe_reason(name) is None:
        path = os.path.join(bundle.base_dir, *name.split("/"))
        yield types.CodeAction(
            title=f"Create the file {name} beside the narrative",
            kind=_QUICK_FIX,
            edit=types.WorkspaceEdit(
                document_changes=[
                    types.CreateFile(
                        uri=file_uri(path),
                        options=types.CreateFileOptions(ignore_if_exists=True),
                    )
                ]
            ),
        )
    escapes = [
        types.TextEdit(range=columns.span(m.line, m.start, m.start), new_text=ESCAPE) for m in every
    ]
    yield _action(f"Escape @{name}: it is not an asset", analysis, escapes)


def _role_word(
    issue: Issue, narrative: Narrative, analysis: Analysis, columns: Columns
) -> Iterator[types.CodeAction]:
    assert issue.line is not None
    line = issue.line - 1
    word = issue.name
    block = narrative.index.block_at(line)
    label = block is not None and block.kind == "paragraph"
    if label and not columns.line(line).lstrip().startswith(COMMENT_OPEN):
        yield from _label_heading(issue, line, analysis, columns)
        return
    heading = None
    if block is not None and block.kind == "heading":
        heading = narrative.tokens[block.token + 1].content.strip()
    if word.lower() in MESSAGE_ROLES or (heading is not None and heading[:1] in ("*", "_")):
        # The role is right and the separator (or emphasis) is not: rewrite the heading's
        # text.
        if heading is None:
            return
        corrected = corrected_heading(heading)
        at = columns.line(line).find(heading)
        if corrected is None or at < 0:
            return
        edit = types.TextEdit(range=columns.span(line, at, at + len(heading)), new_text=corrected)
        yield _action(f"Write the heading as '{corrected}'", analysis, [edit], preferred=True)
        return
    column = (issue.column or 1) - 1
    if not columns.line(line).startswith(word, column):
        return
    span = columns.span(line, column, column + len(word))
    # A role with a stray mark after it ("Turn 2 -- assistant:") means that role.
    meant = suggested_role(word) or label_role(word) or label_role(word.rstrip(":."))
    for role in (meant,) if meant is not None else MESSAGE_ROLES:
        assert role is not None
        yield _action(
            f"Change '{word}' to the role '{role}'",
            analysis,
            [types.TextEdit(range=span, new_text=role)],
            preferred=meant is not None,
        )


def _label_heading(
    issue: Issue, line: int, analysis: Analysis, columns: Columns
) -> Iterator[types.CodeAction]:
    """A speaker label leading a paragraph (``**User:** hi``, ``You said:``) rewritten as the
    heading it stands for, the text after it kept as the turn's first paragraph."""
    # A speaker's role, or a whole Turn N delimiter written as a line of text.
    role = label_role(issue.name)
    heading = role if role is not None or strict_heading_role(issue.name) is None else issue.name
    text = columns.line(line)
    column = (issue.column or 1) - 1
    if heading is None or not text.startswith(issue.name, column):
        return
    end = column + len(issue.name)
    marker = text[:column].strip()
    if marker and text.startswith(marker, end):
        end += len(marker)  # "**User**:"
    if text.startswith((":", "\uff1a"), end):  # a full-width colon reads as ":"
        end += 1
    if marker and text.startswith(marker, end):
        end += len(marker)  # "**User:**"
    rest = text[end:].strip()
    eol = _line_end(analysis)
    new_text = f"## {heading}" + (f"{eol}{eol}{rest}" if rest else "")
    edit = types.TextEdit(range=columns.span(line, 0, len(text)), new_text=new_text)
    yield _action(
        f"Write the label as the heading '## {heading}'", analysis, [edit], preferred=True
    )
