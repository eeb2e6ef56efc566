"""Read a bundle's turns back as text, tool calls and asset names.

The inverse of the writer's layout, used by exporters chat._outgoing does not cover
(ShareGPT): a turn's text is its lines without the tool-call fences it holds, without the
reserved fences (``manifest.json``, settings: an inlined bundle carries them in its last
turn, and they are never sent) and, for a ``tool`` turn, without the leading reference to
the call it answers. LMML escapes (``\\@alice``, ``\\## user``) lose their backslash,
as in the text sent to a provider.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..bundle.reserved_embeds import RESERVED_NAMES
from ..conversation import NativeItem, ToolCall
from ..narrative import (
    is_native_name,
    is_structure_name,
    is_tool_call_name,
    parse_native,
    parse_tool_call,
    tool_result_reference,
)
from ..text import blank_edges
from ._content import without_escapes

if TYPE_CHECKING:
    from ..bundle import BundleSource
    from ..model import Role

__all__ = ["ReadTurn", "read_turns"]


@dataclass
class ReadTurn:
    """One turn of a bundle, split into what a text-only format needs.

    :ivar role: the turn's role (``context`` for a preamble).
    :ivar text: the text without tool-call fences, the result's call reference and a
        content fence's own lines (as a send leaves them out).
    :ivar calls: the calls an assistant turn makes, in order.
    :ivar answers: for a ``tool`` turn, the fence name of the call it answers.
    :ivar assets: the names of the other embeds the turn binds (images, files).
    :ivar natives: the provider-specific items the turn holds (their fences are not text).
    :ivar line: the 1-based line of the turn's delimiter (its first line without one).
    """

    role: Role
    text: str
    calls: list[ToolCall] = field(default_factory=list)
    answers: str | None = None
    assets: list[str] = field(default_factory=list)
    natives: list[NativeItem] = field(default_factory=list)
    line: int = 0


def _not_sent_as_text(name: str) -> bool:
    """Whether an embed named *name* is structure, not content: a tool call, a
    provider-specific item or a reserved entry."""
    return is_structure_name(name) or name in RESERVED_NAMES


def read_turns(bundle: BundleSource) -> list[ReadTurn]:
    """The turns of *bundle*.

    :raises InvalidToolCallError: for a malformed tool-call fence.
    :raises UnsupportedContentError: for a provider-specific fence that is not a JSON object.
    """
    narrative = bundle.narrative
    lines = narrative.lines
    fence_lines: set[int] = set()
    for fence in narrative.index.fences:
        if _not_sent_as_text(fence.name):
            fence_lines.update(range(fence.start, fence.end))
    for content in narrative.index.content_fences:
        # A content fence's own lines leave the text, as a send leaves them out.
        fence_lines.update(content.wrappers(lines))
    escapes = narrative.escape_columns
    result: list[ReadTurn] = []
    for turn in narrative.turns:
        skip = set(fence_lines)
        answers = None
        reference = tool_result_reference(turn, narrative)
        if reference is not None:
            answers = reference[0]
            skip.add(reference[1] - 1)
        kept = [
            without_escapes(lines[i], escapes[i]) if i in escapes else lines[i]
            for i in range(turn.start_line - 1, turn.end_line)
            if i not in skip
        ]
        first, last = blank_edges(kept)
        calls = [
            parse_tool_call(embed)
            for embed in turn.embeds
            if turn.role == "assistant" and embed.is_inline and is_tool_call_name(embed.name)
        ]
        assets = [
            embed.name
            for embed in turn.embeds
            if not _not_sent_as_text(embed.name) and embed.name != answers
        ]
        natives = [
            parse_native(embed, None if embed.is_inline else bundle.embed(embed.name))
            for embed in turn.embeds
            if is_native_name(embed.name)
        ]
        text = "\n".join(kept[first:last])
        line = turn.delimiter_line or turn.start_line
        result.append(ReadTurn(turn.role, text, calls, answers, assets, natives, line))
    return result
