"""Make message text safe to place in a turn, so it reads back as exactly itself.

:func:`escape_text` finds with the LMML parser itself what it would misread (a reference, a
fence, a role heading or comment, a block that never closes), escapes or closes only that,
and checks the result by parsing it again. See docs/bridge.md, "Escaping".
"""

from __future__ import annotations

from collections.abc import Container
from typing import NamedTuple

from markdown_it.token import Token

from ..errors import ImportFormatError
from ..model import Embed
from ..narrative import default_parser
from ..syntax import (
    CONTENT_FENCE_INFO,
    DELIMITERS_KEY,
    EMBEDS_KEY,
    KNOWN_NAMES_KEY,
    code_fence,
    escape_at,
    marks_near_miss,
    may_hold_label,
)
from ..text import as_turn_text
from . import _pieces as pieces

__all__ = ["escape_text", "normalize_text", "text_block"]

_SENTINEL = "## Turn 1 -- user"
_HTML_CLOSERS = ("-->", "</pre>", "</script>", "</style>", "</textarea>", "?>", "]]>", ">")
_EMPTY = f"{_SENTINEL}\n\n{_SENTINEL}\n"
_BODY_LINE = 2
"""The 0-based line where the text starts in the document parsed: after a heading and a
blank line."""
_MAX_ROUNDS = 64
# Every construct above needs one of these characters: "@" (reference, fence), "#" (ATX
# heading), "=" or "-" (setext underline), "<" (role comment, HTML block), "`" or "~"
# (code fence). Text without them is only normalised, without a parse.
_STRUCTURE_CHARACTERS = frozenset("@#=-<`~")


class _Escaped(NamedTuple):
    """A text escaped, and whether a line of it still reads as a near-miss delimiter."""

    body: str
    near_miss: bool


normalize_text = as_turn_text
"""The text as a turn reads it back (:func:`lmml_mdit.text.as_turn_text`)."""


def _escape(lines: list[str], line: int, column: int) -> None:
    """Put the LMML escape before the 1-based *column* of 0-based *line*."""
    lines[line] = escape_at(lines[line], column)


def _escape_delimiter(lines: list[str], token: Token, offset: int) -> None:
    """Escape the delimiter *token*, whose map counts *offset* lines before *lines*."""
    assert token.map is not None
    first, last = token.map[0] - offset, token.map[1] - 1 - offset
    if token.type == "lmml_role" or token.markup.startswith("#"):
        source = lines[first]
        _escape(lines, first, len(source) - len(source.lstrip()) + 1)
    else:  # setext: the underline is the last line of the heading
        source = lines[last]
        _escape(lines, last, len(source) - len(source.lstrip()) + 1)


def _closer(tokens: list[Token], sentinel_line: int) -> str:
    """The closing line for the block that swallowed the sentinel heading."""
    for token in tokens:
        if token.map is None or not token.map[0] <= sentinel_line < token.map[1]:
            continue
        if token.type == "fence":
            return token.markup
        if token.type == "html_block":
            opening = token.content.lstrip().lower()
            if opening.startswith("<!--"):
                return "-->"
            for tag in ("pre", "script", "style", "textarea"):
                if opening.startswith(f"<{tag}"):
                    return f"</{tag}>"
            if opening.startswith("<?"):
                return "?>"
            if opening.startswith("<![cdata["):
                return "]]>"
            return ">"
    return ""


def escape_text(text: str, known_names: Container[str] | None = None) -> str:
    """Return *text* normalised (:func:`normalize_text`) and escaped so that, placed as a
    turn's body, it is read back as one turn with exactly this text and no embeds.

    A long text is parsed in pieces of about :data:`~lmml_mdit.chat.PIECE_CHARACTERS`,
    cut where the parse cannot change (:mod:`lmml_mdit.chat._pieces`), so that memory stays
    bounded by the piece, not the text; each piece but the last must be read closed (the
    heading after it a delimiter), or it is parsed again together with what follows. A
    text that may define link references (``]:``) or hold an ``@@@`` fence, whose names
    reach every reference, is parsed whole.

    :param known_names: the asset names the bundle will hold (its reader knows them, so
        ``@name`` of one reads as a reference even without an extension).
    :raises ImportFormatError: if the text cannot be made safe (not expected to happen).
    """
    normalized = normalize_text(text)
    if _STRUCTURE_CHARACTERS.isdisjoint(normalized):
        return normalized
    return _escaped(normalized, known_names).body


def text_block(text: str, known_names: Container[str] | None = None) -> str:
    """The block a message's *text* is written as in a turn: :func:`escape_text`'s, or,
    when a line of that would still read as a near-miss delimiter (``User:`` on a line of
    its own, ``**Assistant:**``), *text* normalised in a code fence of
    :data:`~lmml_mdit.syntax.CONTENT_FENCE_INFO`, which a send gives the model without
    its own lines, so that no command warns of the file written."""
    normalized = normalize_text(text)
    if _STRUCTURE_CHARACTERS.isdisjoint(normalized) and not may_hold_label(normalized):
        return normalized  # most prose: no line is shaped like a label, nothing to parse
    escaped = _escaped(normalized, known_names)
    return code_fence(normalized, CONTENT_FENCE_INFO) if escaped.near_miss else escaped.body


def _escaped(normalized: str, known_names: Container[str] | None) -> _Escaped:
    """*normalized* escaped (:func:`escape_text`), parsed whole or in pieces."""
    size = pieces.PIECE_CHARACTERS
    if len(normalized) <= size or "]:" in normalized or "@@@" in normalized:
        return _parsed(normalized, known_names)
    escaped: list[str] = []
    near_miss = False

    def read(piece: pieces.Piece) -> bool:
        nonlocal near_miss
        context = piece.context.split("\n") if piece.context else []
        lines = [*context, *piece.text.split("\n")]
        found = _escape_lines(lines, known_names, close=piece.final, context=len(context))
        if found is None:  # still open at the cut: to be read again with more after it
            return False
        escaped.append(found.body)
        near_miss = near_miss or found.near_miss
        return True

    pieces.read_in_pieces(normalized, 0, len(normalized), read, size)
    return _Escaped("\n".join(escaped), near_miss)


def escape_parsed(text: str, known_names: Container[str] | None = None) -> str:
    """:func:`escape_text` without the shortcut for text free of structure characters,
    parsing the text whole."""
    return _parsed(text, known_names).body


def _parsed(text: str, known_names: Container[str] | None) -> _Escaped:
    lines = normalize_text(text).split("\n") if text.strip() else []
    found = _escape_lines(lines, known_names, close=True)
    assert found is not None  # with close=True it returns or raises
    return found


def _escape_lines(
    lines: list[str], known_names: Container[str] | None, *, close: bool, context: int = 0
) -> _Escaped | None:
    """The escaped text of *lines* (changed in place), and whether a line of it reads as a
    near-miss delimiter; with *close* false, None when the text leaves a block open that
    would swallow a following heading (the caller cut it too early) instead of closing it.

    :param context: how many of the first lines are only context (a table's header and
        delimiter rows for a piece of its body): parsed, but neither escaped nor part of
        the text returned.

    :raises ImportFormatError: if the text cannot be made safe.
    """
    parser = default_parser()
    for _ in range(_MAX_ROUNDS):
        body = "\n".join(lines)
        # Between two headings, as it will stand: never at the document's start (where
        # "---" would open front matter), and a block left open swallows the second.
        document = f"{_SENTINEL}\n\n{body}\n\n{_SENTINEL}\n" if lines else _EMPTY
        env: dict[str, object] = {}
        if known_names is not None:
            env[KNOWN_NAMES_KEY] = known_names
        tokens = parser.parse(document, env)
        sentinel_line = _BODY_LINE + len(lines) + 1 if lines else _BODY_LINE
        embeds: list[Embed] = env[EMBEDS_KEY]  # type: ignore[assignment]
        delimiters: list[Token] = env[DELIMITERS_KEY]  # type: ignore[assignment]
        changed = False
        # Right to left within a line, so earlier columns stay valid.
        for embed in sorted(embeds, key=lambda e: (e.line, e.column), reverse=True):
            if context <= embed.line - 1 - _BODY_LINE < len(lines):
                _escape(lines, embed.line - 1 - _BODY_LINE, embed.column)
                changed = True
        for token in delimiters:
            if token.map is not None and context <= token.map[0] - _BODY_LINE < len(lines):
                _escape_delimiter(lines, token, _BODY_LINE)
                changed = True
        if changed:
            continue
        sentinel_found = any(
            token.map is not None and token.map[0] == sentinel_line for token in delimiters
        )
        if sentinel_found:
            first, end = _BODY_LINE + context, _BODY_LINE + len(lines)
            near_miss = any(
                marks_near_miss(token) and token.map is not None and first <= token.map[0] < end
                for token in tokens
            )
            return _Escaped("\n".join(lines[context:]) if context else body, near_miss)
        if not close:
            return None
        closer = _closer(tokens, sentinel_line)
        if not closer:
            break
        lines.append(closer)
    raise ImportFormatError(
        "message text could not be escaped for LMML",
        hint="report this text as a bug in lmml_mdit.chat",
    )
