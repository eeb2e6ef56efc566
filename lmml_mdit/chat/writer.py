"""Write a :class:`~lmml_mdit.chat.imported.ImportedConversation` as an LMML bundle.

Layout (one block per part, blocks separated by a blank line)::

    ## Turn 1 -- system

    You are terse.

    ## Turn 2 -- user

    What is in this picture?

    @3f1c0d9e2b7a4c55.png

    ## Turn 3 -- assistant

    @@@call_1.tool_call.json
    {"id": "call_1", "name": "zoom", "arguments": {"factor": 2}}
    @@@

    ## Turn 4 -- tool

    @call_1.tool_call.json

    A cat.

- text is escaped with :func:`~lmml_mdit.chat.escape.escape_text`, so it reads back as
  itself and cannot forge turns, fences or references;
- an asset becomes an archive entry named by its content, the first 16 hex digits of its
  SHA-256 plus an extension from its media type, and a line ``@<name>`` where it stood;
- a remote asset (an image or file given by URL or file id) becomes an entry
  ``<hash>.remote.json`` recording where it is (:mod:`lmml_mdit.bundle.remote`), and a
  line ``@<name>`` where it stood;
- a call becomes a fence from :func:`~lmml_mdit.narrative.toolcalls.tool_call_fence`; a ``tool``
  turn starts with the reference to the fence of the call it answers;
- a provider-specific item becomes a fence named by
  :func:`~lmml_mdit.narrative.native.native_name` (``anthropic.thinking.1.json``), counted
  over the conversation, holding its JSON where it stood;
- request parameters other than the conversation are kept in ``settings.json``; record
  fields that are not request parameters (ShareGPT's) in ``manifest.json``;
- a text asset (every format carries one as a document or file part: Anthropic's
  ``document`` with a ``text`` source, an OpenAI ``file``, a Gemini ``inline_data`` of a
  text type) adds ``"text_embeds": "document"`` to ``settings.json`` (unless the payload
  gave that key), so the export sends it as a document again, not as pasted text.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..bundle.remote import RemoteAsset, remote_entry
from ..errors import ImportFormatError
from ..formats import MANIFEST_NAME
from ..media import extension_for, is_text_type
from ..narrative.native import native_fence, native_name
from ..narrative.toolcalls import tool_call_fence
from ..syntax.write import reference
from .content import TEXT_EMBEDS_SETTING
from .escape import escape_text
from .imported import Call, ChatTurn, ImportedAsset, ImportedConversation, Native, Text

if TYPE_CHECKING:
    from ..bundle.bundle import Bundle

__all__ = [
    "HASH_DIGITS",
    "SETTINGS_ENTRY",
    "asset_name",
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


def _turn_blocks(
    turn: ChatTurn,
    entries: dict[str, bytes],
    call_fences: dict[str, tuple[str, str]],
    asset_names: Mapping[int, str],
    names: frozenset[str],
    natives: list[str],
) -> list[str]:
    blocks: list[str] = []
    if turn.role == "tool":
        fence = call_fences.get(turn.call_id or "")
        if fence is None:
            raise ImportFormatError(
                f"a tool result answers call id {turn.call_id!r}, which no earlier assistant "
                "turn made",
                hint="include the assistant message with that tool call",
            )
        blocks.append(reference(fence[0]))
    for part in turn.parts:
        if isinstance(part, Text):
            text = escape_text(part.text, names)
            if text:
                blocks.append(text)
        elif isinstance(part, ImportedAsset):
            name = asset_names[id(part)]
            entries[name] = part.data
            blocks.append(reference(name))
        elif isinstance(part, RemoteAsset):
            name, data = remote_entry(part)
            entries[name] = data
            blocks.append(reference(name))
        elif isinstance(part, Call):
            embed_name, fence_text = tool_call_fence(part.id, part.name, part.arguments)
            if turn.role != "assistant":
                raise ImportFormatError(
                    f"tool call {part.id!r} outside an assistant turn",
                    hint="tool calls belong to assistant messages",
                )
            for other_id, (other_name, _) in call_fences.items():
                if other_name == embed_name:
                    raise ImportFormatError(
                        f"tool call ids {other_id!r} and {part.id!r} share the fence name "
                        f"{embed_name!r}",
                        hint="give every tool call in a conversation its own id",
                    )
            call_fences[part.id] = (embed_name, fence_text)
            blocks.append(fence_text.rstrip("\n"))
        elif isinstance(part, Native):
            name = native_name(part.provider, part.kind, len(natives) + 1)
            natives.append(name)
            blocks.append(native_fence(name, part.value).rstrip("\n"))
    return blocks


def _json_entry(value: dict[str, object], name: str) -> bytes:
    """The bytes of a JSON entry; refuses NaN and infinities, which JSON cannot hold (the
    json module reads them, so a payload may carry them)."""
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:
        raise ImportFormatError(
            f"a value is NaN or infinite, which {name} cannot hold",
            name=name,
            hint="give it a finite number, or remove it",
        ) from None
    return (text + "\n").encode("utf-8")


def write_narrative(conversation: ImportedConversation) -> tuple[str, dict[str, bytes]]:
    """The narrative text and asset entries for *conversation*.

    :raises ImportFormatError: for a tool result without its call, or clashing call ids.
    """
    text, entries, _ = _write(conversation)
    return text, entries


def _write(
    conversation: ImportedConversation,
) -> tuple[str, dict[str, bytes], list[tuple[str, str]]]:
    """The narrative, the entries and each turn's expected ``(role, text)``."""
    expected: list[tuple[str, str]] = []
    entries: dict[str, bytes] = {}
    call_fences: dict[str, tuple[str, str]] = {}
    sections: list[str] = []
    # The reader knows every entry name, so text must not mention one unescaped.
    # Each asset hashed once (by the identity of its part, alive while we write).
    asset_names = {
        id(part): asset_name(part)
        for turn in conversation.turns
        for part in turn.parts
        if isinstance(part, ImportedAsset)
    }
    names = frozenset(asset_names.values()) | {
        remote_entry(part)[0]
        for turn in conversation.turns
        for part in turn.parts
        if isinstance(part, RemoteAsset)
    }
    natives: list[str] = []
    for number, turn in enumerate(conversation.turns, start=1):
        blocks = _turn_blocks(turn, entries, call_fences, asset_names, names, natives)
        expected.append((turn.role, "\n\n".join(blocks)))
        heading = f"## Turn {number} -- {turn.role}"
        sections.append("\n\n".join([heading, *blocks]))
    settings = conversation.settings
    if TEXT_EMBEDS_SETTING not in settings and any(
        is_text_type(part.media_type.split(";", 1)[0].strip())
        for turn in conversation.turns
        for part in turn.parts
        if isinstance(part, ImportedAsset)
    ):
        settings = {**settings, TEXT_EMBEDS_SETTING: "document"}
    if settings:
        entries[SETTINGS_ENTRY] = _json_entry(settings, SETTINGS_ENTRY)
    if conversation.metadata:
        entries[MANIFEST_NAME] = _json_entry(conversation.metadata, MANIFEST_NAME)
    text = "\n\n".join(sections) + "\n" if sections else ""
    return text, entries, expected


def write_bundle(conversation: ImportedConversation, name: str = "conversation") -> Bundle:
    """Build a zip bundle in memory for *conversation*.

    :param name: the bundle name (without extension).
    :raises ImportFormatError: when the conversation cannot be written (see
        :func:`write_narrative`), or if the written narrative would not read back as the
        same turns with the same text (a guard against a bug in the escaping).
    """
    from ..bundle.bundle import Bundle

    text, entries, expected = _write(conversation)
    bundle = Bundle.from_zip(name, text, entries)
    turns = bundle.narrative.turns
    if [(turn.role, turn.text) for turn in turns] != expected:
        raise ImportFormatError(
            "the written narrative does not read back as the same turns",
            name=name,
            hint="report this conversation as a bug in lmml_mdit.chat",
        )
    return bundle
