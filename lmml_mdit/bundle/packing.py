"""Packing, inlining and saving bundles, by rewriting lines at token positions.

Every rewrite works on the narrative's normalized source lines at the positions the parser
recorded (``token.map``, :attr:`~lmml_mdit.model.Embed.line` and ``column``); nothing is
found by searching the text for strings. The result is parsed again and compared with the
original (turn roles and headings, each turn's embed names, every embed's bytes), so a
rewrite that would change the meaning raises instead of passing silently.

- :func:`pack`: each inline fence becomes an archive entry, and the fence's lines become one
  ``@name`` line in the same place (keeping the line's container prefix, such as ``> ``).
- :func:`inline`: each externally referenced text asset becomes a fence. A reference that
  stands alone on a line of a top-level paragraph is replaced by the fence in place (so
  ``inline(pack(b))`` gives back ``b``'s text); otherwise the reference stays and the fence
  is added after the top-level block holding it, in the same turn.
- :func:`save_bundle`: atomic write, with manifest digests kept current.
"""

from __future__ import annotations

import copy
import io
import os
import warnings
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Literal

from ..atomic import atomic_write, atomic_write_bytes
from ..errors import (
    BundleError,
    ConflictingEmbedError,
    DuplicateEntryError,
    InvalidManifestError,
    LmmlError,
    NotInlinableError,
    UnsafeEntryError,
)
from ..model import Embed
from ..narrative.index import Fence
from ..narrative.narrative import Narrative, parse
from .archive import Limits, check_entry_names, unsafe_reason
from .bundle import (
    Bundle,
    _is_reference_name,
    dump_manifest,
    first_fences,
    manifest_digests,
    narrative_entry_name,
    sha256_hex,
)
from .reserved import MANIFEST_NAME, RESERVED_NAMES

__all__ = [
    "InlineReport",
    "OrphanedEntryWarning",
    "bundle_bytes",
    "fence_text",
    "inline",
    "pack",
    "save_bundle",
]

MARKER = "@@@"
# Extensions whose data is already compressed: stored as-is, deflating them wastes time.
_STORED_EXTENSIONS = frozenset(
    {
        *(".png", ".jpg", ".jpeg", ".gif", ".webp", ".zip", ".gz", ".bz2", ".xz", ".zst"),
        *(".7z", ".mp3", ".mp4", ".m4a", ".ogg", ".webm", ".pdf", ".docx", ".xlsx", ".pptx"),
        ".lmmlz",
    }
)
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


@dataclass(frozen=True)
class InlineReport:
    """What :func:`inline` did with each asset.

    :ivar inlined: referenced assets that became fences, in narrative order.
    :ivar appended: unreferenced entries appended as fences at the end (reserved entries
        such as ``manifest.json`` always are; others with ``orphans="append"``).
    :ivar dropped: unreferenced entries left out (``orphans="drop"``).
    """

    inlined: tuple[str, ...] = ()
    appended: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()


def _source_lines(narrative: Narrative) -> tuple[list[str], bool]:
    return list(narrative.lines), narrative.source.endswith("\n")


def _join(lines: list[str], final_newline: bool) -> str:
    text = "\n".join(lines)
    return text + "\n" if final_newline and lines else text


def _shape(narrative: Narrative) -> list[tuple[str, str | None, tuple[str, ...]]]:
    """What a rewrite must keep: each turn's role, heading and embed names."""
    return [
        (turn.role, turn.heading, tuple(sorted({embed.name for embed in turn.embeds})))
        for turn in narrative.turns
    ]


_Occurrence = tuple[Embed, object]
"""An embed in document order and what it stands for: its bytes, or ``("entry", name)``
for an archive entry not read into memory (the same on both sides of a pack)."""


def _occurrences(
    narrative: Narrative, entries: Mapping[str, bytes | None], outside: Mapping[str, bytes]
) -> list[_Occurrence]:
    """Every embed of *narrative* with the bytes it resolves to: a fence its own content, a
    reference the first fence of its name, else the entry, else *outside* (base_dir
    files); None when it resolves to nothing."""
    fences = first_fences(narrative)
    out: list[_Occurrence] = []
    for embed in narrative.embeds:
        value: object
        if embed.kind == "inline":
            value = embed.content
        elif embed.name in fences:
            value = fences[embed.name].content
        elif embed.name in entries:
            data = entries[embed.name]
            value = data if data is not None else ("entry", embed.name)
        else:
            value = outside.get(embed.name)
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
    line (``last line@@@``), which :mod:`lmml_mdit.syntax.fence` reads back exactly.

    :raises NotInlinableError: when *data* is binary, not UTF-8, holds carriage returns, or
        has a line that is or ends with ``@@@``.
    """
    hint = "keep it as an archive entry (pack the bundle) instead of inlining it"
    try:
        content = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotInlinableError(
            "the asset is binary (not valid UTF-8 text)", name=name, hint=hint
        ) from None
    if "\x00" in content:
        raise NotInlinableError("the asset is binary (it holds NUL bytes)", name=name, hint=hint)
    if "\r" in content:
        raise NotInlinableError(
            "the asset holds carriage returns, which a narrative normalizes away",
            name=name,
            hint=hint + ", or convert it to LF line endings",
        )
    if content.startswith("\ufeff"):
        raise NotInlinableError("the asset starts with a byte-order mark", name=name, hint=hint)
    for index, line in enumerate(content.split("\n")):
        if line.rstrip().endswith(MARKER):
            raise NotInlinableError(
                f"line {index + 1} of the asset is or ends with {MARKER}, which would close "
                "the fence early",
                name=name,
                hint=hint,
            )
    return f"{MARKER}{name}\n{content}{MARKER}"


def _fences_to_references(lines: list[str], fences: Sequence[Fence]) -> list[str]:
    """*lines* with each fence's lines replaced by one ``@name`` line, keeping what
    precedes its ``@@@`` (indentation, ``> ``). Fences come in document order and never
    share a line, so one pass builds the result (slicing the list per fence was quadratic).
    """
    out: list[str] = []
    position = 0
    for fence in fences:
        start, end = fence.start, fence.end
        out.extend(lines[position:start])
        prefix = lines[start][: fence.column - 1]
        out.append(f"{prefix}@{fence.name}")
        position = max(position, end)
    out.extend(lines[position:])
    return out


def _fence_error(
    error: type[LmmlError], message: str, embed: Embed, hint: str, bundle: Bundle
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


def _refuse_entry_conflicts(bundle: Bundle) -> None:
    """:raises ConflictingEmbedError: for the first fence whose bytes differ from the
    archive entry of its name."""
    for fence in bundle._fences_differing_from_entries():
        raise _fence_error(
            ConflictingEmbedError,
            "the fence and the archive entry of this name hold different bytes",
            fence,
            "rename the fence or the entry, or make them identical",
            bundle,
        )


def pack(bundle: Bundle) -> Bundle:
    """A zip bundle: every inline fence becomes an entry and its lines one ``@name`` line.

    Existing entries are all kept (unreferenced ones too); for a text bundle opened with
    ``base_dir``, referenced files found there become entries as well.

    :raises UnsafeEntryError: for a fence name that cannot be an entry name.
    :raises BundleError: for a fence name ``@name`` cannot express, or a rewrite that would
        change the turns.
    :raises ConflictingEmbedError: when fences, or a fence and an entry, disagree on bytes.
    """
    narrative = bundle.narrative
    fences = bundle._inline_embeds
    for embed in narrative.embeds:
        if embed.kind != "inline":
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
        if not _is_reference_name(embed.name):
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

    entries: dict[str, bytes | None] = dict(bundle._entries)
    if bundle.kind == "text" and bundle.base_dir is not None:
        for name in narrative.first_embeds:
            if name not in fences and name not in entries and bundle.has_asset(name):
                entries[name] = bundle.embed(name)
    for name, fence in fences.items():
        if name not in entries:
            assert fence.content is not None  # None would mean "read from the archive"
            entries[name] = fence.content

    lines, final_newline = _source_lines(narrative)
    text = _join(_fences_to_references(lines, narrative.index.fences), final_newline)
    # The packed bundle's reader knows its entry names, so a reference without an
    # extension (a fence named Makefile) reads back as a reference.
    packed = parse(text, name=bundle.narrative_name, known_names=frozenset(entries))
    if _shape(packed) != _shape(narrative):
        raise BundleError(
            "packing would change the turns (a reference line joins a neighbouring block)",
            name=bundle.narrative_name,
            hint="put a blank line after each fence, then pack again",
        )
    outside = {
        name: data
        for name, data in entries.items()
        if data is not None and name not in bundle._entries and name not in fences
    }
    # A fence whose name is also an archive entry holds the same bytes (checked above):
    # compare the fence's bytes on both sides rather than reading the entry again.
    packed_entries = {
        name: fences[name].content if data is None and name in fences else data
        for name, data in entries.items()
    }
    _verify_occurrences(
        _occurrences(narrative, bundle._entries, outside),
        _occurrences(packed, packed_entries, {}),
        bundle.narrative_name,
    )
    return Bundle(
        kind="zip",
        name=bundle.name,
        narrative_name=bundle.name + ".lmml",
        narrative=packed,
        entries=entries,
        archive=bundle._archive,
        limits=bundle.limits,
    )


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
        return not line[: embed.column - 1].strip() and line.strip() == f"@{embed.name}"

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


class OrphanedEntryWarning(UserWarning):
    """``inline()`` met entries the narrative never mentions (kept as fences at the end, or
    left out with ``orphans="drop"``; the warning names them)."""


def inline(bundle: Bundle, *, orphans: Literal["error", "append", "drop"] = "append") -> Bundle:
    """A text bundle in which every referenced text asset is an inline fence.

    References are kept (they resolve to the fence of the same name); a reference alone on
    a top-level paragraph line is replaced by its fence. Unreferenced reserved entries
    (``manifest.json``, settings) are appended as fences at the end. Other unreferenced
    entries follow *orphans*. The result's ``inline_report`` says what happened.

    :param orphans: ``"append"`` (default) appends unreferenced entries as fences at the
        end, ``"drop"`` leaves them out, both reporting them in ``inline_report`` and with an
        :class:`OrphanedEntryWarning`; ``"error"`` raises instead.
    :raises NotInlinableError: naming a binary or unfenceable asset.
    :raises MissingEntryError: for a reference to a missing entry (nothing is inlined).
    :raises UnresolvableReferenceError: for a reference a bare ``.lmml`` cannot resolve.
    :raises ConflictingEmbedError: when a fence and an entry of one name disagree.
    :raises BundleError: for unreferenced entries with ``orphans="error"``.
    """
    if orphans not in ("error", "append", "drop"):
        raise ValueError(f"orphans must be 'error', 'append' or 'drop', not {orphans!r}")
    narrative = bundle.narrative
    fences: dict[str, str] = {}
    originals: dict[str, bytes] = {}
    for name in narrative.first_embeds:
        if name in bundle._inline_embeds:
            continue
        data = bundle.embed(name)
        fences[name] = fence_text(name, data)
        originals[name] = data
    _refuse_entry_conflicts(bundle)

    unreferenced = [name for name in bundle.entries if name not in narrative.first_embeds]
    reserved = [name for name in unreferenced if name in RESERVED_NAMES]
    others = [name for name in unreferenced if name not in RESERVED_NAMES]
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
        warnings.warn(
            OrphanedEntryWarning(
                f"entries the narrative never mentions, {fate}: {', '.join(others)}"
            ),
            stacklevel=3,
        )
    appended = reserved + (others if orphans == "append" else [])
    tail: list[str] = []
    for name in appended:
        data = bundle.read(name)
        originals[name] = data
        tail.extend(["", *fence_text(name, data).split("\n")])

    lines, final_newline = _source_lines(narrative)
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
    text = _join(lines, final_newline)
    result = parse(text, name=bundle.narrative_name)
    _check_inlined(result, narrative, originals, appended, bundle.narrative_name)
    _verify_occurrences(
        _occurrences(narrative, originals, {}),
        _occurrences(result, {}, {}),
        bundle.narrative_name,
        added=originals,
    )
    inlined = Bundle(
        kind="text",
        name=bundle.name,
        narrative_name=bundle.name + ".lmml",
        narrative=result,
        limits=bundle.limits,
    )
    inlined.inline_report = InlineReport(
        inlined=tuple(fences),
        appended=tuple(appended),
        dropped=tuple(others) if orphans == "drop" else (),
    )
    return inlined


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


def _rewrite_fence(narrative: Narrative, name: str, data: bytes) -> str:
    """The narrative text with every fence named *name* holding *data* instead."""
    lines, final_newline = _source_lines(narrative)
    new_lines = fence_text(name, data).split("\n")
    for fence in reversed(narrative.index.fences):
        if fence.name != name:
            continue
        start, end = fence.start, fence.end
        prefix = lines[start][: fence.column - 1]
        following = _continuation(prefix)
        lines[start:end] = [prefix + new_lines[0], *(following + line for line in new_lines[1:])]
    return _join(lines, final_newline)


def _current_manifest(bundle: Bundle) -> tuple[str, dict[str, bytes | None]]:
    """The narrative text and entries to save, with recorded digests brought up to date."""
    text = bundle.narrative.text
    entries = dict(bundle._entries)
    try:
        manifest = bundle.manifest
    except (InvalidManifestError, BundleError):
        return text, entries
    recorded = manifest_digests(manifest)
    if not recorded or manifest is None:
        return text, entries
    manifest = copy.deepcopy(manifest)  # the bundle's own manifest stays as it was read
    updated = False
    assets = manifest["assets"]
    for name, digest in recorded.items():
        if not bundle.has_asset(name):
            continue
        actual = sha256_hex(bundle.embed(name))
        if actual != digest:
            assets[name] = {**assets[name], "sha256": actual}
            updated = True
    if not updated:
        return text, entries
    data = dump_manifest(manifest)
    if MANIFEST_NAME in bundle._inline_embeds:
        text = _rewrite_fence(bundle.narrative, MANIFEST_NAME, data)
    elif MANIFEST_NAME in entries:
        entries[MANIFEST_NAME] = data
    return text, entries


def save_bundle(bundle: Bundle, path: str, *, exclusive: bool = False) -> None:
    """Write *bundle* to *path* atomically (see :meth:`Bundle.save`).

    :param exclusive: never replace an existing file (see
        :func:`lmml_mdit.atomic.atomic_write`).
    :raises WriteError: when *path* is not a regular file or the folder cannot be written
        (the target is left as it was).
    :raises UnsafeEntryError: (and the other :func:`~lmml_mdit.bundle.archive.check_entry_names`
        errors) for an archive :func:`lmml_mdit.open` would refuse.
    """
    text, entries = _current_manifest(bundle)
    if bundle.kind == "text":
        atomic_write_bytes(path, text.encode("utf-8"), exclusive=exclusive)
        return
    narrative_name = _checked_entry_names(path, entries)
    with atomic_write(path, exclusive=exclusive) as stream:
        _write_zip(bundle, stream, narrative_name, text, entries)


def bundle_bytes(bundle: Bundle, file_name: str) -> bytes:
    """The bytes :func:`save_bundle` would write to a file named *file_name* (for standard
    output, where there is no file to name the narrative entry after)."""
    text, entries = _current_manifest(bundle)
    if bundle.kind == "text":
        return text.encode("utf-8")
    narrative_name = _checked_entry_names(file_name, entries)
    buffer = io.BytesIO()
    _write_zip(bundle, buffer, narrative_name, text, entries)
    return buffer.getvalue()


def _checked_entry_names(path: str, entries: dict[str, bytes | None]) -> str:
    """The narrative entry name for a file at *path*, after checking it and every asset
    name as :func:`lmml_mdit.open` will: an archive that would not open again is refused
    before anything is written, naming the entry."""
    narrative_name = narrative_entry_name(os.path.basename(path))
    if narrative_name in entries:
        raise DuplicateEntryError(
            "an asset has the name the narrative entry needs",
            name=narrative_name,
            hint="rename that asset, or save under another file name",
        )
    check_entry_names([narrative_name, *entries])
    return narrative_name


def _write_zip(
    bundle: Bundle,
    stream: IO[bytes],
    narrative_name: str,
    text: str,
    entries: dict[str, bytes | None],
) -> None:
    with zipfile.ZipFile(stream, "w") as archive:
        _write_entry(archive, narrative_name, text.encode("utf-8"))
        for name, data in entries.items():
            _write_entry(archive, name, data if data is not None else bundle.read(name))


def _write_entry(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
    info.external_attr = 0o644 << 16
    extension = os.path.splitext(name)[1].lower()
    stored = extension in _STORED_EXTENSIONS or _deflates_past_the_ratio_limit(data)
    info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def _deflates_past_the_ratio_limit(data: bytes) -> bool:
    """Whether deflating *data* would cross half the default ``max_ratio``.

    Such an entry (megabytes of one repeated line) is stored instead, so that a bundle this
    library writes always opens again under the default :class:`~lmml_mdit.Limits`.
    """
    limits = Limits()
    if len(data) <= limits.ratio_floor:
        return False
    compressed = len(zlib.compress(data, 6))
    return len(data) > (limits.max_ratio // 2) * compressed
