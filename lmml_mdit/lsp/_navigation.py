"""Go to definition and find references.

A reference's definition is the first inline fence of its name, else the file it resolves to
on disk; a fence name's is the fence itself. The references of a name are every mention of it:
each ``@name`` and (with the declaration) each ``@@@name`` fence.
"""

from __future__ import annotations

import os

from lsprotocol import types
from pygls.uris import from_fs_path

from ..bundle import path_under
from ._document import Analysis
from ._positions import Columns
from ._targets import Mention, mention_at, mentions

__all__ = ["definition", "file_uri", "references"]


def file_uri(path: str) -> str:
    """The ``file:`` URI of the local *path*."""
    uri: str | None = from_fs_path(path)
    assert uri is not None, "a local path always has a file: URI"
    return uri


def _location(analysis: Analysis, columns: Columns, mention: Mention) -> types.Location:
    return types.Location(
        uri=analysis.uri, range=columns.span(mention.line, mention.name_start, mention.end)
    )


def definition(
    analysis: Analysis, columns: Columns, line: int, column: int
) -> list[types.Location]:
    """Where the name at the 0-based code point *column* of *line* is defined (empty when
    it is no name, or resolves to nothing)."""
    bundle = analysis.bundle
    found = mention_at(bundle.narrative, line, column) if bundle is not None else None
    if bundle is None or found is None:
        return []
    fences = [m for m in mentions(bundle.narrative, found.name) if m.kind == "fence"]
    if fences:
        return [_location(analysis, columns, fences[0])]
    if bundle.base_dir is None or not bundle.has_asset(found.name):
        return []
    path = path_under(os.path.realpath(bundle.base_dir), found.name)
    if path is None:
        return []
    start = types.Position(line=0, character=0)
    return [types.Location(uri=file_uri(path), range=types.Range(start=start, end=start))]


def references(
    analysis: Analysis, columns: Columns, line: int, column: int, *, declaration: bool
) -> list[types.Location]:
    """Every mention of the name at the 0-based code point *column* of *line*, in document
    order; fences only when *declaration*."""
    bundle = analysis.bundle
    found = mention_at(bundle.narrative, line, column) if bundle is not None else None
    if bundle is None or found is None:
        return []
    every = [
        m for m in mentions(bundle.narrative, found.name) if declaration or m.kind == "reference"
    ]
    every.sort(key=lambda m: (m.line, m.start))
    return [_location(analysis, columns, m) for m in every]
