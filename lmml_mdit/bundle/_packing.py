"""Packing and inlining bundles, by rewriting lines at token positions.

:func:`pack_fences`, :func:`inline_assets` and :func:`rewrite_fence` rewrite the
narrative's normalized source lines at the positions the parser recorded, never by
searching the text; the result is parsed again and compared with the original, so a
rewrite that would change the meaning raises. See docs/bundles.md, "Packing and inlining".
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Literal

from ..errors import (
    BundleError,
    ConflictingEmbedError,
    LmmlError,
    NotInlinableError,
    OrphanedEntryWarning,
    UnsafeEntryError,
)
from ..model import Embed
from ..narrative import Fence, Narrative, is_structure_name, parse
from ..syntax import MARKER, check_fenceable, embed_fence, reference
from ..text import first_line_ending
from ..warn import warn
from ._archive import unsafe_reason
from ._contents import (
    BundleContents,
    fences_differing_from_entries,
    fences_differing_from_files,
    first_fences,
)
from ._names import is_reference_name
from .reserved_embeds import RESERVED_NAMES

__all__ = [
    "InlineReport",
    "OrphanedEntryWarning",
    "fence_text",
    "inline_assets",
    "pack_fences",
    "rewrite_fence",
]


@dataclass(frozen=True)
class InlineReport:
    """What :func:`inline_assets` did with each asset.

    :ivar inlined: referenced assets that became fences, in narrative order.
    :ivar appended: unreferenced entries appended as fences at the end (reserved entries
        such as ``manifest.json`` always are; others with ``orphans="append"``).
    :ivar dropped: unreferenced entries left out (``orphans="drop"``).
    :ivar kept: assets no fence can hold (binary ones), kept as archive entries
        (``keep_binary=True``).
    """

    inlined: tuple[str, ...] = ()
    appended: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()


def _source_lines(narrative: Narrative) -> tuple[list[str], bool, str]:
    """The narrative's lines, whether it ends with a line ending, and its line ending (so
    a rewrite keeps a CRLF file CRLF)."""
    return (
        list(narrative.lines),
        narrative.source.endswith("\n"),
        first_line_ending(narrative.text),
    )


def _join(lines: list[str], final_newline: bool, newline: str) -> str:
    text = newline.join(lines)
    return text + newline if final_newline and lines else text


def _shape(narrative: Narrative) -> list[tuple[str, str | None, tuple[str, ...]]]:
    """What a rewrite must keep: each turn's role, heading and embed names."""
    return [
        (turn.role, turn.heading, tuple(sorted({embed.name for embed in turn.embeds})))
        for turn in narrative.turns
    ]


_Occurrence = tuple[Embed, object]
"""An embed in document order and what it stands for: its bytes, or ``("entry", name)``
for an archive entry the rewrite keeps as it is (not read: the same on both sides)."""


def _kept_entry(name: str) -> object:
    """What a reference to the archive entry *name* stands for, the entry being kept."""
    return ("entry", name)


def _occurrences(narrative: Narrative, values: Mapping[str, object]) -> list[_Occurrence]:
    """Every embed of *narrative* with what it resolves to: a fence its own content, a
    reference the first fence of its name, else its value in *values* (an entry or a
    base_dir file); None when it resolves to nothing."""
    fences = first_fences(narrative)
    out: list[_Occurrence] = []
    for embed in narrative.embeds:
        value: object
        if embed.kind == "inline":
            value = embed.content
        elif embed.name in fences:
            value = fences[embed.name].content
        else:
            value = values.get(embed.name)
        out.append((embed, value))
    return out


def _changed_bytes(embed: Embed, narrative_name: str) -> BundleError:
    return BundleError(
        "the rewrite would change what this embed holds (a fence's bytes, or which "
        "lines are fences)",
        name=embed.name,
        line=embed.line,
        column=embed.column,
        hint=f"close every fence with {MARKER} on its own line and leave a blank line after "
        f"it in {narrative_name}, then try again",
    )


def _verify_occurrences(
    before: list[_Occurrence],
    after: list[_Occurrence],
    narrative_name: str,
    added: Mapping[str, bytes] | None = None,
) -> None:
    """Refuse a rewrite unless *after* holds the embeds of *before* in the same order, each
    with the same bytes. With *added* (inlining: the assets that became fences), an embed
    of one of those names may be added, moved or turned into a fence, as long as each one
    of them holds exactly that asset; the turns check keeps them in their turns.

    :raises BundleError: naming the first embed whose bytes differ (or that is new).
    """
    extra = added or {}
    kept_before = [(embed, value) for embed, value in before if embed.name not in extra]
    kept_after: list[_Occurrence] = []
    for embed, value in after:
        if embed.name in extra:
            if value != extra[embed.name]:
                raise _changed_bytes(embed, narrative_name)
        else:
            kept_after.append((embed, value))
    for (old, old_value), (new, new_value) in zip(kept_before, kept_after, strict=False):
        if (old.name, old_value) != (new.name, new_value):
            raise _changed_bytes(new, narrative_name)
    if len(kept_after) > len(kept_before):
        raise _changed_bytes(kept_after[len(kept_before)][0], narrative_name)
    if len(kept_before) > len(kept_after):
        raise _changed_bytes(kept_before[len(kept_after)][0], narrative_name)


def _continuation(prefix: str) -> str:
    """The prefix for a container's following lines: ``>`` kept, list markers blanked."""
    return "".join(char if char in "> \t" else " " for char in prefix)


def fence_text(name: str, data: bytes) -> str:
    """The fence for *data*, closing on its own line when the content ends with a newline.

    Content without a final newline can only be kept byte for byte by closing on its last
    line (``last line@@@``), which :mod:`lmml_mdit.syntax` reads back exactly.

    :raises NotInlinableError: when *data* is binary, not UTF-8, holds carriage returns,
        has a line that is or ends with ``@@@``, or ends in a blank line without a newline
        (:func:`lmml_mdit.syntax.check_fenceable`).
    """
    hint = "keep it as an archive entry (pack the bundle) instead of inlining it"
    try:
        content = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotInlinableError(
            "the asset is binary (not valid UTF-8 text)",
            name=name,
            hint="pass keep_binary=True to keep it as an archive entry, or pack the bundle",
            cli_hint="give --keep-binary to keep it as an archive entry, or pack the bundle",
        ) from None
    check_fenceable(name, content, hint=hint)
    if content.startswith("\ufeff"):
        raise NotInlinableError("the asset starts with a byte-order mark", name=name, hint=hint)
    return embed_fence(name, content)


def _fences_to_references(
    lines: list[str], fences: Sequence[Fence], stay: frozenset[str], absorbed: Set[int]
) -> list[str]:
    """*lines* with each fence's lines replaced by one ``@name`` line, keeping what
    precedes its ``@@@`` (indentation, ``> ``), apart from the fences named in *stay*;
    the fences opening on a line in *absorbed* (0-based) leave no line at all (nor the
    blank line before one that a blank line follows).
    Fences come in document order and never share a line, so one pass builds the result
    (slicing the list per fence was quadratic).
    """
    out: list[str] = []
    position = 0
    for fence in fences:
        if fence.name in stay:
            continue
        start, end = fence.start, fence.end
        out.extend(lines[position:start])
        if start not in absorbed:
            prefix = lines[start][: fence.column - 1]
            out.append(prefix + reference(fence.name))
        elif out and not out[-1].strip() and (end >= len(lines) or not lines[end].strip()):
            out.pop()  # the blank line before it too: inline() writes both back
        position = max(position, end)
    out.extend(lines[position:])
    return out


def _fence_error(
    error: type[LmmlError], message: str, embed: Embed, hint: str, bundle: BundleContents
) -> LmmlError:
    """*error* at *embed*'s place in *bundle*'s narrative, ``FILE:LINE:COL: message``."""
    return error(
        f"@@@{embed.name}: {message}",
        name=embed.name,
        line=embed.line,
        column=embed.column,
        file=bundle.file_name,
        hint=hint,
    )


def _absorbed_fences(narrative: Narrative, stay: Set[str]) -> dict[int, Embed]:
    """The fences a reference earlier in their own turn already sends, by opening line
    (0-based): sending puts the part after the reference's block and the fence's lines
    leave the text, so packed they leave no ``@name`` line either (a later ``@name`` is
    sent as text)."""
    fences = first_fences(narrative)
    if not fences:
        return {}
    first = narrative.first_embeds
    starts = [max(turn.start_line - 1, 1) for turn in narrative.turns]  # the delimiter's line

    def turn_of(line: int) -> int:
        return bisect.bisect_right(starts, line)

    absorbed: dict[int, Embed] = {}
    for name, fence in fences.items():
        mention = first[name]
        if name in stay or name in RESERVED_NAMES or mention.kind == "inline":
            continue
        if turn_of(mention.line) == turn_of(fence.line):
            absorbed[fence.line - 1] = fence
    return absorbed


def _refuse_entry_conflicts(bundle: BundleContents) -> None:
    """:raises ConflictingEmbedError: for the first fence whose bytes differ from the
    archive entry of its name."""
    for fence in fences_differing_from_entries(bundle):
        raise _fence_error(
            ConflictingEmbedError,
            "the fence and the archive entry of this name hold different bytes",
            fence,
            "rename the fence or the entry, or make them identical",
            bundle,
        )
    for fence in fences_differing_from_files(bundle, RESERVED_NAMES):
        raise _fence_error(
            ConflictingEmbedError,
            "the fence and the file of this name in the folder hold different bytes",
            fence,
            "rename the fence or the file, or make them identical",
            bundle,
        )


def _with_bom(text: str, narrative: Narrative) -> str:
    """*text*, opened with the byte order mark *narrative* was read with, if any (parsed,
    it is taken off the text and kept as ``Narrative.bom``, for the save to write)."""
    return "\ufeff" + text if narrative.bom else text


def _filled_fences(bundle: BundleContents) -> frozenset[str]:
    """The fences a template fills (each holds a placeholder of an ``in_code`` input): an
    archive entry is never filled, so such a fence stays inline when packing."""
    if not any(found.context == "fence" for found in bundle.narrative.placeholders.found):
        return frozenset()
    from ..templates import template_of

    return template_of(bundle).fence_inputs


def pack_fences(bundle: BundleContents) -> tuple[Narrative, dict[str, bytes]]:
    """The narrative of *bundle* packed: every inline fence's lines become one ``@name``
    line, apart from the conversation's structure (tool calls, provider-specific items:
    :func:`~lmml_mdit.narrative.is_structure_name`) and the fences a template fills with
    an ``in_code`` input's value, which stay; and the entries
    to add: each fence's bytes, and for a text bundle with a ``base_dir`` the files
    referenced there (the existing entries are all kept).

    :raises BundleError: the errors :meth:`Bundle.pack <lmml_mdit.bundle.Bundle.pack>`
        names.
    """
    narrative = bundle.narrative
    fences = bundle.fences
    filled = _filled_fences(bundle)
    structure = {fence.name for fence in narrative.index.fences if is_structure_name(fence.name)}
    stay = filled | structure
    for embed in narrative.embeds:
        if embed.kind != "inline" or embed.name in stay:
            continue
        reason = unsafe_reason(embed.name)
        if reason is not None:
            raise _fence_error(
                UnsafeEntryError,
                f"the fence cannot become an archive entry: {reason}",
                embed,
                "rename the fence",
                bundle,
            )
        if not is_reference_name(embed.name):
            raise _fence_error(
                BundleError,
                "the fence's name cannot be written as an @reference",
                embed,
                "use letters, digits and _ . - / only, not ending in . - /",
                bundle,
            )
        if fences[embed.name].content != embed.content:
            raise _fence_error(
                ConflictingEmbedError,
                "two fences of this name hold different bytes",
                embed,
                "rename one fence or make them identical",
                bundle,
            )
    _refuse_entry_conflicts(bundle)

    kept = {name: _kept_entry(name) for name in bundle.entries}
    outside: dict[str, bytes] = {}  # base_dir files
    if bundle.kind == "text" and bundle.base_dir is not None:
        for name in narrative.first_embeds:
            if name not in fences and name not in kept and bundle.has_asset(name):
                outside[name] = bundle.embed(name)
    added = dict(outside)
    for name, fence in fences.items():
        if name not in kept and name not in added and name not in stay:
            assert fence.content is not None  # None would mean "read from the archive"
            added[name] = fence.content

    lines, final_newline, newline = _source_lines(narrative)
    absorbed = _absorbed_fences(narrative, stay)
    text = _join(
        _fences_to_references(lines, narrative.index.fences, stay, absorbed.keys()),
        final_newline,
        newline,
    )
    # The packed bundle's reader knows its entry names, so a reference without an
    # extension (a fence named Makefile) reads back as a reference.
    packed = parse(
        _with_bom(text, narrative),
        name=bundle.narrative_name,
        known_names=frozenset({*kept, *added}),
        delimiters=narrative.delimiters,  # compared with the narrative as it was read
        references=narrative.references,
    )
    if _shape(packed) != _shape(narrative):
        raise BundleError(
            "packing would change the turns (a reference line joins a neighbouring block)",
            name=bundle.narrative_name,
            hint="put a blank line after each fence, then pack again",
        )
    # A fence whose name is also an archive entry holds the same bytes (checked above):
    # compare the fence's bytes on both sides rather than reading the entry.
    packed_values: dict[str, object] = {**kept, **added}
    packed_values.update({name: fences[name].content for name in fences if name in kept})
    gone = set(map(id, absorbed.values()))
    _verify_occurrences(
        [
            found
            for found in _occurrences(narrative, {**kept, **outside})
            if id(found[0]) not in gone
        ],
        _occurrences(packed, packed_values),
        bundle.narrative_name,
    )
    return packed, added


class _Layout:
    """Line lookups for placing fences, built once so that placing every fence costs time
    linear in the narrative (a per-fence scan of all blocks and embeds was quadratic); the
    top-level blocks come from the narrative's structure index.

    Top-level blocks and turns do not overlap, so each line lies in at most one of each;
    the first turn wins should that ever not hold.
    """

    def __init__(self, narrative: Narrative, lines: list[str]) -> None:
        self.lines = lines
        self.structure = narrative.index
        self.turn_end: dict[int, int] = {}
        for turn in narrative.turns:
            for index in range(turn.start_line - 1, max(turn.end_line, turn.start_line)):
                self.turn_end.setdefault(index, turn.end_line)
        self.alone: dict[str, Embed] = {}
        for embed in narrative.embeds:
            if embed.name not in self.alone and self._stands_alone(embed):
                self.alone[embed.name] = embed

    def _stands_alone(self, embed: Embed) -> bool:
        """Whether *embed* is a reference alone on a line of a top-level paragraph."""
        index = embed.line - 1
        if embed.column > 4:
            return False  # the cheap test first: a long line holds many references
        block = self.structure.block_at(index)
        if block is None or block.kind != "paragraph":
            return False
        line = self.lines[index]
        return not line[: embed.column - 1].strip() and line.strip() == reference(embed.name)

    def placement(self, name: str, narrative: Narrative) -> tuple[int, str | None]:
        """Where the fence for *name* goes: the 0-based line, and when the fence replaces
        that line, the indentation it keeps (None when the fence is inserted before it).

        The first reference standing alone on a top-level paragraph line is replaced in
        place; otherwise the fence goes after the top-level block holding the first
        reference (or at the end of its turn), so the turns keep their embeds.
        """
        alone = self.alone.get(name)
        if alone is not None:
            index = alone.line - 1
            return index, self.lines[index][: alone.column - 1]
        index = narrative.first_embeds[name].line - 1
        block = self.structure.block_at(index)
        if block is not None:
            return block.end, None
        if index in self.turn_end:
            return self.turn_end[index], None
        return len(self.lines), None


def inline_assets(
    bundle: BundleContents,
    *,
    orphans: Literal["error", "append", "drop"] = "append",
    keep_binary: bool = False,
) -> tuple[Narrative, InlineReport]:
    """The narrative of *bundle* with every referenced text asset as an inline fence, and
    what happened to each asset.

    References are kept (they resolve to the fence of the same name); a reference alone on
    a top-level paragraph line is replaced by its fence. Unreferenced reserved entries
    (``manifest.json``, settings) are appended as fences at the end. Other unreferenced
    entries follow *orphans*.

    :param orphans: what to do with the entries the narrative never mentions, as for
        :meth:`Bundle.inline <lmml_mdit.bundle.Bundle.inline>`, which names the
        errors raised.
    :param keep_binary: leave each asset no fence can hold (a binary one) as it is, an
        entry, listed in the report's ``kept``; reserved entries then stay entries too.
    """
    if orphans not in ("error", "append", "drop"):
        raise ValueError(f"orphans must be 'error', 'append' or 'drop', not {orphans!r}")
    narrative = bundle.narrative
    fences: dict[str, str] = {}
    originals: dict[str, bytes] = {}
    kept: list[str] = []
    for name in narrative.first_embeds:
        if name in bundle.fences:
            continue
        data = bundle.embed(name)
        try:
            fences[name] = fence_text(name, data)
        except NotInlinableError:
            if not keep_binary:
                raise
            kept.append(name)
            continue
        originals[name] = data
    _refuse_entry_conflicts(bundle)

    unreferenced = [name for name in bundle.entries if name not in narrative.first_embeds]
    reserved = [name for name in unreferenced if name in RESERVED_NAMES]
    others = [name for name in unreferenced if name not in RESERVED_NAMES]
    if keep_binary:
        kept.extend(name for name in others if not _fenceable(name, bundle.read(name)))
        others = [name for name in others if name not in kept]
        if kept:
            kept.extend(reserved)  # an archive keeps its bookkeeping as entries
            reserved = []
    if others and orphans == "error":
        raise BundleError(
            f"entries the narrative never mentions: {', '.join(others)}",
            name=others[0],
            hint="reference them, or call inline(orphans='append') to keep them as fences "
            "or inline(orphans='drop') to leave them out",
            cli_hint="reference them, or give --orphans append to keep them as fences or "
            "--orphans drop to leave them out",
        )
    if others:
        fate = "appended as fences at the end" if orphans == "append" else "left out"
        warn(
            OrphanedEntryWarning(
                f"entries the narrative never mentions, {fate}: {', '.join(others)}"
            )
        )
    appended = reserved + (others if orphans == "append" else [])
    tail: list[str] = []
    for name in appended:
        data = bundle.read(name)
        originals[name] = data
        tail.extend(["", *fence_text(name, data).split("\n")])

    lines, final_newline, newline = _source_lines(narrative)
    layout = _Layout(narrative, lines)
    replacements: dict[int, list[str]] = {}
    insertions: dict[int, list[str]] = {}
    for name, fence in fences.items():
        at, prefix = layout.placement(name, narrative)
        fence_lines = fence.split("\n")
        if prefix is not None:
            replacements[at] = [prefix + fence_lines[0], *fence_lines[1:]]
        else:
            insertions.setdefault(at, []).extend(["", *fence_lines])
    lines = _spliced(lines, insertions, replacements)
    if tail:
        lines.extend(tail)
        final_newline = final_newline or bool(narrative.source)
    text = _join(lines, final_newline, newline)
    result = parse(
        _with_bom(text, narrative),
        name=bundle.narrative_name,
        delimiters=narrative.delimiters,  # compared with the narrative as it was read
        references=narrative.references,
    )
    _check_inlined(result, narrative, originals, appended, bundle.narrative_name)
    _verify_occurrences(
        _occurrences(narrative, originals),
        _occurrences(result, {}),
        bundle.narrative_name,
        added=originals,
    )
    return result, InlineReport(
        inlined=tuple(fences),
        appended=tuple(appended),
        dropped=tuple(others) if orphans == "drop" else (),
        kept=tuple(kept),
    )


def _fenceable(name: str, data: bytes) -> bool:
    """Whether a fence can hold *data* exactly."""
    try:
        fence_text(name, data)
    except NotInlinableError:
        return False
    return True


def _spliced(
    lines: list[str], insertions: dict[int, list[str]], replacements: dict[int, list[str]]
) -> list[str]:
    """*lines* with *insertions* placed before the line of their index (a blank line added
    when that line is not blank) and *replacements* standing for their line, built in one
    pass rather than by slicing the list once per fence."""
    out: list[str] = []
    for at in range(len(lines) + 1):
        added = insertions.get(at)
        if added is not None:
            out.extend(added)
            if at < len(lines) and lines[at].strip():
                out.append("")
        if at < len(lines):
            out.extend(replacements.get(at, (lines[at],)))
    for at in sorted(at for at in insertions if at > len(lines)):  # past the end: append
        out.extend(insertions[at])
    return out


def _check_inlined(
    result: Narrative,
    original: Narrative,
    contents: dict[str, bytes],
    appended: list[str],
    narrative_name: str,
) -> None:
    fenced = first_fences(result)
    for name, data in contents.items():
        fence = fenced.get(name)
        if fence is None or fence.content != data:
            raise NotInlinableError(
                "the asset cannot be fenced without changing its bytes",
                name=name,
                hint="keep it as an archive entry instead of inlining it",
            )
    before = _shape(original)
    after = _shape(result)
    if appended and after:
        # Appended fences join the last turn; everything else must be unchanged.
        role, heading, names = after[-1]
        after[-1] = (role, heading, tuple(sorted(set(names) - set(appended))))
    if before != after and not (not before and after and not after[-1][2]):
        raise BundleError(
            "inlining would change the turns",
            name=narrative_name,
            hint="put references on lines of their own, or pack the bundle instead",
        )


def rewrite_fence(narrative: Narrative, name: str, data: bytes) -> str:
    """The narrative text with every fence named *name* holding *data* instead."""
    lines, final_newline, newline = _source_lines(narrative)
    new_lines = fence_text(name, data).split("\n")
    for fence in reversed(narrative.index.fences):
        if fence.name != name:
            continue
        start, end = fence.start, fence.end
        prefix = lines[start][: fence.column - 1]
        following = _continuation(prefix)
        lines[start:end] = [prefix + new_lines[0], *(following + line for line in new_lines[1:])]
    return _join(lines, final_newline, newline)
