"""Writing transcript messages as LMML: a narrative, a zip bundle or a text bundle.

Each message is planned (:mod:`lmml_mdit.transcript._plans`), written, and checked by one
parse of the whole narrative (:mod:`lmml_mdit.transcript._readback`); the bundle gets that
parse, and the record goes in ``manifest.json`` (:mod:`lmml_mdit.transcript._record`). A
``.lmmlz`` stores assets as entries, a ``.lmml`` as fences. See docs/transcript.md, "To and
from LMML".
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from ..errors import LmmlError, NotInlinableError, TranscriptError, TranscriptTypeError
from ..errors import RewrittenHeadingWarning as RewrittenHeadingWarning
from ..formats import ARCHIVE_SUFFIX, MANIFEST_NAME, NARRATIVE_SUFFIX
from ..jsontypes import JSONObject
from ..narrative import Narrative
from ..syntax import embed_fence, strict_heading_role
from ..text import clipped
from ..warn import warn
from ._message import Message, Pov, pov_roles
from ._plans import Plan, Resolves, plan_messages
from ._readback import settle
from ._record import manifest_data, record_of
from ._regions import fence_owners, message_turns
from ._source import FRESH_STYLE, SourceNarrative, raw_lines

if TYPE_CHECKING:
    from ..bundle import Bundle

__all__ = ["RewrittenHeadingWarning", "narrative_text", "save_file", "write_bundle"]

_AS_ARCHIVE = f"save the transcript as {ARCHIVE_SUFFIX}"
"""The hint for an asset a text bundle cannot hold."""


def _inline_fence(name: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotInlinableError(
            f"the asset is not UTF-8 text, so a {NARRATIVE_SUFFIX} fence cannot hold it",
            name=name,
            hint=_AS_ARCHIVE,
        ) from None
    # One shape serves all: after a final newline "@@@" is a closing line; otherwise it
    # closes the fence at the end of the last content line.
    return embed_fence(name, text) + "\n"


def _fenced_in_content(narrative: Narrative, plans: Sequence[Plan]) -> set[str]:
    """The names of the inline fences the written contents hold (not closing fences)."""
    turns, skip = message_turns(narrative)
    owners = fence_owners(narrative, turns, skip, [plan.attachments for plan in plans])
    return {embed.name for embeds in owners.values() for embed in embeds}


def _attach(narrative: Narrative, plans: Sequence[Plan], names: Sequence[str]) -> list[str]:
    """Give each asset in *names* to the turn that first references it (its fence will
    close that turn, so the asset binds there); return the names no turn references.
    A kept turn keeps the closing fences it was read with."""
    turns, _ = message_turns(narrative)
    left = list(names)
    for plan, turn in zip(plans, turns, strict=True):
        plan.attachments = plan.kept.attachments if plan.kept is not None else ()
        mine = [embed.name for embed in turn.embeds if embed.name in left and not embed.is_inline]
        if mine:
            plan.attachments = (*plan.attachments, *mine)
            left = [name for name in left if name not in mine]
    return left


def narrative_text(
    messages: Sequence[Message], assets: Mapping[str, bytes], *, pov: str | Pov | None = None
) -> str:
    """The LMML narrative of *messages* (no manifest, no asset fences).

    :param assets: the names a reference may name (the others are escaped).
    :param pov: gives named authors without ``metadata["role"]`` their heading role.
    :raises TranscriptFormatError: for a message whose fields cannot be saved.
    """
    roles = pov_roles(pov) if pov is not None else None
    plans = plan_messages(messages, roles, None, assets.__contains__)
    text, _ = settle(plans, assets, FRESH_STYLE)
    return text


def _folder_probe(base_dir: str | None) -> Resolves:
    """Whether a text bundle in *base_dir* resolves a name to a file there (the bundle's
    own rules: no absolute paths, no ``..``, no links leading outside)."""
    if base_dir is None:
        return lambda name: False
    from ..bundle import Bundle

    probe = Bundle.from_text("probe", "", base_dir=base_dir)
    return probe.has_asset


def _same_folder(first: str | None, second: str | None) -> bool:
    if first is None or second is None:
        return first is second
    return os.path.realpath(first) == os.path.realpath(second)


_SOURCE_FOLDER = object()


def write_bundle(
    messages: Sequence[Message],
    assets: Mapping[str, bytes],
    name: str | None = None,
    *,
    source: SourceNarrative | None = None,
    kind: Literal["zip", "text"] | None = None,
    pov: str | Pov | None = None,
    base_dir: object = _SOURCE_FOLDER,
) -> Bundle:
    """Write *messages* and *assets* as a bundle that
    :func:`~lmml_mdit.transcript.read_bundle` reads back equal.

    Messages read from a bundle of the same kind (*source*) are written back as they were
    read: unedited messages keep their lines byte for byte (and the manifest, settings and
    other entries stay as they were); edited and new messages are rendered in the file's own
    delimiter style.

    :param name: the bundle name (``session``; a ``.lmml``/``.lmmlz`` suffix is stripped);
        defaults to the name of the bundle *source* was read from.
    :param source: the narrative the messages were read from.
    :param kind: ``"zip"`` (assets as entries) or ``"text"`` (assets as inline fences);
        defaults to the kind of that bundle, else ``"zip"``.
    :param pov: gives named authors without ``metadata["role"]`` their heading role.
    :param base_dir: (text) the folder the narrative will live in; references to files a
        text bundle read from that same folder stay references. Defaults to that folder.
    :raises TranscriptFormatError: for metadata JSON cannot hold losslessly.
    :raises NotInlinableError: (text) for an asset a fence cannot hold exactly.
    """
    from ..bundle import Bundle

    if kind is None:
        kind = source.kind if source is not None else "zip"
    if kind not in ("zip", "text"):
        raise TranscriptError(f"kind must be 'zip' or 'text', not {kind!r}")
    if name is not None and not isinstance(name, str):
        raise TranscriptTypeError(
            f"the bundle name must be a string, not {type(name).__name__}",
            hint='pass a name such as to_bundle("session")',
        )
    # A bundle of the other kind written afresh still keeps its manifest's other keys, and
    # its byte order mark.
    carried = source.manifest if source is not None else None
    bom = source is not None and source.bom
    if source is not None and source.kind != kind:
        source = _as_archive(source) if kind == "zip" else None  # else written afresh
    if name is None:
        name = source.name if source is not None else ""
    roles = pov_roles(pov) if pov is not None else None
    if kind == "zip":
        plans = plan_messages(messages, roles, source, assets.__contains__)
        _warn_loose_headings(plans, name)
        return _zip_bundle(name, plans, assets, source, carried, bom)
    folder = source.base_dir if source is not None else None
    if base_dir is not _SOURCE_FOLDER:
        target = os.fspath(base_dir) if isinstance(base_dir, (str, os.PathLike)) else None
        folder = folder if _same_folder(folder, target) else None
    in_folder = _folder_probe(folder)
    kept_files = frozenset(
        asset
        for asset in (source.folder if source is not None and folder is not None else ())
        if asset in assets and assets[asset] == source.assets.get(asset)  # type: ignore[union-attr]
    )

    def resolves(asset: str) -> bool:
        return asset in assets or in_folder(asset)

    plans = plan_messages(messages, roles, source, resolves)
    _warn_loose_headings(plans, name)
    text, narrative, fenced = _text_narrative(plans, assets, source, kept_files, carried)
    if bom:
        narrative = dataclasses.replace(narrative, bom=True)
    bundle = Bundle.from_text(name, text, narrative=narrative, base_dir=folder)
    for asset, data in fenced.items():
        if not _resolves_to(bundle, asset, data):
            raise _not_held(asset)
    return bundle


_SHOWN_HEADINGS = 5
"""How many rewritten headings the warning quotes."""


def _warn_loose_headings(plans: Sequence[Plan], name: str) -> None:
    """Say which unedited turns lose their heading: one read with ``delimiters="loose"``
    that is no strict delimiter (``## User question``), which the written narrative (parsed
    strict, as every bundle the transcript writes) would not read as a turn."""
    loose = [
        plan.kept.heading
        for plan in plans
        if plan.kept is not None
        and plan.kept.heading is not None
        and strict_heading_role(plan.kept.heading) is None
    ]
    if loose:
        shown = ", ".join(repr(clipped(heading, 60)) for heading in loose[:_SHOWN_HEADINGS])
        if len(loose) > _SHOWN_HEADINGS:
            shown += f", and {len(loose) - _SHOWN_HEADINGS} more"
        warn(
            RewrittenHeadingWarning(
                f"{name or 'transcript'}: {len(loose)} heading(s) read as role delimiters only "
                f"with delimiters='loose' are rewritten as strict delimiters: {shown}; write "
                "each as the role alone ('## user') or 'Turn N -- role' to keep it as written"
            )
        )


def _as_archive(source: SourceNarrative) -> SourceNarrative | None:
    """A ``.lmml`` *source* as the source of a ``.lmmlz`` holding the same narrative, byte
    for byte: its inline fences stay where they stand, the files read from its folder
    become entries, the record closing it an archive entry. None (written afresh) when a
    ``manifest.json`` fence stands elsewhere in it (before the first turn, as 0.2 wrote it),
    which an archive keeps as an entry."""
    if source.head_manifest is not None or any(
        MANIFEST_NAME in origin.fences for origin in source.origins.values()
    ):
        return None
    return dataclasses.replace(source, kind="zip", base_dir=None, entries=(), folder=frozenset())


def _zip_bundle(
    name: str,
    plans: list[Plan],
    assets: Mapping[str, bytes],
    source: SourceNarrative | None,
    carried: JSONObject | None,
    bom: bool,
) -> Bundle:
    from ..bundle import Bundle

    style = source.style if source is not None else FRESH_STYLE
    head = source.head if source is not None else ""
    text, narrative = settle(plans, assets, style, head, foot=_foot(source, None))
    if bom:
        narrative = dataclasses.replace(narrative, bom=True)
    manifest = manifest_data(record_of(plans, source), source, carried=carried)
    entries: dict[str, bytes] = {}
    if source is not None:
        if manifest is not None and MANIFEST_NAME not in source.entries:
            entries[MANIFEST_NAME] = manifest
        for entry in source.entries:
            if entry == MANIFEST_NAME:
                if manifest is not None:
                    entries[entry] = manifest
            elif entry in assets:
                entries[entry] = assets[entry]
        inline = _fenced_in_content(narrative, plans) | source.head_fences | source.foot_fences
        for plan in plans:
            if plan.kept is not None:
                inline |= plan.kept.fences  # kept lines keep their fences (a .lmml's)
    else:
        assert manifest is not None
        entries[MANIFEST_NAME] = manifest
        inline = _fenced_in_content(narrative, plans)
    entries.update((asset, data) for asset, data in assets.items() if asset not in inline)
    return Bundle.from_zip(name, text, entries, narrative=narrative)


def _foot(source: SourceNarrative | None, manifest: str | None) -> tuple[str, ...]:
    """The preamble's reserved blocks as they were written, the manifest fence replaced by
    *manifest* (a fence's text) when given."""
    if source is None or source.preamble is None:
        return ()
    lines = raw_lines(source.preamble.raw)
    return tuple(
        manifest
        if manifest is not None and index == source.foot_manifest
        else "".join(lines[start:end])
        for index, (start, end) in enumerate(source.foot)
    )


def _place_manifest(plans: Sequence[Plan], source: SourceNarrative, manifest: str | None) -> None:
    """Write the manifest fence *manifest* (a fence's text; None: as it was) where it stands
    in the preamble, when the first plan keeps the preamble's lines."""
    first = plans[0] if plans else None
    preamble = source.preamble
    if first is None or first.kept is None or first.kept.delimiter is not None:
        return
    assert preamble is not None and source.foot_manifest is not None
    lines = raw_lines(preamble.raw)
    if manifest is not None:
        start, end = source.foot[source.foot_manifest]
        lines[start:end] = [manifest]
    first.kept = dataclasses.replace(first.kept, raw="".join(lines))


def _text_head(
    source: SourceNarrative | None,
    manifest: bytes | None,
    orphans: Sequence[str],
    fences: Mapping[str, str],
) -> str:
    """The lines before the first turn: the fences of assets no turn references, after
    the manifest fence when it goes there (*manifest* not None; a source's own head kept,
    its manifest fence replaced in place)."""
    added = [fences[orphan] for orphan in orphans]
    if source is None:
        opening = _inline_fence(MANIFEST_NAME, manifest) if manifest is not None else ""
        head = opening + "".join(added)
        return head + "\n" if head else ""
    lines = raw_lines(source.head)
    if manifest is not None and manifest != source.manifest_bytes:
        fence = _inline_fence(MANIFEST_NAME, manifest).replace("\n", source.style.newline)
        if source.head_manifest is not None:
            start, end = source.head_manifest
            lines[start:end] = [fence]
        else:
            added.insert(0, fence)
    if not added:
        return "".join(lines)
    newline = source.style.newline
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    return "".join(lines) + "".join(added) + newline


def _text_narrative(
    plans: list[Plan],
    assets: Mapping[str, bytes],
    source: SourceNarrative | None,
    kept_files: frozenset[str],
    carried: JSONObject | None,
) -> tuple[str, Narrative, dict[str, bytes]]:
    """Write a text bundle's narrative: each asset no content or kept line holds goes in a
    fence closing the turn that first references it (or before the first turn), which
    takes a second pass when there are such assets. Returns the text, its parse and the
    assets written as fences (the manifest included)."""
    style = source.style if source is not None else FRESH_STYLE
    newline = style.newline
    fences: dict[str, str] = {}
    orphans = _guess_attachments(plans, assets, source, kept_files)
    guessed = [*orphans]
    for plan in plans:
        held = plan.kept.fences if plan.kept is not None else frozenset()
        guessed.extend(asset for asset in plan.attachments if asset not in held)
    for asset in guessed:
        fences[asset] = _inline_fence(asset, assets[asset]).replace("\n", newline)
    manifest: bytes | None = None
    # The record closes the file, after the last turn (a closing fence of that turn, which
    # reading cuts off), unless the source keeps its manifest fence before the first turn
    # (as 0.2 wrote it). The assets no turn references stay before the first turn, where
    # they are sent as context, not as part of the last message.
    # A manifest fence among the preamble's reserved blocks (after its text) takes the
    # record where it stands.
    in_foot = source is not None and source.foot_manifest is not None
    at_end = bool(plans) and (source is None or source.head_manifest is None) and not in_foot
    tail: list[str] = []
    foot = _foot(source, None)

    def head() -> str:
        nonlocal manifest, tail, foot
        last = plans[-1] if plans else None
        if last is not None and tail:
            last.attachments = tuple(name for name in last.attachments if name not in tail)
        tail = []
        record = record_of(plans, source)
        if last is None or not at_end or record is None:
            manifest = manifest_data(record, source, carried=carried)
            if in_foot:
                assert source is not None
                fence = None
                if manifest is not None and manifest != source.manifest_bytes:
                    fence = _inline_fence(MANIFEST_NAME, manifest).replace("\n", newline)
                foot = _foot(source, fence)
                _place_manifest(plans, source, fence)
                return _text_head(source, None, orphans, fences)
            return _text_head(source, manifest, orphans, fences)
        tail = [MANIFEST_NAME]
        last.attachments = (*last.attachments, *tail)
        manifest = manifest_data(record_of(plans, source), source, compact=True, carried=carried)
        assert manifest is not None
        fences[MANIFEST_NAME] = _inline_fence(MANIFEST_NAME, manifest).replace("\n", newline)
        return _text_head(source, None, orphans, fences)

    for _ in range(len(plans) + 3):
        text, narrative = settle(plans, assets, style, head, fences, lambda: foot)
        _check_fences(narrative, fences, assets, manifest)
        present = _fenced_in_content(narrative, plans)
        if source is not None:
            present |= source.head_fences | source.foot_fences
        for plan in plans:
            if plan.kept is not None:
                present |= plan.kept.fences
        outside = [asset for asset in assets if asset not in present | kept_files]
        for asset in outside:
            if asset not in fences:
                fences[asset] = _inline_fence(asset, assets[asset]).replace("\n", newline)
        before = [tuple(name for name in plan.attachments if name not in tail) for plan in plans]
        left = _attach(narrative, plans, outside)
        if before == [plan.attachments for plan in plans] and left == orphans:
            if tail:
                plans[-1].attachments = (*plans[-1].attachments, *tail)  # as recorded
            written = {asset: assets[asset] for asset in outside}
            if manifest is not None and manifest != (source.manifest_bytes if source else None):
                written[MANIFEST_NAME] = manifest
            return text, narrative, written
        orphans = left
    raise TranscriptError(
        f"the {NARRATIVE_SUFFIX} attachments changed how the narrative reads",
        hint=_AS_ARCHIVE,
    )


def _guess_attachments(
    plans: Sequence[Plan],
    assets: Mapping[str, bytes],
    source: SourceNarrative | None,
    kept_files: frozenset[str],
) -> list[str]:
    """Place each asset's fence before the narrative is parsed, by where ``@name`` first
    appears, so the first parse is usually the last; the parse then settles it. Returns
    the assets no content mentions (their fences go before the first turn)."""
    held = set(kept_files)
    if source is not None:
        held |= source.head_fences | source.foot_fences
    for plan in plans:
        if plan.kept is not None:
            held |= plan.kept.fences
    left = [asset for asset in assets if asset not in held]
    for plan in plans:
        text = plan.kept.text if plan.kept is not None else plan.message.content
        left = [asset for asset in left if "@@@" + asset not in text]
        mine = tuple(asset for asset in left if "@" + asset in text)
        if mine:
            plan.attachments = (*plan.attachments, *mine)
            left = [asset for asset in left if asset not in mine]
    return left


def _check_fences(
    narrative: Narrative,
    fences: Mapping[str, str],
    assets: Mapping[str, bytes],
    manifest: bytes | None,
) -> None:
    """Refuse an asset whose fence does not give its bytes back exactly.

    :raises NotInlinableError: naming the asset.
    """
    from ..bundle import first_fences

    first = first_fences(narrative)
    wanted = {asset: assets[asset] for asset in fences if asset != MANIFEST_NAME}
    if manifest is not None:
        wanted[MANIFEST_NAME] = manifest
    for asset, data in wanted.items():
        fence = first.get(asset)
        if fence is not None and fence.content != data:
            raise _not_held(asset)


def _not_held(asset: str) -> NotInlinableError:
    return NotInlinableError(
        f"a {NARRATIVE_SUFFIX} fence cannot hold this asset exactly (carriage returns, or a "
        "line before the last that is or ends with @@@)",
        name=asset,
        hint=_AS_ARCHIVE,
    )


def _resolves_to(bundle: Bundle, name: str, data: bytes) -> bool:
    try:
        return bundle.embed(name) == data
    except LmmlError:
        return False


def save_file(
    messages: Sequence[Message],
    assets: Mapping[str, bytes],
    path: str | os.PathLike[str],
    *,
    source: SourceNarrative | None = None,
) -> None:
    """Save *messages* and *assets* as ``.lmmlz`` (zip) or ``.lmml`` (text), atomically.

    :param source: the narrative the messages were read from (see :func:`write_bundle`).
    :raises TranscriptError: for a path with another extension.
    """
    target = os.fspath(path)
    if target.endswith(ARCHIVE_SUFFIX):
        kind: Literal["zip", "text"] = "zip"
    elif target.endswith(NARRATIVE_SUFFIX):
        kind = "text"
    else:
        raise TranscriptError(
            f"an LMML transcript file ends in {NARRATIVE_SUFFIX} or {ARCHIVE_SUFFIX}", name=target
        )
    stem = os.path.basename(target)
    folder = os.path.dirname(os.path.abspath(target))
    bundle = write_bundle(messages, assets, stem, source=source, kind=kind, base_dir=folder)
    bundle.save(target)
