"""Plain Markdown export: a narrative with every embed replaced by something readable.

:func:`to_markdown` turns each reference into a placeholder (``[Image: chart.png]``), an
inline text asset into its name and a code block, and every other fence into a
placeholder, at the positions the structure index holds, never by searching the text.
See docs/cli.md, "lmml to-md".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..bundle.reserved_embeds import RESERVED_NAMES
from ..media import IMAGE_EXTENSIONS, extension
from ..model import Embed
from ..narrative import Fence, Narrative, is_structure_name
from ..syntax import FRONT_MATTER_TOKEN, code_fence, reference

if TYPE_CHECKING:
    from ..bundle import BundleSource

__all__ = ["display_markdown", "placeholder", "to_markdown"]


def placeholder(name: str) -> str:
    """The placeholder text for the embed *name*: ``[Image: name]`` for an image extension,
    else ``[Attachment: name]``."""
    label = "Image" if extension(name) in IMAGE_EXTENSIONS else "Attachment"
    return f"[{label}: {name}]"


def display_markdown(source: BundleSource | Narrative) -> str:
    """The Markdown a notebook shows for a conversation (``_repr_markdown_``):
    :func:`to_markdown`, except that each ``<!-- role -->`` delimiter, which a Markdown
    view would hide as an HTML comment, is shown as its role in bold (``**assistant**``),
    as the preview shows every turn's role.

    :param source: a bundle or a parsed narrative.
    """
    return _export(source, show_comment_roles=True)


def to_markdown(source: BundleSource | Narrative) -> str:
    """Export a bundle's narrative as plain Markdown.

    Each inline fence of a text asset (its opening line through its closing ``@@@``)
    becomes its name (``notes.txt:``) and its text in a code block, at the fence's
    indentation and container prefix; any other fence (a tool call, a provider-specific
    item, ``manifest.json``, the settings, an image) one placeholder line; each external
    reference ``@name`` a placeholder in place. An LMML escape's backslash
    (:attr:`~lmml_mdit.narrative.Narrative.escapes`: ``\\@alice``, ``\\## user``) is left
    out, so the reader sees ``@alice`` and the plain heading; Markdown's own escapes
    (``\\*``) stay. Everything else, role headings and ``<!-- role -->`` comments
    included, is kept verbatim. Line endings are ``\\n``.

    :param source: a bundle (:class:`~lmml_mdit.bundle.BundleSource`) or a parsed
        :class:`~lmml_mdit.narrative.Narrative`.
    :returns: the Markdown text; it ends with a newline exactly when the narrative does.
    """
    return _export(source, show_comment_roles=False)


def _export(source: BundleSource | Narrative, *, show_comment_roles: bool) -> str:
    narrative = source if isinstance(source, Narrative) else source.narrative
    lines = narrative.lines
    # line index -> list of (start column, end column, replacement), 0-based, end exclusive
    spans: dict[int, list[tuple[int, int, str]]] = {}
    dropped: set[int] = set()
    structure = narrative.index
    for fence in structure.fences:
        _fence_edit(fence, lines, spans, dropped)
    for embed in structure.references:
        _reference_edit(embed, lines, spans)
    for index, columns in narrative.escape_columns.items():
        spans.setdefault(index, []).extend(
            (column, column + 1, "")
            for column in columns
            if lines[index][column : column + 1] == "\\"
        )

    if show_comment_roles:
        first = narrative.parsed_tokens[0] if narrative.parsed_tokens else None
        if first is not None and first.type == FRONT_MATTER_TOKEN and first.map:
            dropped.update(range(first.map[0], first.map[1]))
            # and the blank lines after it, so the display starts with the first block
            following = first.map[1]
            while following < len(lines) and not lines[following].strip():
                dropped.add(following)
                following += 1
        for turn in narrative.turns:
            if turn.delimiter_line is not None and turn.heading is None:
                index = turn.delimiter_line - 1
                # Blank lines around it where there are none: a comment may touch the
                # paragraphs beside it.
                before = "\n" if index > 0 and lines[index - 1].strip() else ""
                after = "\n" if index + 1 < len(lines) and lines[index + 1].strip() else ""
                spans[index] = [(0, len(lines[index]), f"{before}**{turn.role}**{after}")]
    out: list[str] = []
    for index, line in enumerate(lines):
        if index in dropped:
            continue
        edits = spans.get(index)
        out.append(_edited(line, edits) if edits else line)
    result = "\n".join(out)
    if narrative.source.endswith("\n") and out:
        result += "\n"
    return result


def _edited(line: str, edits: list[tuple[int, int, str]]) -> str:
    """*line* with each ``(start, end, text)`` edit applied (the spans never overlap).

    The pieces are joined once, so a line holding many references (a long table row) costs
    time linear in its length, not one copy of the line per reference.
    """
    pieces: list[str] = []
    position = 0
    for start, end, text in sorted(edits):
        pieces.append(line[position:start])
        pieces.append(text)
        position = end
    pieces.append(line[position:])
    return "".join(pieces)


def _fence_edit(
    fence: Fence,
    lines: Sequence[str],
    spans: dict[int, list[tuple[int, int, str]]],
    dropped: set[int],
) -> None:
    first, stop = fence.start, fence.end
    column = fence.column - 1
    # The opening line keeps whatever precedes the @@@ (indentation, "> ", "- "); the
    # fence's remaining lines, closing marker included, go away.
    spans.setdefault(first, []).append((column, len(lines[first]), _fence_text(fence, lines)))
    dropped.update(range(first + 1, min(stop, len(lines))))


def _fence_text(fence: Fence, lines: Sequence[str]) -> str:
    """What a fence becomes: a text asset its name and a code block holding its text (each
    following line under the container's prefix), anything else a placeholder."""
    name = fence.name
    if is_structure_name(name) or name in RESERVED_NAMES or extension(name) in IMAGE_EXTENSIONS:
        return placeholder(name)
    text = fence.content[:-1] if fence.content.endswith("\n") else fence.content
    block = f"{name}:\n{code_fence(text, _info(name))}"
    prefix = lines[fence.start][: fence.column - 1]
    following = "".join(char if char in "> \t" else " " for char in prefix)
    return f"\n{following}".join(block.split("\n"))


def _info(name: str) -> str:
    """A code block's info string for *name*: its extension (``py``), if one a backtick
    fence can carry."""
    info = extension(name).lstrip(".")
    return info if info.isalnum() else ""


def _reference_edit(
    embed: Embed, lines: Sequence[str], spans: dict[int, list[tuple[int, int, str]]]
) -> None:
    index, start = embed.line - 1, embed.column - 1
    marker = reference(embed.name)
    if lines[index][start : start + len(marker)] != marker:
        # The parser's positions always point at the marker; if they ever did not, leaving
        # the reference readable beats corrupting the line.
        return
    spans.setdefault(index, []).append((start, start + len(marker), placeholder(embed.name)))
