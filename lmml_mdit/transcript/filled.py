"""A template's values written into its narrative, for :meth:`Transcript.from_bundle
<lmml_mdit.transcript.transcript.Transcript.from_bundle>` with ``inputs=``.

A transcript's messages hold LMML Markdown, so a value cannot go in as raw characters the
way it goes into a request: it is escaped first (:func:`lmml_mdit.chat.escape.escape_text`,
and ``{{`` as ``\\{{``), so that it reads back as the same text and nothing else. An
``image`` or ``file`` value becomes an asset of the bundle, referenced where its
placeholder stood. The filled narrative is then read like any other, and checked to have
exactly the original's turns and embeds (plus the input assets): a value that would add
structure is refused, never read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..bundle.bundle import Bundle
from ..bundle.names import is_reference_name
from ..chat.content import edited_line
from ..chat.escape import escape_text
from ..chat.inputs import InputAsset, template_of
from ..errors import InputError
from ..media import extension_for, media_type_for
from ..narrative.placeholders import OPEN
from ..syntax.write import reference

__all__ = ["filled_bundle"]


def _escaped_value(text: str) -> str:
    """*text* escaped to stand in a turn as itself: LMML structure and ``{{`` escaped."""
    if not text:
        return text
    return escape_text(text).replace(OPEN, "\\" + OPEN)


def _asset_name(value: InputAsset, taken: set[str]) -> str:
    """A name for an input's asset that a reference can write and no entry has."""
    name = value.file.name
    if not is_reference_name(name) or name in taken:
        name = value.spec.name + extension_for(media_type_for(name, value.file.data))
    stem, extension = os.path.splitext(name)
    count = 1
    while name in taken or not is_reference_name(name):
        count += 1
        name = f"{stem or 'input'}-{count}{extension}"
    taken.add(name)
    return name


def filled_bundle(bundle: Bundle, inputs: Mapping[str, object] | None) -> Bundle:
    """*bundle* with its template's values written in (escaped), as a new bundle; *bundle*
    itself when it is no template and no values are given.

    :raises InputError: for values :meth:`Bundle.messages
        <lmml_mdit.bundle.bundle.Bundle.messages>` would refuse, or (never expected) a
        filled narrative whose turns or embeds differ from the original's.
    """
    template = template_of(bundle, values_given=inputs is not None)
    if not template.is_template and not inputs:
        return bundle
    bound = template.bind(inputs)
    fills = template.fills(bound, limit=bundle.limits.max_entry_size)
    narrative = bundle.narrative
    lines = list(narrative.lines)
    assets: dict[str, bytes] = {}
    taken = set(bundle.entries) | set(narrative.first_embeds)
    written: dict[str, str] = {}
    for number, edits in sorted(fills.items()):
        escaped_edits: list[tuple[int, int, str | InputAsset]] = []
        for start, end, replacement in edits:
            if isinstance(replacement, str):
                if end - start == 1 and lines[number][start:end] == "\\":
                    continue  # a \{{ stays: a transcript keeps its escapes, as LMML does
                escaped_edits.append((start, end, _escaped_value(replacement)))
                continue
            name = written.get(replacement.spec.name)
            if name is None:
                name = written[replacement.spec.name] = _asset_name(replacement, taken)
                assets[name] = replacement.file.data
            escaped_edits.append((start, end, reference(name)))
        pieces = edited_line(lines[number], (), escaped_edits)
        lines[number] = "".join(piece for piece in pieces if isinstance(piece, str))
    text = "\n".join(lines) + ("\n" if narrative.source.endswith("\n") else "")
    if bundle.kind == "zip" or assets:
        entries = {name: bundle.read(name) for name in bundle.entries}
        entries.update(assets)
        filled = Bundle.from_zip(bundle.name, text, entries)
    else:
        filled = Bundle.from_text(bundle.name, text, base_dir=bundle.base_dir)
    _check_same_structure(bundle, filled, set(assets))
    return filled


def _check_same_structure(original: Bundle, filled: Bundle, added: set[str]) -> None:
    before = original.narrative
    after = filled.narrative
    same_turns = [turn.role for turn in before.turns] == [turn.role for turn in after.turns]
    names_before = [embed.name for embed in before.embeds]
    names_after = [embed.name for embed in after.embeds if embed.name not in added]
    if not same_turns or names_before != names_after:
        raise InputError(
            "a value would change the conversation's turns or embeds once written as LMML",
            name=original.file_name,
            kind="invalid_input",
            hint="report the value as a bug in lmml_mdit: values are escaped to stay text",
        )
