"""Write a :class:`~lmml_mdit.conversation.ChatConversation` as an LMML bundle.

One ``## Turn N -- role`` turn per message, one block per part: escaped text, ``@name``
lines for assets (named by content) and remote assets, tool-call fences and provider items
as fences; other request parameters go to ``settings.json``, other record fields to
``manifest.json``. See docs/bridge.md, "The narrative written" and "Remote assets".
"""

from __future__ import annotations

import array
import hashlib
import json
import os
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..bundle import (
    DEFAULT_NAME,
    TEXT_EMBEDS_SETTING,
    bundle_name,
    load_manifest,
    manifest_digests,
    remote_entry,
    save_archive,
)
from ..conversation import (
    Asset,
    ChatConversation,
    ChatMessage,
    ImportedAsset,
    MessagePart,
    NativeItem,
    RemoteAsset,
    TextPart,
    ToolCall,
)
from ..errors import DefectError, ImportFormatError
from ..formats import MANIFEST_NAME
from ..media import extension_for, is_text_type
from ..narrative import (
    TOOL_CALL_SUFFIX,
    call_slug,
    native_fence,
    native_name,
    parse,
    tool_call_fence,
)
from ..syntax import reference, turn_label
from ..text import trim_blank_lines
from ..warn import warn
from . import _pieces as pieces
from ._escape import text_block
from ._imported import shown_value

if TYPE_CHECKING:
    from ..bundle import Bundle

__all__ = [
    "HASH_DIGITS",
    "SETTINGS_ENTRY",
    "AssetNamer",
    "BodyWriter",
    "asset_name",
    "save_conversation",
    "turn_heading",
    "write_bundle",
    "write_narrative",
]

HASH_DIGITS = 16
"""How many hex digits of the SHA-256 an asset name keeps (64 bits: collisions are not a
practical concern within one conversation)."""

SETTINGS_ENTRY = "settings.json"


def asset_name(asset: ImportedAsset) -> str:
    """The stable entry name of *asset*: a SHA-256 prefix plus its media type's extension."""
    digest = hashlib.sha256(asset.data).hexdigest()[:HASH_DIGITS]
    return digest + extension_for(asset.media_type)


AssetNamer = Callable[[Asset | ImportedAsset | RemoteAsset], str]
"""Gives the entry name a message's asset is referenced by (storing its bytes where the
writer keeps them), or raises to refuse it: a bundle's resolved asset (the
:class:`~lmml_mdit.conversation.Asset` of an image, document, text file, audio, video or
remote part), or an imported message's decoded or remote asset."""


def _written_asset(part: MessagePart) -> Asset | ImportedAsset | RemoteAsset | None:
    """The asset *part* is written as a reference to (by :class:`BodyWriter`): an imported
    message's decoded or remote asset itself, an asset part of a bundle's message its
    resolved asset; ``None`` for text, a tool call or a provider item."""
    if isinstance(part, TextPart | ToolCall | NativeItem):
        return None
    if isinstance(part, ImportedAsset | RemoteAsset):
        return part
    return part.asset


@dataclass
class BodyWriter:
    """Writes messages as LMML turn bodies, one block per part: the one writer import, a
    run's write-back and prompt files share (docs/bridge.md, "The narrative written").

    Text is escaped so that no ``@name`` of *names* reads as a reference (fenced when a line
    would still read as a near-miss delimiter); an asset becomes a
    reference to the entry *asset* names; a tool call becomes its fence; a tool result
    opens with a reference to its call's fence; a provider item becomes a fence numbered
    after the *natives* already written.

    :ivar names: the entry names the bundle's reader will know.
    :ivar asset: names (or refuses) each asset part.
    :ivar calls: the tool calls made so far (a file's own, then each written), by fence
        name: their ids, which a tool result must answer and a new call must not repeat.
    :ivar natives: how many provider items are written so far.
    """

    names: Container[str]
    asset: AssetNamer
    calls: dict[str, str] = field(default_factory=dict)
    natives: int = 0

    def blocks(self, message: ChatMessage) -> list[str]:
        """The blocks of *message*'s body, in order (join them with blank lines).

        :raises ImportFormatError: for a tool result whose call was not made, a tool call
            outside an assistant turn, or two calls sharing a fence name.
        """
        blocks: list[str] = []
        if message.role == "tool":
            call_id = message.call.id if message.call is not None else ""
            fence_name = call_slug(call_id) + TOOL_CALL_SUFFIX
            if message.call is None or self.calls.get(fence_name) != call_id:
                raise ImportFormatError(
                    f"a tool result answers call id {shown_value(call_id)}, which no earlier "
                    "assistant "
                    "turn made",
                    hint="include the assistant message with that tool call",
                )
            blocks.append(reference(fence_name))
        for part in message.parts:
            asset = _written_asset(part)
            if asset is not None:
                blocks.append(reference(self.asset(asset)))
            elif isinstance(part, TextPart):
                text = text_block(part.text, self.names)
                if text:
                    blocks.append(text)
            elif isinstance(part, ToolCall | NativeItem):
                blocks.append(self._structure(message, part))
        return blocks

    def section(self, number: int, message: ChatMessage) -> str:
        """Turn *number* written: its heading (:func:`turn_heading`), then its blocks.

        :raises ImportFormatError: as :meth:`blocks`.
        """
        return "\n\n".join([turn_heading(number, message.role), *self.blocks(message)])

    def _structure(self, message: ChatMessage, part: ToolCall | NativeItem) -> str:
        if isinstance(part, ToolCall):
            return self._call(message, part)
        self.natives += 1
        name = native_name(part.provider, part.kind, self.natives)
        return native_fence(name, part.value).rstrip("\n")

    def _call(self, message: ChatMessage, call: ToolCall) -> str:
        if message.role != "assistant":
            raise ImportFormatError(
                f"tool call {call.id!r} outside an assistant turn",
                hint="tool calls belong to assistant messages",
            )
        embed_name, fence_text = tool_call_fence(
            call.id, call.name, call.arguments, extra=call.extra
        )
        earlier = self.calls.get(embed_name)
        if earlier is not None:
            raise ImportFormatError(
                f"tool call ids {earlier!r} and {call.id!r} share the fence name {embed_name!r}",
                hint="give every tool call in a conversation its own id",
            )
        self.calls[embed_name] = call.id
        return fence_text.rstrip("\n")


def _json_entry(value: dict[str, object], name: str, *, compact: bool = False) -> bytes:
    """The bytes of a JSON entry (*compact*: one line); refuses NaN and infinities, which
    JSON cannot hold (the json module reads them, so a payload may carry them)."""
    indent, separators = (None, (",", ":")) if compact else (2, None)
    try:
        text = json.dumps(
            value, indent=indent, separators=separators, ensure_ascii=False, allow_nan=False
        )
    except ValueError:
        raise ImportFormatError(
            f"a value is NaN or infinite, which {name} cannot hold",
            name=name,
            hint="give it a finite number, or remove it",
        ) from None
    return (text + "\n").encode("utf-8")


def write_narrative(conversation: ChatConversation) -> tuple[str, dict[str, bytes]]:
    """The narrative text and asset entries for *conversation*.

    :raises ImportFormatError: for a tool result without its call, or clashing call ids.
    """
    written = _write(conversation)
    return written.text, written.entries


def turn_heading(number: int, role: str) -> str:
    """The heading the writer opens turn *number* with: ``## Turn 3 -- tool``."""
    return "## " + turn_label(number, role)


@dataclass
class _Written:
    """A written narrative with its entries and where each turn's section starts."""

    text: str
    entries: dict[str, bytes]
    roles: list[str]
    starts: array.array[int]  # the offset of each turn's heading in text

    def heading(self, index: int) -> str:
        return turn_heading(index + 1, self.roles[index])

    def body_text(self, index: int) -> str:
        """The body of turn *index*: its blocks, as its turn reads back."""
        start, end = self.body(index)
        return self.text[start:end]

    def body(self, index: int) -> tuple[int, int]:
        """The offsets of turn *index*'s body (its blocks) in :attr:`text`."""
        start = self.starts[index] + len(self.heading(index))
        end = self.starts[index + 1] - 2 if index + 1 < len(self.starts) else len(self.text) - 1
        return min(start + 2, end), end


def _entry(asset: Asset | ImportedAsset | RemoteAsset) -> tuple[str, bytes]:
    """The entry name and bytes *asset* is written as at its first place: a remote asset
    by :func:`~lmml_mdit.bundle.remote_entry`, an imported one by :func:`asset_name`, a
    bundle's resolved asset by its own name."""
    if isinstance(asset, RemoteAsset):
        return remote_entry(asset)
    if isinstance(asset, ImportedAsset):
        return asset_name(asset), asset.data
    return asset.name, asset.data


def _entries_in_order(conversation: ChatConversation) -> list[tuple[str, bytes]]:
    """The entry name and bytes of each asset part of *conversation*, in writing order.

    An embed is sent once, at its first reference, so an imported or remote asset given
    again at a later place (the same image in two messages, or twice in one) gets an
    entry of its own there, ``<digits>-2.png``, ``<digits>-3.png``, ...: each place sends
    it, as the payload did. A bundle's resolved asset is sent once already: its own name.
    """
    found: list[tuple[str, bytes]] = []
    seen: dict[str, int] = {}
    for turn in conversation.messages:
        for asset in map(_written_asset, turn.parts):
            if asset is None:
                continue
            name, data = _entry(asset)
            if not isinstance(asset, Asset):
                count = seen[name] = seen.get(name, 0) + 1
                if count > 1:
                    name = f"{name[:HASH_DIGITS]}-{count}{name[HASH_DIGITS:]}"
            found.append((name, data))
    return found


def _write(conversation: ChatConversation) -> _Written:
    """The narrative, the entries and where each turn stands."""
    entries: dict[str, bytes] = {}
    sections: list[str] = []
    # Each asset hashed once, its name fixed before writing: the reader knows every entry
    # name, so text must not mention one unescaped. The writer asks for the names in the
    # same order.
    in_order = _entries_in_order(conversation)
    names = {name for name, _ in in_order}
    pending = iter(in_order)

    def entry(asset: Asset | ImportedAsset | RemoteAsset) -> str:
        name, data = next(pending)
        if entries.get(name, data) != data:
            raise ImportFormatError(
                f"two different assets would be written as {name!r}",
                hint="give each asset of a conversation its own name",
            )
        entries[name] = data
        return name

    writer = BodyWriter(frozenset(names), entry)
    roles: list[str] = []
    starts = array.array("q")
    offset = 0
    for number, turn in enumerate(conversation.messages, start=1):
        section = writer.section(number, turn)
        roles.append(turn.role)
        starts.append(offset)
        offset += len(section) + 2
        sections.append(section)
    settings = conversation.settings
    if TEXT_EMBEDS_SETTING not in settings and any(
        is_text_type(part.media_type.split(";", 1)[0].strip())
        for turn in conversation.messages
        for part in turn.parts
        if isinstance(part, ImportedAsset)
    ):
        settings = {**settings, TEXT_EMBEDS_SETTING: "document"}
    if settings:
        entries[SETTINGS_ENTRY] = _json_entry(settings, SETTINGS_ENTRY)
    if conversation.metadata:
        # Bookkeeping: one compact line, closing a .lmml as one fence after the last turn.
        entries[MANIFEST_NAME] = _json_entry(conversation.metadata, MANIFEST_NAME, compact=True)
    text = "\n\n".join(sections) + "\n" if sections else ""
    return _Written(text, entries, roles, starts)


def _not_read_back(name: str) -> ImportFormatError:
    return ImportFormatError(
        "the written narrative does not read back as the same turns",
        name=name,
        hint="report this conversation as a bug in lmml_mdit.chat",
    )


def _read_back(written: _Written, name: str) -> None:
    """Check that :attr:`_Written.text` reads back as the turns written, each with its
    role and text, parsing it a bounded piece at a time (:mod:`lmml_mdit.chat._pieces`).

    Each turn opens with a top-level heading, after which the parse starts afresh (the
    heading closes every block): so a run of turns parsed alone, followed by the next
    turn's heading, reads as in the whole text, and that heading read as a delimiter
    proves the next run starts afresh too. A turn longer than a piece is parsed in pieces
    of its own, each after a heading for its role.

    :raises ImportFormatError: when a turn does not read back.
    """
    known = frozenset(written.entries)
    count = len(written.roles)
    size = pieces.PIECE_CHARACTERS
    first = 0
    while first < count:
        last = first + 1  # one past the run's last turn
        while last < count and _section_start(written, last + 1) - written.starts[first] <= size:
            last += 1
        if last == first + 1 and _section_start(written, last) - written.starts[first] > size:
            _read_back_long(written, first, known, name)
        else:
            _read_back_run(written, first, last, known, name)
        first = last


def _section_start(written: _Written, index: int) -> int:
    """Where turn *index* starts in the text; its length for the turn after the last."""
    return written.starts[index] if index < len(written.starts) else len(written.text)


def _next_heading(written: _Written, index: int) -> tuple[str, list[tuple[str, str]]]:
    """The text that follows a run ending before turn *index* in a piece (the blank line
    and that turn's heading, or the text's end) and the turn it reads as."""
    if index < len(written.roles):
        return "\n\n" + written.heading(index), [(written.roles[index], "")]
    return "\n", []


def _read_back_run(
    written: _Written, first: int, last: int, known: frozenset[str], name: str
) -> None:
    """Check turns *first* to *last* (excluded), parsed together."""
    text = written.text
    end = written.starts[last] - 2 if last < len(written.roles) else len(text) - 1
    after, closing = _next_heading(written, last)
    piece = text[written.starts[first] : end] + after
    expected = [(written.roles[index], written.body_text(index)) for index in range(first, last)]
    turns = parse(piece, name=name, known_names=known).turns
    if [(turn.role, turn.text) for turn in turns] != expected + closing:
        raise _not_read_back(name)


def _read_back_long(written: _Written, index: int, known: frozenset[str], name: str) -> None:
    """Check turn *index*, longer than a piece, a piece of its body at a time.

    A piece after the first follows a heading of the turn's role; a piece but the last
    is followed by one. A piece whose heading after it is swallowed (a fence or HTML block
    still open at the cut) is parsed again with more of the body."""
    text = written.text
    role = written.roles[index]
    start, end = written.body(index)
    stand_in = turn_heading(1, role)

    def read(piece: pieces.Piece) -> bool:
        heading = written.heading(index) if piece.start == start else stand_in
        # A piece cut between a table's rows follows the table's header and delimiter rows.
        body = f"{piece.context}\n{piece.text}" if piece.context else piece.text
        if piece.final:
            after, closing = _next_heading(written, index + 1)
        else:
            after, closing = "\n\n" + stand_in, [(role, "")]
        turns = parse(f"{heading}\n\n{body}{after}", name=name, known_names=known).turns
        found = [(turn.role, turn.text) for turn in turns]
        if found == [(role, trim_blank_lines(body)), *closing]:
            return True
        if piece.final or len(found) != 1 or found[0][0] != role:
            raise _not_read_back(name)
        return False  # the heading after it was swallowed: read it with more of the body

    pieces.read_in_pieces(text, start, end, read)


def write_bundle(conversation: ChatConversation, name: str = "conversation") -> Bundle:
    """Build a zip bundle in memory for *conversation*.

    :param name: the bundle name (without extension).
    :raises ImportFormatError: when the conversation cannot be written (see
        :func:`write_narrative`), or if the written narrative would not read back as the
        same turns with the same text (a guard against a bug in the escaping).
    """
    bundle = checked_bundle(conversation, name)
    warn_unsendable(conversation, bundle, bundle.file_name)
    return bundle


def checked_bundle(conversation: ChatConversation, name: str) -> Bundle:
    """:func:`write_bundle` without its warnings (for a caller that says them where the
    bundle is saved, with :func:`warn_unsendable`)."""
    from ..bundle import Bundle

    written = _write(conversation)
    bundle = Bundle.from_zip(name, written.text, written.entries)
    expected = [(role, written.body_text(index)) for index, role in enumerate(written.roles)]
    if [(turn.role, turn.text) for turn in bundle.narrative.turns] != expected:
        raise _not_read_back(name)
    return bundle


def warn_unsendable(conversation: ChatConversation, bundle: Bundle, file: str) -> None:
    """A :class:`~lmml_mdit.bundle.DefectWarning` for each error-level defect of *bundle*,
    written from *conversation*, its line counted in *file*: what a send of it refuses (a
    call left unanswered before a user message, a tool message answering no call)."""
    from ..bundle import DefectWarning

    if not _unpaired(conversation):
        return
    for issue in bundle.validate():
        if issue.severity == "error":
            warn(DefectWarning(DefectError(issue, file=file)))


def _unpaired(conversation: ChatConversation) -> bool:
    """Whether a call of *conversation* may go unanswered before a user message, or a tool
    message answer no earlier call: the only defects a written conversation can have (its
    text is read back), which every send refuses. A cheap walk: when it says so, the
    written bundle is validated to tell which."""
    made: set[str] = set()
    pending: set[str] = set()
    for message in conversation.messages:
        if message.role == "user" and pending:
            return True
        if message.role == "assistant":
            for part in message.parts:
                if isinstance(part, ToolCall):
                    made.add(part.id)
                    pending.add(part.id)
        elif message.role == "tool":
            if message.call_id is None or message.call_id not in made:
                return True
            pending.discard(message.call_id)
    return False


def save_conversation(conversation: ChatConversation, path: str) -> None:
    """Write *conversation* as a zip bundle to *path* (``.lmmlz``), named after it, as
    ``write_bundle(conversation, name).save(path)`` would, in memory bounded by a piece of
    the narrative rather than its whole parse: the narrative is checked a piece at a time
    (the same guard as :func:`write_bundle`) and written without a parsed
    :class:`~lmml_mdit.bundle.bundle.Bundle`.

    *conversation* may be dropped by the caller once this returns; it is read only.

    :raises ImportFormatError: as :func:`write_bundle`.
    :raises BundleError: when the bundle cannot be written.
    """
    name = bundle_name(os.path.basename(path)) or DEFAULT_NAME
    if _unpaired(conversation):
        # Rare, and each defect is to be said at its line: the parsed bundle tells them.
        bundle = checked_bundle(conversation, name)
        bundle.save(path)
        warn_unsendable(conversation, bundle, os.fspath(path))
        return
    written = _write(conversation)
    manifest = written.entries.get(MANIFEST_NAME)
    if manifest is not None and manifest_digests(load_manifest(manifest)):
        # Digests to bring up to date, perhaps of fences: the bundle's own save does it.
        write_bundle(conversation, name).save(path)
        return
    _read_back(written, name)
    save_archive(path, written.text, written.entries)
