"""The transcript's own record in ``manifest.json``, written and read.

Under :data:`MANIFEST_KEY` (``"transcript"``), one entry per message: author, metadata,
heading, encoding, the digest of the turn text, the closing fences and, where the text does
not give it back, the exact content. Reading trusts an entry only as far as the narrative
agrees with it. See docs/transcript.md, "What the narrative says wins".
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..errors import TranscriptFormatError
from ..formats import MANIFEST_NAME
from ..jsontypes import JSONMapping, JSONObject
from ..text import as_turn_text
from ._encoding import (
    LEGACY_ESCAPED,
    RECORD_ENCODINGS,
    Encoding,
    decode_author,
    decode_content,
    digest,
    escape_content,
    fence_content,
)
from ._plans import Plan
from ._source import SourceNarrative

if TYPE_CHECKING:
    from ..bundle import Bundle

__all__ = [
    "MANIFEST_KEY",
    "TRANSCRIPT_LMML_VERSION",
    "manifest_data",
    "record_entries",
    "record_of",
    "recorded_content",
]

MANIFEST_KEY = "transcript"
"""The ``manifest.json`` key the transcript's own record lives under."""

TRANSCRIPT_LMML_VERSION = 1
"""The version of that record."""


def _entry(plan: Plan) -> JSONObject:
    """The record entry of a written *plan* (a kept one's entry as it was read)."""
    kept = plan.kept
    if kept is not None and kept.entry is not None:
        recorded = copy.deepcopy(kept.entry)
        recorded.pop("attachments", None)
        if plan.attachments:
            recorded["attachments"] = list(plan.attachments)
        return recorded
    message = plan.message
    expected = plan.expected
    encoding: Encoding = plan.encoding if kept is None else "verbatim"
    entry: JSONObject = {
        "author": message.author,
        "metadata": copy.deepcopy(message.metadata),
        "heading": plan.heading,
        "sha256": digest(expected),
    }
    if encoding != "verbatim":
        entry["encoding"] = encoding
    if plan.attachments:
        entry["attachments"] = list(plan.attachments)
    decoded = plan.sent if encoding == "lmml-escaped" else decode_content(expected, encoding)
    if decoded != message.content:
        entry["content"] = message.content
    return entry


def _reads_back_alone(plan: Plan) -> bool:
    """Whether the narrative alone (no record) gives back *plan*'s message."""
    message = plan.message
    if plan.kept is not None:
        return plan.kept.entry is None
    if plan.encoding != "verbatim" or plan.expected != message.content:
        return False
    if plan.delimiter is None:
        return message.author == "context" and message.metadata == {}
    named = decode_author(plan.heading, plan.role)
    author = named if named is not None else plan.role
    metadata = {"role": plan.role} if named is not None else {}
    return message.author == author and message.metadata == metadata


def record_of(plans: Sequence[Plan], source: SourceNarrative | None) -> JSONObject | None:
    """The transcript record, or None when a hand-written file needs none."""
    if source is not None and not source.recorded and all(map(_reads_back_alone, plans)):
        return None
    return {"version": TRANSCRIPT_LMML_VERSION, "messages": [_entry(plan) for plan in plans]}


def manifest_data(
    record: JSONObject | None,
    source: SourceNarrative | None,
    *,
    compact: bool = False,
    carried: JSONObject | None = None,
) -> bytes | None:
    """The ``manifest.json`` bytes to write: the source's as they were when the record is
    unchanged, else its other keys with the new record.

    :param compact: one line of JSON (the fence closing a ``.lmml``), else indented.
    :param carried: without a *source*, the manifest whose other keys the new record joins
        (that of a bundle of the other kind the transcript was read from).
    """
    from ..bundle import dump_manifest

    dump = _compact if compact else dump_manifest
    if source is None:
        fresh = copy.deepcopy(carried) if carried is not None else {}
        fresh[MANIFEST_KEY] = record
        return dump(fresh)
    old = source.manifest
    if record is None or (old is not None and old.get(MANIFEST_KEY) == record):
        return source.manifest_bytes
    manifest = copy.deepcopy(old) if old is not None else {}
    manifest[MANIFEST_KEY] = record
    return dump(manifest)


def _compact(manifest: Mapping[str, object]) -> bytes:
    """A manifest as one line of JSON."""
    return (json.dumps(manifest, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def record_entries(bundle: Bundle) -> list[JSONObject] | None:
    """The entries of *bundle*'s transcript record, one per message; None without one.

    :raises TranscriptFormatError: for a malformed record.
    :raises InvalidManifestError: when ``manifest.json`` is not a JSON object.
    """
    manifest = bundle.manifest
    if not manifest or MANIFEST_KEY not in manifest:
        return None
    record = manifest[MANIFEST_KEY]

    def fail(message: str) -> TranscriptFormatError:
        # Located as the bundle locates its own errors: the archive's entry, or the line of
        # the manifest fence in a bare narrative.
        fence = bundle.fences.get(MANIFEST_NAME)
        error = TranscriptFormatError(
            f"{MANIFEST_NAME} {MANIFEST_KEY!r}: {message}",
            name=MANIFEST_NAME,
            line=fence.line if fence is not None else None,
            hint="remove the record to read the narrative alone",
        )
        bundle._place_error(error, None if fence is not None else MANIFEST_NAME)
        return error

    if not isinstance(record, dict):
        raise fail("is not an object")
    version = record.get("version")
    if version != TRANSCRIPT_LMML_VERSION:
        raise fail(
            f"version {version!r} is not supported (this lmml_mdit reads {TRANSCRIPT_LMML_VERSION})"
        )
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
            and entry.get("encoding", "verbatim") in RECORD_ENCODINGS
            and isinstance(entry.get("attachments", []), list)
            and all(isinstance(item, str) for item in entry.get("attachments", []))
        ):
            raise fail(f"message {position} is malformed")
    return entries


def recorded_content(text: str, entry: JSONMapping, sent: str | None = None) -> str:
    """A message's content from its turn text and record entry.

    The narrative is what is sent and shown, so it decides: the entry's exact content is
    taken only when the digest shows the turn unchanged and the content, written as the
    entry says, reads as this turn text (they may differ only in what a narrative cannot
    hold: blank edge lines, carriage returns, NUL, and, in a file of an earlier version,
    the backslashes that keep an ``@`` from being a reference); else the turn text is
    the content.

    :param sent: the turn text without its LMML escapes (what a model is sent), which an
        ``lmml-escaped`` content is read from; *text* when not given.
    """
    encoding = entry.get("encoding", "verbatim")
    if encoding == "lmml-escaped":
        decoded = text if sent is None else sent
    else:
        decoded = decode_content(text, encoding)
    stored = entry.get("content")
    if stored is None or entry["sha256"] != digest(text) or stored == decoded:
        return decoded
    if encoding == "lmml-escaped":
        return stored if as_turn_text(stored) == decoded else decoded
    if encoding == LEGACY_ESCAPED:
        written = escape_content(stored)
    elif encoding == "fenced":
        written = fence_content(stored)
    else:
        written = stored
    return stored if _differs_by_at_escapes(as_turn_text(written), text) else decoded


def _differs_by_at_escapes(base: str, text: str) -> bool:
    """Whether *text* is *base* with backslashes inserted before some ``@`` signs only."""
    base_pieces, text_pieces = base.split("@"), text.split("@")
    if len(base_pieces) != len(text_pieces) or base_pieces[-1] != text_pieces[-1]:
        return False
    return all(
        written.startswith(piece) and not written[len(piece) :].strip("\\")
        for piece, written in zip(base_pieces[:-1], text_pieces[:-1], strict=True)
    )
