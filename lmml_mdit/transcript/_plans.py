"""Planning how each transcript message is written, and writing the plans as text.

A :class:`Plan` starts as the plainest form (the message's lines as read, or its content
verbatim under a heading in the file's style) and is made safer by :func:`escalate` each time
a parse of the written text does not give the message back: its lines rendered, then a
plain ``Turn N -- role`` heading, then the content with LMML escapes, then fenced
(:mod:`lmml_mdit.transcript._encoding`). :func:`render_plans` writes the plans and records
where each one's lines went (:class:`Placement`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..errors import TranscriptError
from ..model import MESSAGE_ROLES
from ..syntax import turn_label
from ..text import as_turn_text, normalize_newlines
from ._encoding import (
    ENCODINGS,
    Encoding,
    base_column,
    encode_author,
    fence_content,
    insert_backslashes,
)
from ._message import Message, check_saveable, pinned_role
from ._source import FRESH_STYLE, NUMBERED_HEADING, Origin, SourceNarrative, Style

__all__ = [
    "Fault",
    "Placement",
    "Plan",
    "Resolves",
    "escalate",
    "plan_messages",
    "render_plans",
    "styled_delimiter",
]

_ESCAPABLE = frozenset("@#<-=")
"""What an LMML escape stands before: an ``@``, or the first character of a line that
would be a role delimiter (an ATX heading, a role comment, a setext underline)."""

Resolves = Callable[[str], bool]
"""Whether a reference to a name resolves (to a carried asset, or a file beside the text)."""


@dataclass
class Plan:
    """How one message is written: its delimiter, its encoding, its closing fences; or the
    lines it was read from (*kept*)."""

    message: Message
    role: str  # "context" for the preamble
    heading: str | None  # as the turn reads back: None for the preamble or a comment
    delimiter: str | None  # the delimiter lines as written ("\n"-joined), None: preamble
    resolves: Resolves  # whether a reference to a name resolves
    kept: Origin | None = None  # written as the lines it was read from
    encoding: Encoding = "verbatim"
    plain: bool = False  # the heading is already the plain "Turn N -- role"
    attachments: tuple[str, ...] = ()  # .lmml: asset fences closing the turn
    # LMML-escaped: where a backslash goes (0-based line, 1-based column of the content's
    # lines), found by parsing the written text: before an "@" or a delimiter line.
    escapes: frozenset[tuple[int, int]] = frozenset()
    _body: tuple[Encoding, frozenset[tuple[int, int]], str] | None = None
    _expected: tuple[str, str] | None = None

    @property
    def body(self) -> str:
        """The turn text as written (cached)."""
        if self._body is None or self._body[:2] != (self.encoding, self.escapes):
            content = self.message.content
            if self.encoding == "lmml-escaped":
                body = insert_backslashes(normalize_newlines(content), self.escapes)
            elif self.encoding == "fenced":
                body = fence_content(content)
            else:
                body = content
            self._body = (self.encoding, self.escapes, body)
        return self._body[2]

    @property
    def expected(self) -> str:
        """The turn text the written narrative must read back."""
        if self.kept is not None:
            return self.kept.text
        body = self.body
        if self._expected is None or self._expected[0] is not body:
            self._expected = (body, as_turn_text(body))
        return self._expected[1]

    @property
    def sent(self) -> str:
        """The turn text without its LMML escapes (what a model is sent), as the written
        narrative must read it back: the content, normalised, unless it is fenced."""
        if self.kept is not None or self.encoding == "fenced":
            return self.expected
        if not self.escapes:
            return self.expected
        return as_turn_text(self.message.content)

    def add_escapes(self, spots: Collection[tuple[int, int]], position: int) -> None:
        """Put an LMML escape at *spots* (positions in the body as written: 0-based line,
        1-based column), each an ``@`` or the first character of a line read as a role
        delimiter. A position that holds neither is ignored; without any progress the
        content is fenced instead."""
        if self.encoding == "fenced" or self.kept is not None:
            escalate(self, "turn", position)
            return
        by_line: dict[int, list[int]] = {}
        for line, column in self.escapes:
            by_line.setdefault(line, []).append(column)
        for columns in by_line.values():
            columns.sort()
        base = normalize_newlines(self.message.content).split("\n")
        found = {(line, base_column(by_line.get(line, []), col)) for line, col in spots}
        valid = {
            (line, column)
            for line, column in found
            if 0 <= line < len(base) and base[line][column - 1 : column] in _ESCAPABLE
        }
        if valid <= self.escapes:
            self.encoding = "fenced"  # no progress: fence the content instead
            self.escapes = frozenset()
        else:
            self.encoding = "lmml-escaped"
            self.escapes = self.escapes | valid

    def unkeep(self) -> None:
        """Render the message instead of copying its lines (they no longer read back)."""
        assert self.kept is not None
        self.kept = None
        self.encoding = "verbatim"
        self.escapes = frozenset()


def _role(message: Message, pov: tuple[str, str, str] | None) -> str:
    role = message.metadata.get("role")
    if isinstance(role, str) and role in MESSAGE_ROLES:
        return role
    if message.author in MESSAGE_ROLES:
        return message.author
    if pov is not None:
        name, self_role, others_role = pov
        pinned = pinned_role(message)
        chosen = pinned or (self_role if message.author == name else others_role)
        if chosen in MESSAGE_ROLES:
            return chosen
    return "system" if message.author == "context" else "user"


def _delimiter_text(heading: str, style: Style) -> str:
    if style.marker.startswith("#"):
        return f"{style.marker} {heading}"
    return f"{heading}\n{style.marker * max(3, len(heading))}"


def _plain(number: int, role: str) -> tuple[str, str]:
    heading = turn_label(number, role)
    return heading, f"## {heading}"


def styled_delimiter(
    message: Message, role: str, number: int, style: Style
) -> tuple[str | None, str]:
    """The heading (None for a comment) and the delimiter lines for a rendered turn."""
    label = None if message.author == role else encode_author(message.author)
    if label is not None:
        heading = f"{label} {style.label_dash} {role}"
    elif style.comment and message.author == role:
        return None, f"<!-- {role} -->"
    elif style.bare:
        heading = {"lower": role, "title": role.title(), "upper": role.upper()}[style.case]
    else:
        heading = turn_label(number, role, style.dash)
    return heading, _delimiter_text(heading, style)


def plan_messages(
    messages: Sequence[Message],
    pov: tuple[str, str, str] | None,
    source: SourceNarrative | None,
    resolves: Resolves,
) -> list[Plan]:
    """A first plan for each message: its role, heading and delimiter, and its lines kept
    when it is an unedited message of *source*.

    :param pov: ``(name, self_role, others_role)`` for named authors without a role.
    :raises TranscriptFormatError: for a message whose fields cannot be saved.
    """
    plans: list[Plan] = []
    style = source.style if source is not None else FRESH_STYLE
    numbered: tuple[int, int] | None = None  # (position, number) of the last "Turn N"
    for position, message in enumerate(messages):
        check_saveable(message, position)  # fields may have been changed in place
        origin = source.origin(message) if source is not None else None
        if origin is not None:
            plan = Plan(message, origin.role, origin.heading, origin.delimiter, resolves, origin)
            plan.attachments = origin.attachments
            plans.append(plan)
            found = NUMBERED_HEADING.fullmatch((origin.heading or "").strip())
            if found is not None:
                numbered = (position, int(found.group(1)))
            continue
        is_preamble = (
            position == 0
            and message.author == "context"
            and "role" not in message.metadata
            and as_turn_text(message.content) != ""
        )
        if is_preamble:
            plans.append(Plan(message, "context", None, None, resolves))
            continue
        role = _role(message, pov)
        edited = source.origins.get(id(message)) if source is not None else None
        if (
            edited is not None
            and edited.delimiter is not None
            and (edited.author, edited.role) == (message.author, role)
        ):
            # Edited content, same author and role: the turn keeps its delimiter line.
            plans.append(Plan(message, role, edited.heading, edited.delimiter, resolves))
            found = NUMBERED_HEADING.fullmatch((edited.heading or "").strip())
            if found is not None:
                numbered = (position, int(found.group(1)))
            continue
        number = numbered[1] + position - numbered[0] if numbered else position + 1
        heading, delimiter = styled_delimiter(message, role, number, style)
        if heading is not None and NUMBERED_HEADING.fullmatch(heading):
            numbered = (position, number)
        plans.append(Plan(message, role, heading, delimiter, resolves))
    return plans


@dataclass
class Placement:
    """Where a plan's lines went: 0-based line numbers in the written text."""

    delimiter: int | None  # the delimiter's first line; None for the preamble
    start: int  # the first line of the turn's region (after the delimiter)
    end: int = 0  # one past the region's last line
    body: int = 0  # the body's first line (a rendered plan)


class _Lines:
    """The text being written, counting lines as markdown-it does."""

    def __init__(self, newline: str) -> None:
        self.newline = newline
        self.parts: list[str] = []
        self.complete = 0  # lines ended so far
        self.open = False  # the last line has no line ending yet
        self.blank = True  # the last ended line is blank (or nothing was written)
        self.spacer = False  # the last part is a blank line written as a separator

    def raw(self, text: str) -> None:
        """Add lines as they were read (their own line endings)."""
        if not text:
            return
        self.terminate()
        self.spacer = False
        self.parts.append(text)
        self.complete += text.count("\n") + text.count("\r") - text.count("\r\n")
        self.open = text[-1] not in "\r\n"
        if self.open:
            return
        body = text[:-2] if text.endswith("\r\n") else text[:-1]
        last = body[max(body.rfind("\n"), body.rfind("\r")) + 1 :]
        self.blank = not last.strip()

    def lines(self, text: str) -> None:
        """Add ``\\n``-separated lines, each ended with the file's line ending."""
        self.terminate()
        self.spacer = not text
        if self.newline != "\n":
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            self.parts.append(text.replace("\n", self.newline) + self.newline)
        else:
            self.parts.append(text + "\n")
        # A content's own carriage returns end lines too.
        self.complete += text.count("\n") + text.count("\r") - text.count("\r\n") + 1
        self.blank = not text[max(text.rfind("\n"), text.rfind("\r")) + 1 :].strip()

    def terminate(self) -> None:
        if self.open:
            self.parts.append(self.newline)
            self.complete += 1
            self.open = False
            self.blank = False
            self.spacer = False

    def end(self) -> None:
        """End the text with its last line: a separator written after it is dropped, so
        the file ends as a formatted Markdown file does, with one line ending."""
        if self.spacer and len(self.parts) > 1:
            self.parts.pop()
            self.complete -= 1
            self.spacer = False
            self.blank = False

    @property
    def total(self) -> int:
        return self.complete + (1 if self.open else 0)


def render_plans(
    plans: Sequence[Plan],
    style: Style,
    head: str = "",
    fences: Mapping[str, str] | None = None,
    foot: Sequence[str] = (),
) -> tuple[str, list[Placement]]:
    """The narrative for *plans* after *head*, and where each plan went.

    :param foot: the preamble's reserved blocks (its manifest and settings), each written
        as it stands followed by a blank line: after a rendered preamble's text, or after
        *head* when the first plan is no preamble (a kept preamble's lines hold them).
    """
    out = _Lines(style.newline)
    out.raw(head)

    def write_foot() -> None:
        for block in foot:
            out.terminate()
            if not out.blank:
                out.lines("")
            out.raw(block)
            out.lines("")

    if not plans or plans[0].delimiter is not None:
        write_foot()
    layouts: list[Placement] = []
    for position, plan in enumerate(plans):
        kept = plan.kept
        if kept is not None:
            out.terminate()
            first = out.complete
            out.raw(kept.raw)
            if kept.delimiter is None:
                layouts.append(Placement(None, first))
            else:
                layouts.append(Placement(first, first + kept.delimiter.count("\n") + 1))
        else:
            out.terminate()
            if plan.delimiter is not None:
                if style.sep and not out.blank:
                    out.lines("")
                first = out.complete
                out.lines(plan.delimiter)
                layouts.append(Placement(first, out.complete))
                if style.gap:
                    out.lines("")
            else:
                layouts.append(Placement(None, out.complete))
            body = plan.body
            layouts[-1].body = out.complete
            if body:
                out.lines(body)
                if style.sep:
                    out.lines("")
            if position == 0 and plan.delimiter is None:
                write_foot()
        if fences is not None:
            written = kept.fences if kept is not None else frozenset()
            for asset in plan.attachments:
                if asset not in written:
                    if not out.blank:
                        out.lines("")
                    out.raw(fences[asset])
                    out.lines("")
    out.end()
    for layout, following in itertools.pairwise(layouts):
        layout.end = following.delimiter if following.delimiter is not None else following.start
    if layouts:
        layouts[-1].end = out.total
    return "".join(out.parts), layouts


Fault = Literal["heading", "turn"]
"""What a parse found wrong with a written turn: its heading, or the turn itself."""


def escalate(plan: Plan, fault: Fault, position: int) -> None:
    """Make *plan* safer: its lines rendered, then a plain heading, then LMML escapes
    (:meth:`Plan.add_escapes`, where the parse found a forged delimiter or reference),
    then a code fence."""
    if plan.kept is not None:
        plan.unkeep()
    elif fault == "heading" and plan.delimiter is not None and not plan.plain:
        plan.heading, plan.delimiter = _plain(position + 1, plan.role)
        plan.plain = True
    elif plan.encoding != "fenced":
        plan.encoding = ENCODINGS[ENCODINGS.index(plan.encoding) + 1]
    else:
        raise TranscriptError(
            "cannot write the transcript as LMML that reads back the same",
            name=f"message {position}",
            hint="please report this as a bug in lmml_mdit, with the transcript",
        )
