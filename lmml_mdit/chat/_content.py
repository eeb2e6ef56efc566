"""How a turn becomes content: ordered text and embed segments, then neutral messages.

It reads the narrative's one parse through its structure index: a turn is cut after each
top-level block that mentions an embed, escapes, fence lines, reserved embeds and
attachment lines leave the text, each turn becomes a :class:`ChatMessage`, and
``max_embed_bytes`` bounds the embed bytes of a message (:class:`EmbedOmittedWarning`).
See docs/messages.md, "How a turn becomes content" and "Payload budget".
"""

from __future__ import annotations

import weakref
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, TypeAlias, TypedDict, get_args

from ..bundle import TEXT_EMBEDS_SETTING, BundleSource, Limits, is_remote_name
from ..bundle.reserved_embeds import RESERVED_NAMES
from ..conversation import (
    TEXT_EMBEDS_CHOICES,
    Asset,
    Base64Cache,
    ChatConversation,
    ChatMessage,
    Item,
    MessagePart,
    MessageRole,
    OutgoingConversation,
    OutgoingMessage,
    Part,
    TextEmbeds,
    TextFilePart,
    TextPart,
    ToolCall,
    handler_key,
)
from ..errors import (
    BundleError,
    EmbedBudgetError,
    EmbedOmittedWarning,
    InvalidToolCallError,
    LmmlError,
    MissingSettingWarning,
    SettingRangeWarning,
    SystemContentWarning,
    UnknownSettingWarning,
    UnsupportedContentError,
    location,
)
from ..jsontypes import JSONMapping
from ..media import media_type_for
from ..model import Embed, Turn
from ..narrative import (
    TOOL_CALL_SUFFIX,
    is_native_name,
    is_tool_call_name,
    numbered_turns,
    parse_native,
    parse_tool_call,
    tool_result_reference,
    turn_label,
)
from ..syntax import reference
from ..templates import Edit, Fills, InputAsset, InputMessages, Template, template_of
from ..text import blank_edges
from ..warn import warn
from ._handlers import Handler, build_parts

if TYPE_CHECKING:
    from ..narrative import Narrative

__all__ = [
    "ATTACHMENT_LINES_CHOICES",
    "CONTEXT_CHOICES",
    "IMAGE_DETAIL_CHOICES",
    "MIDWAY_SYSTEM_CHOICES",
    "ON_OMIT_CHOICES",
    "RESERVED_NAMES",
    "SYSTEM_CHOICES",
    "TEXT_EMBEDS_CHOICES",
    "TEXT_EMBEDS_SETTING",
    "TOOL_RESULT_IMAGES_CHOICES",
    "UNKNOWN_SETTINGS_CHOICES",
    "AttachmentLines",
    "BundleState",
    "ContextPlacement",
    "EmbedOmittedWarning",
    "EmbedSegment",
    "ImageDetail",
    "Item",
    "MessageRole",
    "MidwaySystem",
    "MissingSettingWarning",
    "OnOmit",
    "Options",
    "OutgoingConversation",
    "OutgoingMessage",
    "RequestOptions",
    "Segment",
    "SettingRangeWarning",
    "SystemContentWarning",
    "SystemPlacement",
    "TextEmbeds",
    "TextSegment",
    "ToolResultImages",
    "UnknownSettingWarning",
    "UnknownSettings",
    "build_conversation",
    "bundle_state",
    "bundle_template",
    "turn_segments",
]

# The values of each option that takes one of a few: the type (for ``RequestOptions`` and
# ``Options``), and its tuple, in the same order (for the run-time check and the command
# line's choices). ``TextEmbeds`` and ``TEXT_EMBEDS_CHOICES`` are the conversation's (a
# text file part's ``mode``), named here with the rest.
ContextPlacement: TypeAlias = Literal["system", "user", "drop"]
"""Where ``context`` turns (the preamble) go: the ``context`` option."""
SystemPlacement: TypeAlias = Literal["separate", "user", "drop", "raise"]
"""Where system content goes: the ``system`` option (None besides these)."""
MidwaySystem: TypeAlias = Literal["user", "hoist", "drop", "raise"]
"""Where a ``system`` turn after the conversation has started goes: the ``midway_system``
option."""
AttachmentLines: TypeAlias = Literal["drop", "keep"]
"""Whether a paragraph made only of references leaves the text: the ``attachment_lines``
option."""
OnOmit: TypeAlias = Literal["warn", "raise"]
"""What an embed over the payload budget does: the ``on_omit`` option."""
ImageDetail: TypeAlias = Literal["auto", "low", "high"]
"""The OpenAI image ``detail``: the ``image_detail`` option (None besides these)."""
ToolResultImages: TypeAlias = Literal["user-message", "error"]
"""What OpenAI Chat Completions does with a tool result's non-text parts: the
``tool_result_images`` option."""
UnknownSettings: TypeAlias = Literal["pass", "warn", "error"]
"""What becomes of a setting the provider has no parameter for: sent as it is, left out with
a warning, or refused."""

CONTEXT_CHOICES: tuple[ContextPlacement, ...] = get_args(ContextPlacement)
SYSTEM_CHOICES: tuple[SystemPlacement, ...] = get_args(SystemPlacement)
MIDWAY_SYSTEM_CHOICES: tuple[MidwaySystem, ...] = get_args(MidwaySystem)
ATTACHMENT_LINES_CHOICES: tuple[AttachmentLines, ...] = get_args(AttachmentLines)
ON_OMIT_CHOICES: tuple[OnOmit, ...] = get_args(OnOmit)
IMAGE_DETAIL_CHOICES: tuple[ImageDetail, ...] = get_args(ImageDetail)
TOOL_RESULT_IMAGES_CHOICES: tuple[ToolResultImages, ...] = get_args(ToolResultImages)
UNKNOWN_SETTINGS_CHOICES: tuple[UnknownSettings, ...] = get_args(UnknownSettings)


# --- segments ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TextSegment:
    """A run of the turn's Markdown between embed parts.

    :ivar text: the lines, verbatim, leading and trailing blank lines removed.
    :ivar line: the 1-based source line of its first line.
    """

    text: str
    line: int


@dataclass(frozen=True)
class EmbedSegment:
    """The place of an embed part: the first occurrence of an embed the turn binds.

    :ivar replaces_text: whether the line of that occurrence left the text for the part (a
        fence's lines, a dropped attachment paragraph), so that an embed left out of the
        message must leave an ``@name`` line in its place.
    """

    embed: Embed
    replaces_text: bool = False


@dataclass(frozen=True)
class InputSegment:
    """The place of an ``image`` or ``file`` input's value, or of a ``messages`` input's
    turns: where its placeholder stood."""

    value: InputAsset | InputMessages


Segment = TextSegment | EmbedSegment | InputSegment


def without_escapes(line: str, columns: Sequence[int]) -> str:
    """*line* without the backslashes at *columns* (0-based, ascending); a column that does
    not hold a backslash is left alone."""
    pieces: list[str] = []
    position = 0
    for column in columns:
        if line[column : column + 1] == "\\":
            pieces.append(line[position:column])
            position = column + 1
    pieces.append(line[position:])
    return "".join(pieces)


def turn_segments(
    narrative: Narrative,
    turn: Turn,
    *,
    reserved: tuple[str, ...] = RESERVED_NAMES,
    skip_lines: frozenset[int] = frozenset(),
    drop_attachment_lines: bool = True,
    fills: Fills | None = None,
    rebound: Mapping[str, Embed] | None = None,
) -> list[Segment]:
    """Cut *turn* into text and embed segments in source order.

    The blocks, fences and attachment paragraphs come from the narrative's structure index
    (:attr:`~lmml_mdit.narrative.Narrative.index`, read once per narrative).

    :param reserved: embed names never sent (their fences still leave the text).
    :param skip_lines: 1-based lines to leave out of the text (a tool turn's call line).
    :param drop_attachment_lines: leave out paragraphs made only of references whose parts
        this turn places right after them (the default, as ``attachment_lines="drop"``).
    :param fills: the edits that put a template's values into its lines, by line
        (:meth:`~lmml_mdit.templates.Template.fills`; only this turn's are looked up,
        so a caller may pass just those, and None for none): a value's text replaces its
        placeholder as it is, and an ``image`` or ``file`` value cuts the text there for
        its part (a line holding only the placeholder leaves the text).
    :param rebound: embeds this turn places though a turn left out of the messages named
        them first (``context="drop"``, ``system="drop"``), by name: their first
        occurrence in this turn, included in ``turn.embeds`` by the caller.
    """
    structure = narrative.index
    lines = narrative.lines
    escapes = narrative.escape_columns
    start, end = turn.start_line - 1, max(turn.end_line, turn.start_line - 1)
    rebound = rebound or {}
    # The turn's lines, its delimiter line included (a reference there binds to it).
    own_first = turn.delimiter_line or turn.start_line

    def first_of(name: str) -> Embed | None:
        return rebound.get(name) or narrative.first_embeds.get(name)

    # Lines that leave the text (None) or are replaced by a reference line (str).
    replaced: dict[int, str | None] = {line - 1: None for line in skip_lines}
    for fence in structure.fences_in(start, end):
        first = first_of(fence.name)
        first_fence = structure.first_fences[fence.name]
        is_first = first is not None and first.is_inline and first.line == fence.start + 1
        # The fence that supplies a reference's content leaves the text when the part
        # stands in this turn; in a later turn its place keeps an @name line.
        supplies_reference = (
            first is not None
            and not first.is_inline
            and first_fence.content == fence.content
            and first_fence.start == fence.start
            and own_first <= first.line <= end
        )
        if is_first or supplies_reference or fence.name in reserved:
            # The fence's content becomes the embed's part (placed at its first mention):
            # its lines leave the text so the content reaches the model once.
            replaced.update(dict.fromkeys(range(fence.start, fence.end)))
        elif first_fence.content == fence.content or (first is not None and not first.is_inline):
            # A repeat of content already sent: keep a readable reference in its place.
            prefix = lines[fence.start][: fence.column - 1]
            replaced.update(dict.fromkeys(range(fence.start + 1, fence.end)))
            replaced[fence.start] = f"{prefix}@{fence.name}"
        # A later fence with different content stays as text: nothing is lost.

    # A content fence's lines (not what it holds) leave the text, and no blank line around
    # them is taken for a gap: its content is sent as it is.
    wrappers: set[int] = set()
    for content in structure.content_fences_in(start, end):
        wrappers.update(content.wrappers(lines))
    replaced.update(dict.fromkeys(wrappers))

    bound = {embed.name for embed in turn.embeds if embed.name not in reserved}
    for paragraph in structure.attachments_in(start, end):
        block_start, block_end, names = paragraph.start, paragraph.end, paragraph.names
        # A paragraph naming only reserved embeds points at nothing the model receives (as
        # their fences leave the text); an attachment line may go when its parts follow it.
        only_reserved = all(name in reserved for name in names)
        attached = drop_attachment_lines and all(
            name in bound and block_start < _line_of(first_of(name)) <= block_end for name in names
        )
        if only_reserved or attached:
            replaced.update(dict.fromkeys(range(block_start, block_end)))

    placements: dict[int, list[Embed]] = {}
    for embed in turn.embeds:
        if embed.name in reserved:
            continue
        line = embed.line - 1
        if line < start:
            key = start  # named on the delimiter line: first in the turn
        else:
            block = structure.block_at(line)
            key = block.end if block is not None else line + 1
        placements.setdefault(min(max(key, start), end), []).append(embed)

    segments: list[Segment] = []
    pending: list[str] = []
    origins: list[int] = []  # the 0-based source line of each pending line
    gap = False  # lines just left out: a blank line after them doubles the one before

    def add(first: int, stop: int) -> None:
        """Add source lines ``[first, stop)`` as written; after lines left out, the blank
        lines that would join the blank line before them are not."""
        nonlocal gap
        if gap:
            while (
                first < stop and not lines[first].strip() and not (pending and pending[-1].strip())
            ):
                first += 1
            if first == stop:
                return
            gap = False
        pending.extend(lines[first:stop])
        origins.extend(range(first, stop))

    def flush() -> None:
        first, last = blank_edges(pending)
        if first < last:
            segments.append(TextSegment("\n".join(pending[first:last]), origins[first] + 1))

    cut_points = sorted(placements)
    if not cut_points or cut_points[-1] != end:
        cut_points.append(end)
    sent: _SentLines | None = None
    if not replaced and not escapes:
        sent = (lines, None, 0) if not fills else _filled_lines(lines, start, end, fills)
    if sent is not None:
        # Every line is sent as written, or as a template's values make it (the common
        # turn): each run between cuts is one slice of the lines, and every cut but the
        # turn's end places embeds.
        source, source_lines, offset = sent
        cursor = start
        for cut in cut_points:
            if cursor < cut:
                if source_lines is None:
                    top, bottom = blank_edges(source, cursor - offset, cut - offset)
                    line = top + offset + 1
                else:
                    top, bottom = blank_edges(
                        source, bisect_left(source_lines, cursor), bisect_left(source_lines, cut)
                    )
                    line = source_lines[top] + 1 if top < bottom else 0
                if top < bottom:
                    segments.append(TextSegment("\n".join(source[top:bottom]), line))
            cursor = max(cursor, cut)
            segments.extend(EmbedSegment(embed, False) for embed in placements.get(cut, ()))
        return segments

    def take(number: int) -> None:
        """Add line *number* to the text: left out, replaced, edited or as written."""
        nonlocal pending, origins, gap
        if number in replaced:
            replacement = replaced[number]
            if replacement is None:
                gap = number not in wrappers
                return
            gap = False
            pending.append(replacement)
            origins.append(number)
            return
        columns = escapes.get(number)
        edits = fills.get(number) if fills else None
        if edits is None and not columns:
            add(number, number + 1)
            return
        gap = False
        if isinstance(edits, str):
            # A finished line (its values in, escapes out); a value's newlines make
            # lines of it, so blank edges are trimmed as the turn's own are.
            made = edits.split("\n") if "\n" in edits else (edits,)
            pending.extend(made)
            origins.extend([number] * len(made))
            return
        if edits:
            for piece in edited_line(lines[number], columns or (), edits):
                if isinstance(piece, str):
                    made = piece.split("\n")
                    pending.extend(made)
                    origins.extend([number] * len(made))
                    continue
                flush()
                pending, origins = [], []
                segments.append(InputSegment(piece))
            return
        pending.append(without_escapes(lines[number], columns) if columns else lines[number])
        origins.append(number)

    # Without escapes, the lines between those left out, replaced or edited are taken as
    # slices; with escapes, line by line.
    marks = None if escapes else sorted({*replaced, *(fills or ())})
    cursor = start
    for cut in cut_points:
        if marks is None:
            for number in range(cursor, cut):
                take(number)
        else:
            number = cursor
            for mark in marks[bisect_left(marks, cursor) : bisect_left(marks, cut)]:
                if number < mark:
                    add(number, mark)
                take(mark)
                number = mark + 1
            if number < cut:
                add(number, cut)
        cursor = max(cursor, cut)
        if cut in placements:
            flush()
            pending, origins = [], []
            segments.extend(
                EmbedSegment(embed, replaced.get(embed.line - 1, "") is None)
                for embed in placements[cut]
            )
    flush()
    return segments


def _line_of(embed: Embed | None) -> int:
    return embed.line if embed is not None else 0


_SentLines: TypeAlias = tuple[Sequence[str], Sequence[int] | None, int]
"""A turn's lines as they are sent: the lines from an offset on, or, when a line became no
line or several, with the 0-based source line of each: ``(lines, origins, offset)``."""


def _filled_lines(lines: Sequence[str], start: int, end: int, fills: Fills) -> _SentLines | None:
    """This turn's lines (``[start, end)``) with a template's edits made: all *lines* as
    they are when none of the turn's is edited; None when one is cut for a part given (the
    walk line by line places it)."""
    # Whichever is fewer is walked: the edits, or the turn's lines (a caller may pass every
    # turn's edits for each turn).
    if len(fills) <= end - start:
        edited = [(number, edits) for number, edits in fills.items() if start <= number < end]
    else:
        edited = [(number, fills[number]) for number in range(start, end) if number in fills]
    if not edited:
        return lines, None, 0
    finished = list(lines[start:end])
    reshaped: dict[int, list[str]] = {}  # the lines that became no line or several
    for number, edits in edited:
        made: list[str] = []
        if isinstance(edits, str):
            if "\n" not in edits:
                finished[number - start] = edits
                continue
            made = edits.split("\n")  # a value's newlines make lines of it
        else:
            for piece in edited_line(lines[number], (), edits):
                if not isinstance(piece, str):
                    return None
                made.extend(piece.split("\n"))
            if len(made) == 1:
                finished[number - start] = made[0]
                continue
        reshaped[number] = made
    if not reshaped:
        return finished, None, start
    source: list[str] = []
    origins: list[int] = []
    for number in range(start, end):
        lines_made = reshaped.get(number)
        if lines_made is None:
            source.append(finished[number - start])
            origins.append(number)
        else:
            source.extend(lines_made)
            origins.extend([number] * len(lines_made))
    return source, origins, start


def edited_line(
    line: str, escape_columns: Sequence[int], edits: Sequence[Edit]
) -> list[str | InputAsset | InputMessages]:
    """*line* with its LMML escapes' backslashes left out and *edits* made (both in column
    order, never overlapping): the text before, between and after each asset value given,
    without a piece of white space only beside one. An optional input given no value leaves
    nothing in its place, and a line left with only white space by it leaves the text (no
    piece at all)."""
    changes: Sequence[Edit] = edits
    if escape_columns:
        changes = sorted(
            [
                (column, column + 1, "")
                for column in escape_columns
                if line[column : column + 1] == "\\"
            ]
            + list(edits),
            key=lambda change: change[0],
        )
    pieces: list[str | InputAsset | InputMessages] = []
    text: list[str] = []
    position = 0
    left_out = False  # an optional input given no value stood on the line
    for start, end, replacement in changes:
        text.append(line[position:start])
        position = end
        if isinstance(replacement, str):
            text.append(replacement)
            continue
        if not replacement.given:
            left_out = True
            continue
        before = "".join(text)
        if before.strip():
            pieces.append(before)
        pieces.append(replacement)
        text = []
    rest = "".join(text) + line[position:]
    if rest.strip() or not (pieces or left_out):
        pieces.append(rest)
    return pieces


# --- per-bundle state --------------------------------------------------------------------


class BundleState:
    """What one bundle keeps between ``messages()`` calls: the resolved assets, the parsed
    calls and the base64 cache (so an asset is encoded once per bundle); the narrative keeps
    its own structure index."""

    def __init__(self, narrative: Narrative) -> None:
        self.base64 = Base64Cache()
        self.assets: dict[str, Asset] = {}
        self.calls: dict[str, ToolCall] = {}
        self.owners: dict[str, str] = {
            embed.name: turn.role for turn in narrative.turns for embed in turn.embeds
        }
        self.template: Template | None = None  # the bundle's inputs, read on first use


_STATES: weakref.WeakKeyDictionary[BundleSource, BundleState] = weakref.WeakKeyDictionary()
"""Each bundle's state, freed with the bundle (a bundle's narrative never changes)."""


def bundle_state(bundle: BundleSource) -> BundleState:
    """The :class:`BundleState` of *bundle*, created on first use and freed with it."""
    try:
        state = _STATES.get(bundle)
    except TypeError:  # not weak-referenceable or not hashable: keep no state, leak none
        return BundleState(bundle.narrative)
    if state is None:
        state = _STATES[bundle] = BundleState(bundle.narrative)
    return state


def bundle_template(bundle: BundleSource, state: BundleState, *, values_given: bool) -> Template:
    """*bundle*'s :class:`~lmml_mdit.templates.Template`, read once and kept in its *state*
    (read again when values are given to a template first read without any)."""
    template = state.template
    if template is None or (values_given and not template.declarations.specs):
        template = state.template = template_of(bundle, values_given=values_given)
    return template


# --- options and neutral messages --------------------------------------------------------

_CHOICES: dict[str, tuple[object, ...]] = {
    "context": CONTEXT_CHOICES,
    "system": (None, *SYSTEM_CHOICES),
    "midway_system": MIDWAY_SYSTEM_CHOICES,
    "attachment_lines": ATTACHMENT_LINES_CHOICES,
    "on_omit": ON_OMIT_CHOICES,
    "image_detail": (None, *IMAGE_DETAIL_CHOICES),
    "text_embeds": (None, *TEXT_EMBEDS_CHOICES),
    "tool_result_images": TOOL_RESULT_IMAGES_CHOICES,
    "unknown_settings": UNKNOWN_SETTINGS_CHOICES,
    "strict": (True, False),
}
"""Each option's values as ``Options.from_kwargs`` checks them (and names them in its error),
None first where the option takes it."""


class RequestOptions(TypedDict, total=False):
    """The options of ``messages()``, ``render_turns()``, ``render_payload()`` and
    ``to_request()`` as keyword arguments (``**options: Unpack[RequestOptions]``), so a type
    checker catches a misspelt name or a wrong value; :class:`Options` describes each and
    checks them at run time. A test keeps the two equal."""

    context: ContextPlacement
    system: SystemPlacement | None
    midway_system: MidwaySystem
    max_embed_bytes: int | None
    on_omit: OnOmit
    handlers: Mapping[str, Handler]
    image_detail: ImageDetail | None
    text_embeds: TextEmbeds | None
    tool_result_images: ToolResultImages
    unknown_settings: UnknownSettings
    settings: Mapping[str, object] | None
    attachment_lines: AttachmentLines
    strict: bool
    inputs: Mapping[str, object] | None


@dataclass(frozen=True)
class Options:
    """The options of ``messages()``, ``render_turns()`` and ``to_request()``.

    :ivar context: where ``context`` turns (the preamble) go: ``"system"`` (default),
        ``"user"`` or ``"drop"``.
    :ivar system: where system content (``system`` turns, and ``context`` turns made
        system) goes: ``"separate"`` keeps it in the place the provider has for it (the
        messages list for OpenAI; the top level for Anthropic and Gemini, which
        ``messages()`` returns on its result's ``system`` attribute); None (default) does
        the same, and ``messages()`` warns (:class:`SystemContentWarning`) when it keeps
        system content out of the list; ``"user"`` sends it
        as user content in the list; ``"drop"`` leaves it out; ``"raise"`` makes
        ``messages()`` raise :class:`UnsupportedContentError` when the list cannot carry
        it.
    :ivar midway_system: with system content kept apart (``system`` None or
        ``"separate"``), where a ``system`` turn after the conversation has started goes
        for a provider that takes system content only up front (Anthropic, Gemini; see
        :mod:`lmml_mdit.chat._midway`): ``"user"`` (default) sends it at its place as user
        text opened by ``[system]``, ``"hoist"`` moves it up front, ``"drop"`` leaves it
        out, each with a :class:`SystemContentWarning` naming the turn; ``"raise"``
        raises :class:`UnsupportedContentError`. OpenAI Chat and Responses keep it in
        place.
    :ivar max_embed_bytes: the embed bytes one message may carry; None for no limit.
    :ivar on_omit: ``"warn"`` (default) reports a left-out embed as an
        :class:`EmbedOmittedWarning`; ``"raise"`` raises :class:`EmbedBudgetError`.
    :ivar handlers: per-call handlers keyed by extension or media type.
    :ivar image_detail: the OpenAI image ``detail``; None leaves it out of Chat Completions
        and sends ``"auto"`` to Responses (which requires it).
    :ivar text_embeds: ``"text"`` sends text files as text parts headed by the file name,
        ``"document"`` as the provider's document part; None picks the provider's default
        (the bundle's ``text_embeds`` setting when it has one, which an import writes
        for a text document; else ``document`` for Anthropic, ``text`` elsewhere).
    :ivar tool_result_images: what OpenAI Chat Completions does with non-text parts of a
        tool result: ``"user-message"`` (default) moves them to a user message after the
        tool messages; ``"error"`` raises :class:`UnsupportedContentError`.
    :ivar unknown_settings: ``"warn"`` (default) leaves settings keys the provider has no
        parameter for out of the request, each with an :class:`UnknownSettingWarning`
        naming it, so the body is one the provider's SDK accepts; ``"pass"`` copies them
        into the request as they are; ``"error"`` raises :class:`InvalidSettingsError`.
    :ivar settings: settings merged over the bundle's settings embed (``to_request`` only).
    :ivar attachment_lines: ``"drop"`` (default) leaves a paragraph made only of
        references (``@photo.png``, ``@a.png @b.png``) out of the text, the parts standing
        in its place; ``"keep"`` sends it too, before its parts.
    :ivar inputs: the values of a template's inputs (see :doc:`/templates`), by name;
        each is checked against its declaration and put into the turns as text (an
        ``image`` or ``file`` one as an asset part) after the parse, so no value can add
        structure. None gives none: defaults are used, and a required input raises
        :class:`~lmml_mdit.errors.InputError`.
    :ivar strict: True (default) refuses a bundle with an error-level defect (see
        :meth:`~lmml_mdit.bundle.bundle.Bundle.check_sendable`), raising
        :class:`~lmml_mdit.errors.DefectError`; False sends it anyway, warning a
        :class:`~lmml_mdit.errors.DefectWarning` for each defect and leaving an
        unresolvable reference as its ``@name`` text.
    """

    context: ContextPlacement = "system"
    system: SystemPlacement | None = None
    midway_system: MidwaySystem = "user"
    max_embed_bytes: int | None = None
    on_omit: OnOmit = "warn"
    handlers: Mapping[str, Handler] = field(default_factory=dict)
    image_detail: ImageDetail | None = None
    text_embeds: TextEmbeds | None = None
    tool_result_images: ToolResultImages = "user-message"
    unknown_settings: UnknownSettings = "warn"
    settings: JSONMapping | None = None
    attachment_lines: AttachmentLines = "drop"
    strict: bool = True
    inputs: Mapping[str, object] | None = None

    @classmethod
    def from_kwargs(cls, options: Mapping[str, object]) -> Options:
        """Check option names and values.

        :raises TypeError: for an unknown option name, or ``settings``/``handlers`` that
            are not mappings.
        :raises ValueError: for a value outside an option's choices.
        """
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(
                f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        for key, choices in _CHOICES.items():
            if key in options and options[key] not in choices:
                raise ValueError(f"{key} must be one of {choices!r}, not {options[key]!r}")
        for key in ("settings", "handlers", "inputs"):
            value = options.get(key)
            if value is not None and not isinstance(value, Mapping):
                raise TypeError(f"{key} must be a mapping, not {type(value).__name__}")
        for key_given in options.get("handlers") or {}:  # type: ignore[attr-defined]
            if not isinstance(key_given, str):
                raise TypeError(f"a handler key must be a string, not {type(key_given).__name__}")
            handler_key(key_given)  # a key no asset can match is refused up front
        budget = options.get("max_embed_bytes")
        if budget is not None and (
            not isinstance(budget, int) or isinstance(budget, bool) or budget < 0
        ):
            raise ValueError(f"max_embed_bytes must be a non-negative int, not {budget!r}")
        return cls(**options)  # type: ignore[arg-type]  # each value checked above


def _resolve_asset(bundle: BundleSource, state: BundleState, embed: Embed) -> Asset:
    asset = state.assets.get(embed.name)
    if asset is None:
        data = bundle.embed(embed.name)
        asset = Asset(
            name=embed.name,
            data=data,
            media_type=media_type_for(embed.name, data),
            embed=embed,
            cache=state.base64,
        )
        state.assets[embed.name] = asset
    return asset


def _embed_size(bundle: BundleSource, embed: Embed, state: BundleState) -> int:
    asset = state.assets.get(embed.name)
    if asset is not None:
        return len(asset.data)
    if embed.is_inline and embed.content is not None:
        return len(embed.content)
    if bundle.kind == "zip" and embed.name in bundle.entries:
        try:
            return bundle.entry_size(embed.name)
        except LmmlError:
            pass
    return len(_resolve_asset(bundle, state, embed).data)


def _call(state: BundleState, embed: Embed, strict: bool = True) -> ToolCall:
    """The call the fence *embed* makes; a malformed one, not *strict* (sent anyway, its
    ``invalid_tool_call`` warned by ``check_sendable``), as a call of the fence name's id
    with no function name and no arguments (what every provider can carry).

    :raises InvalidToolCallError: for a malformed fence, when *strict*.
    """
    call = state.calls.get(embed.name)
    if call is None:
        try:
            call = parse_tool_call(embed)
        except InvalidToolCallError:
            if strict:
                raise
            call = ToolCall(_call_id(embed.name), "", {}, embed.name, embed.line)
        state.calls[embed.name] = call
    return call


def _call_id(name: str) -> str:
    """The id a call fence's name gives when its JSON does not (``call_1`` for
    ``call_1.tool_call.json``)."""
    return name[: -len(TOOL_CALL_SUFFIX)] if name.endswith(TOOL_CALL_SUFFIX) else name


def build_conversation(
    bundle: BundleSource, options: Options, target: str | None = None
) -> ChatConversation:
    """Turn every turn of *bundle* into a neutral :class:`ChatMessage`, in order.

    Empty turns (no text and no parts) give no message.

    :param target: the provider the messages are for, as errors name it (e.g.
        ``"Anthropic Messages (anthropic)"``).
    :raises UnsupportedContentError: from handlers (refused or unknown content), naming
        *target*.
    :raises InvalidToolCallError: for a malformed call fence or a tool turn that names no
        call.
    :raises EmbedBudgetError: when an embed is over budget and ``on_omit="raise"``.

    Each error with a line names the bundle's narrative as its file (``chat.lmml:5:1: ...``).
    """
    bundle.check_sendable(strict=options.strict)
    try:
        return _build_conversation(bundle, options, target)
    except LmmlError as error:
        error.locate(bundle.file_name)
        raise


def _build_conversation(
    bundle: BundleSource, options: Options, target: str | None
) -> ChatConversation:
    narrative = bundle.narrative
    state = bundle_state(bundle)
    reserved = bundle.RESERVED_NAMES
    conversation = ChatConversation(messages=[])
    fills, filled_fence = _template_fills(bundle, state, options)
    fill_lines = sorted(fills) if fills else []
    fill_count = len(fill_lines)
    next_fill = 0
    # Embeds first named in a turn left out (context="drop", system="drop"): the next
    # turn naming one sends it, so dropping a turn never takes a later turn's asset along.
    dropped: set[str] = set()
    places: dict[str, tuple[list[int], list[Embed]]] = {}
    for number, turn in numbered_turns(narrative.turns):
        role: MessageRole
        if turn.role == "context":
            if options.context == "drop":
                dropped.update(e.name for e in turn.embeds if e.name not in reserved)
                continue
            role = options.context
        else:
            role = turn.role
        if role == "system" and options.system in ("user", "drop"):
            if options.system == "drop":
                dropped.update(e.name for e in turn.embeds if e.name not in reserved)
                continue
            role = "user"
        rebound = _rebound(narrative, turn, dropped, places) if dropped else {}
        placed_turn = turn
        if rebound:
            dropped.difference_update(rebound)
            placed_turn = replace(
                turn,
                embeds=tuple(
                    sorted((*turn.embeds, *rebound.values()), key=lambda e: (e.line, e.column))
                ),
            )
        call: ToolCall | None = None
        skip: frozenset[int] = frozenset()
        if role == "tool":
            call, skip = _answered_call(narrative, turn, number, state, options.strict)
        turn_fills: dict[int, str | Sequence[Edit]] | None = None
        if fills and next_fill < fill_count and fill_lines[next_fill] < turn.end_line:
            # Only this turn's edits: the turns and the edited lines both come in order.
            first, last = turn.start_line - 1, max(turn.end_line, turn.start_line - 1)
            while next_fill < fill_count and fill_lines[next_fill] < first:
                next_fill += 1
            while next_fill < fill_count and fill_lines[next_fill] < last:
                if turn_fills is None:
                    turn_fills = {}
                turn_fills[fill_lines[next_fill]] = fills[fill_lines[next_fill]]
                next_fill += 1
        segments = turn_segments(
            narrative,
            placed_turn,
            reserved=reserved,
            skip_lines=skip,
            drop_attachment_lines=options.attachment_lines == "drop",
            fills=turn_fills,
            rebound=rebound,
        )
        items: list[MessagePart] = []
        used = 0
        for segment in segments:
            if isinstance(segment, TextSegment):
                items.append(TextPart(segment.text))
                continue
            if isinstance(segment, InputSegment):
                value = segment.value
                if isinstance(value, InputMessages):
                    # The input's turns go here: the turn so far is one message, its own
                    # conversation the next ones, and the rest of the turn another.
                    if items or call is not None:
                        conversation.messages.append(ChatMessage(role, items, call, turn))
                    items, used, call = [], 0, None
                    conversation.messages.extend(_spliced(value, options, target))
                    continue
                placed, used = _input_items(bundle, value, options, target, conversation, used)
                items.extend(placed)
                continue
            embed = segment.embed
            if is_native_name(embed.name):  # kept for its provider only
                data = None if embed.is_inline else bundle.embed(embed.name)  # packed
                items.append(parse_native(embed, data))
                continue
            if role == "assistant" and embed.is_inline and is_tool_call_name(embed.name):
                items.append(_call(state, embed, options.strict))
                continue
            try:
                placed, used = _embed_items(
                    bundle, state, segment, options, target, conversation, used, filled_fence
                )
            except BundleError:
                if options.strict:
                    raise
                placed = _as_written(segment)  # reported by check_sendable
            except UnsupportedContentError:
                if options.strict or not is_remote_name(embed.name):
                    raise
                # invalid_remote_asset, an error check_sendable reported: sent as written
                placed = _as_written(segment)
            items.extend(placed)
        if items or call is not None:
            conversation.messages.append(ChatMessage(role, items, call, turn))
    return conversation


def _rebound(
    narrative: Narrative,
    turn: Turn,
    dropped: set[str],
    places: dict[str, tuple[list[int], list[Embed]]],
) -> dict[str, Embed]:
    """The first occurrence in *turn* (its delimiter line included) of each name in
    *dropped*, by name. *places* caches every name's occurrences (their lines, and
    themselves) in source order; it is filled on the first call."""
    first, last = turn.delimiter_line or turn.start_line, turn.end_line
    if not places:
        ordered = sorted(narrative.embeds, key=lambda embed: (embed.line, embed.column))
        for embed in ordered:
            lines, embeds = places.setdefault(embed.name, ([], []))
            lines.append(embed.line)
            embeds.append(embed)
    found: dict[str, Embed] = {}
    for name in dropped:
        lines, embeds = places.get(name, ([], []))
        index = bisect_left(lines, first)
        if index < len(lines) and lines[index] <= last:
            found[name] = embeds[index]
    return found


def _as_written(segment: EmbedSegment) -> list[MessagePart]:
    """What an embed sent anyway (not resolved, ``strict=False``) leaves: its ``@name``
    text where its lines left the turn's text; nothing where the text still holds it (a
    mention inside a sentence is sent once, as written)."""
    return [TextPart(reference(segment.embed.name))] if segment.replaces_text else []


def _embed_items(
    bundle: BundleSource,
    state: BundleState,
    segment: EmbedSegment,
    options: Options,
    target: str | None,
    conversation: ChatConversation,
    used: int,
    filled_fence: Callable[[Embed], Asset | None] | None = None,
) -> tuple[list[MessagePart], int]:
    """The items for one embed of a message whose embeds already hold *used* bytes, and the
    bytes used after it: its parts, or, when it does not fit ``max_embed_bytes``, an
    ``@name`` line where its own lines left the text (nothing otherwise).

    :param filled_fence: the asset of an embed fence with template values put in, or None
        for one that holds none.
    :raises BundleError: for an embed that does not resolve.
    """
    embed = segment.embed
    filled = filled_fence(embed) if filled_fence is not None else None
    if options.max_embed_bytes is not None:
        size = len(filled.data) if filled is not None else _embed_size(bundle, embed, state)
        if used + size > options.max_embed_bytes:
            _omit(conversation, embed, size, used, options, bundle)
            if segment.replaces_text:
                # Its lines left the text for its part: say what was there.
                return [TextPart(reference(embed.name))], used
            return [], used
        used += size
    asset = filled if filled is not None else _resolve_asset(bundle, state, embed)
    return list(_parts(asset, options, target)), used


def _template_fills(
    bundle: BundleSource, state: BundleState, options: Options
) -> tuple[Fills | None, Callable[[Embed], Asset | None] | None]:
    """The line edits of this rendering's input values, and the filler of embed fences
    holding ``in_code`` inputs; (None, None) for a bundle that is no template.

    :raises InputError: for a value its declaration refuses, a missing required one or a
        name no input declares.
    """
    template = bundle_template(bundle, state, values_given=options.inputs is not None)
    if not template.is_template and not options.inputs:
        return None, None
    bound = template.bind(options.inputs)
    limits = getattr(bundle, "limits", None)  # a source without limits: the default ones
    limit = (limits if isinstance(limits, Limits) else Limits()).max_entry_size
    fills = template.lines_for(bound, limit=limit)
    if not template.fence_inputs:
        return fills, None
    fences: dict[str, Asset | None] = {}

    def filled_fence(embed: Embed) -> Asset | None:
        if embed.name not in template.fence_inputs or not embed.is_inline:
            return None
        if embed.name not in fences:
            data = template.fill_fence(embed.content or b"", bound)
            fences[embed.name] = Asset(
                name=embed.name,
                data=data,
                media_type=media_type_for(embed.name, data),
                embed=embed,
                cache=Base64Cache(),  # these bytes are this rendering's, not the bundle's
            )
        return fences[embed.name]

    return fills, filled_fence


def _spliced(value: InputMessages, options: Options, target: str | None) -> list[ChatMessage]:
    """The messages of a ``messages`` input's conversation, rendered with this rendering's
    options (and no values: the conversation is no template), its text files marked
    with its own ``text_embeds`` setting (used where the rendering gives none)."""
    assert value.bundle is not None, "turn_segments places only given values"
    messages = build_conversation(value.bundle, replace(options, inputs=None), target).messages
    own = (value.bundle.settings or {}).get(TEXT_EMBEDS_SETTING)
    if own in TEXT_EMBEDS_CHOICES:
        # An imported text document stays a document, as it does exported on its own,
        # unless this rendering says how text files go.
        for message in messages:
            message.parts = [
                replace(item, mode=own) if isinstance(item, TextFilePart) else item
                for item in message.parts
            ]
    return messages


def _input_items(
    bundle: BundleSource,
    value: InputAsset,
    options: Options,
    target: str | None,
    conversation: ChatConversation,
    used: int,
) -> tuple[list[MessagePart], int]:
    """The parts of an ``image`` or ``file`` input's value, held to the message's embed
    budget as an embed is; over it, an ``@name`` line says what was left out."""
    placeholder = value.placeholder
    assert value.file is not None, "turn_segments places only given values"
    name, data = value.file.name, value.file.data
    embed = Embed(name, "external", None, placeholder.line, placeholder.column)
    if options.max_embed_bytes is not None:
        if used + len(data) > options.max_embed_bytes:
            _omit(conversation, embed, len(data), used, options, bundle)
            return [TextPart(reference(name))], used
        used += len(data)
    asset = Asset(name, data, media_type_for(name, data), embed, Base64Cache())
    return list(_parts(asset, options, target)), used


def _parts(asset: Asset, options: Options, target: str | None) -> list[Part]:
    """The asset's parts; a handler's refusal is re-raised naming the provider, the embed
    and its media type (its hint, the fix, kept)."""
    try:
        return build_parts(asset, options.handlers)
    except UnsupportedContentError as error:
        if target is None:
            raise
        raise UnsupportedContentError(
            f"{target} cannot take {asset.name} ({asset.media_type}): {error.message}",
            name=error.name,
            line=error.line,
            column=error.column,
            hint=error.hint,
        ) from error


def _answered_call(
    narrative: Narrative, turn: Turn, number: int, state: BundleState, strict: bool = True
) -> tuple[ToolCall, frozenset[int]]:
    """The call the tool turn *turn* (turn *number*) answers, and its reference line.

    Not *strict* (sent anyway, the ``unknown_tool_call_id`` warned by ``check_sendable``),
    a turn naming no known call answers the id its reference names (none without one).

    :raises InvalidToolCallError: for a turn naming no known call, when *strict*.
    """
    reference = tool_result_reference(turn, narrative)
    line = turn.delimiter_line or turn.start_line
    label = turn_label(number, turn)
    if reference is None:
        if not strict:
            return ToolCall("", "", None, "", line), frozenset()
        raise InvalidToolCallError(
            f"{label} does not start with a reference to the call it answers",
            line=line,
            column=1,
            hint="make its first line only @<call id>.tool_call.json",
        )
    name, reference_line = reference
    first = narrative.first_embeds.get(name)
    owner = state.owners.get(name)
    if first is None or not first.is_inline or owner != "assistant":
        if not strict:
            return ToolCall(_call_id(name), "", None, name, reference_line), frozenset(
                {reference_line}
            )
        raise InvalidToolCallError(
            f"{label} answers {name}, which no assistant turn defines",
            name=name,
            line=reference_line,
            column=1,
            hint="define the call as an inline fence in the assistant turn before it",
        )
    return _call(state, first, strict), frozenset({reference_line})


def _omit(
    conversation: ChatConversation,
    embed: Embed,
    size: int,
    used: int,
    options: Options,
    bundle: BundleSource,
) -> None:
    # Located FILE:LINE:COL as every other message, and worded for the API and the command
    # line alike: the budget, not the option's name.
    where = location(bundle.file_name, embed.line, embed.column)
    message = (
        f"{where}: {embed.name} ({size} bytes) left out: the "
        f"message already holds {used} of its {options.max_embed_bytes}-byte embed budget"
    )
    if options.on_omit == "raise":
        raise EmbedBudgetError(
            f"the embed {embed.name} ({size} bytes) does not fit the message's "
            f"{options.max_embed_bytes}-byte embed budget ({used} bytes already in it)",
            name=embed.name,
            line=embed.line,
            column=embed.column,
            hint="raise max_embed_bytes, or pass on_omit='warn' to leave it out",
            cli_hint="raise --max-embed-bytes, or drop --on-omit raise to leave it out",
        )
    conversation.warnings.append(message)
    warn(EmbedOmittedWarning(message))
