"""A transcript to and from LMML, losslessly.

**Headings.** Each message becomes one turn opened by an ATX heading the segmenter reads
back:

- ``## Turn 3 -- assistant`` when the author is the role itself (``assistant``);
- ``## alice -- assistant`` when the author is a name. The label before the last ``" -- "``
  is the author, escaped so that the role-word rule still finds the turn's role: every
  backslash is doubled, every role word in the name (``user``, ``assistant``, ``system``,
  ``tool``, any case, as a whole word) gets a backslash after its first letter
  (``u\\ser``), an ``@`` becomes ``\\@`` (no reference), and a name that reads
  ``Turn <n>`` gets ``T\\urn``. Reading drops each escaping backslash. A name that cannot
  sit on one heading line (empty, surrounded by spaces, control characters) gets the
  ``Turn <n>`` form and is kept only in the manifest.

The role of a turn is ``metadata["role"]`` when set, else the author when it is a role
word, else the pov's role when ``pov`` is given, else ``user``. A first message authored
``context`` becomes the preamble (no heading); a later or blank one becomes
``## context -- system``.

**Content.** A message's Markdown is written verbatim when the result parses back to the
same turn: same text, no forged delimiter, no inline fence but those of carried assets with
the same bytes. Otherwise it is *escaped*: a backslash goes before every line start (after
up to three spaces) that could open a heading, an HTML block or comment, an ``@@@`` fence, a
code fence or a setext underline, and before every line start that already is a backslash;
reading removes one backslash at each such line start. References to carried assets stay
references; a reference to a name the transcript does not carry (``ping @bob``) gets a
backslash before its ``@``, so no ``@`` sign forges an embed (the manifest keeps the exact
content). When
even that does not read back (a fence in a list item, an unclosed construct the escapes do
not reach), the content is wrapped in a code fence with the info string ``lmml-content``
and a backtick run longer than any in the content; references inside it are then plain
text. Each step is checked by parsing the result.

**Manifest.** ``manifest.json`` holds, under ``"transcript"``, one entry per message:
its author, metadata, heading, encoding, the SHA-256 of the turn text as written, and the
exact content when the turn text does not give it back (blank lines at the edges, carriage
returns). Reading trusts an entry only as far as the narrative still matches it: the author
when the heading is unchanged, the stored content when the turn text's digest is unchanged;
an edited turn is read from the narrative. Without a manifest (a hand-written document) the
heading gives author and role (``metadata["role"]`` for a named author) and the turn text is
the content.

**Assets.** A ``.lmmlz`` stores each asset as an entry. A ``.lmml`` holds each asset as an
inline fence closing the turn that first references it (so the asset binds to that turn, as
with an entry), the manifest and unreferenced assets as inline fences before the first
turn; the record lists each turn's closing fences (``"attachments"``) so reading cuts them
off. An asset that is not UTF-8 text a fence can hold exactly raises
:class:`~lmml_mdit.errors.NotInlinableError`. A preamble's leading inline fences are read as
attachments, not as context text. Asset fences already inside a content (a tool call) stay
there and are not repeated.
"""

from __future__ import annotations

import bisect
import copy
import hashlib
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from .errors import LmmlError, NotInlinableError, TranscriptError, TranscriptFormatError
from .model import MESSAGE_ROLES, Embed, Turn
from .narrative import Narrative, parse
from .text import as_turn_text, backtick_fence, normalize_newlines
from .transcript import Message, Pov, Transcript, _pov_roles, check_saveable, pinned_role

if TYPE_CHECKING:
    from .bundle import Bundle

__all__ = [
    "CONTENT_FENCE_INFO",
    "MANIFEST_KEY",
    "TRANSCRIPT_LMML_VERSION",
    "decode_author",
    "encode_author",
    "load_lmml",
    "narrative_text",
    "save_lmml",
    "transcript_from_bundle",
    "transcript_to_bundle",
]

MANIFEST_KEY = "transcript"
"""The ``manifest.json`` key the transcript's own record lives under."""

TRANSCRIPT_LMML_VERSION = 1
"""The version of that record."""

CONTENT_FENCE_INFO = "lmml-content"
"""The info string of the code fence that wraps content unsafe to write verbatim."""

MANIFEST_NAME = "manifest.json"

_ROLE_WORD = re.compile(r"[^\W\d_]+")
_TURN_LABEL = re.compile(r"turn\s+\d+", re.IGNORECASE)
_LABELLED = re.compile(r"(.*\S) -- ([^\W\d_]+)", re.DOTALL)
_ESCAPED = re.compile(r"\\(.)", re.DOTALL)
_SENTINEL_HEADING = "Turn 0 -- user"
_SENTINEL = f"## {_SENTINEL_HEADING}\n"
_LINE_START = re.compile(r" {0,3}")
_RISKY_START = re.compile(r"#{1,6}(?:[ \t]|$)|<|@@@|```|~~~|\\")
_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*$")

Encoding = Literal["verbatim", "escaped", "fenced"]
ENCODINGS: tuple[Encoding, ...] = ("verbatim", "escaped", "fenced")


# --- authors in headings -------------------------------------------------------------------


def encode_author(author: str) -> str | None:
    """The heading label for *author*, or None when it cannot sit on a heading line."""
    if not author or author != author.strip() or not author.isprintable():
        return None
    label = author.replace("\\", "\\\\").replace("@", "\\@")

    def break_role(match: re.Match[str]) -> str:
        word = match.group()
        return word[0] + "\\" + word[1:] if word.lower() in MESSAGE_ROLES else word

    label = _ROLE_WORD.sub(break_role, label)
    if _TURN_LABEL.fullmatch(label):
        label = label[0] + "\\" + label[1:]
    return label


def decode_author(heading: str | None, role: str) -> str | None:
    """The author a heading names (``alice -- assistant``), or None when it names none."""
    if heading is None:
        return None
    match = _LABELLED.fullmatch(heading.strip())
    if match is None or match.group(2).lower() != role:
        return None
    label = match.group(1)
    if _TURN_LABEL.fullmatch(label):
        return None
    return _ESCAPED.sub(r"\1", label)


def _heading(position: int, author: str, role: str) -> str:
    """The heading text (without ``## ``) for message *position* (0-based)."""
    label = None if author == role else encode_author(author)
    if label is None:
        return f"Turn {position + 1} -- {role}"
    return f"{label} -- {role}"


# --- content -------------------------------------------------------------------------------


def _escape(content: str) -> str:
    """Put a backslash before each line start that could open a heading, an HTML block, an
    embed fence, a code fence or a setext underline, and before each line start that
    already is a backslash (so that :func:`_unescape` is exact).

    Not :func:`lmml_mdit.bridge.escape.escape_text`, which is one-way (its backslashes stay
    in the turn): this must be undone by :func:`_unescape`, so it escapes by a fixed
    line-start rule rather than by what the parser happens to misread."""
    lines = content.split("\n")
    escaped: list[str] = []
    previous = ""
    for line in lines:
        indent = _LINE_START.match(line)
        assert indent is not None
        cut = indent.end()
        rest = line[cut:]
        if _RISKY_START.match(rest) or (previous.strip() and _UNDERLINE.match(rest)):
            line = line[:cut] + "\\" + rest
        escaped.append(line)
        previous = line
    return "\n".join(escaped)


def _escape_references(text: str, carried: frozenset[str]) -> str:
    """Put a backslash before the ``@`` of every reference to a name the transcript does
    not carry, so that an ``@`` sign in a content (``@bob``, ``a@b.c`` needs none) cannot
    forge a reference to an asset. The text comes back with normalized line endings (the
    manifest keeps the exact content)."""
    text = normalize_newlines(text)
    narrative = parse(text, known_names=carried)
    forged = [
        (embed.line, embed.column)
        for embed in narrative.embeds
        if not embed.is_inline and embed.name not in carried
    ]
    if not forged:
        return text
    lines = text.split("\n")
    for line, column in sorted(forged, reverse=True):
        row = lines[line - 1]
        lines[line - 1] = row[: column - 1] + "\\" + row[column - 1 :]
    return "\n".join(lines)


def _unescape(text: str) -> str:
    lines = text.split("\n")
    for index, line in enumerate(lines):
        indent = _LINE_START.match(line)
        assert indent is not None
        cut = indent.end()
        if line.startswith("\\", cut):
            lines[index] = line[:cut] + line[cut + 1 :]
    return "\n".join(lines)


def _fence(content: str) -> str:
    marks = backtick_fence(content)
    return f"{marks}{CONTENT_FENCE_INFO}\n{content}\n{marks}"


def _unfence(text: str) -> str | None:
    lines = text.split("\n")
    if len(lines) < 2:
        return None
    opening, closing = lines[0], lines[-1]
    marks = closing.strip()
    if not marks or set(marks) != {"`"} or opening != marks + CONTENT_FENCE_INFO:
        return None
    return "\n".join(lines[1:-1])


def _decode(text: str, encoding: str) -> str:
    if encoding == "escaped":
        return _unescape(text)
    if encoding == "fenced":
        inner = _unfence(text)
        if inner is not None:
            return inner
    return text


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- writing -------------------------------------------------------------------------------


@dataclass
class _Plan:
    message: Message
    role: str
    heading: str | None  # None: the preamble
    encoding: Encoding = "verbatim"
    attachments: tuple[str, ...] = ()  # .lmml: asset fences closing the turn
    carried: frozenset[str] = frozenset()  # the transcript's asset names

    @property
    def body(self) -> str:
        content = self.message.content
        if self.encoding == "escaped":
            return _escape_references(_escape(content), self.carried)
        return _fence(content) if self.encoding == "fenced" else content


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


def _plans(transcript: Transcript, pov: tuple[str, str, str] | None) -> list[_Plan]:
    plans: list[_Plan] = []
    carried = frozenset(transcript.assets)
    for position, message in enumerate(transcript):
        check_saveable(message, position)  # fields may have been changed in place
        is_preamble = (
            position == 0
            and message.author == "context"
            and "role" not in message.metadata
            and as_turn_text(message.content) != ""
        )
        if is_preamble:
            plans.append(_Plan(message, "context", None, carried=carried))
            continue
        role = _role(message, pov)
        heading = _heading(position, message.author, role)
        plans.append(_Plan(message, role, heading, carried=carried))
    return plans


def _render(
    plans: Sequence[_Plan], preamble: str = "", fences: Mapping[str, str] | None = None
) -> str:
    chunks: list[str] = []
    if preamble:
        chunks.append(preamble + "\n")
    for plan in plans:
        if plan.heading is not None:
            chunks.append(f"## {plan.heading}\n\n")
        body = plan.body
        if body:
            chunks.append(body + "\n\n")
        if fences is not None:
            chunks.extend(fences[asset] + "\n" for asset in plan.attachments)
    return "".join(chunks)


def _message_turns(narrative: Narrative) -> tuple[list[Turn], int]:
    """The narrative's turns with the preamble's attachment fences cut off, and how many
    preamble lines those fences (and the blank lines after them) take."""
    turns = list(narrative.turns)
    skip = 0
    if turns and turns[0].role == "context":
        skip = _attachment_lines(narrative, turns[0].end_line)
        lines = narrative.lines[skip : turns[0].end_line]
        if not any(line.strip() for line in lines):
            turns.pop(0)
    return turns, skip


def _attachment_lines(narrative: Narrative, region_end: int) -> int:
    """How many leading lines of the preamble are inline fences (and blank lines)."""
    position = 0
    lines = narrative.lines
    for token in narrative.tokens:
        if token.map is None or token.level != 0 or token.nesting == -1:
            continue
        start, end = token.map
        if start >= region_end:
            break
        if any(line.strip() for line in lines[position:start]):
            break
        if token.type != "lmml_embed":
            break
        position = end
    while position < region_end and not lines[position].strip():
        position += 1
    return position


def _turn_text(narrative: Narrative, turn: Turn, skip: int, attachments: Sequence[str] = ()) -> str:
    """The turn's text without the preamble's leading fences (*skip* lines) and without the
    asset fences closing it (the first inline fence named in *attachments*)."""
    start = turn.start_line - 1
    if turn.role == "context":
        start = max(start, skip)
    end = turn.end_line
    if attachments:
        for embed in narrative.embeds:
            if embed.is_inline and embed.name in attachments and start < embed.line <= end:
                end = embed.line - 1
                break
    if start == turn.start_line - 1 and end == turn.end_line:
        return turn.text
    return as_turn_text("\n".join(narrative.lines[start:end]))


def _first_mismatch(
    narrative: Narrative,
    plans: Sequence[_Plan],
    assets: Mapping[str, bytes],
    *,
    sentinel: bool = False,
) -> tuple[int, str] | None:
    """The first plan the narrative does not give back, and what went wrong.

    With *sentinel*, the narrative ends in :data:`_SENTINEL`, which must read back as one
    more turn: so the last content cannot swallow what a ``.lmml`` puts after it.
    """
    turns, skip = _message_turns(narrative)
    sentinel_missing = False
    if sentinel:
        if turns and turns[-1].heading == _SENTINEL_HEADING:
            turns = turns[:-1]
        else:
            sentinel_missing = True
    fence_turn = _fence_owners(narrative, turns, skip, [plan.attachments for plan in plans])
    reference_turn = _reference_owners(narrative, turns, skip)
    for position, plan in enumerate(plans):
        if position >= len(turns):
            return position, "turn"
        turn = turns[position]
        expected_role = plan.role if plan.heading is not None else "context"
        if turn.role != expected_role or turn.heading != plan.heading:
            return (position, "heading") if turn.role == expected_role else (position, "turn")
        if _turn_text(narrative, turn, skip, plan.attachments) != as_turn_text(plan.body):
            return position, "turn"
        for embed in fence_turn.get(position, ()):
            if assets.get(embed.name) != embed.content:
                return position, "turn"
        if any(name not in assets for name in reference_turn.get(position, ())):
            return position, "turn"
    if len(turns) != len(plans) or sentinel_missing:
        return max(len(plans) - 1, 0), "turn"
    return None


def _turn_at(turns: Sequence[Turn], starts: Sequence[int], line: int) -> int | None:
    """The position of the turn holding *line* (*starts*: the turns' start lines), by
    bisection so that placing every embed stays linear overall."""
    position = bisect.bisect_right(starts, line) - 1
    if position < 0:
        return None
    turn = turns[position]
    return position if line <= max(turn.end_line, turn.start_line) else None


def _fence_owners(
    narrative: Narrative,
    turns: Sequence[Turn],
    skip: int,
    attachments: Sequence[Sequence[str]] = (),
) -> dict[int, list[Embed]]:
    """Every inline fence occurrence inside a message turn's content, by turn position
    (the preamble's leading fences and each turn's closing asset fences excluded)."""
    owners: dict[int, list[Embed]] = {}
    starts = [turn.start_line for turn in turns]
    for embed in narrative.embeds:
        if not embed.is_inline or embed.line <= skip:
            continue
        position = _turn_at(turns, starts, embed.line)
        if position is None:
            continue
        closing = attachments[position] if position < len(attachments) else ()
        if embed.name not in closing:
            owners.setdefault(position, []).append(embed)
    return owners


def _reference_owners(
    narrative: Narrative, turns: Sequence[Turn], skip: int
) -> dict[int, list[str]]:
    """The names of the references (not fences) inside each message turn, by position."""
    owners: dict[int, list[str]] = {}
    starts = [turn.start_line for turn in turns]
    for embed in narrative.embeds:
        if embed.is_inline or embed.line <= skip:
            continue
        position = _turn_at(turns, starts, embed.line)
        if position is not None:
            owners.setdefault(position, []).append(embed.name)
    return owners


def _escalate(plans: list[_Plan], problem: tuple[int, str]) -> None:
    """Make the plan at fault safer: a plain heading, then escaping, then a code fence."""
    position, kind = problem
    if position >= len(plans):
        raise TranscriptError(
            "the .lmml attachments changed how the narrative reads",
            hint="save the transcript as .lmmlz",
        )
    plan = plans[position]
    if kind == "heading" and plan.heading is not None and " -- " in plan.heading:
        plan.heading = f"Turn {position + 1} -- {plan.role}"
    elif plan.encoding != "fenced":
        plan.encoding = ENCODINGS[ENCODINGS.index(plan.encoding) + 1]
    else:
        raise TranscriptError(
            "cannot write the transcript as LMML that reads back the same",
            name=f"message {position}",
            hint="please report this as a bug in lmml_mdit, with the transcript",
        )


def _settle(plans: list[_Plan], assets: Mapping[str, bytes]) -> Narrative:
    """Escalate unsafe plans until the narrative reads back as planned (followed by a
    sentinel turn), and return the narrative without the sentinel."""
    # Each turn alone first (small parses, linear overall); the whole is checked after, as
    # turns could still interact.
    for position, plan in enumerate(plans):
        while True:
            alone = parse(_render([plan]) + _SENTINEL, known_names=assets)
            problem = _first_mismatch(alone, [plan], assets, sentinel=True)
            if problem is None:
                break
            _escalate(plans, (position, problem[1]))
    while True:
        text = _render(plans)
        problem = _first_mismatch(
            parse(text + _SENTINEL, known_names=assets), plans, assets, sentinel=True
        )
        if problem is None:
            return parse(text, known_names=assets)
        _escalate(plans, problem)


def _manifest_record(narrative: Narrative, plans: Sequence[_Plan]) -> dict[str, Any]:
    turns, skip = _message_turns(narrative)
    entries = []
    for position, (plan, turn) in enumerate(zip(plans, turns, strict=True)):
        message = plan.message
        check_saveable(message, position)
        text = _turn_text(narrative, turn, skip)
        entry: dict[str, Any] = {
            "author": message.author,
            "metadata": copy.deepcopy(message.metadata),
            "heading": plan.heading,
            "sha256": _digest(text),
        }
        if plan.encoding != "verbatim":
            entry["encoding"] = plan.encoding
        if plan.attachments:
            entry["attachments"] = list(plan.attachments)
        if _decode(text, plan.encoding) != message.content:
            entry["content"] = message.content
        entries.append(entry)
    return {"version": TRANSCRIPT_LMML_VERSION, "messages": entries}


def _manifest_bytes(record: Mapping[str, Any]) -> bytes:
    from .bundle import dump_manifest

    return dump_manifest({MANIFEST_KEY: record})


def _inline_fence(name: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotInlinableError(
            "the asset is not UTF-8 text, so a .lmml fence cannot hold it",
            name=name,
            hint="save the transcript as .lmmlz",
        ) from None
    # One shape serves all: after a final newline "@@@" is a closing line; otherwise it
    # closes the fence at the end of the last content line.
    return f"@@@{name}\n{text}@@@\n"


def _fenced_in_content(narrative: Narrative) -> set[str]:
    turns, skip = _message_turns(narrative)
    owners = _fence_owners(narrative, turns, skip)
    return {embed.name for embeds in owners.values() for embed in embeds}


def _attach(narrative: Narrative, plans: Sequence[_Plan], names: Sequence[str]) -> list[str]:
    """Give each asset in *names* to the turn that first references it (its fence will
    close that turn, so the asset binds there); return the names no turn references."""
    turns, _ = _message_turns(narrative)
    left = list(names)
    for plan, turn in zip(plans, turns, strict=True):
        plan.attachments = ()
        mine = [embed.name for embed in turn.embeds if embed.name in left]
        if mine:
            plan.attachments = tuple(mine)
            left = [name for name in left if name not in mine]
    return left


def narrative_text(transcript: Transcript, *, pov: str | Pov | None = None) -> str:
    """The LMML narrative of *transcript*'s turns (no manifest, no asset fences)."""
    roles = _pov_roles(pov) if pov is not None else None
    plans = _plans(transcript, roles)
    _settle(plans, transcript.assets)
    return _render(plans)


def transcript_to_bundle(
    transcript: Transcript,
    name: str,
    *,
    kind: Literal["zip", "text"] = "zip",
    pov: str | Pov | None = None,
) -> Bundle:
    """Write *transcript* as a bundle that :func:`transcript_from_bundle` reads back equal.

    :param name: the bundle name (``session``; a ``.lmml``/``.lmmlz`` suffix is stripped).
    :param kind: ``"zip"`` (assets as entries) or ``"text"`` (assets as inline fences).
    :param pov: gives named authors without ``metadata["role"]`` their heading role.
    :raises TranscriptFormatError: for metadata JSON cannot hold losslessly.
    :raises NotInlinableError: (text) for an asset a fence cannot hold exactly.
    """
    from .bundle import Bundle

    roles = _pov_roles(pov) if pov is not None else None
    assets = transcript.assets
    plans = _plans(transcript, roles)
    if kind not in ("zip", "text"):
        raise TranscriptError(f"kind must be 'zip' or 'text', not {kind!r}")
    narrative = _settle(plans, assets)
    inline_names = _fenced_in_content(narrative)
    outside = [asset for asset in assets if asset not in inline_names]
    if kind == "zip":
        manifest = _manifest_bytes(_manifest_record(narrative, plans))
        entries = {MANIFEST_NAME: manifest}
        entries.update((asset, assets[asset]) for asset in outside)
        return Bundle.from_zip(name, _render(plans), entries)
    fences = {asset: _inline_fence(asset, assets[asset]) for asset in outside}
    while True:
        orphans = _attach(narrative, plans, outside)
        manifest = _manifest_bytes(_manifest_record(narrative, plans))
        preamble = _inline_fence(MANIFEST_NAME, manifest) + "".join(fences[o] for o in orphans)
        bundle = Bundle.from_text(name, _render(plans, preamble, fences))
        for asset, data in [(MANIFEST_NAME, manifest), *((o, assets[o]) for o in outside)]:
            if not _resolves_to(bundle, asset, data):
                raise NotInlinableError(
                    "a .lmml fence cannot hold this asset exactly (carriage returns, or a "
                    "line before the last that is or ends with @@@)",
                    name=asset,
                    hint="save the transcript as .lmmlz",
                )
        problem = _first_mismatch(bundle.narrative, plans, assets)
        if problem is None:
            return bundle
        # The fences closing a turn changed how it reads: make that turn safer and redo.
        _escalate(plans, problem)
        narrative = _settle(plans, assets)


def _resolves_to(bundle: Bundle, name: str, data: bytes) -> bool:
    try:
        return bundle.embed(name) == data
    except LmmlError:
        return False


# --- reading -------------------------------------------------------------------------------


def _record(bundle: Bundle) -> list[dict[str, Any]] | None:
    manifest = bundle.manifest
    if not manifest or MANIFEST_KEY not in manifest:
        return None
    record = manifest[MANIFEST_KEY]

    def fail(message: str) -> TranscriptFormatError:
        return TranscriptFormatError(
            f"manifest.json {MANIFEST_KEY!r}: {message}",
            name=MANIFEST_NAME,
            hint="remove the record to read the narrative alone",
        )

    if not isinstance(record, dict):
        raise fail("is not an object")
    version = record.get("version")
    if version != TRANSCRIPT_LMML_VERSION:
        raise fail(f"version {version!r} is not supported (this lmml_mdit reads 1)")
    entries = record.get("messages")
    if not isinstance(entries, list):
        raise fail("has no messages list")
    for position, entry in enumerate(entries):
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("author"), str)
            and isinstance(entry.get("metadata"), dict)
            and isinstance(entry.get("sha256"), str)
            and (entry.get("heading") is None or isinstance(entry.get("heading"), str))
            and isinstance(entry.get("content", ""), str)
            and entry.get("encoding", "verbatim") in ENCODINGS
            and isinstance(entry.get("attachments", []), list)
            and all(isinstance(item, str) for item in entry.get("attachments", []))
        ):
            raise fail(f"message {position} is malformed")
    return entries


def transcript_from_bundle(bundle: Bundle) -> Transcript:
    """Read *bundle*'s turns as messages, and its assets.

    :raises TranscriptFormatError: for a malformed transcript record in ``manifest.json``.
    :raises InvalidManifestError: when ``manifest.json`` is not a JSON object.
    """
    narrative = bundle.narrative
    entries = _record(bundle)
    turns, skip = _message_turns(narrative)
    if entries is not None and len(entries) != len(turns):
        entries = None  # turns were added or removed by hand: positions no longer align
    messages: list[Message] = []
    for position, turn in enumerate(turns):
        entry = entries[position] if entries is not None else None
        closing = entry.get("attachments", ()) if entry is not None else ()
        text = _turn_text(narrative, turn, skip, closing)
        named = decode_author(turn.heading, turn.role) if turn.role != "context" else None
        author = named if named is not None else turn.role
        metadata: dict[str, Any] = {"role": turn.role} if named is not None else {}
        content = text
        if entry is not None:
            metadata = copy.deepcopy(entry["metadata"])
            encoding = entry.get("encoding", "verbatim")
            heading = entry["heading"]
            if heading == turn.heading and (heading is None) == (turn.role == "context"):
                author = entry["author"]
            if entry["sha256"] == _digest(text):
                content = entry.get("content", _decode(text, encoding))
            else:
                content = _decode(text, encoding)
        messages.append(Message(author, content, metadata))
    return Transcript(messages, assets=_assets(bundle))


def _assets(bundle: Bundle) -> dict[str, bytes]:
    from .archive import unsafe_reason

    assets: dict[str, bytes] = {}
    for embed in bundle.narrative.embeds:
        name = embed.name
        fresh = embed.is_inline and name not in assets and name != MANIFEST_NAME
        if fresh and unsafe_reason(name) is None:
            # What a reference resolves to: the first inline fence of that name.
            assets[name] = bundle.embed(name)
    for name in bundle.entries:
        if name != MANIFEST_NAME and name not in assets:
            assets[name] = bundle.read(name)
    for embed in bundle.narrative.embeds:
        # A text bundle opened with base_dir= resolves references to files beside it; carry
        # those too. A reference nothing resolves stays plain text for the transcript.
        name = embed.name
        if name in assets or name == MANIFEST_NAME or unsafe_reason(name) is not None:
            continue
        try:
            assets[name] = bundle.embed(name)
        except LmmlError:
            continue
    return assets


# --- files ---------------------------------------------------------------------------------


def save_lmml(transcript: Transcript, path: str | os.PathLike[str]) -> None:
    """Save *transcript* as ``.lmmlz`` (zip) or ``.lmml`` (text), atomically.

    :raises TranscriptError: for a path with another extension.
    """
    target = os.fspath(path)
    if target.endswith(".lmmlz"):
        kind: Literal["zip", "text"] = "zip"
    elif target.endswith(".lmml"):
        kind = "text"
    else:
        raise TranscriptError("an LMML transcript file ends in .lmml or .lmmlz", name=target)
    stem = os.path.basename(target)
    transcript_to_bundle(transcript, stem, kind=kind).save(target)


def load_lmml(path: str | os.PathLike[str]) -> Transcript:
    """Read a ``.lmml`` or ``.lmmlz`` file as a transcript."""
    from .bundle import open as open_bundle

    bundle = open_bundle(path)
    try:
        return transcript_from_bundle(bundle)
    finally:
        bundle.close()
