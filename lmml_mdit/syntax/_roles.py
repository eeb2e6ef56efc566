"""Role delimiters: the headings and comments that split a narrative into turns.

A top-level heading or ``<!-- role -->`` comment that is a delimiter gets
``meta["lmml_role"]``; one shaped like a delimiter but none gets ``meta["lmml_suspicious"]``,
reported by :func:`delimiter_issues` as ``suspicious_delimiter``. The grammar (strict and
``delimiters="loose"``) and the near misses are in docs/syntax.md, "Role delimiters" and
"Near misses: suspicious_delimiter".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from ..model import MESSAGE_ROLES, Issue, Role
from ..modes import DELIMITER_MODES as DELIMITER_MODES
from ..modes import DelimiterMode as DelimiterMode
from ..text import clipped
from ._keys import ROLE_TOKENS_KEY

SUSPICIOUS_DELIMITER = "suspicious_delimiter"
"""The :class:`~lmml_mdit.model.Issue` kind of a near-miss delimiter heading."""
SUSPICIOUS_KEY = "lmml_suspicious"
"""The ``meta`` key of a top-level block whose first line is a near miss: ``(word,
message)``; :data:`LATER_LABELS` holds those of its later lines."""
LATER_LABELS = "lmml_suspicious_lines"
"""The ``meta`` key of a paragraph's label near misses after its first line:
``(line offset, word, message)`` each (see :func:`later_label_lines`)."""

_ROLES: dict[str, Role] = {role: role for role in MESSAGE_ROLES}
# A role spelled out as a whole word: not preceded or followed by a letter (a word is a run
# of letters, so digits, "_" and punctuation separate words).
_ROLE_WORD = re.compile(
    r"(?<![^\W\d_])(?:" + "|".join(MESSAGE_ROLES) + r")(?![^\W\d_])", re.IGNORECASE
)
_DASH = r"(?:--|\u2013|\u2014)"
# label, the last spaced dash, one word: the strict form and its near misses.
_LABELLED = re.compile(r"(.*\S)[ \t]+" + _DASH + r"[ \t]+(\w+)", re.DOTALL)
_TURN_LABEL = re.compile(r"(turn)[ \t]*(\d+)", re.IGNORECASE)
_TURN_UNSPACED = re.compile(r"turn\d", re.IGNORECASE)
# "Turn N", one separator of turn-sep, the rest: a delimiter when the rest is a role.
_TURN_FORM = re.compile(
    r"(turn[ \t]+\d+)[ \t]*(?:--|-|:|\u2013|\u2014)[ \t]*(.*)", re.IGNORECASE | re.DOTALL
)
# "Turn N" followed by any separator: shaped like RFC 6.1, even when the form is off (no
# space before the number, as in "Turn2 - user", is off too).
# The other marks are the dashes and colons a word processor or a web page writes for "-"
# and ":" (hyphen, figure dash, horizontal bar, minus sign, small and full-width forms).
_TURN_SHAPED = re.compile(
    r"turn[ \t]*\d+[ \t]*[-:|\u2010-\u2015\u2212\ufe58\ufe63\uff0d\uff1a]+[ \t]*(.*)",
    re.IGNORECASE | re.DOTALL,
)
# The spaces a copied web page writes where a space is meant (no-break, en, em, thin ...),
# and the full-width colon a CJK input method writes for ":".
_ODD_SPACE = re.compile(r"[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_FULL_WIDTH_COLON = "\uff1a"
_ODD_MARK = re.compile(r"[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\uff1a]")
_MAX_NOTE = 32
"""The longest note in parentheses a speaker label may end with (``Assistant (GPT-4)``)."""
# "Turn N", no separator or another mark ("Turn 2 assistant", "Turn 2. assistant", a box
# drawing dash), then a role: a delimiter with its separator off.
_TURN_ROLE = re.compile(
    r"turn[ \t]*\d+(?:[ \t]*[.)=>~/\u2500\u2501]+[ \t]*|[ \t]+)(\w+)[ \t]*:?",
    re.IGNORECASE,
)
_ONE_WORD = re.compile(r"[^\W\d_]+")
_STAND_IN_ROLES: dict[str, Role] = {
    "bot": "assistant",
    "ai": "assistant",
    "model": "assistant",
    "human": "user",
    "developer": "system",
    "function": "tool",
    "chatgpt": "assistant",
    "gpt": "assistant",
    "claude": "assistant",
    "gemini": "assistant",
    "copilot": "assistant",
}
"""Words people write for a role, each with the role it usually stands for."""
_ROLE_STAND_INS = frozenset(_STAND_IN_ROLES)
_LABEL_STAND_INS: dict[str, Role] = {**_STAND_IN_ROLES, "you": "user", "me": "user"}
"""The stand-ins a chat copied from a web page labels its speakers with (``You said:``)."""
_TEXT_LABELS = frozenset({"user", "assistant", "human", "ai", "chatgpt", "claude", "gemini"})
"""The labels a plain line ``Label: text`` is taken as a near miss for."""
_CHAT_SPEAKERS = _TEXT_LABELS | {"bot", "gpt", "copilot", "you", "me"}
"""The labels a bold ``**Label:** text`` is taken as a near miss for (with the misspelt
``user`` and ``assistant``)."""
_MAX_LABEL = 40
"""The longest first line a label paragraph can have, in characters."""
COMMENT_OPEN = "<!--"
COMMENT_CLOSE = "-->"


def role_word(text: str) -> Role | None:
    """The first whole word of *text* that names a role (any case), or None."""
    lowered = text.lower()
    # Most headings name no role at all: four substring tests rule them out cheaply.
    if not (
        "user" in lowered or "assistant" in lowered or "system" in lowered or "tool" in lowered
    ):
        return None
    for match in _ROLE_WORD.finditer(text):
        # IGNORECASE also folds a few non-ASCII letters onto ASCII ones ("ſ" onto "s"):
        # only a word that lowercases to a role counts.
        role = _ROLES.get(match.group().lower())
        if role is not None:
            return role
    return None


def atx_content_end(text: str) -> int:
    """Where an ATX heading's content ends in *text* (the line after the opening ``#``
    characters and the white space after them): before a closing sequence (white space,
    then ``#`` characters) and trailing white space. One pass over *text* (a pattern with a
    lazy content group backtracks quadratically over a long run of white space)."""
    kept = text.rstrip(" \t")
    bare = kept.rstrip("#")
    if len(bare) < len(kept) and bare[-1:] in (" ", "\t"):
        return len(bare.rstrip(" \t"))
    return len(kept)


def heading_role(text: str, delimiters: DelimiterMode = "strict") -> Role | None:
    """The role a heading whose text is *text* delimits, or None (see the module grammar).

    :param text: the heading's inline content.
    :param delimiters: ``"strict"`` (the whole text is the role, or ``label -- role``) or
        ``"loose"`` (:func:`role_word`).
    """
    if delimiters == "loose":
        return role_word(text)
    return strict_heading_role(text)


def strict_heading_role(text: str) -> Role | None:
    """The role of a heading text that is only a role or ``label <dash> role``, or None."""
    stripped = text.strip()
    role = _ROLES.get(stripped.lower())
    if role is not None:
        return role
    if stripped.endswith(":"):
        return _ROLES.get(stripped[:-1].rstrip().lower())
    # Cheap tests first: most headings end in no role at all.
    if not stripped or not stripped[-1].isalpha():
        return None
    if stripped[:1] in ("t", "T"):
        turn = _TURN_FORM.fullmatch(stripped)
        if turn is not None:
            role = _ROLES.get(turn.group(2).lower())
            if role is not None:
                return role
    if not _has_dash(stripped):
        return None
    match = _LABELLED.fullmatch(stripped)
    if match is None:
        return None
    return _ROLES.get(match.group(2).lower())


def could_be_strict_delimiter(text: str) -> bool:
    """False only for a heading text that is neither a strict delimiter nor a near miss
    (:func:`near_miss`): one that starts with no ``t`` and no emphasis, holds a space and no
    dash, and does not end in a colon. Most headings are such, and this tells them apart in
    one scan."""
    stripped = text.strip()
    return (
        stripped[:1] in ("t", "T", "*", "_")
        or " " not in stripped
        or stripped.endswith(":")
        or _has_dash(stripped)
    )


def _has_dash(text: str) -> bool:
    return "--" in text or "\u2013" in text or "\u2014" in text


def _edit_distance(a: str, b: str, limit: int) -> int:
    """The optimal-string-alignment distance of *a* and *b* (letters swapped count once),
    or ``limit + 1`` when it exceeds *limit* (words are short: this is a few dozen steps)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, char_b in enumerate(b, 1):
            cost = 0 if char_a == char_b else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def _misspelt_role(word: str, *, long_only: bool = False) -> Role | None:
    """The role *word* looks like a misspelling of, or None: a word holding a whole role
    (``users``, ``systemd``, ``toolkit``) is another word, not a misspelling."""
    lowered = word.lower()
    for role in MESSAGE_ROLES:
        if role in lowered:
            return None
    for role in MESSAGE_ROLES:
        limit = 2 if len(role) > 4 else 1
        if long_only and limit < 2:
            continue
        if _edit_distance(lowered, role, limit) <= limit:
            return role
    return None


def suggested_role(word: str) -> Role | None:
    """The role a near-miss delimiter's *word* was likely meant as: the role it misspells
    (``asistant``), or the one a stand-in usually names (``bot`` for assistant, ``human`` for
    user), or None."""
    return _misspelt_role(word) or _STAND_IN_ROLES.get(word.lower())


def corrected_heading(text: str) -> str | None:
    """The strict delimiter text a heading shaped like ``Turn N`` with another separator was
    meant as (``Turn 1 -- user`` for ``Turn 1: user`` or ``Turn2 - user``; ``Assistant:``
    for ``**Assistant:**``, ``assistant:`` for ``**ChatGPT said:**``), or None when *text*
    is not that shape or names no role after its separator."""
    stripped = text.strip()
    plain = _plain_spaced(stripped)
    if plain is not None:  # plain spaces for the odd ones
        return plain
    emphasised = _emphasised_label(stripped)
    if emphasised is not None:  # the label without emphasis, a stand-in as its role
        word = emphasised.removesuffix(":")
        named = word if word.lower() in _ROLES else label_role(word)
        return None if named is None else named + emphasised[len(word) :]
    inner, wrapped = _unwrapped(stripped)
    if wrapped and strict_heading_role(inner) is not None:  # a delimiter in emphasis
        return inner
    turn_shaped = _TURN_SHAPED.fullmatch(stripped) if stripped[:1] in "tT" else None
    turn_shaped = turn_shaped or _turn_role(stripped)
    label = _TURN_LABEL.match(stripped)
    if turn_shaped is None or label is None:
        return None
    role = _ROLES.get(turn_shaped.group(1).strip().lower())
    return f"{label.group(1)} {label.group(2)} -- {role}" if role is not None else None


def _emphasised_label(text: str) -> str | None:
    """The speaker label an emphasised heading text holds (``Assistant:`` for
    ``**Assistant:**`` or ``**Assistant**:``), or None."""
    inner, wrapped = _unwrapped(text.removesuffix(":").rstrip())
    if not wrapped:
        return None
    colon = text.endswith(":") or inner.endswith(":")
    label = inner.removesuffix(":").rstrip()
    if not label or label_role(label) is None:
        return None
    return label + ":" if colon else label


def _turn_role(text: str) -> re.Match[str] | None:
    """``Turn N`` then a role, with no separator or another mark between, or None."""
    match = _TURN_ROLE.fullmatch(text) if text[:1] in "tT" else None
    return match if match is not None and match.group(1).lower() in _ROLES else None


def _plain_marks(text: str) -> str:
    """*text* with a plain space for each odd one and ``:`` for each full-width colon."""
    return _ODD_SPACE.sub(" ", text).replace(_FULL_WIDTH_COLON, ":")


def _plain_spaced(text: str) -> str | None:
    """*text* with plain spaces for the odd ones it holds (``Turn\\u00a01 - user``) and
    ``:`` for a full-width colon (``Assistant\\uff1a``), when that makes it a strict
    delimiter; else None."""
    if text.isascii() or _ODD_MARK.search(text) is None:
        return None
    spaced = _plain_marks(text)
    return spaced if strict_heading_role(spaced) is not None else None


def near_miss(text: str) -> str | None:
    """The word that keeps a delimiter-shaped heading text from being a strict delimiter
    (``bot`` in ``Turn 3 -- bot``), or None when the text is not shaped like one."""
    stripped = text.strip()
    if not stripped:
        return None
    plain = _plain_spaced(stripped)
    if plain is not None:
        return strict_heading_role(plain)  # the role: its spaces are what is off
    if not stripped.isascii():
        stripped = _ODD_SPACE.sub(" ", stripped)  # odd spaces and another fault
    if stripped[:1] in ("*", "_"):
        emphasised = _emphasised_label(stripped)
        if emphasised is not None:
            return emphasised.removesuffix(":")
        inner, _ = _unwrapped(stripped)
        return inner if strict_heading_role(inner) is not None else None
    turn_shaped = _TURN_SHAPED.fullmatch(stripped) if stripped[:1] in "tT" else None
    if turn_shaped is not None:
        rest = turn_shaped.group(1).strip()
        return rest or stripped
    spaced = _turn_role(stripped)
    if spaced is not None:
        return spaced.group(1)  # the role: its separator is what is off
    match = _LABELLED.fullmatch(stripped) if _has_dash(stripped) else None
    if match is not None:
        word = match.group(2)
        if word.lower() in _ROLE_STAND_INS or _misspelt_role(word) is not None:
            return word
        return None
    if stripped.endswith(":"):
        word = stripped[:-1].rstrip()
        if _ONE_WORD.fullmatch(word) is not None and suggested_role(word) is not None:
            return word
        if word.lower().endswith(" said") and label_role(word) is not None:
            return word  # "You said:", "ChatGPT said:": a chat page's speaker label
        if word.endswith(")") and label_role(word) is not None:
            return word  # "Assistant (GPT-4):": a label with a note of the model
        return None
    one_word = (
        len(stripped) >= 5 and " " not in stripped and _ONE_WORD.fullmatch(stripped) is not None
    )
    if one_word and _misspelt_role(stripped, long_only=True) is not None:
        return stripped
    return None


_QUOTED = 80
"""The most characters of a heading (or of a word in it) a message quotes."""


def suspicious_heading(
    text: str, delimiters: DelimiterMode, role: Role | None
) -> tuple[str, str] | None:
    """Why a top-level heading is a suspicious delimiter: ``(word at fault, message)``, or
    None.

    :param text: the heading's text.
    :param delimiters: the mode the heading was read in.
    :param role: the role it delimits in that mode, or None.
    """
    if role is None:
        word = near_miss(text)
        if word is None:
            return None
        heading = text.strip()
        named = _ROLES.get(word.lower())
        # What the message quotes of the heading is cut short: a heading is one line, which
        # may be megabytes long, and the warning is said on every command.
        shown, said = clipped(heading, _QUOTED), clipped(word, _QUOTED)
        plain = _plain_spaced(heading)
        if plain is not None:
            odd = _ODD_MARK.search(heading)
            code = f"U+{ord(odd.group()):04X}" if odd is not None else "U+00A0"
            kind = "a non-breaking space" if code in ("U+00A0", "U+202F") else "a space"
            intended, fix = "a space is", "plain spaces"
            if code == "U+FF1A":
                kind, intended, fix = "a full-width colon", "':' is", "':'"
            return word, (
                f"the heading {shown!r} looks like a role delimiter but holds {kind} "
                f"({code}) where {intended} meant, so it is an ordinary heading (did you "
                f"mean '## {clipped(plain, _QUOTED)}'?); write {fix}, or reword the "
                "heading"
            )
        if heading[:1] in ("*", "_"):
            label = label_role(word) or clipped(word, _QUOTED)
            return word, (
                f"the heading {shown!r} looks like a role delimiter but the emphasis around "
                f"its label keeps it from being one, so it is an ordinary heading (did you "
                f"mean '## {label}'?); write the label without emphasis, or reword the heading"
            )
        if named is not None and _TURN_UNSPACED.match(heading):
            return word, (
                f"the heading {shown!r} looks like a role delimiter but has no space between "
                f"'Turn' and its number, so it is an ordinary heading (did you mean "
                f"'## {clipped(str(corrected_heading(heading)), _QUOTED)}'?); write that, or "
                "reword the heading"
            )
        if named is not None:
            # The role is right; what is off is the separator ("Turn 2 - user", "Turn 2: user").
            return word, (
                f"the heading {shown!r} looks like a role delimiter but its separator is none "
                f"of '-', '--', ':', en or em dash, so it is an ordinary heading (did you "
                f"mean '## Turn N -- {named}'?); write that, or reword the heading"
            )
        meant = suggested_role(word) or label_role(word)
        guess = f" (did you mean {meant}?)" if meant is not None else ""
        return word, (
            f"the heading {shown!r} looks like a role delimiter but {said!r} is not a "
            f"role{guess}, so it is an ordinary heading; write '## Turn N -- user' (or "
            "assistant, system, tool), or reword the heading"
        )
    if delimiters == "loose" and strict_heading_role(text) is None:
        shown = clipped(text.strip(), _QUOTED)
        return role, (
            f"the heading {shown!r} opens {'an' if role == 'assistant' else 'a'} {role} turn "
            "only because it holds the word "
            f"{role!r} (loose delimiters); write '## {role}' if a turn is meant, or parse "
            "with the default strict delimiters"
        )
    return None


def label_role(label: str) -> Role | None:
    """The role a speaker label (``Assistant``, ``ChatGPT said``, ``Asistant``) names, or
    None for a word that is no label."""
    lowered = _bare_label(label)
    if lowered in _ROLES:
        return _ROLES[lowered]
    if _ONE_WORD.fullmatch(lowered) is None:
        return None
    return _LABEL_STAND_INS.get(lowered) or _misspelt_role(lowered)


def _bare_label(label: str) -> str:
    """*label* in lower case without a trailing `` said`` or a short note in parentheses
    (``assistant`` for ``Assistant (GPT-4)``, ``chatgpt`` for ``ChatGPT said``)."""
    lowered = label.lower()
    if lowered.endswith(")"):
        start = lowered.rfind("(")
        bare = lowered[:start].rstrip(" \t")
        if 0 < len(bare) < start and len(lowered) - start <= _MAX_NOTE and ")" not in bare[-1:]:
            lowered = bare
    if lowered.endswith(" said"):
        lowered = lowered[: -len(" said")].rstrip()
    return lowered


def _unwrapped(text: str) -> tuple[str, bool]:
    """*text* without the emphasis markers around it (``**``, ``__``, ``*``, ``_``), and
    whether it had them."""
    for marker in ("**", "__", "*", "_"):
        if len(text) > 2 * len(marker) and text.startswith(marker) and text.endswith(marker):
            return text[len(marker) : -len(marker)].strip(), True
    return text, False


def _speaker_role(label: str) -> Role | None:
    """The role of a label that names a chat speaker (``User``, ``Human``, ``ChatGPT said``,
    ``Usr``), or None: ``Tool``, ``System`` and ``Model`` lead ordinary prose too
    (``**Tool:** pytest``)."""
    role = label_role(label)
    if role is None:
        return None
    base = _bare_label(label)
    if base in _CHAT_SPEAKERS:
        return role
    return role if role in ("user", "assistant") and base not in _LABEL_STAND_INS else None


def _label_message(shown: str, meant: str) -> str:
    """The message of a label line *shown*, with the heading text *meant* for it."""
    return (
        f"the line {shown!r} looks like a role label but is no delimiter, so what follows "
        f"stays in the turn before it (did you mean '## {meant}'?); write the label as a "
        "heading on its own line, or reword it"
    )


def label_near_miss(content: str) -> tuple[str, str] | None:
    """Why a top-level paragraph whose inline content is *content* looks like a role
    label that is no delimiter: ``(word at fault, message)``, or None.

    A paragraph is a near miss when its first line is only a label, bold or plain
    (``**Assistant:**``, ``**User**``, ``User:``, ``ChatGPT said:``), or when it starts with
    a chat speaker's label, bold (``**User:** how do I ...``) or plain (``User: hi``,
    ``Human: hi``): ``**Tool:** pytest`` and ``**Model:** GPT-4`` are prose. A first line
    that is a comment holding a misspelt role or a stand-in (``<!-- asistant -->``, with
    ``html`` off) is one too.
    """
    # Most paragraphs start with neither emphasis, a comment nor "Turn" and have no colon
    # near the start: one C-level scan passes them over.
    if (
        content[:1] not in ("*", "_", "<", "t", "T")
        and content.find(":", 0, _MAX_LABEL + 1) < 0
        and content.find(_FULL_WIDTH_COLON, 0, _MAX_LABEL + 1) < 0
    ):
        return None
    end = content.find("\n", 0, _MAX_LABEL + 1)
    shown = content[: _MAX_LABEL + 1] if end < 0 else content[:end]
    shown = shown.strip()
    if not shown:
        return None
    # A full-width colon reads as ":"; the message quotes the line as written.
    first = shown.replace(_FULL_WIDTH_COLON, ":")
    if first.startswith(COMMENT_OPEN):
        return comment_near_miss(first) if end >= 0 or len(content) <= _MAX_LABEL else None
    whole = end >= 0 or len(content) <= _MAX_LABEL
    if whole:
        # A Turn N delimiter written as a line of text: "**Turn 4 - Assistant**".
        turn, _ = _unwrapped(first)
        if _TURN_LABEL.match(turn) is not None and strict_heading_role(turn) is not None:
            return turn, _label_message(shown, turn)
    if whole and (first.endswith(":") or first[0] in "*_"):
        # The first line alone: "**Assistant:**", "**Assistant**:", "User:", "**User**".
        inner, emphasised = _unwrapped(first[:-1].rstrip() if first.endswith(":") else first)
        if inner.endswith(":"):
            inner = inner[:-1].rstrip()
        if emphasised or first.endswith(":"):
            role = label_role(inner)
            if role is not None:
                return inner, _label_message(shown, role)
    if first[:2] in ("**", "__"):
        # A bold label leading a line of text: "**User:** how do I ...".
        close = first.find(first[:2], 2)
        if 2 < close <= 24:
            inner = first[2:close].strip()
            after = first[close + 2 :]
            if inner.endswith(":") or after.startswith(":"):
                inner = inner.rstrip(":").rstrip()
                role = _speaker_role(inner)
                if role is not None:
                    return inner, _label_message(shown[: close + 3].strip(), role)
        return None
    colon = first.find(":", 0, 24)
    if colon > 0 and first[:colon].lower() in _TEXT_LABELS:
        inner = first[:colon]
        role = label_role(inner)
        if role is not None:
            return inner, _label_message(shown[: colon + 1], role)
    return None


def may_hold_label(text: str) -> bool:
    """Whether a line of *text* could be a label near miss (``User:``, ``**Assistant:**``,
    ``Turn 2 – user``), judged line by line without a parse: a superset of what the parse
    marks in a text with no heading, comment or setext underline, so a text it passes over
    needs no parse to be sure of none."""
    return any(label_near_miss(line.strip()) is not None for line in text.split("\n"))


def later_label_lines(content: str, transcript: bool) -> tuple[tuple[int, str, str], ...]:
    """The label near misses on the lines after the first of a top-level paragraph whose
    inline content is *content*: ``(line offset, word at fault, message)`` each.

    A line that is only a label (``**Assistant:**``, ``User:``) or starts with a bold one
    (``**User:** thanks``) is judged as :func:`label_near_miss` judges a first line. A
    plain label leading text (``Assistant: hello``) is one only in a *transcript*, a
    paragraph whose first line is a label too: elsewhere a wrapped line of prose may start
    ``Gemini: ...``.
    """
    if "\n" not in content:
        return ()
    found: list[tuple[int, str, str]] = []
    for offset, line in enumerate(content.split("\n")[1:], 1):
        text = line.strip()
        alone = len(text) <= _MAX_LABEL and (
            text.endswith((":", _FULL_WIDTH_COLON)) or text[:1] in ("*", "_")
        )
        if not (transcript or alone or text[:2] in ("**", "__")):
            continue
        suspicious = label_near_miss(text)
        if suspicious is not None:
            found.append((offset, *suspicious))
    return tuple(found)


def comment_near_miss(line: str) -> tuple[str, str] | None:
    """Why a comment line (``<!-- asistant -->``, ``<!-- bot -->``, ``<!-- user: -->``)
    looks like a comment delimiter that is none: ``(word at fault, message)``, or None."""
    text = line.strip()
    if not (text.startswith(COMMENT_OPEN) and text.endswith(COMMENT_CLOSE)):
        return None
    inner = text[len(COMMENT_OPEN) : -len(COMMENT_CLOSE)].strip()
    word = inner[:-1].rstrip() if inner.endswith(":") else inner
    if not word or len(word) > 24 or _ONE_WORD.fullmatch(word) is None:
        return None
    lowered = word.lower()
    if lowered in ("you", "me"):
        return None
    role = _ROLES.get(lowered) if word != inner else None
    meant = role or suggested_role(word)
    if meant is None:
        return None
    return word, (
        f"the comment {text!r} looks like a role delimiter but {inner!r} is not a role "
        f"(did you mean '<!-- {meant} -->'?), so it is an ordinary comment; write the role "
        "alone, or reword the comment"
    )


def marks_near_miss(token: Token) -> bool:
    """Whether the parse marked *token*, a block, as a near-miss delimiter (on its first
    line or a later one)."""
    meta = token.meta
    return bool(meta) and token.level == 0 and (SUSPICIOUS_KEY in meta or LATER_LABELS in meta)


class _TokenSource(Protocol):
    """What :func:`delimiter_issues` reads: a parse's tokens (block tokens suffice: their
    ``meta`` is complete whether or not the inline children were parsed) and its source
    lines."""

    @property
    def parsed_tokens(self) -> Sequence[Token]: ...

    @property
    def lines(self) -> Sequence[str]: ...


def delimiter_issues(narrative: _TokenSource) -> list[Issue]:
    """A ``suspicious_delimiter`` issue for each block the parse marked (a heading, a
    label paragraph or a comment).

    :param narrative: a :class:`~lmml_mdit.narrative.Narrative` (its tokens and lines).
    :returns: the issues in document order, each with the heading's line and the column of
        the word at fault (or of the heading).
    """
    issues: list[Issue] = []
    for token in narrative.parsed_tokens:
        if not marks_near_miss(token) or token.map is None:
            continue
        found = token.meta.get(SUSPICIOUS_KEY)
        later = token.meta.get(LATER_LABELS, ())
        placed = [] if found is None else [(0, *found)]
        for offset, word, message in (*placed, *later):
            index = token.map[0] + offset
            line = narrative.lines[index] if index < len(narrative.lines) else ""
            at = line.find(word)
            if at < 0:
                at = line.lower().find(word.lower())
            column = at + 1 if at >= 0 else len(line) - len(line.lstrip()) + 1
            issues.append(Issue(SUSPICIOUS_DELIMITER, word, index + 1, column, message))
    return issues


def comment_role(line: str) -> Role | None:
    """The role of a line that is only ``<!-- role -->``, or None."""
    text = line.strip()
    if not (text.startswith(COMMENT_OPEN) and text.endswith(COMMENT_CLOSE)):
        return None
    if len(text) < len(COMMENT_OPEN) + len(COMMENT_CLOSE):
        return None
    return _ROLES.get(text[len(COMMENT_OPEN) : -len(COMMENT_CLOSE)].strip().lower())


def role_comment(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """Block rule for ``<!-- role -->`` lines at the top level.

    As a terminator (*silent*), it also ends a list item's paragraph when the comment line
    is outdented past the item: that line is top-level, and without this a parser with
    ``html`` off would take it as a lazy continuation line of the item.
    """
    start = state.bMarks[start_line] + state.tShift[start_line]
    end = state.eMarks[start_line]
    # The cheap test first: this rule is tried at every block start and paragraph line.
    if not state.src.startswith(COMMENT_OPEN, start, end) or state.is_code_block(start_line):
        return False
    if state.level != 0 and not (silent and state.sCount[start_line] < state.blkIndent):
        return False
    line = state.src[start:end]
    role = comment_role(line)
    if role is None:
        return False
    if silent:
        return True
    state.line = start_line + 1
    token = state.push("lmml_role", "", 0)
    token.block = True
    token.info = role
    token.markup = line.strip()
    token.map = [start_line, start_line + 1]
    token.meta = {"lmml_role": role, "line": start_line + 1}
    state.env.setdefault(ROLE_TOKENS_KEY, []).append(token)
    return True
