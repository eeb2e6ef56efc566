"""The file a transcript was read from: :class:`SourceNarrative`.

Kept by :func:`lmml_mdit.transcript.read_bundle`: the narrative's lines, each
message's lines and the bundle's other parts, so writing the same kind again gives an
unedited message back byte for byte and an edited or new one in the file's own
:class:`Style`. See docs/transcript.md, "A hand-written file stays as it was".
"""

from __future__ import annotations

import bisect
import copy
import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..errors import MissingEntryError, UnresolvableReferenceError
from ..formats import MANIFEST_NAME
from ..jsontypes import JSONObject
from ..model import Turn
from ..narrative import Narrative
from ._encoding import label_dash
from ._message import Message
from ._regions import reserved_blocks

if TYPE_CHECKING:
    from ..bundle import Bundle

__all__ = [
    "FRESH_STYLE",
    "NUMBERED_HEADING",
    "Origin",
    "SourceNarrative",
    "Style",
    "raw_lines",
    "source_of",
    "style_of",
]

NUMBERED_HEADING = re.compile(r"turn\s+(\d+)\s*(--|\u2013|\u2014)\s*[^\W\d_]+", re.IGNORECASE)
"""A ``Turn N -- role`` heading: its number (group 1) and its dash (group 2)."""


@dataclass(frozen=True)
class Style:
    """How a narrative writes its delimiters, so that a turn written into it looks like
    its neighbours. The defaults are the form a new transcript is written in."""

    newline: str = "\n"
    marker: str = "##"  # "#" to "######" for an ATX heading; "=" or "-" for a setext one
    comment: bool = False  # role turns open with <!-- role -->
    bare: bool = False  # role turns are headed by the role alone ("# Assistant")
    case: Literal["lower", "title", "upper"] = "lower"  # how a bare role is spelled
    dash: str = "--"  # between "Turn N" and the role
    label_dash: str = "--"  # between an author's name and the role ("alice -- user")
    gap: bool = True  # a blank line after each delimiter
    sep: bool = True  # a blank line before each delimiter


FRESH_STYLE = Style()
"""The style of a transcript written afresh."""


@dataclass(frozen=True)
class Origin:
    """An unedited message's place in the file it was read from."""

    author: str
    content: str
    metadata: JSONObject
    role: str  # "context" for the preamble
    heading: str | None
    delimiter: str | None  # the delimiter's own lines, None for the preamble
    raw: str  # the turn's lines as written: delimiter, text, what follows up to the next turn
    text: str  # the turn text as read (closing attachment fences cut off)
    fences: frozenset[str]  # names of the inline fences in ``raw``
    attachments: tuple[str, ...]  # the closing fences the record lists
    entry: JSONObject | None  # the record entry it was read with

    def matches(self, message: Message) -> bool:
        """Whether *message* is still as it was read."""
        return (
            message.author == self.author
            and message.content == self.content
            and message.metadata == self.metadata
        )


@dataclass
class SourceNarrative:
    """What :meth:`Transcript.to_bundle` needs to write a transcript read from a bundle back
    as it was: the narrative's lines, each message's place in them, and the other parts.

    Unedited messages (author, content and metadata as read) are written as their original
    lines; edited and new ones are rendered in the file's own delimiter style.
    """

    kind: Literal["zip", "text"]
    name: str
    base_dir: str | None
    head: str  # the lines before the first message (front matter, leading fences)
    head_manifest: tuple[int, int] | None  # where the manifest fence sits in ``head``
    head_fences: frozenset[str]
    # The preamble's reserved blocks (the bundle's manifest and settings after its text):
    # their line spans in the preamble's ``raw``, which of them is the manifest fence
    # the bundle's manifest is read from, and the names of the fences among them.
    preamble: Origin | None
    foot: tuple[tuple[int, int], ...]
    foot_manifest: int | None
    foot_fences: frozenset[str]
    origins: dict[int, Origin]  # by id() of the message read
    messages: tuple[Message, ...]  # keeps those ids alive
    entries: tuple[str, ...]  # a zip's entry names, in archive order
    assets: dict[str, bytes]
    folder: frozenset[str]  # assets a text bundle resolved from its folder
    manifest: JSONObject | None
    manifest_bytes: bytes | None
    recorded: bool  # the messages were read with a transcript record
    style: Style
    bom: bool = False  # the narrative opened with a byte order mark

    def origin(self, message: Message) -> Origin | None:
        """The origin of *message* when it is one of those read and unedited."""
        origin = self.origins.get(id(message))
        if origin is None or not origin.matches(message):
            return None
        return origin

    def renamed(self, old: Sequence[Message], new: Sequence[Message]) -> SourceNarrative:
        """This source for copies *new* of the messages *old* (same positions)."""
        origins = {
            id(copied): self.origins[id(message)]
            for message, copied in zip(old, new, strict=True)
            if id(message) in self.origins
        }
        return dataclasses.replace(self, origins=origins, messages=tuple(new))


def raw_lines(text: str) -> list[str]:
    """*text* cut into lines as markdown-it counts them (at ``\\r\\n``, ``\\r`` or ``\\n``),
    each with its own line ending."""
    lines: list[str] = []
    if "\r" not in text:
        pieces = text.split("\n")
        lines = [piece + "\n" for piece in pieces[:-1]]
        if pieces[-1]:
            lines.append(pieces[-1])
        return lines
    start = 0
    length = len(text)
    while start < length:
        cr, lf = text.find("\r", start), text.find("\n", start)
        ends = [position for position in (cr, lf) if position >= 0]
        if not ends:
            lines.append(text[start:])
            break
        end = min(ends)
        stop = end + 2 if text.startswith("\r\n", end) else end + 1
        lines.append(text[start:stop])
        start = stop
    return lines


def _newline(lines: Sequence[str]) -> str:
    for line in lines:
        if line.endswith("\r\n"):
            return "\r\n"
        if line.endswith(("\n", "\r")):
            return line[-1]
    return "\n"


def _case(text: str) -> Literal["lower", "title", "upper"]:
    if text.isupper():
        return "upper"
    return "title" if text[:1].isupper() else "lower"


def style_of(narrative: Narrative, raw: Sequence[str]) -> Style:
    """The delimiter style of *narrative*: its last delimiter's form and spacing."""
    lines = narrative.lines
    delimited = [turn for turn in narrative.turns if turn.delimiter_line is not None]
    style = dataclasses.replace(FRESH_STYLE, newline=_newline(raw))
    if not delimited:
        return style
    last = delimited[-1]
    changes: JSONObject = {"comment": last.heading is None}
    headed = [turn for turn in delimited if turn.heading is not None]
    if headed:
        turn = headed[-1]
        assert turn.delimiter_line is not None
        line = lines[turn.delimiter_line - 1].lstrip()
        if line.startswith("#"):
            changes["marker"] = line[: len(line) - len(line.lstrip("#"))]
        else:  # setext: the underline is the line before the turn's text
            changes["marker"] = lines[turn.start_line - 2].strip()[:1] or "="
    for turn in reversed(headed):
        dash = label_dash(turn.heading or "")
        if dash is not None:
            changes["label_dash"] = dash
            break
    for turn in reversed(headed):
        heading = (turn.heading or "").strip()
        numbered = NUMBERED_HEADING.fullmatch(heading)
        if numbered is not None:
            changes.update(bare=False, dash=numbered.group(2))
            break
        if heading.lower() == turn.role:
            changes.update(bare=True, case=_case(heading))
            break
    if "dash" not in changes and "label_dash" in changes:
        changes["dash"] = changes["label_dash"]  # no "Turn N" yet: the authors' dash
    assert last.delimiter_line is not None
    after = last.start_line - 1
    if after < len(lines):
        changes["gap"] = not lines[after].strip()
    for turn in reversed(delimited):
        assert turn.delimiter_line is not None
        if turn.delimiter_line >= 2:
            changes["sep"] = not lines[turn.delimiter_line - 2].strip()
            break
    return dataclasses.replace(style, **changes)


def _fence_span(narrative: Narrative, name: str, start: int, end: int) -> tuple[int, int] | None:
    """The 0-based line span of the first top-level inline fence *name* in lines
    ``[start, end)``."""
    for fence in narrative.index.fences_in(start, end):
        if fence.level == 0 and fence.name == name:
            return fence.start, fence.end
    return None


def _tail(narrative: Narrative, start: int, end: int) -> tuple[int, frozenset[str]] | None:
    """Where the record's fence closing the file starts in lines ``[start, end)`` of the
    last turn, and the names of the fences from there on; None without it."""
    span = _fence_span(narrative, MANIFEST_NAME, start, end)
    if span is None:
        return None
    names = {fence.name for fence in narrative.index.fences_in(span[0], end) if fence.level == 0}
    return span[0], frozenset(names)


def source_of(
    bundle: Bundle,
    turns: Sequence[Turn],
    skip: int,
    messages: Sequence[Message],
    read: Sequence[tuple[str | None, str, JSONObject | None, tuple[str, ...]]],
    assets: dict[str, bytes],
    folder: frozenset[str],
) -> SourceNarrative | None:
    """The :class:`SourceNarrative` of *messages*, read from *bundle*'s *turns*.

    :param skip: the preamble lines its leading attachment fences take.
    :param read: for each message, its heading, its turn text, its record entry and the
        closing fences that entry lists.
    :param assets: the assets read; *folder*: those a text bundle read from its folder.
    :returns: None when the narrative's text and lines disagree (it is written afresh then).
    """
    narrative = bundle.narrative
    raw = raw_lines(narrative.text)
    if len(raw) != len(narrative.lines):
        return None  # the text and its lines disagree: write afresh
    starts = [
        max(turn.start_line - 1, skip) if turn.delimiter_line is None else turn.delimiter_line - 1
        for turn in turns
    ]
    ends = [*starts[1:], len(raw)] if starts else []
    tail: frozenset[str] = frozenset()
    if turns and MANIFEST_NAME in read[-1][3]:
        # The record closes the file: the last turn's lines stop before it.
        found = _tail(narrative, starts[-1], ends[-1])
        if found is not None:
            ends[-1], tail = found
    origins: dict[int, Origin] = {}
    embed_lines = [embed.line for embed in narrative.embeds]
    for message, turn, start, end, (heading, text, entry, closing) in zip(
        messages, turns, starts, ends, read, strict=True
    ):
        delimiter = None
        if turn.delimiter_line is not None:
            delimiter = "\n".join(narrative.lines[turn.delimiter_line - 1 : turn.start_line - 1])
        first = bisect.bisect_left(embed_lines, start + 1)
        last = bisect.bisect_right(embed_lines, end)
        fences = frozenset(e.name for e in narrative.embeds[first:last] if e.is_inline)
        origins[id(message)] = Origin(
            author=message.author,
            content=message.content,
            metadata=copy.deepcopy(message.metadata),
            role=turn.role,
            heading=heading,
            delimiter=delimiter,
            raw="".join(raw[start:end]),
            text=text,
            fences=fences,
            attachments=tuple(name for name in closing if name not in tail),
            entry=copy.deepcopy(entry),
        )
    head_end = starts[0] if starts else len(raw)
    head_manifest = _fence_span(narrative, MANIFEST_NAME, 0, head_end)
    preamble: Origin | None = None
    foot: list[tuple[int, int]] = []
    foot_manifest: int | None = None
    foot_fences: set[str] = set()
    if turns and turns[0].role == "context":
        preamble = origins[id(messages[0])]
        manifest_span = _fence_span(narrative, MANIFEST_NAME, starts[0], ends[0])
        for start, end in reserved_blocks(narrative, turns[0], skip):
            if head_manifest is None and manifest_span is not None and manifest_span[0] == start:
                foot_manifest = len(foot)
            foot.append((start - starts[0], end - starts[0]))
            foot_fences.update(fence.name for fence in narrative.index.fences_in(start, end))
    head_fences = frozenset(
        embed.name
        for embed in narrative.embeds[: bisect.bisect_right(embed_lines, head_end)]
        if embed.is_inline
    )
    manifest_bytes = None
    if MANIFEST_NAME in bundle.entries or MANIFEST_NAME in narrative.first_embeds:
        # The bytes bundle.manifest decodes: an inline fence wins over the entry.
        try:
            manifest_bytes = bundle.embed(MANIFEST_NAME)
        except (MissingEntryError, UnresolvableReferenceError):
            manifest_bytes = None  # referenced, never supplied: no record to keep
    return SourceNarrative(
        kind=bundle.kind,
        name=bundle.name,
        base_dir=bundle.base_dir,
        head="".join(raw[:head_end]),
        head_manifest=head_manifest,
        head_fences=head_fences,
        preamble=preamble,
        foot=tuple(foot),
        foot_manifest=foot_manifest,
        foot_fences=frozenset(foot_fences),
        origins=origins,
        messages=tuple(messages),
        entries=bundle.entries,
        assets=dict(assets),
        folder=folder,
        manifest=copy.deepcopy(bundle.manifest),
        manifest_bytes=manifest_bytes,
        recorded=any(item[2] is not None for item in read),
        style=style_of(narrative, raw),
        bom=narrative.bom,
    )
