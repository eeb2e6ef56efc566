"""The file a run extends: new turns appended as LMML text, the replies' metadata recorded.

New turns are written after the narrative's last byte, in its own delimiter style (the
Transcript's style: :func:`lmml_mdit.transcript.source_of` reads it), so every byte above
stays as it was. A reply's metadata (provider, model, finish reason, tokens, latency,
request id) goes in ``manifest.json`` under :data:`RUN_KEY`, one compact line per reply: a
``manifest.json`` fence at the end of the narrative (moved below each new reply), the
manifest fence a ``.lmml`` already has (updated in place), or a ``.lmmlz``'s entry.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..atomic import atomic_write_bytes
from ..bundle import Bundle
from ..chat import BodyWriter
from ..conversation import Asset, ChatMessage, ImportedAsset, RemoteAsset
from ..errors import LmmlError, RunError
from ..formats import MANIFEST_NAME
from ..jsontypes import JSONMapping, JSONObject
from ..narrative import TOOL_CALL_SUFFIX, Narrative, call_slug, is_native_name
from ..syntax import embed_fence
from ..text import first_line_ending, line_starts
from ..transcript import (
    NUMBERED_HEADING,
    Message,
    Style,
    raw_lines,
    style_of,
    styled_delimiter,
)

__all__ = ["RUN_KEY", "Document"]

RUN_KEY = "lmml_run"
"""The ``manifest.json`` key holding one entry per reply a run wrote."""


@dataclass
class Document:
    """A bundle's narrative, extended turn by turn; :meth:`bundle` is it as it now reads."""

    original: Bundle
    text: str
    replies: list[JSONObject] = field(default_factory=list)
    manifest: JSONObject | None = None
    _added: list[str] = field(default_factory=list)
    _head_fence: tuple[int, int] | None = None  # a manifest fence above the turns, offsets
    _calls: set[str] = field(default_factory=set)  # call slugs taken, written or not
    _writer: BodyWriter = field(init=False)
    _turns: int = 0
    _number: int = 0
    _current: Bundle | None = None
    _style: Style | None = None  # the delimiter style, read once: new turns keep it
    unreadable_manifest: LmmlError | None = None
    """Why the bundle's ``manifest.json`` cannot be read (an ``invalid_manifest`` defect),
    or None: a body can still be built from the bundle (``--force``, ``--dry-run``), but no
    reply can be recorded in it (see :meth:`refuse_unrecordable`)."""

    def __post_init__(self) -> None:
        self._writer = BodyWriter((), self._refuse_asset)

    @classmethod
    def of(cls, bundle: Bundle) -> Document:
        """The document of *bundle*: its narrative with a trailing metadata fence cut off."""
        narrative = bundle.narrative
        text = narrative.text
        unreadable: LmmlError | None = None
        try:
            manifest = bundle.manifest
        except LmmlError as error:  # the bundle's invalid_manifest defect
            if error.kind != "invalid_manifest":
                raise
            manifest, unreadable = None, error
        document = cls(bundle, text, manifest=dict(manifest) if manifest is not None else None)
        document.unreadable_manifest = unreadable
        fence = bundle.fences.get(MANIFEST_NAME)
        span = _fence_span(narrative, fence.line) if bundle.kind == "text" and fence else None
        if span is not None and fence is not None:
            start, end = span
            if not text[end:].strip() and _after_last_turn(bundle, fence.line):
                before = text[:start]
                document.text = before.rstrip() + first_line_ending(text)
            else:
                document._head_fence = span
        calls = _tool_calls(bundle)
        document._calls = {call_slug(call.id) for call in calls}
        document._writer.calls = {call_slug(call.id) + TOOL_CALL_SUFFIX: call.id for call in calls}
        document._writer.natives = sum(1 for name in bundle.fences if is_native_name(name))
        document._turns = sum(1 for turn in narrative.turns if turn.role != "context")
        document._number = _last_number(bundle)
        document._current = bundle if document.text == text else None
        return document

    def refuse_unrecordable(self) -> None:
        """Refuse a run that would write its replies into a ``manifest.json`` it cannot
        read (sent anyway, it would lose the manifest or the reply): before anything is
        sent, the manifest's own error with what to do.

        :raises InvalidManifestError: when the bundle's manifest cannot be read.
        """
        error = self.unreadable_manifest
        if error is None:
            return
        refused = copy.copy(error)
        refused.hint = (
            "a run records each reply in manifest.json, so it cannot send a bundle whose "
            "manifest it cannot read, even with strict=False: fix the manifest first"
        )
        refused.cli_hint = (
            "a run records each reply in manifest.json, so it cannot send a bundle whose "
            "manifest it cannot read, even with --force: fix the manifest first "
            "(--dry-run --force shows the body)"
        )
        refused.args = (refused.format(),)
        raise refused

    @property
    def changed(self) -> bool:
        """Whether any turn was added."""
        return bool(self._added)

    def unique_call_id(self, call_id: str) -> str:
        """*call_id*, or a variant of it when a call of the file already has its fence name
        (a provider without call ids gets ids numbered per reply)."""
        candidate, counter = call_id, 1
        while call_slug(candidate) in self._calls:
            counter += 1
            candidate = f"{call_id}_{counter}"
        self._calls.add(call_slug(candidate))
        return candidate

    def add(self, turn: ChatMessage, *, metadata: JSONMapping | None = None) -> str:
        """Append *turn* in the file's style and return the LMML written."""
        if self._style is None:
            self._style = style_of(self.bundle().narrative, raw_lines(self.text))
        style = self._style
        self._turns += 1
        self._number += 1
        role = turn.role
        _, delimiter = styled_delimiter(Message(role, ""), role, self._number, style)
        body = self._body(turn)
        newline = style.newline
        parts = [delimiter, *body]
        written = "\n\n".join(parts) if style.gap else "\n".join(parts)
        separator = "\n" if style.sep else ""
        if self.text and not self.text.endswith(("\n", "\r")):
            separator = "\n" + separator
        addition = (separator + written + "\n").replace("\n", newline)
        self.text += addition
        self._added.append(addition)
        if metadata is not None:
            self.replies.append({"turn": self._turns, **metadata})
        self._current = None
        return written + "\n"

    def _body(self, turn: ChatMessage) -> list[str]:
        bundle = self.bundle()
        self._writer.names = frozenset(bundle.entries) | frozenset(bundle.fences)
        return self._writer.blocks(turn)

    def _refuse_asset(self, part: Asset | ImportedAsset | RemoteAsset) -> str:
        what = f"remote {part.kind}" if isinstance(part, RemoteAsset) else part.media_type
        raise RunError(
            f"the reply holds a {what} part, which a run cannot write yet",
            name=self.original.file_name,
            hint="ask for a text reply",
        )

    def bundle(self) -> Bundle:
        """The bundle as the document now reads (parsed again after each added turn)."""
        if self._current is None:
            original = self.original
            if original.kind == "zip":
                entries = {name: original.read(name) for name in original.entries}
                self._current = Bundle.from_zip(
                    original.narrative_name,
                    self.text,
                    entries,
                    delimiters=original.narrative.delimiters,
                    references=original.narrative.references,
                )
            else:  # the original's folder and syntax: read as the first request read it
                self._current = Bundle.from_text(
                    original.narrative_name,
                    self.text,
                    base_dir=original.base_dir,
                    delimiters=original.narrative.delimiters,
                    references=original.narrative.references,
                )
            self._current.file_name = original.file_name
        return self._current

    def _manifest_with_replies(self) -> JSONObject:
        manifest = dict(self.manifest or {})
        previous = manifest.get(RUN_KEY)
        entries = list(previous) if isinstance(previous, list) else []
        manifest[RUN_KEY] = [*entries, *self.replies]
        return manifest

    def _manifest_fence(self, manifest: JSONMapping) -> str:
        return embed_fence(MANIFEST_NAME, _manifest_text(manifest))

    def final_bytes(self) -> bytes | None:
        """The whole file as it is to be written (None for an archive: see :meth:`save`)."""
        manifest = self._manifest_with_replies()
        text = self.text
        # the file's own line ends (a JSON text holds no raw line break to confuse)
        newline = self._style.newline if self._style is not None else "\n"
        if self._head_fence is not None:
            start, end = self._head_fence
            fence = (self._manifest_fence(manifest) + "\n").replace("\n", newline)
            text = text[:start] + fence + text[end:]
        elif self.replies or RUN_KEY in manifest:
            fence = ("\n\n" + self._manifest_fence(manifest) + "\n").replace("\n", newline)
            text = text.rstrip("\r\n") + fence
        return text.encode("utf-8")

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the document to *path*, atomically: a ``.lmml`` as text, an archive with
        its manifest entry updated."""
        if self.original.kind == "zip":
            manifest = self._manifest_with_replies()
            entries = {name: self.original.read(name) for name in self.original.entries}
            entries[MANIFEST_NAME] = _manifest_text(manifest).encode("utf-8")
            Bundle.from_zip(self.original.narrative_name, self.text, entries).save(path)
            return
        data = self.final_bytes()
        assert data is not None
        atomic_write_bytes(path, data)


def _manifest_text(manifest: JSONMapping) -> str:
    """The manifest's JSON: its other keys as ``Bundle.save`` writes them (indented by two),
    then one line per reply under :data:`RUN_KEY`."""
    others = {key: value for key, value in manifest.items() if key != RUN_KEY}
    lines = [json.dumps(entry, ensure_ascii=False) for entry in manifest[RUN_KEY]]
    if not others:
        return f"{{{json.dumps(RUN_KEY)}: [\n" + ",\n".join(lines) + "\n]}\n"
    head = json.dumps(others, indent=2, ensure_ascii=False)[: -len("\n}")]
    replies = ",\n".join("    " + line for line in lines)
    return f"{head},\n  {json.dumps(RUN_KEY)}: [\n{replies}\n  ]\n}}\n"


def _fence_span(narrative: Narrative, line: int) -> tuple[int, int] | None:
    """Where the closed top-level ``@@@`` fence opening on *line* (1-based) stands in the
    narrative's text: the offsets of its opening line and of the line after its close, as
    the parse found them (a close may end the last content line: ``}@@@``)."""
    for fence in narrative.index.fences:
        if fence.start + 1 == line:
            if not fence.closed or fence.level:
                return None
            starts = line_starts(narrative.text)
            return starts[line - 1], (
                starts[fence.end] if fence.end < len(starts) else len(narrative.text)
            )
    return None


def _after_last_turn(bundle: Bundle, line: int) -> bool:
    turns = [turn for turn in bundle.narrative.turns if turn.delimiter_line is not None]
    return bool(turns) and turns[-1].delimiter_line is not None and line > turns[-1].delimiter_line


def _tool_calls(bundle: Bundle) -> Sequence[Any]:
    from ..narrative import tool_calls

    try:
        return tool_calls(bundle.narrative)
    except LmmlError:
        return []


def _last_number(bundle: Bundle) -> int:
    """The number the last ``Turn N`` heading gave, plus the turns after it; else the count
    of turns."""
    turns = [turn for turn in bundle.narrative.turns if turn.role != "context"]
    for back, turn in enumerate(reversed(turns)):
        match = NUMBERED_HEADING.fullmatch((turn.heading or "").strip())
        if match is not None:
            return int(match.group(1)) + back
    return len(turns)
