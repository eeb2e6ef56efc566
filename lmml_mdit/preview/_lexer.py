"""The Pygments lexer for LMML source: Markdown, with LMML's constructs marked.

Found through the ``pygments.lexers`` entry point (alias ``lmml``) and used by the preview
for LMML source it shows. It marks front matter (:data:`FRONT_MATTER_MARKER`, the content
as YAML), ``@@@`` fences (:data:`EMBED_MARKER`,
:data:`EMBED_NAME`, the content in the lexer its name picks), role delimiters
(:data:`ROLE`), references (:data:`REFERENCE`) and escapes (:data:`ESCAPE`) line by line,
and a template's placeholders (:data:`PLACEHOLDER`) as the parse finds them; the rest is
Pygments' Markdown lexer. See docs/toolchain.md, "The Pygments lexer".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import ClassVar

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.lexers.markup import MarkdownLexer
from pygments.lexers.special import TextLexer
from pygments.token import Comment, Generic, Keyword, Name, String, Text, _TokenType
from pygments.util import ClassNotFound

from ..syntax import (
    COMMENT_CLOSE,
    COMMENT_OPEN,
    MARKER,
    SIGIL,
    atx_content_end,
    comment_role,
    has_extension,
    heading_role,
    match_reference_name,
)
from ..text import line_starts

__all__ = [
    "EMBED_MARKER",
    "EMBED_NAME",
    "ESCAPE",
    "FRONT_MATTER_MARKER",
    "LEXER_ALIAS",
    "PLACEHOLDER",
    "REFERENCE",
    "ROLE",
    "LmmlLexer",
]

LEXER_ALIAS = "lmml"
"""The lexer's name for Pygments (``get_lexer_by_name``) and for a code fence's info."""

EMBED_MARKER = Keyword
"""The token type of an ``@@@`` marker."""
EMBED_NAME = Name.Label
"""The token type of a fence's name."""
REFERENCE = Name.Variable
"""The token type of a reference ``@name``."""
ESCAPE = String.Escape
"""The token type of an LMML escape ``\\@``."""
ROLE = Keyword.Pseudo
"""The token type of the role word in a delimiter."""
FRONT_MATTER_MARKER = Comment.Preproc
"""The token type of the lines that open and close front matter (``---``)."""
PLACEHOLDER = String.Interpol
"""The token type of a template's placeholder ``{{ name }}`` (in a narrative that declares
no inputs, ``{{ ... }}`` is ordinary text and left unmarked)."""

TokenStream = Iterator[tuple[int, _TokenType, str]]

_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*")
_CODE_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
# Front matter: a first line of three dashes alone, closed by the first line of three or
# more dashes (indented up to three spaces) or of three dots (docs/syntax.md).
_FRONT_MATTER_OPEN = re.compile(r"---[ \t]*")
_FRONT_MATTER_CLOSE = re.compile(r"(?: {0,3}-{3,}|\.\.\.)[ \t]*")
_WORD_JOINERS = frozenset("_+-.@/:")
# Markdown tokens whose text may hold references (not code, links' targets or markup).
_PROSE = (Text, Name.Entity, Generic.Emph, Generic.Strong)


def _atx_span(line: str) -> tuple[int, int] | None:
    """Where the text of *line* read as an ATX heading starts and ends, or None."""
    indent = len(line) - len(line.lstrip(" "))
    opening = len(line) - indent - len(line[indent:].lstrip("#"))
    if indent > 3 or not 1 <= opening <= 6:
        return None
    text_at = indent + opening
    while text_at < len(line) and line[text_at] in " \t":
        text_at += 1
    if text_at == indent + opening:
        return None  # no white space after the opening
    return text_at, text_at + atx_content_end(line[text_at:])


def _within(token_type: _TokenType, kind: _TokenType) -> bool:
    """Whether *token_type* is *kind* or one of its subtypes."""
    return token_type[: len(kind)] == kind


def _is_prose(token_type: _TokenType) -> bool:
    return any(_within(token_type, kind) for kind in _PROSE) and not _within(
        token_type, Text.Whitespace
    )


def _reference_spans(text: str) -> list[tuple[int, int, _TokenType]]:
    """``(start, end, type)`` of each reference and ``\\@`` escape in *text*, in order."""
    spans: list[tuple[int, int, _TokenType]] = []
    at = text.find(SIGIL)
    while at >= 0:
        before = text[at - 1] if at else ""
        if before == "\\" and (at < 2 or text[at - 2] != "\\"):
            spans.append((at - 1, at + 1, ESCAPE))
        elif not (before.isalnum() or before in _WORD_JOINERS) or not before:
            name = match_reference_name(text, at + 1, len(text))
            if name is not None and has_extension(name):
                spans.append((at, at + 1 + len(name), REFERENCE))
                at = text.find(SIGIL, at + 1 + len(name))
                continue
        at = text.find(SIGIL, at + 1)
    return spans


_JOINED = (REFERENCE, ESCAPE, PLACEHOLDER)


def _merged(tokens: TokenStream) -> TokenStream:
    """*tokens* with neighbours of one LMML type joined (the Markdown lexer cuts a name
    such as ``@chart.png`` at its dot)."""
    held: tuple[int, _TokenType, str] | None = None
    for token in tokens:
        if held is not None and token[1] is held[1] and held[1] in _JOINED:
            held = (held[0], held[1], held[2] + token[2])
            continue
        if held is not None:
            yield held
        held = token
    if held is not None:
        yield held


def _content_lexer(name: str, content: str, options: dict[str, object]) -> Lexer:
    try:
        return get_lexer_for_filename(name, content, **options)
    except ClassNotFound:
        return TextLexer(**options)


def _placeholder_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of each placeholder the parse finds in *text* that a value
    fills (in text, or in code for an ``in_code`` input), when *text* declares inputs (a
    template); none otherwise, or when it does not read."""
    if "{{" not in text:
        return []
    from ..bundle import Bundle  # imported here: only text that may hold a placeholder
    from ..errors import LmmlError
    from ..templates import declared_inputs

    try:
        bundle = Bundle.from_text("source", text)
        declarations = declared_inputs(bundle)
        found = [
            placeholder
            for placeholder in declarations.placeholders(bundle.narrative.placeholders).found
            if placeholder.context == "text" or declarations.fills(placeholder) is not None
        ]
    except LmmlError:
        return []
    if not found:
        return []
    starts = line_starts(text)
    shift = 1 if text.startswith("\ufeff") else 0  # the parse reads the text without it
    spans = []
    for placeholder in found:
        line_start = starts[placeholder.line - 1] + (shift if placeholder.line == 1 else 0)
        spans.append((line_start + placeholder.column - 1, line_start + placeholder.end - 1))
    return sorted(spans)


def _overlaid(tokens: TokenStream, spans: list[tuple[int, int]], kind: _TokenType) -> TokenStream:
    """*tokens* with the characters inside *spans* (in order, not overlapping) given the
    type *kind*, a token cut where a span starts or ends."""
    index = 0
    for offset, token_type, value in tokens:
        stop = offset + len(value)
        at = offset
        while index < len(spans) and spans[index][0] < stop:
            start, end = spans[index]
            if start > at:
                yield at, token_type, value[at - offset : start - offset]
                at = start
            cut = min(end, stop)
            if cut > at:
                yield at, kind, value[at - offset : cut - offset]
                at = cut
            if end > stop:
                break  # the span goes on into the next token
            index += 1
        if at < stop:
            yield at, token_type, value[at - offset :]


class LmmlLexer(Lexer):
    """Pygments lexer for LMML narratives (``.lmml``): see the module docstring."""

    name: ClassVar[str] = "LMML"
    aliases: ClassVar[list[str]] = [LEXER_ALIAS]
    filenames: ClassVar[list[str]] = ["*.lmml"]
    mimetypes: ClassVar[list[str]] = ["text/x-lmml"]

    def get_tokens_unprocessed(self, text: str) -> TokenStream:
        """Tokens of *text*, with their offsets."""
        spans = _placeholder_spans(text)
        tokens = self._tokens(text)
        yield from _merged(_overlaid(tokens, spans, PLACEHOLDER)) if spans else tokens

    def _tokens(self, text: str) -> TokenStream:
        """Tokens of *text*, placeholders not yet marked."""
        lines = text.splitlines(keepends=True)
        offsets = [0]
        for line in lines:
            offsets.append(offsets[-1] + len(line))
        markdown_start: int | None = None
        index = self._front_matter_end(lines)
        if index:
            yield from self._front_matter(lines, offsets, index)
        while index < len(lines):
            line = lines[index]
            bare = line.rstrip("\n")
            code = _CODE_FENCE.match(bare)
            if code is not None:
                end = self._code_fence_end(lines, index, code.group(1))
                if markdown_start is None:
                    markdown_start = index
                index = end
                continue
            lmml_end = self._lmml_block_end(lines, index)
            if lmml_end is None:
                if markdown_start is None:
                    markdown_start = index
                index += 1
                continue
            if markdown_start is not None:
                yield from self._markdown(text, offsets, markdown_start, index)
                markdown_start = None
            yield from self._lmml_block(lines, offsets, index, lmml_end)
            index = lmml_end
        if markdown_start is not None:
            yield from self._markdown(text, offsets, markdown_start, len(lines))

    # -- finding blocks --------------------------------------------------------------------

    @staticmethod
    def _code_fence_end(lines: list[str], index: int, marker: str) -> int:
        """The line after a Markdown code fence opened at *index* (the end, unclosed)."""
        char = marker[0]
        for end in range(index + 1, len(lines)):
            stripped = lines[end].strip()
            if len(stripped) >= len(marker) and stripped == char * len(stripped):
                return end + 1
        return len(lines)

    @staticmethod
    def _front_matter_end(lines: list[str]) -> int:
        """The line after a front matter block on the first line, or 0 when none opens."""
        if not lines or not _FRONT_MATTER_OPEN.fullmatch(lines[0].rstrip("\r\n")):
            return 0
        for end in range(1, len(lines)):
            if _FRONT_MATTER_CLOSE.fullmatch(lines[end].rstrip("\r\n")):
                return end + 1
        return 0  # never closed: Markdown

    @staticmethod
    def _fence_name(line: str) -> str | None:
        stripped = line.lstrip(" ")
        if len(line) - len(stripped) > 3 or not stripped.startswith(MARKER):
            return None
        name = stripped[len(MARKER) :].strip()
        return name or None

    def _lmml_block_end(self, lines: list[str], index: int) -> int | None:
        """The line after the LMML block starting at *index*, or None when none does."""
        line = lines[index].rstrip("\n")
        if self._fence_name(line) is not None:
            for end in range(index + 1, len(lines)):
                if lines[end].rstrip().endswith(MARKER):
                    return end + 1
            return len(lines)
        if comment_role(line) is not None and len(line) - len(line.lstrip(" ")) <= 3:
            return index + 1
        atx = _atx_span(line)
        if atx is not None and heading_role(line[atx[0] : atx[1]]) is not None:
            return index + 1
        if (
            index + 1 < len(lines)
            and line.strip()
            and _SETEXT.fullmatch(lines[index + 1].rstrip("\n"))
            and (index == 0 or not lines[index - 1].strip())
            and heading_role(line.strip()) is not None
        ):
            return index + 2
        return None

    # -- tokens ---------------------------------------------------------------------------

    def _markdown(self, text: str, offsets: list[int], first: int, end: int) -> TokenStream:
        start, stop = offsets[first], offsets[end]
        chunk = text[start:stop]
        spans = _reference_spans(chunk)
        lexer = MarkdownLexer(**self.options)  # type: ignore[no-untyped-call]
        tokens = lexer.get_tokens_unprocessed(chunk)
        if not spans:
            for offset, token_type, value in tokens:
                yield start + offset, token_type, value
            return
        yield from _merged(self._marked(start, tokens, spans))

    @staticmethod
    def _marked(
        start: int, tokens: TokenStream, spans: list[tuple[int, int, _TokenType]]
    ) -> TokenStream:
        """*tokens* with the parts of prose tokens inside *spans* given the spans' types
        (tokens and spans both in order, so one pass over each)."""
        first = 0  # the first span that may still overlap a token
        for offset, token_type, value in tokens:
            stop = offset + len(value)
            while first < len(spans) and spans[first][1] <= offset:
                first += 1
            if not _is_prose(token_type) or first == len(spans) or spans[first][0] >= stop:
                yield start + offset, token_type, value
                continue
            at = offset
            index = first
            while index < len(spans) and spans[index][0] < stop:
                span_start, span_end, span_type = spans[index]
                if span_start > at:
                    yield start + at, token_type, value[at - offset : span_start - offset]
                    at = span_start
                cut = min(span_end, stop)
                if cut > at:
                    yield start + at, span_type, value[at - offset : cut - offset]
                    at = cut
                index += 1
            if at < stop:
                yield start + at, token_type, value[at - offset :]

    def _lmml_block(
        self, lines: list[str], offsets: list[int], first: int, end: int
    ) -> TokenStream:
        line = lines[first]
        start = offsets[first]
        bare = line.rstrip("\n")
        name = self._fence_name(bare)
        if name is not None:
            yield from self._fence(lines, offsets, first, end, name)
            return
        if comment_role(bare) is not None:
            yield from self._comment(start, line)
            return
        atx = _atx_span(bare)
        if atx is not None:
            yield from self._heading(start, line, *atx)
            return
        yield from self._heading(start, line, 0, len(bare))
        yield offsets[first + 1], Generic.Heading, lines[first + 1]

    def _front_matter(self, lines: list[str], offsets: list[int], end: int) -> TokenStream:
        """The front matter's marker lines, and its content as YAML."""
        yield from self._marker_line(lines[0], offsets[0])
        content = "".join(lines[1 : end - 1])
        if content:
            lexer = _content_lexer("front-matter.yaml", content, self.options)
            for offset, token_type, value in lexer.get_tokens_unprocessed(content):
                yield offsets[1] + offset, token_type, value
        yield from self._marker_line(lines[end - 1], offsets[end - 1])

    @staticmethod
    def _marker_line(line: str, start: int) -> TokenStream:
        bare = line.rstrip("\r\n")
        yield start, FRONT_MATTER_MARKER, bare
        if len(line) > len(bare):
            yield start + len(bare), Text.Whitespace, line[len(bare) :]

    def _fence(
        self, lines: list[str], offsets: list[int], first: int, end: int, name: str
    ) -> TokenStream:
        opening = lines[first]
        start = offsets[first]
        marker_at = opening.index(MARKER)
        name_at = opening.index(name, marker_at + len(MARKER))
        if marker_at:
            yield start, Text.Whitespace, opening[:marker_at]
        yield start + marker_at, EMBED_MARKER, MARKER
        if name_at > marker_at + len(MARKER):
            yield start + marker_at + len(MARKER), Text.Whitespace, opening[marker_at + 3 : name_at]
        name_end = name_at + len(name)
        yield start + name_at, EMBED_NAME, name
        if opening[name_end:]:
            yield start + name_end, Text.Whitespace, opening[name_end:]
        last = lines[end - 1] if end - 1 > first else ""
        closes = end - 1 > first and last.rstrip().endswith(MARKER)
        content_end = offsets[end - 1] if closes else offsets[end]
        content = "".join(lines[first + 1 : end - 1 if closes else end])
        close_line = last if closes else ""
        close_at = close_line.rstrip().rfind(MARKER) if closes else -1
        if closes and close_line[:close_at].strip():
            # The tail close: the last content line ends with the marker.
            content += close_line[:close_at]
            close_line = close_line[close_at:]
            close_offset = content_end + close_at
        else:
            close_offset = content_end
        if content:
            lexer = _content_lexer(name, content, self.options)
            for offset, token_type, value in lexer.get_tokens_unprocessed(content):
                yield offsets[first + 1] + offset, token_type, value
        if closes:
            marker = close_line.index(MARKER)
            if marker:
                yield close_offset, Text.Whitespace, close_line[:marker]
            yield close_offset + marker, EMBED_MARKER, MARKER
            if close_line[marker + len(MARKER) :]:
                yield close_offset + marker + 3, Text.Whitespace, close_line[marker + 3 :]

    @staticmethod
    def _comment(start: int, line: str) -> TokenStream:
        bare = line.rstrip("\n")
        opening = bare.index(COMMENT_OPEN) + len(COMMENT_OPEN)
        closing = bare.rindex(COMMENT_CLOSE)
        inner = bare[opening:closing]
        word_at = opening + len(inner) - len(inner.lstrip())
        word_end = opening + len(inner.rstrip())
        yield start, Comment.Special, bare[:word_at]
        yield start + word_at, ROLE, bare[word_at:word_end]
        yield start + word_end, Comment.Special, bare[word_end:]
        if line.endswith("\n"):
            yield start + len(bare), Text.Whitespace, "\n"

    @staticmethod
    def _heading(start: int, line: str, text_at: int, text_end: int) -> TokenStream:
        """A delimiter heading's line: the role word as :data:`ROLE`, the rest a heading."""
        bare = line.rstrip("\n")
        text = bare[text_at:text_end]
        role = heading_role(text) or ""
        word_at = text.lower().rfind(role) if role else -1
        if word_at < 0:
            yield start, Generic.Heading, bare
        else:
            head = text_at + word_at
            yield start, Generic.Heading, bare[:head]
            yield start + head, ROLE, bare[head : head + len(role)]
            if head + len(role) < len(bare):
                yield start + head + len(role), Generic.Heading, bare[head + len(role) :]
        if line.endswith("\n"):
            yield start + len(bare), Text.Whitespace, "\n"
