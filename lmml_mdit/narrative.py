"""The narrative model: one markdown-it parse, read into embeds and turns.

:func:`parse` runs the parser once; everything on :class:`Narrative` is read from the
tokens and the per-parse results the plugin leaves in ``env``, never from a second scan of
the raw text.

Turn segmentation (RFC section 6, ``segment-turns``):

- a top-level role delimiter (heading or ``<!-- role -->``) opens a turn; its own lines
  belong to no turn;
- text before the first delimiter is a ``context`` turn unless it is only whitespace;
- consecutive delimiters with the same role open separate turns; an empty turn is kept;
- a turn's text is its source lines verbatim, leading and trailing blank lines removed;
- each embed is bound to the turn holding its first occurrence; one first named on a
  delimiter line belongs to the turn that delimiter opens;
- a front matter block at the top (a ``front_matter`` token, made when the parser has
  ``mdit_py_plugins.front_matter``) is metadata: like a delimiter line it belongs to no
  turn, and the context turn starts after it.

Turn numbers (one numbering for ``lmml turns``, the preview, validation and errors, all
through :func:`numbered_turns`): message turns count from 1 in document order, every role
alike; the ``context`` turn, when there is one, is turn 0. So ``## Turn 1 -- user`` after a
preamble is turn 1, as the Transcript and the importers number the headings they write.
"""

from __future__ import annotations

import bisect
import codecs
import functools
import itertools
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from markdown_it.token import Token

from .errors import LmmlSyntaxError, MissingPluginError
from .model import Embed, Turn
from .syntax import DELIMITERS_KEY, EMBEDS_KEY, SOURCE_KEY, lmml_plugin
from .text import blank_edges, normalize_newlines

__all__ = [
    "CONTEXT_TURN_NUMBER",
    "Narrative",
    "decode_narrative",
    "default_parser",
    "numbered_turns",
    "parse",
    "turn_label",
]


@functools.cache
def default_parser() -> MarkdownIt:
    """The shared parser :func:`parse` uses: the ``commonmark`` preset with the plugin."""
    return MarkdownIt("commonmark").use(lmml_plugin)


def decode_narrative(data: bytes, *, name: str | None = None) -> str:
    """Decode narrative bytes as UTF-8, skipping a BOM.

    :raises LmmlSyntaxError: for invalid UTF-8, naming the byte offset and its line.
    """
    skipped = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[skipped:].decode("utf-8")
    except UnicodeDecodeError as error:
        offset = skipped + error.start  # counted in the bytes as given, BOM included
        line = data.count(b"\n", 0, offset) + 1
        raise LmmlSyntaxError(
            f"invalid UTF-8 at byte offset {offset} ({error.reason})",
            name=name,
            line=line,
            hint="save the narrative as UTF-8",
        ) from None


def _check_encodable(text: str, name: str | None) -> None:
    """Refuse a ``str`` that no UTF-8 file could hold: one with a lone surrogate (the
    leftover of a broken decode). Fence contents become bytes and bundles are saved as
    UTF-8, so such text would fail later, far from its cause.

    :raises LmmlSyntaxError: naming the line and column of the first lone surrogate.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        before = normalize_newlines(text[: error.start])
        raise LmmlSyntaxError(
            f"lone surrogate U+{ord(text[error.start]):04X} in the text: not valid Unicode",
            name=name,
            line=before.count("\n") + 1,
            column=len(before) - before.rfind("\n"),
            hint="decode the file strictly as UTF-8, or pass its bytes to parse()",
        ) from None


@dataclass(frozen=True)
class Narrative:
    """A parsed LMML narrative.

    :ivar text: the narrative text as given (decoded, BOM removed).
    :ivar tokens: the markdown-it token stream of the one parse.
    :ivar embeds: every embed occurrence in document order.
    :ivar turns: the role turns.
    :ivar source: the normalized text the token maps refer to (line endings as ``\\n``).
    :ivar lines: ``source`` split into lines, without line endings (split once, by
        :func:`parse`).
    """

    text: str
    tokens: list[Token] = field(repr=False)
    embeds: tuple[Embed, ...]
    turns: tuple[Turn, ...]
    source: str = field(repr=False)
    lines: tuple[str, ...] = field(repr=False)

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
    # Shim for the parse options the reference and delimiter rules take; they are
    # accepted here so bundles can pass them, and take effect with those rules.
    delimiters: str = "strict",
    references: str | bool = "assets",
    known_names: Container[str] | None = None,
) -> Narrative:
    """Parse an LMML narrative once and read its embeds and turns.

    :param text: the narrative; bytes must be UTF-8 (a BOM is skipped).
    :param md: a parser with :func:`~lmml_mdit.lmml_plugin` installed; defaults to
        :func:`default_parser`.
    :param name: the file name, used in error messages.
    :raises LmmlSyntaxError: for invalid UTF-8 bytes, or a ``str`` holding a lone surrogate.
    :raises MissingPluginError: if *md* lacks the plugin.
    :raises TypeError: when *text* is neither ``str`` nor ``bytes`` (a ``bytearray``, a
        file object, None): the message says what it takes.
    """
    if not isinstance(text, (str, bytes)):
        raise TypeError(
            "parse() takes the narrative as str or UTF-8 bytes, not "
            f"{type(text).__name__} (read a file with lmml_mdit.open(), or pass bytes(...))"
        )
    if isinstance(text, bytes):
        text = decode_narrative(text, name=name)
    else:
        if text.startswith("\ufeff"):
            text = text[1:]
        _check_encodable(text, name)
    parser = md if md is not None else default_parser()
    env: dict[str, object] = {}
    tokens = parser.parse(text, env)
    if EMBEDS_KEY not in env:
        raise MissingPluginError(
            "the parser given to lmml_mdit.parse() lacks lmml_plugin",
            name=name,
            hint="call md.use(lmml_mdit.lmml_plugin) first, or pass no parser",
        )
    source: str = env[SOURCE_KEY]  # type: ignore[assignment]
    embeds: list[Embed] = env[EMBEDS_KEY]  # type: ignore[assignment]
    delimiter_tokens: list[Token] = env[DELIMITERS_KEY]  # type: ignore[assignment]
    lines = tuple(_split_lines(source))
    turns = segment(lines, delimiter_tokens, embeds, start=_body_start(tokens))
    return Narrative(
        text=text,
        tokens=tokens,
        embeds=tuple(embeds),
        turns=tuple(turns),
        source=source,
        lines=lines,
    )


FRONT_MATTER_TOKEN = "front_matter"
"""The token type ``mdit_py_plugins.front_matter`` gives a leading metadata block."""


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


def _trimmed_text(lines: Sequence[str], start: int, end: int) -> str:
    first, last = blank_edges(lines, start, end)
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
