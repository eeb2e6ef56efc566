"""Reading LMML as transcript messages: a bundle's turns, its assets, and where each came from.

Each turn of the narrative becomes a message: the heading gives its author and role, the
turn text its content (the preamble's leading inline fences are attachments, and its
reserved blocks the bundle's settings and manifest, not context text), unless the
transcript record says more (:mod:`lmml_mdit.transcript._record`).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, NamedTuple

from ..bundle import unsafe_reason
from ..errors import LmmlError
from ..formats import MANIFEST_NAME
from ..jsontypes import JSONObject
from ..model import MESSAGE_ROLES
from ._encoding import decode_author, digest
from ._message import Message
from ._record import record_entries, recorded_content
from ._regions import message_turns, turn_text
from ._source import SourceNarrative, source_of

if TYPE_CHECKING:
    from ..bundle import Bundle
    from ..model import Turn
    from ..narrative import Narrative

__all__ = ["TranscriptContents", "read_bundle", "read_file"]


class TranscriptContents(NamedTuple):
    """What a transcript is read as: its messages, its assets and, for a bundle, the
    narrative they came from."""

    messages: list[Message]
    assets: dict[str, bytes]
    source: SourceNarrative | None


def read_bundle(bundle: Bundle) -> TranscriptContents:
    """Read *bundle*'s turns as messages, and its assets.

    The narrative they were read from comes with them, so that
    :func:`~lmml_mdit.transcript.write_bundle` writes unedited messages back as
    their own lines.

    :raises TranscriptFormatError: for a malformed transcript record in ``manifest.json``.
    :raises InvalidManifestError: when ``manifest.json`` is not a JSON object.
    """
    narrative = bundle.narrative
    entries: list[JSONObject | None] | None = None
    recorded = record_entries(bundle)
    turns, skip = message_turns(narrative)
    embed_lines = [embed.line for embed in narrative.embeds]
    if recorded is not None and len(recorded) == len(turns):
        entries = list(recorded)
    elif recorded is not None:
        entries = _appended_to(recorded, narrative, turns, skip, embed_lines)
    assets, folder = _assets(bundle)
    messages: list[Message] = []
    read: list[tuple[str | None, str, JSONObject | None, tuple[str, ...]]] = []
    for position, turn in enumerate(turns):
        entry = entries[position] if entries is not None else None
        closing = tuple(entry.get("attachments", ())) if entry is not None else ()
        if entry is None and entries is not None and position == len(turns) - 1:
            closing = (MANIFEST_NAME,)  # turns appended after the record: it closes the file
        text = turn_text(narrative, turn, skip, closing, embed_lines)
        named = decode_author(turn.heading, turn.role) if turn.role != "context" else None
        author = named if named is not None else turn.role
        metadata: JSONObject = {"role": turn.role} if named is not None else {}
        content = text
        if entry is not None:
            metadata = copy.deepcopy(entry["metadata"])
            role = metadata.get("role")
            if turn.role != "context" and role in MESSAGE_ROLES and role != turn.role:
                metadata["role"] = turn.role  # the heading decides the role
            heading = entry["heading"]
            if (
                heading == turn.heading
                and (heading is None) == (turn.role == "context")
                and _keeps_role(entry["author"], metadata, turn.role, position)
            ):
                author = entry["author"]
            sent = None
            if entry.get("encoding") == "lmml-escaped":
                sent = turn_text(narrative, turn, skip, closing, embed_lines, unescape=True)
            content = recorded_content(text, entry, sent)
        messages.append(Message(author, content, metadata))
        read.append((turn.heading, text, entry, closing))
    source = source_of(bundle, turns, skip, messages, read, assets, folder)
    return TranscriptContents(messages, assets, source)


def _keeps_role(author: object, metadata: JSONObject, role: str, position: int) -> bool:
    """Whether a recorded *author* writes this turn again with the *role* its heading
    gives (*metadata*'s own role already set to it): a role word, or ``context``, names
    the role it renders as, so one that disagrees with the heading gives way to it."""
    if role == "context":
        return True
    if author == "context":  # first, the preamble; later, a system turn
        return position > 0 and metadata.get("role", "system") == role
    if metadata.get("role") in MESSAGE_ROLES:
        return True
    return author not in MESSAGE_ROLES or author == role


def _appended_to(
    entries: list[JSONObject],
    narrative: Narrative,
    turns: Sequence[Turn],
    skip: int,
    embed_lines: list[int],
) -> list[JSONObject | None] | None:
    """The record's entries for a file that had turns appended after it was saved (as
    ``lmml run`` appends a reply): each entry still stands for the turn at its position,
    with the heading and the text it recorded, and the new turns have none. None when the
    turns no longer align (turns were removed, inserted or edited by hand)."""
    if len(entries) > len(turns):
        return None
    for entry, turn in zip(entries, turns[: len(entries)], strict=True):
        if entry["heading"] != turn.heading:
            return None
        closing = tuple(entry.get("attachments", ()))
        if entry["sha256"] != digest(turn_text(narrative, turn, skip, closing, embed_lines)):
            return None
    kept: list[JSONObject | None] = []
    for entry in entries:
        attachments = entry.get("attachments", ())
        if MANIFEST_NAME in attachments:  # the manifest fence now closes the file's last turn
            entry = {**entry, "attachments": [a for a in attachments if a != MANIFEST_NAME]}
        kept.append(entry)
    return [*kept, *([None] * (len(turns) - len(entries)))]


def _assets(bundle: Bundle) -> tuple[dict[str, bytes], frozenset[str]]:
    """The assets a bundle holds, and those of them a text bundle read from its folder."""
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
    folder: set[str] = set()
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
        folder.add(name)
    return assets, frozenset(folder)


def read_file(
    path: str | os.PathLike[str], *, base_dir: str | os.PathLike[str] | Literal[False] | None = None
) -> TranscriptContents:
    """Read a ``.lmml`` or ``.lmmlz`` file as messages and assets (see :func:`read_bundle`).

    :param base_dir: the folder a ``.lmml``'s references resolve against: by default the
        file's own folder; ``False`` for none.
    """
    from ..chat import open as open_bundle

    folder = os.path.dirname(os.path.abspath(path)) if base_dir is None else base_dir
    bundle = open_bundle(path, base_dir=folder)
    try:
        bundle.warn_defects()
        return read_bundle(bundle)
    finally:
        bundle.close()
