"""The narrative model: one markdown-it parse, read into embeds and turns.

:func:`parse` runs the parser once; everything on :class:`Narrative` is read from the
tokens and the per-parse results the plugin leaves in ``env``, never from a second scan of
the raw text. Turns are segmented as RFC section 6 says and numbered once, by
:func:`numbered_turns`. See docs/narrative.md, "Segmentation" and "Turn numbers".
"""

from __future__ import annotations

import array
import bisect
import codecs
import dataclasses
import functools
import itertools
import os
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, overload

from markdown_it import MarkdownIt
from markdown_it.token import Token

from .._version import __version__
from ..errors import LmmlSyntaxError, MissingPluginError
from ..model import Embed, Issue, Turn
from ..syntax import (
    COLLECTED_KEY,
    DEFERRED_KEY,
    DELIMITERS_KEY,
    EMBEDS_KEY,
    ESCAPES_KEY,
    FRONT_MATTER_KEY,
    FRONT_MATTER_TOKEN,
    INLINE_ON_DEMAND_KEY,
    KNOWN_NAMES_KEY,
    SOURCE_KEY,
    CollectedInlines,
    DeferredInlines,
    DelimiterMode,
    DispatchingBlockParser,
    LinkParser,
    ReferenceMode,
    delimiter_issues,
    lmml_plugin,
)
from ..text import blank_edges, place_after
from ._index import StructureIndex

if TYPE_CHECKING:
    from ._placeholders import Placeholders

__all__ = [
    "CONTEXT_TURN_NUMBER",
    "FULL_PARSE_VARIABLE",
    "Narrative",
    "decode_narrative",
    "default_parser",
    "numbered_turns",
    "parse",
    "parse_shared",
    "turn_label",
]


GFM_RULES = ("table", "strikethrough")
"""The GitHub-flavoured rules :func:`default_parser` enables on the ``commonmark`` preset."""


@functools.cache
def default_parser(
    delimiters: DelimiterMode = "strict", references: ReferenceMode = "assets"
) -> MarkdownIt:
    """The shared parser :func:`parse` uses for these options: the ``commonmark`` preset
    with GFM tables and strikethrough enabled (real chats use both) and the plugin (which
    reads a leading ``---`` block as front matter). Known names go through ``env``, so one
    parser serves every bundle. Its block parser tries at each line only the rules that can
    start there (:class:`~lmml_mdit.syntax.DispatchingBlockParser`); its tokens are
    markdown-it's.

    :raises ValueError: for an option value outside its choices.
    """
    md = LinkParser("commonmark").enable(GFM_RULES)
    md.block = DispatchingBlockParser(md.block)
    return md.use(lmml_plugin, delimiters=delimiters, references=references)


def decode_narrative(data: bytes, *, name: str | None = None) -> str:
    """Decode narrative bytes as UTF-8, skipping a BOM.

    :raises LmmlSyntaxError: for invalid UTF-8, naming the byte offset and its line.
    """
    skipped = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    wide = _wide_encoding(data)
    if wide is not None:
        encoding, offset = wide
        line, column = place_after(data[:offset].decode("utf-8", "replace"))
        raise LmmlSyntaxError(
            f"invalid UTF-8 at byte offset {offset} (the bytes are {encoding}, not UTF-8)",
            name=name,
            line=line,
            column=column,
            hint="save the narrative as UTF-8",
        )
    try:
        return data[skipped:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = skipped + error.start  # counted in the bytes as given, BOM included
        # The bytes before the first bad one are UTF-8: the place is counted in their text,
        # as an editor shows it (each bad byte a replacement character).
        line, column = place_after(data[skipped:offset].decode("utf-8"))
        raise LmmlSyntaxError(
            f"invalid UTF-8 at byte offset {offset} ({error.reason})",
            name=name,
            line=line,
            column=column,
            hint="save the narrative as UTF-8",
        ) from None


_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),  # before UTF-16's, which it starts with
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)
_WIDE_SAMPLE = 512
"""How many leading bytes :func:`_wide_encoding` looks at (a fixed cost per narrative)."""


def _wide_encoding(data: bytes) -> tuple[str, int] | None:
    """The encoding *data* is plainly in when it is UTF-16 or UTF-32 instead of UTF-8, with
    the byte offset where it shows, or None.

    A UTF-16 or UTF-32 byte order mark says so outright. Without one, UTF-16 text is
    still valid UTF-8 (each ASCII character gains a NUL), so it would be read as text with
    a replacement character between every two letters: within the first bytes, a NUL at
    half or more of the even (or of the odd) offsets and at fewer than half of the others
    tells it. Text with a stray NUL is not affected.
    """
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            return encoding, 0
    sample = data[: _WIDE_SAMPLE - _WIDE_SAMPLE % 2]
    pairs = len(sample) // 2
    if pairs < 2 or b"\0" not in sample:
        return None
    even = sample[0 : 2 * pairs : 2].count(0)
    odd = sample[1 : 2 * pairs : 2].count(0)
    if 2 * even >= pairs > 2 * odd or 2 * odd >= pairs > 2 * even:
        return "UTF-16", sample.index(0)
    return None


def _check_encodable(text: str, name: str | None) -> None:
    """Refuse a ``str`` that no UTF-8 file could hold: one with a lone surrogate (the
    leftover of a broken decode). Fence contents become bytes and bundles are saved as
    UTF-8, so such text would fail later, far from its cause.

    :raises LmmlSyntaxError: naming the line and column of the first lone surrogate.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        line, column = place_after(text[: error.start])
        raise LmmlSyntaxError(
            f"lone surrogate U+{ord(text[error.start]):04X} in the text: not valid Unicode",
            name=name,
            line=line,
            column=column,
            hint="decode the file strictly as UTF-8, or pass its bytes to parse()",
        ) from None


@dataclass(frozen=True)
class Narrative:
    """A parsed LMML narrative.

    :ivar text: the narrative text as given (decoded, BOM removed).
    :ivar bom: whether the text as given opened with a UTF-8 byte order mark (removed
        from :attr:`text`); saving a bundle writes it back.
    :ivar parsed_tokens: the token stream as the parse left it: every block token complete
        (types, attributes, maps, the plugin's ``meta``), but an ``inline`` token's
        ``children`` only where the fast parse kept them (blocks with an ``@`` or a
        backslash trigger and no reference or LMML escape in them; see
        :doc:`/performance`): read :attr:`tokens` for the complete stream, or
        :meth:`inline_children` for one block.
    :ivar embeds: every embed occurrence in document order.
    :ivar turns: the role turns.
    :ivar source: the normalized text the token maps refer to (line endings as ``\\n``).
    :ivar front_matter: the raw YAML text of a leading ``---`` … ``---`` block (without
        its marker lines), or None; its lines belong to no turn
        (:attr:`lmml_mdit.bundle.Bundle.front_matter` decodes it).
    :ivar escapes: the 1-based ``(line, column)`` of each LMML escape's backslash, in
        document order: ``\\@`` anywhere, and the backslash that keeps a line from being a
        role delimiter (``\\## user``, ``\\<!-- user -->``, a setext underline). Text
        sent to a model, exported Markdown and the preview leave these backslashes out;
        Markdown's own escapes (``\\*``) are not listed and stay.
    :ivar delimiters: the ``delimiters`` choice :func:`parse` read it with (``"strict"``
        for a caller's own parser), so that a bundle parsed again after a change (a run's
        appended reply, a filled template) reads it the same way.
    :ivar references: the ``references`` choice, likewise.
    """

    text: str
    parsed_tokens: list[Token] = field(repr=False, compare=False)
    embeds: tuple[Embed, ...]
    turns: tuple[Turn, ...]
    source: str = field(repr=False)
    front_matter: str | None = field(default=None, repr=False)
    escapes: tuple[tuple[int, int], ...] = field(default=(), repr=False)
    deferred: DeferredInlines | None = field(default=None, repr=False, compare=False)
    """The inline tokens the parse left for later (None when it parsed them all)."""
    bom: bool = field(default=False, compare=False)
    delimiters: DelimiterMode = field(default="strict", repr=False, compare=False)
    references: ReferenceMode = field(default="assets", repr=False, compare=False)

    @property
    def tokens(self) -> list[Token]:
        """The markdown-it token stream of the one parse, complete: every ``inline`` token
        with its children, the same tokens, attributes and maps as a parse by
        ``md.parse``. The inline contents the parse left for later are parsed the first
        time this is read (rendering reads it; embeds, turns and payloads never need to).
        """
        if self.deferred is not None:
            self.deferred.complete()
        return self.parsed_tokens

    def __getstate__(self) -> dict[str, object]:
        # A parser does not pickle (its rules are closures): a pickled narrative carries
        # its complete stream instead.
        self.tokens  # noqa: B018  (reading it completes the stream)
        return {**self.__dict__, "deferred": None}

    def inline_children(self, position: int) -> list[Token]:
        """The children of the ``inline`` token at *position* in :attr:`tokens`, parsed now
        if the parse left it for later (the other blocks stay as they are).

        :raises IndexError: for a position outside the stream.
        """
        token = self.parsed_tokens[position]
        if self.deferred is not None:
            self.deferred.parse(position)
        return token.children or []

    @functools.cached_property
    def lines(self) -> tuple[str, ...]:
        """``source`` split into lines, without line endings (split once, when first read:
        a parse does not hold a string per line)."""
        return tuple(_split_lines(self.source))

    @functools.cached_property
    def _delimiter_issues(self) -> tuple[Issue, ...]:
        """:func:`~lmml_mdit.syntax.delimiter_issues` of this narrative, found once: every
        send of a bundle reads them, and bundles opened from the same archive share the
        narrative (its tokens never change)."""
        return tuple(delimiter_issues(self))

    @functools.cached_property
    def index(self) -> StructureIndex:
        """Where the blocks, fences, delimiters, attachment paragraphs and references lie
        (:class:`~lmml_mdit.narrative.StructureIndex`), read from :attr:`tokens` in one
        walk when first asked for and kept: every reader of the structure reads this."""
        deferred = self.deferred
        return StructureIndex.from_tokens(
            self.parsed_tokens,
            self.turns,
            self.embeds,
            attachment_names=None if deferred is None else deferred.attachment_names,
        )

    @functools.cached_property
    def placeholders(self) -> Placeholders:
        """The input placeholders (``{{ name }}``) and their escapes, found once when first
        asked for (:mod:`lmml_mdit.narrative`, imported then: only templates
        read it)."""
        from ._placeholders import find_placeholders

        return find_placeholders(self)

    @property
    def embed_names(self) -> tuple[str, ...]:
        """Distinct embed names, in order of first occurrence."""
        return tuple(self.first_embeds)

    @functools.cached_property
    def first_embeds(self) -> dict[str, Embed]:
        """The first occurrence of each embed name, in document order."""
        first: dict[str, Embed] = {}
        for embed in self.embeds:
            first.setdefault(embed.name, embed)
        return first

    @functools.cached_property
    def escape_columns(self) -> dict[int, list[int]]:
        """:attr:`escapes` by line: 0-based line -> the 0-based columns of its escape
        backslashes, ascending (the form the writers of sent and exported text read)."""
        columns: dict[int, list[int]] = {}
        for line, column in self.escapes:
            columns.setdefault(line - 1, []).append(column - 1)
        return columns

    def embed(self, name: str) -> Embed | None:
        """The first occurrence of *name*, or None."""
        return self.first_embeds.get(name)

    @functools.cached_property
    def _turn_numbers(self) -> dict[int, tuple[int, Turn]]:
        # Keyed by start line, which no two turns share (a delimiter line is no turn's).
        return {turn.start_line: (number, turn) for number, turn in numbered_turns(self.turns)}

    def turn_number(self, turn: Turn) -> int:
        """The number of *turn*, one of :attr:`turns` (see :func:`numbered_turns`).

        :raises KeyError: for a turn that is not one of this narrative's.
        """
        found = self._turn_numbers.get(turn.start_line)
        if found is None or found[1] != turn:
            raise KeyError(f"not a turn of this narrative: {turn.role} at line {turn.start_line}")
        return found[0]


CONTEXT_TURN_NUMBER = 0
"""The number of the ``context`` turn (the preamble before the first delimiter)."""


def numbered_turns(turns: Sequence[Turn]) -> Iterator[tuple[int, Turn]]:
    """Each turn with its number: message turns count from 1, every role alike, and a
    leading ``context`` turn is :data:`CONTEXT_TURN_NUMBER`. The one numbering that
    ``lmml turns``, the preview, validation and error messages use.

    :param turns: a narrative's turns, in order (:attr:`Narrative.turns`).
    """
    first = CONTEXT_TURN_NUMBER if turns and turns[0].role == "context" else 1
    return enumerate(turns, first)


def turn_label(number: int, turn: Turn) -> str:
    """How a message names a turn: ``turn 3 (tool)``, or ``the context turn``.

    :param number: the turn's number (:func:`numbered_turns`).
    """
    if turn.role == "context":
        return "the context turn"
    return f"turn {number} ({turn.role})"


def parse(
    text: str | bytes,
    *,
    md: MarkdownIt | None = None,
    name: str | None = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
    known_names: Container[str] | None = None,
    full_parse: bool | None = None,
) -> Narrative:
    """Parse an LMML narrative once and read its embeds and turns.

    Only the inline contents that can hold LMML are inline-parsed now, and those without a
    token per reference (the rules record where each one is); the rest waits for a reader
    of the complete stream (:attr:`Narrative.tokens`), which then gets exactly the tokens a
    full parse gives. The embeds, turns, escapes and everything read from them
    are the same either way (see :doc:`/performance`).

    :param text: the narrative; bytes must be UTF-8 (a BOM is skipped).
    :param md: a parser with :func:`~lmml_mdit.lmml_plugin` installed; defaults to
        :func:`default_parser` for *delimiters* and *references*.
    :param name: the file name, used in error messages.
    :param delimiters: ``"strict"`` (default) or ``"loose"`` role headings (see
        :doc:`/syntax`); give them to ``lmml_plugin`` instead when you pass *md*.
    :param references: ``"assets"`` (default: a name needs a known file extension, or must
        be known)
        or ``"any"`` (RFC 4.1); likewise.
    :param known_names: asset names that are references without an extension (a zip's
        entry names); passed in ``env``, so they work with any *md*.
    :param full_parse: inline-parse every block up front (True) or only those that can
        hold LMML (False); None (the default) reads the environment variable
        :data:`FULL_PARSE_VARIABLE`: ``LMML_FULL_PARSE=1`` forces the full parse everywhere
        (``lmml`` commands, bundles, workers), to compare or to rule the fast path out.
    :raises LmmlSyntaxError: for invalid UTF-8 bytes, or a ``str`` holding a lone surrogate.
    :raises MissingPluginError: if *md* lacks the plugin.
    :raises TypeError: when *text* is neither ``str`` nor ``bytes`` (a ``bytearray``, a
        file object, None): the message says what it takes.
    :raises ValueError: for *delimiters* or *references* outside their choices, or not the
        defaults together with *md* (whose plugin options decide).
    """
    if not isinstance(text, (str, bytes)):
        raise TypeError(
            "parse() takes the narrative as str or UTF-8 bytes, not "
            f"{type(text).__name__} (read a file with lmml_mdit.open(), or pass bytes(...))"
        )
    if md is not None and (delimiters != "strict" or references != "assets"):
        raise ValueError(
            "parse(md=...) reads with md's own plugin options; pass delimiters= and "
            "references= to lmml_plugin instead"
        )
    if isinstance(text, bytes):
        bom = text.startswith(codecs.BOM_UTF8)
        text = decode_narrative(text, name=name)
    else:
        bom = text.startswith("\ufeff")
        if bom:
            text = text[1:]
        _check_encodable(text, name)
    parser = md if md is not None else default_parser(delimiters, references)
    env: dict[str, object] = {}
    if known_names is not None:
        env[KNOWN_NAMES_KEY] = known_names
    if full_parse is None:
        full_parse = os.environ.get(FULL_PARSE_VARIABLE, "") not in ("", "0")
    if not full_parse:
        env[INLINE_ON_DEMAND_KEY] = True
    narrative = parse_in(parser, text, env, name, bom=bom)
    if md is None and (delimiters != "strict" or references != "assets"):
        narrative = dataclasses.replace(narrative, delimiters=delimiters, references=references)
    return narrative


def parse_in(
    parser: MarkdownIt, text: str, env: dict[str, object], name: str | None, *, bom: bool = False
) -> Narrative:
    """The narrative of *text* (decoded, checked) parsed by *parser* in *env*, which keeps
    what the parse left there (link reference definitions, the delimiter tokens): the one
    step :func:`parse` and the language server's re-parse after an edit share. *bom*: the
    text as given opened with a byte order mark.

    :raises MissingPluginError: if *parser* lacks the plugin.
    """
    tokens = parser.parse(text, env)
    if EMBEDS_KEY not in env:
        raise MissingPluginError(
            "the parser given to lmml_mdit.parse() lacks lmml_plugin",
            name=name,
            hint="call md.use(lmml_mdit.lmml_plugin) first, or pass no parser",
        )
    source: str = env[SOURCE_KEY]  # type: ignore[assignment]
    embeds: list[Embed] = env[EMBEDS_KEY]  # type: ignore[assignment]
    found: list[Token] = env[DELIMITERS_KEY]  # type: ignore[assignment]
    escapes: list[tuple[int, int]] = env.get(ESCAPES_KEY, [])  # type: ignore[assignment]
    turns = segment(_SourceLines(source), found, embeds, start=_body_start(tokens))
    left: Sequence[int] = env.pop(DEFERRED_KEY, ())  # type: ignore[assignment]
    collected: CollectedInlines | None = env.pop(COLLECTED_KEY, None)  # type: ignore[assignment]
    all_embeds = tuple(embeds)
    all_escapes = tuple(escapes)
    deferred = None
    if left or collected is not None:
        # The later inline parses need what the block parse left in env (link reference
        # definitions, other plugins' state), not the plugin's results.
        kept = {key: value for key, value in env.items() if key not in _RESULT_KEYS}
        deferred = DeferredInlines(parser, kept, tokens, left, collected, all_embeds, all_escapes)
    return Narrative(
        text=text,
        parsed_tokens=tokens,
        embeds=all_embeds,
        turns=tuple(turns),
        source=source,
        front_matter=_front_matter(tokens),
        escapes=all_escapes,
        deferred=deferred,
        bom=bom,
    )


PARSE_CACHE_BYTES = 4 * 1024 * 1024
"""Most narrative bytes :func:`parse_shared` keeps parsed at once (the oldest go first)."""

_parsed: dict[tuple[bytes, tuple[object, ...]], Narrative] = {}


def parse_shared(
    data: bytes,
    *,
    name: str | None,
    known_names: frozenset[str],
    delimiters: DelimiterMode,
    references: ReferenceMode,
) -> Narrative:
    """:func:`parse` of an archive's narrative, kept for the next archive with the same
    narrative bytes, entry names, options and library version: the parse (and what is read
    from it once, the structure index, the placeholders) is done once, and every bundle
    opened from those bytes shares the one :class:`Narrative`, which no reader changes.
    At most :data:`PARSE_CACHE_BYTES` of narratives are kept; a failed parse is not.
    """
    full = os.environ.get(FULL_PARSE_VARIABLE, "") not in ("", "0")
    key = (data, (__version__, name, known_names, delimiters, references, full))
    narrative = _parsed.pop(key, None)
    if narrative is None:
        narrative = parse(
            data,
            name=name,
            known_names=known_names,
            delimiters=delimiters,
            references=references,
            full_parse=full,
        )
        if len(data) > PARSE_CACHE_BYTES:
            return narrative
        held = list(_parsed)  # a snapshot: another thread may add or drop one meanwhile
        kept = sum(len(other[0]) for other in held)
        for other in held:
            if kept + len(data) <= PARSE_CACHE_BYTES:
                break
            kept -= len(other[0])
            _parsed.pop(other, None)  # another thread may have dropped it
    _parsed[key] = narrative  # the newest last
    return narrative


FULL_PARSE_VARIABLE = "LMML_FULL_PARSE"
"""The environment variable that, set to anything but ``0`` or nothing, makes :func:`parse`
inline-parse every block up front (its *full_parse* default)."""

_RESULT_KEYS = frozenset(
    {
        DELIMITERS_KEY,
        EMBEDS_KEY,
        ESCAPES_KEY,
        SOURCE_KEY,
        KNOWN_NAMES_KEY,
        INLINE_ON_DEMAND_KEY,
        COLLECTED_KEY,
        FRONT_MATTER_KEY,
    }
)
"""The ``env`` keys of the plugin's own inputs and results, which later inline parses of
the same text never read."""


def _front_matter(tokens: Sequence[Token]) -> str | None:
    """The YAML text of a leading front matter block, or None."""
    if tokens and tokens[0].type == FRONT_MATTER_TOKEN:
        return tokens[0].content
    return None


def _body_start(tokens: Sequence[Token]) -> int:
    """The 0-based line after a leading front matter block, or 0 if there is none."""
    if tokens and tokens[0].type == FRONT_MATTER_TOKEN and tokens[0].map:
        return tokens[0].map[1]
    return 0


def _split_lines(source: str) -> list[str]:
    lines = source.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


class _SourceLines(Sequence[str]):
    """The lines of a normalized source, as :func:`_split_lines` gives them, read on demand
    from their start offsets: 8 bytes a line where a tuple of strings costs about 60."""

    def __init__(self, source: str) -> None:
        starts = array.array("q", [0])
        found = source.find("\n")
        while found >= 0:
            starts.append(found + 1)
            found = source.find("\n", found + 1)
        if starts[-1] == len(source):  # a final newline ends the last line, opens none
            starts.pop()
        self._source = source
        self._starts = starts

    def __len__(self) -> int:
        return len(self._starts)

    def _end(self, index: int) -> int:
        """The offset just past line *index* (0 <= index < len), its newline left out."""
        if index + 1 < len(self._starts):
            return self._starts[index + 1] - 1
        return len(self._source) - (1 if self._source.endswith("\n") else 0)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[at] for at in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._source[self._starts[index] : self._end(index)]

    def joined(self, first: int, last: int) -> str:
        """``"\\n".join(self[first:last])``, sliced from the source in one piece."""
        if first >= last:
            return ""
        return self._source[self._starts[first] : self._end(last - 1)]


def _trimmed_text(lines: Sequence[str], start: int, end: int) -> str:
    first, last = blank_edges(lines, start, end)
    if isinstance(lines, _SourceLines):
        return lines.joined(first, last)
    return "\n".join(lines[first:last])


def segment(
    lines: Sequence[str],
    delimiters: Sequence[Token],
    embeds: Sequence[Embed],
    *,
    start: int = 0,
) -> list[Turn]:
    """Split *lines* into turns at *delimiters* and bind each embed's first occurrence.

    :param lines: the normalized source lines.
    :param delimiters: top-level delimiter tokens with ``map`` and ``meta["lmml_role"]``.
    :param embeds: every embed occurrence in document order.
    :param start: the 0-based line where the body starts (after a front matter block);
        lines before it belong to no turn.
    """
    total = len(lines)
    first_delimiter = _first_line(delimiters[0]) if delimiters else total
    start = min(start, first_delimiter)
    has_context = any(line.strip() for line in itertools.islice(lines, start, first_delimiter))

    # An embed belongs to the last turn whose delimiter line (or, for the context turn,
    # the body's first line) is at or before its line; so one on a delimiter line binds to
    # the turn it opens.
    anchors = [start] if has_context else []
    anchors.extend(_first_line(token) for token in delimiters)
    bound: dict[int, list[Embed]] = {}
    seen: set[str] = set()
    for embed in embeds:
        if embed.name in seen:
            continue
        seen.add(embed.name)
        slot = bisect.bisect_right(anchors, embed.line - 1) - 1
        if slot >= 0:
            bound.setdefault(slot, []).append(embed)

    turns: list[Turn] = []
    if has_context:
        turns.append(
            Turn(
                role="context",
                text=_trimmed_text(lines, start, first_delimiter),
                embeds=tuple(bound.get(0, ())),
                start_line=start + 1,
                end_line=first_delimiter,
            )
        )
    for index, token in enumerate(delimiters):
        assert token.map is not None
        start = token.map[1]
        end = _first_line(delimiters[index + 1]) if index + 1 < len(delimiters) else total
        turns.append(
            Turn(
                role=token.meta["lmml_role"],
                text=_trimmed_text(lines, start, end),
                embeds=tuple(bound.get(len(turns), ())),
                start_line=start + 1,
                end_line=end,
                delimiter_line=token.map[0] + 1,
                heading=token.meta.get("lmml_heading"),
            )
        )
    return turns


def _first_line(token: Token) -> int:
    """The 0-based first line of a delimiter token."""
    assert token.map is not None, "delimiter tokens always carry a map"
    return token.map[0]
