"""Make message text safe to place in a turn, so it reads back as exactly itself.

A message can hold text that LMML would read as structure: ``@name`` (a reference),
``@@@name`` at the start of a line (a fence), a heading or ``<!-- role -->`` naming a role
(a new turn), or a block that never closes (an open code fence or HTML block swallowing
the turns after it). :func:`escape_text` finds these with the LMML parser itself, so only
what the parser would misread is touched, and fixes each:

- a reference or fence ``@`` gets a backslash: ``\\@name`` (Markdown shows ``@name``);
  only what reads as a reference is touched (``@chart.png``, or a name the bundle will
  hold, passed as *known_names*), so a mention such as ``@alice`` stays as written;
- an ATX heading naming a role gets ``\\#``, a setext underline ``\\===``/``\\---``, a role
  comment ``\\<!--``: each stays a paragraph;
- an unclosed code fence or HTML block gets its closing line appended.

The result is checked by parsing it again before a turn heading; the loop ends when the
heading is read as the only delimiter and no embed is found.

Not the transcript's escaping (:mod:`lmml_mdit.transcript.encoding`): that one is undone
exactly on reading (its manifest records it); imported text has no manifest, so here only
what the parser misreads is touched and the backslashes stay, read as Markdown escapes.
"""

from __future__ import annotations

from collections.abc import Container

from markdown_it.token import Token

from ..errors import ImportFormatError
from ..model import Embed
from ..narrative.narrative import default_parser
from ..syntax import DELIMITERS_KEY, EMBEDS_KEY, KNOWN_NAMES_KEY
from ..syntax.write import escape_at
from ..text import as_turn_text

__all__ = ["escape_text", "normalize_text"]

_SENTINEL = "## Turn 1 -- user"
_HTML_CLOSERS = ("-->", "</pre>", "</script>", "</style>", "</textarea>", "?>", "]]>", ">")
_MAX_ROUNDS = 64
# Every construct above needs one of these characters: "@" (reference, fence), "#" (ATX
# heading), "=" or "-" (setext underline), "<" (role comment, HTML block), "`" or "~"
# (code fence). Text without them is only normalised, without a parse.
_STRUCTURE_CHARACTERS = frozenset("@#=-<`~")


normalize_text = as_turn_text
"""The text as a turn reads it back (:func:`lmml_mdit.text.as_turn_text`)."""


def _escape(lines: list[str], line: int, column: int) -> None:
    """Put the LMML escape before the 1-based *column* of 0-based *line*."""
    lines[line] = escape_at(lines[line], column)


def _escape_delimiter(lines: list[str], token: Token) -> None:
    assert token.map is not None
    first, last = token.map[0], token.map[1] - 1
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

    :param known_names: the asset names the bundle will hold (its reader knows them, so
        ``@name`` of one reads as a reference even without an extension).
    :raises ImportFormatError: if the text cannot be made safe (not expected to happen).
    """
    normalized = normalize_text(text)
    if _STRUCTURE_CHARACTERS.isdisjoint(normalized):
        return normalized
    return escape_parsed(normalized, known_names)


def escape_parsed(text: str, known_names: Container[str] | None = None) -> str:
    """:func:`escape_text` without the shortcut for text free of structure characters."""
    lines = normalize_text(text).split("\n") if text.strip() else []
    parser = default_parser()
    for _ in range(_MAX_ROUNDS):
        body = "\n".join(lines)
        document = f"{body}\n\n{_SENTINEL}\n" if lines else f"{_SENTINEL}\n"
        env: dict[str, object] = {}
        if known_names is not None:
            env[KNOWN_NAMES_KEY] = known_names
        tokens = parser.parse(document, env)
        sentinel_line = len(lines) + 1 if lines else 0
        embeds: list[Embed] = env[EMBEDS_KEY]  # type: ignore[assignment]
        delimiters: list[Token] = env[DELIMITERS_KEY]  # type: ignore[assignment]
        changed = False
        # Right to left within a line, so earlier columns stay valid.
        for embed in sorted(embeds, key=lambda e: (e.line, e.column), reverse=True):
            if embed.line - 1 < len(lines):
                _escape(lines, embed.line - 1, embed.column)
                changed = True
        for token in delimiters:
            if token.map is not None and token.map[0] < len(lines):
                _escape_delimiter(lines, token)
                changed = True
        if changed:
            continue
        sentinel_found = any(
            token.map is not None and token.map[0] == sentinel_line for token in delimiters
        )
        if sentinel_found:
            return body
        closer = _closer(tokens, sentinel_line)
        if not closer:
            break
        lines.append(closer)
    raise ImportFormatError(
        "message text could not be escaped for LMML",
        hint="report this text as a bug in lmml_mdit.chat",
    )
