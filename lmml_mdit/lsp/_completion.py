"""Completion: asset names after ``@``, names still to supply after ``@@@``, and the role
delimiter forms on a heading or comment line.

After ``@`` every name that resolves and that a reference can spell (with its media
type and size: ``@a(1).png`` would read as ``@a``, so no such name is offered); after ``@@@`` the
referenced names nothing supplies yet; on a heading ``Turn N -- role`` and the bare role,
on ``<!--`` a role comment. See docs/editors.md, "The language server".
"""

from __future__ import annotations

import os
import re

from lsprotocol import types

from ..bundle import folder_files, is_reference_name, path_under, unsafe_reason
from ..media import guess_type, media_type_for
from ..model import MESSAGE_ROLES
from ..syntax import COMMENT_CLOSE, COMMENT_OPEN, MARKER, SIGIL, may_start_reference, turn_label
from ._document import Analysis
from ._positions import Columns

__all__ = ["TRIGGER_CHARACTERS", "complete"]

TRIGGER_CHARACTERS = ["@", "/", "#"]
"""The characters after which a client asks for completions unprompted."""

# What precedes the cursor, each read from one line only.
_FENCE_OPENING = re.compile(r"[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)*" + MARKER + r"[ \t]*(\S*)")
_PARTIAL_NAME = re.compile(r"[\w./-]*")
"""What may follow the ``@`` of a reference being typed."""
_HEADING = re.compile(r"( {0,3}#{1,6})(?:[ \t]|$)")
_COMMENT = re.compile(r" {0,3}" + re.escape(COMMENT_OPEN))


def complete(analysis: Analysis, columns: Columns, line: int, column: int) -> types.CompletionList:
    """The completions at the 0-based code point *column* of *line*.

    :param analysis: the document's latest analysis (the names it knows may be a keystroke
        old; the line itself is read from *columns*).
    :param columns: the positions of the document's current text.
    """
    items: list[types.CompletionItem] = []
    text = columns.line(line)
    before = text[:column]
    fence = _FENCE_OPENING.fullmatch(before)
    if fence is not None:
        items = _unsupplied(analysis, columns.span(line, fence.start(1), column))
    elif (start := _reference_being_typed(before)) is not None:
        items = _assets(analysis, before[start:], columns.span(line, start, column))
    elif (heading := _HEADING.match(text)) is not None:
        items = _heading_forms(analysis, line, columns.span(line, heading.end(1), len(text)))
    elif _COMMENT.match(text) is not None:
        items = _comment_forms(columns.span(line, 0, len(text)))
    return types.CompletionList(is_incomplete=False, items=items)


def _item(
    label: str,
    replace: types.Range,
    *,
    kind: types.CompletionItemKind,
    detail: str | None = None,
    insert: str | None = None,
    sort: str | None = None,
) -> types.CompletionItem:
    return types.CompletionItem(
        label=label,
        kind=kind,
        detail=detail,
        sort_text=sort,
        filter_text=insert if insert is not None else label,
        text_edit=types.TextEdit(range=replace, new_text=insert if insert is not None else label),
    )


def _size(size: int) -> str:
    return f"{size:,} byte" + ("" if size == 1 else "s")


def _assets(analysis: Analysis, partial: str, replace: types.Range) -> list[types.CompletionItem]:
    bundle = analysis.bundle
    if bundle is None:
        return []
    items: dict[str, types.CompletionItem] = {}
    for name, fence in bundle.fences.items():
        if not is_reference_name(name):  # "@my notes.txt" would read as "@my"
            continue
        content = fence.content or b""
        detail = f"{media_type_for(name, content)}, {_size(len(content))}, inline fence"
        items[name] = _item(name, replace, kind=types.CompletionItemKind.Value, detail=detail)
    folder = bundle.base_dir
    if folder is not None:
        root = os.path.realpath(folder)
        for name in sorted(folder_files(folder, partial)):
            if (
                name in items
                or name == bundle.narrative_name
                or unsafe_reason(name) is not None
                or not is_reference_name(name)  # "@a(1).png" would read as "@a" and text
            ):
                continue
            path = path_under(root, name)
            if path is None:
                continue
            if os.path.isdir(path):
                items[name + "/"] = types.CompletionItem(
                    label=name + "/",
                    kind=types.CompletionItemKind.Folder,
                    text_edit=types.TextEdit(range=replace, new_text=name + "/"),
                    command=types.Command(title="suggest", command="editor.action.triggerSuggest"),
                )
            elif os.path.isfile(path):
                media_type = guess_type(name) or "unknown type"
                detail = f"{media_type}, {_size(os.stat(path).st_size)}, file"
                items[name] = _item(
                    name, replace, kind=types.CompletionItemKind.File, detail=detail
                )
    return list(items.values())


def _unsupplied(analysis: Analysis, replace: types.Range) -> list[types.CompletionItem]:
    bundle = analysis.bundle
    if bundle is None:
        return []
    items: list[types.CompletionItem] = []
    for name, embed in bundle.narrative.first_embeds.items():
        if embed.is_inline or name in bundle.fences or bundle.has_asset(name):
            continue
        items.append(
            _item(
                name,
                replace,
                kind=types.CompletionItemKind.Reference,
                detail=f"referenced on line {embed.line}, not supplied yet",
            )
        )
    return items


def _heading_forms(
    analysis: Analysis, line: int, replace: types.Range
) -> list[types.CompletionItem]:
    narrative = analysis.narrative
    before = 0
    if narrative is not None:
        before = sum(1 for delimiter in narrative.index.delimiters if delimiter.start < line)
    number = before + 1
    items: list[types.CompletionItem] = []
    for rank, role in enumerate(MESSAGE_ROLES):
        labelled = turn_label(number, role)
        items.append(
            _item(
                labelled,
                replace,
                kind=types.CompletionItemKind.Keyword,
                detail=f"opens turn {number}, {_article(role)} {role} turn",
                insert=" " + labelled,
                sort=f"0{rank}",
            )
        )
        items.append(
            _item(
                role,
                replace,
                kind=types.CompletionItemKind.Keyword,
                detail=f"opens {_article(role)} {role} turn",
                insert=" " + role,
                sort=f"1{rank}",
            )
        )
    return items


def _comment_forms(replace: types.Range) -> list[types.CompletionItem]:
    return [
        _item(
            f"{COMMENT_OPEN} {role} {COMMENT_CLOSE}",
            replace,
            kind=types.CompletionItemKind.Keyword,
            detail=f"opens {_article(role)} {role} turn",
            sort=f"{rank}",
        )
        for rank, role in enumerate(MESSAGE_ROLES)
    ]


def _article(word: str) -> str:
    """The indefinite article before *word* (``an assistant``, ``a user``)."""
    return "an" if word[:1] in "aeio" else "a"


def _reference_being_typed(before: str) -> int | None:
    """The column just after the ``@`` of a reference ending *before* (the line up to the
    cursor), or None: the ``@`` must stand where the reference rule starts one, and not
    be escaped."""
    at = before.rfind(SIGIL)
    if at < 0 or _PARTIAL_NAME.fullmatch(before, at + 1) is None:
        return None
    if at > 0 and before[at - 1] == "\\":
        return None
    return at + 1 if may_start_reference(before, at) else None
