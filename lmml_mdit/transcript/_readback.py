"""Checking that written LMML reads back as the transcript planned, and settling it.

Each step is checked by parsing the result: the whole narrative is parsed once, every turn
that does not read back is made safer (a forged reference is escaped at the position that
parse found), and the text is parsed again only then; an open-ended last block (a code
fence, HTML block or ``@@@`` fence) is probed on its own with a turn after it, so a turn
written later cannot be swallowed. The bundle gets that one parse.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import TranscriptError
from ..model import Turn
from ..narrative import Narrative, parse
from ._message import Message
from ._plans import Fault, Placement, Plan, Resolves, escalate, render_plans
from ._regions import embed_owners, message_turns, turn_text
from ._source import Style

__all__ = ["settle"]

_SENTINEL_HEADING = "Turn 0 -- user"
_SENTINEL = f"## {_SENTINEL_HEADING}\n"


@dataclass
class _Findings:
    """What :func:`_check` found wrong with a written narrative."""

    faults: dict[int, Fault] = dataclasses.field(default_factory=dict)
    # Plans whose delimiter is not read as one: an earlier content swallowed them, so they
    # are unchecked.
    hidden: set[int] = dataclasses.field(default_factory=set)
    # Rendered plans otherwise read back, with references to names nothing resolves:
    # their positions in the body (0-based line, 1-based column).
    forged: dict[int, set[tuple[int, int]]] = dataclasses.field(default_factory=dict)
    # The same for plans at fault: the references that stood in their body's lines.
    hints: dict[int, set[tuple[int, int]]] = dataclasses.field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.faults or self.forged)


def _check(
    narrative: Narrative,
    plans: Sequence[Plan],
    layouts: Sequence[Placement],
    assets: Mapping[str, bytes],
) -> _Findings:
    """The plans the written *narrative* does not give back (and whether the heading or
    the content is at fault)."""
    turns, skip = message_turns(narrative)
    by_line = {
        turn.delimiter_line - 1: index
        for index, turn in enumerate(turns)
        if turn.delimiter_line is not None
    }
    faults: dict[int, Fault] = {}
    hidden: set[int] = set()
    forged: dict[int, set[tuple[int, int]]] = {}
    matched: dict[int, int] = {}
    previous: int | None = None
    for position, layout in enumerate(layouts):
        if layout.delimiter is None:
            found = 0 if turns and turns[0].role == "context" else None
        else:
            found = by_line.get(layout.delimiter)
        if found is None:
            hidden.add(position)
            # Swallowed by the content before it, or (the first) not a delimiter at all.
            if previous is None:
                faults[position] = "heading"
            else:
                faults.setdefault(previous, "turn")
            continue
        previous = position
        matched[position] = found
    closing: list[Sequence[str]] = [()] * len(turns)
    for position, found in matched.items():
        closing[found] = plans[position].attachments
    fence_turn, reference_turn = embed_owners(narrative, turns, skip, closing)
    embed_lines = [embed.line for embed in narrative.embeds]
    for position, found in matched.items():
        plan, layout, turn = plans[position], layouts[position], turns[found]
        expected_role = "context" if layout.delimiter is None else plan.role
        if turn.role != expected_role or turn.heading != plan.heading:
            faults.setdefault(position, "heading")
            continue
        region = turn.start_line - 1 == layout.start or layout.delimiter is None
        text = turn_text(narrative, turn, skip, plan.attachments, embed_lines)
        if not region or turn.end_line != layout.end or text != plan.expected:
            faults.setdefault(position, "turn")
            continue
        if plan.kept is None and (plan.escapes or _has_escapes(narrative, turn)):
            # The text sent leaves the LMML escapes out: those written must be read as
            # escapes, and no others be there.
            sent = turn_text(narrative, turn, skip, plan.attachments, embed_lines, unescape=True)
            if sent != plan.sent:
                faults.setdefault(position, "turn")
                continue
        if plan.kept is None and plan.encoding != "fenced":
            own = narrative.index.content_fences_in(turn.start_line - 1, turn.end_line)
            if next(own, None) is not None:
                # An lmml-content fence of the content's own: the model would be sent what
                # it holds without its lines, so the content is fenced whole.
                faults.setdefault(position, "turn")
                continue
        for embed in fence_turn.get(found, ()):
            carried = embed.name in assets
            if (carried or plan.kept is None) and assets.get(embed.name) != embed.content:
                faults.setdefault(position, "turn")
            elif plan.kept is None and not embed.closed:
                # It holds the asset's bytes, but a fence never closed is a defect
                # (unclosed_embed) that messages() refuses: the content forged it.
                faults.setdefault(position, "turn")
        if plan.kept is None and position not in faults:
            spots = {
                (embed.line - 1 - layout.body, embed.column)
                for embed in reference_turn.get(found, ())
                if not plan.resolves(embed.name)
            }
            if spots:
                forged[position] = spots
    if len(turns) != len(matched) and plans and not faults:
        # A turn no plan wrote, and no region shows it: it comes before the first plan.
        faults[0] = "turn"
    _near_misses(narrative, plans, layouts, faults)
    forged_turns = [turn for index, turn in enumerate(turns) if index not in matched.values()]
    hints = _hints(narrative, plans, layouts, faults, forged_turns, assets)
    return _Findings(faults, hidden, forged, hints)


def _near_misses(
    narrative: Narrative,
    plans: Sequence[Plan],
    layouts: Sequence[Placement],
    faults: dict[int, Fault],
) -> None:
    """Mark at fault each rendered, unfenced plan whose body holds a near-miss delimiter
    (a line ``User:`` or ``**Assistant:**``): it reads back, but every command that sends
    or shows the file would warn that a turn may be missing. Fenced, it says nothing."""
    issues = narrative._delimiter_issues
    if not issues:
        return
    bodies = sorted(
        (layouts[position].body, position)
        for position, plan in enumerate(plans)
        if plan.kept is None and plan.encoding != "fenced"
    )
    starts = [body for body, _ in bodies]
    for issue in issues:
        if issue.line is None:
            continue
        index = bisect.bisect_right(starts, issue.line - 1) - 1
        if index < 0:
            continue
        body, position = bodies[index]
        if issue.line - 1 < _body_end(plans[position], body):
            faults.setdefault(position, "turn")


def _body_end(plan: Plan, body: int) -> int:
    """The line after *plan*'s body, which starts at line *body* of the written text."""
    return body + plan.body.count("\n") + 1


def _has_escapes(narrative: Narrative, turn: Turn) -> bool:
    """Whether *turn*'s lines hold an LMML escape."""
    columns = narrative.escape_columns
    if not columns:
        return False
    first, last = turn.start_line - 1, turn.end_line
    if len(columns) < last - first:
        return any(first <= line < last for line in columns)
    return any(line in columns for line in range(first, last))


def _hints(
    narrative: Narrative,
    plans: Sequence[Plan],
    layouts: Sequence[Placement],
    faults: Mapping[int, Fault],
    forged_turns: Sequence[Turn],
    assets: Mapping[str, bytes],
) -> dict[int, set[tuple[int, int]]]:
    """For each rendered, unfenced plan at fault, where its body needs an LMML escape:
    the references to names nothing resolves, the fences that forge an asset, and the
    delimiters no plan wrote (a line of the content read as a role delimiter)."""
    wanted = [
        position
        for position in faults
        if plans[position].kept is None and plans[position].encoding != "fenced"
    ]
    if not wanted:
        return {}
    bodies = sorted((layouts[position].body, position) for position in wanted)
    starts = [body for body, _ in bodies]
    # The line after each body, counted once: a hint per line would count it again.
    ends = {position: _body_end(plans[position], body) for body, position in bodies}
    hints: dict[int, set[tuple[int, int]]] = {}

    def hint(line: int, column: int) -> None:
        """Note the 0-based *line*, 1-based *column* when a wanted plan's body holds it."""
        index = bisect.bisect_right(starts, line) - 1
        if index < 0:
            return
        body, position = bodies[index]
        if line < ends[position]:
            hints.setdefault(position, set()).add((line - body, column))

    for embed in narrative.embeds:
        if embed.is_inline:
            if assets.get(embed.name) != embed.content or not embed.closed:
                hint(embed.line - 1, embed.column)
            continue
        index = bisect.bisect_right(starts, embed.line - 1) - 1
        if index >= 0 and not plans[bodies[index][1]].resolves(embed.name):
            hint(embed.line - 1, embed.column)
    lines = narrative.lines
    for turn in forged_turns:
        if turn.delimiter_line is None:
            continue
        line = turn.start_line - 2  # the delimiter's last line (a setext heading's underline)
        source = lines[line]
        hint(line, len(source) - len(source.lstrip(" \t")) + 1)
    return hints


_OPEN_ENDED = frozenset({"fence", "html_block", "lmml_embed"})
"""The top-level blocks (:attr:`~lmml_mdit.narrative.Block.kind`) that run to the end
of the document when left unclosed."""


def _tail_is_open(narrative: Narrative) -> bool:
    """Whether the narrative's last block would swallow a turn written after it (an
    unclosed code fence, HTML block or ``@@@`` fence). Only such a block is parsed again,
    from its first line, with a turn after it; any other block (a paragraph, a list, a
    quote) ends at the blank line before a top-level heading, and is not parsed again."""
    blocks = narrative.index.blocks
    if not blocks or blocks[-1].kind not in _OPEN_ENDED:
        return False
    start = blocks[-1].start
    tail = narrative.lines[start:]
    probe = parse("\n".join(tail) + "\n\n" + _SENTINEL)
    line = len(tail) + 2
    return not any(
        turn.delimiter_line == line and turn.heading == _SENTINEL_HEADING for turn in probe.turns
    )


def _sentinel_plan(resolves: Resolves) -> Plan:
    return Plan(Message("user", ""), "user", _SENTINEL_HEADING, f"## {_SENTINEL_HEADING}", resolves)


def _settle_alone(plan: Plan, position: int, style: Style, assets: Mapping[str, bytes]) -> None:
    """Escalate *plan* until, written alone with a turn after it, it reads back."""
    while True:
        pair = [plan, _sentinel_plan(plan.resolves)]
        text, layouts = render_plans(pair, style)
        findings = _check(_parse(text, assets), pair, layouts, assets)
        fault = findings.faults.get(0) or findings.faults.get(1)
        if fault is not None:
            _fix(plan, fault, findings.hints.get(0, set()), position)
        elif 0 in findings.forged:
            plan.add_escapes(findings.forged[0], position)
        else:
            return


def _fix(plan: Plan, fault: Fault, hints: set[tuple[int, int]], position: int) -> None:
    """Make *plan*, at *fault*, safer: a rendered content gets LMML escapes at *hints*
    (fenced when there are none new), anything else the next step of :func:`escalate`."""
    if fault == "turn" and plan.kept is None and plan.encoding != "fenced":
        plan.add_escapes(hints, position)
    else:
        escalate(plan, fault, position)


def settle(
    plans: list[Plan],
    assets: Mapping[str, bytes],
    style: Style,
    head: str | Callable[[], str] = "",
    fences: Mapping[str, str] | None = None,
    foot: Sequence[str] | Callable[[], Sequence[str]] = (),
) -> tuple[str, Narrative]:
    """Write *plans* after *head* (or what it returns: the head may depend on the plans,
    like a manifest fence recording their encodings), making those at fault safer until
    the text reads back as planned; return the text and its parse (the one parse of the
    text, when nothing is at fault).

    Each round parses the whole text once and fixes every plan at fault in it, so a risky
    content costs a parse or two more, not one per turn. A plan hidden by an earlier one
    (an unclosed block swallowed its delimiter) is first settled alone (a small parse), so
    a run of such contents does not take a round each.

    *foot* (or what it returns, asked right after the head) holds the preamble's reserved
    blocks (see :func:`~lmml_mdit.transcript.render_plans`)."""
    hidden: set[int] = set()
    for _ in range(4 * len(plans) + 4):
        for position in sorted(hidden):
            _settle_alone(plans[position], position, style, assets)
        head_text = head() if callable(head) else head
        blocks = foot() if callable(foot) else foot
        text, layouts = render_plans(plans, style, head_text, fences, blocks)
        narrative = _parse(text, assets)
        findings = _check(narrative, plans, layouts, assets)
        last = plans[-1] if plans else None
        # A last content followed by its closing fences is checked by them: an open block
        # would have swallowed them, and the check above would have found it.
        open_end = last is not None and last.kept is None and not last.attachments
        if not findings and open_end and _tail_is_open(narrative):
            findings.faults[len(plans) - 1] = "turn"
        if not findings:
            return text, narrative
        for position, fault in findings.faults.items():
            _fix(plans[position], fault, findings.hints.get(position, set()), position)
        for position, spots in findings.forged.items():
            plans[position].add_escapes(spots, position)
        hidden = findings.hidden
    raise TranscriptError(
        "cannot write the transcript as LMML that reads back the same",
        hint="please report this as a bug in lmml_mdit, with the transcript",
    )


def _parse(text: str, assets: Mapping[str, bytes]) -> Narrative:
    """Parse written text as a bundle holding *assets* will."""
    return parse(text, known_names=assets)
