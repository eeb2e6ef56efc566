"""Writing LMML: the inverse of the rules, for every module that writes a narrative.

What the rules read, these functions write, so that the text reads back as what was meant:
``@@@name`` fences (:func:`embed_fence`, refusing content no fence gives back with
:func:`check_fenceable`), Markdown code fences no content line can close
(:func:`code_fence`), references (:func:`reference`), LMML escapes (:func:`escape_at`) and
the numbered turn heading (:func:`turn_label`).
See docs/syntax.md, "Writing LMML".
"""

from __future__ import annotations

import re
from typing import Literal

from ..errors import NotInlinableError
from ._fence import MARKER
from ._reference import SIGIL

__all__ = [
    "CONTENT_FENCE_INFO",
    "ESCAPE",
    "FenceCharacter",
    "check_fenceable",
    "code_fence",
    "code_fence_marker",
    "embed_fence",
    "escape_at",
    "reference",
    "turn_label",
]

ESCAPE = "\\"
"""The LMML escape: before an ``@`` or at the start of a delimiter line, it keeps it text."""

CONTENT_FENCE_INFO = "lmml-content"
"""The info string of a code fence whose content is a turn's text as it is: a model is
sent what it holds, without the fence's own lines (the Transcript wraps a content no
escape makes safe in one)."""

FenceCharacter = Literal["`", "~"]
"""The characters a Markdown code fence is made of."""

_FENCE_RUNS = {"`": re.compile(r"`{3,}"), "~": re.compile(r"~{3,}")}


def embed_fence(name: str, content: str) -> str:
    """The ``@@@name`` fence holding *content*, without a newline after its closing marker.

    The fence closes on a line of its own when *content* is empty or ends with a newline;
    otherwise the marker closes it at the end of the last content line (``last line@@@``),
    which :mod:`.fence` reads back without adding a newline. Call :func:`check_fenceable`
    first: this function writes what it is given.

    :param name: the embed name (not empty, no line break, no blank at either end).
    :param content: the text the fence holds, verbatim.
    """
    return f"{MARKER}{name}\n{content}{MARKER}"


def check_fenceable(name: str, content: str, *, hint: str) -> None:
    """Refuse *content* that :func:`embed_fence` cannot give back exactly.

    A narrative reads NUL as U+FFFD and carriage returns as line feeds; a content line
    that is or ends with ``@@@`` closes the fence early (the last one too: a reader that
    knows only closing lines would not find the end); a blank last line without a final
    newline would be read as the closing line.

    :param name: the embed name, for the error.
    :param content: the text the fence would hold.
    :param hint: what the caller's user can do instead.
    :raises NotInlinableError: naming the first reason found.
    """
    if "\x00" in content:
        raise NotInlinableError("the asset is binary (it holds NUL bytes)", name=name, hint=hint)
    if "\r" in content:
        raise NotInlinableError(
            "the asset holds carriage returns, which a narrative normalizes away",
            name=name,
            hint=hint + ", or convert it to LF line endings",
        )
    lines = content.split("\n")
    for index, line in enumerate(lines):
        if line.rstrip().endswith(MARKER):
            raise NotInlinableError(
                f"line {index + 1} of the asset is or ends with {MARKER}, which would close "
                "the fence early",
                name=name,
                hint=hint,
            )
    last = lines[-1]
    if last and not last.strip():
        raise NotInlinableError(
            f"the asset ends in a blank line without a final newline, which the closing "
            f"{MARKER} would turn into the fence's closing line",
            name=name,
            hint=hint + ", or end it with a newline",
        )


def code_fence_marker(content: str, char: FenceCharacter = "`") -> str:
    """The marker for a code fence around *content*: at least three *char*, and longer
    than any run of them inside, so no line of *content* can close the fence.

    :param content: the text the fence will hold.
    :param char: ``"`"`` or ``"~"``.
    """
    longest = max((len(run) for run in _FENCE_RUNS[char].findall(content)), default=0)
    return char * max(3, longest + 1)


def code_fence(content: str, info: str = "", *, char: FenceCharacter = "`") -> str:
    """A Markdown code fence holding *content*, without a newline after its closing marker.

    :param content: the text, without its final newline (one there reads as a blank last
        line of the block).
    :param info: the info string (a language such as ``py``); a backtick fence's info
        must hold no backtick.
    :param char: ``"`"`` or ``"~"``.
    """
    marker = code_fence_marker(content, char)
    return f"{marker}{info}\n{content}\n{marker}"


def reference(name: str) -> str:
    """The reference ``@name``.

    It reads back as a reference to *name* when it stands at a word boundary and
    :func:`~lmml_mdit.syntax.writes_as_reference` holds for *name*; the caller checks that.

    :param name: the embed name.
    """
    return SIGIL + name


def escape_at(line: str, column: int) -> str:
    """*line* with the LMML escape before its 1-based *column* (an ``@`` that must not
    start a reference or fence, or the first character of a delimiter line).

    :param line: one line of a narrative.
    :param column: where the escaped character stands, 1-based.
    """
    return line[: column - 1] + ESCAPE + line[column - 1 :]


def turn_label(number: int, role: str, dash: str = "--") -> str:
    """The text of a numbered turn heading, ``Turn 3 -- tool``: what every writer of a new
    turn puts after its ``##`` (or above its underline)."""
    return f"Turn {number} {dash} {role}"
