"""The JSON file format of a transcript (``Transcript.save``/``Transcript.load``).

A UTF-8 JSON object: ``format`` (:data:`FORMAT_NAME`), ``schema_version``
(:data:`SCHEMA_VERSION`), ``messages`` (``author``, ``content``, ``metadata``) and
``assets`` (name -> base64). Only this version is read; every message is checked as it
would be before saving, so what loads saves again unchanged.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import os
from collections.abc import Iterable, Mapping

from ..atomic import atomic_write_bytes
from ..errors import TranscriptError, TranscriptFormatError
from ..jsonio import load_json
from ..jsontypes import JSONMapping, JSONObject
from ._message import Message, check_asset, check_metadata, check_saveable, check_text

__all__ = ["FORMAT_NAME", "SCHEMA_VERSION", "dump_data", "load_data", "read_file", "write_file"]

SCHEMA_VERSION = 1
"""The version :meth:`Transcript.save` writes and the only one :meth:`Transcript.load` reads."""

FORMAT_NAME = "lmml_mdit.transcript"
"""The ``format`` field of a saved transcript file."""

_HINT = "save transcripts with Transcript.save"


def dump_data(messages: Iterable[Message], assets: Mapping[str, bytes]) -> JSONObject:
    """The JSON form of *messages* and *assets* (metadata deep-copied, assets base64).

    :raises TranscriptFormatError: for metadata JSON cannot hold losslessly.
    """
    dumped = []
    for position, message in enumerate(messages):
        check_saveable(message, position)
        dumped.append(
            {
                "author": message.author,
                "content": message.content,
                "metadata": copy.deepcopy(message.metadata),
            }
        )
    return {
        "format": FORMAT_NAME,
        "schema_version": SCHEMA_VERSION,
        "messages": dumped,
        "assets": {name: base64.b64encode(data).decode("ascii") for name, data in assets.items()},
    }


def write_file(path: str | os.PathLike[str], data: JSONMapping) -> None:
    """Write *data* (from :func:`dump_data`) to *path* as UTF-8 JSON, atomically.

    :raises WriteError: (an :class:`OSError`) when *path* is not a regular file or the
        folder cannot be written; the old file is unchanged.
    """
    text = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False)
    atomic_write_bytes(path, (text + "\n").encode("utf-8"))


def read_file(path: str | os.PathLike[str]) -> tuple[list[Message], dict[str, bytes]]:
    """The messages and assets of the transcript file at *path*.

    :raises TranscriptError: when the file cannot be read.
    :raises TranscriptFormatError: when it is not UTF-8 JSON of this format and version.
    """
    name = os.fspath(path)
    try:
        with open(path, "rb") as stream:
            raw = stream.read()
    except OSError as error:
        raise TranscriptError(
            f"cannot read the transcript: {error.strerror or error}", name=name
        ) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise TranscriptFormatError(
            f"invalid UTF-8 at byte offset {error.start}",
            name=name,
            line=raw.count(b"\n", 0, error.start) + 1,
            hint=_HINT,
        ) from None
    data = load_json(
        text,
        error_class=TranscriptFormatError,
        name=name,
        subject="the transcript",
        hint=_HINT,
        lone_surrogates=True,  # refused later, naming their place
    )
    return load_data(data, name)


_MESSAGE_KEYS = frozenset({"author", "content", "metadata"})
_TOP_KEYS = frozenset({"format", "schema_version", "messages", "assets"})


def load_data(data: object, name: str | None = None) -> tuple[list[Message], dict[str, bytes]]:
    """The messages and assets of a transcript's JSON form, checking version and shape.

    :param name: the file name, for error messages.
    :raises TranscriptFormatError: for a wrong version, a missing or extra key, or a value
        of the wrong type, or an asset name a transcript refuses.
    """

    def fail(message: str) -> TranscriptFormatError:
        return TranscriptFormatError(message, name=name, hint=_HINT)

    if not isinstance(data, dict):
        raise fail(f"a transcript file holds a JSON object, not {type(data).__name__}")
    version = data.get("schema_version")
    if version is None:
        raise fail("the transcript has no schema_version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise fail(f"schema_version must be an integer, not {version!r}")
    if version != SCHEMA_VERSION:
        raise TranscriptFormatError(
            f"transcript schema_version {version} is not supported (this lmml_mdit reads "
            f"{SCHEMA_VERSION})",
            name=name,
            hint="upgrade lmml_mdit" if version > SCHEMA_VERSION else "re-save it",
        )
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise fail(f"unknown top-level keys: {', '.join(sorted(unknown))}")
    if data.get("format", FORMAT_NAME) != FORMAT_NAME:
        raise fail(f"format is {data['format']!r}, not {FORMAT_NAME!r}")
    raw_messages = data.get("messages")
    if not isinstance(raw_messages, list):
        raise fail("the transcript has no messages list")
    messages: list[Message] = []
    for position, raw in enumerate(raw_messages):
        if not isinstance(raw, dict):
            raise fail(f"message {position} is not an object")
        missing = _MESSAGE_KEYS - set(raw)
        if missing:
            raise fail(f"message {position} lacks {', '.join(sorted(missing))}")
        extra = set(raw) - _MESSAGE_KEYS
        if extra:
            raise fail(f"message {position} has unknown keys: {', '.join(sorted(extra))}")
        author, content, metadata = raw["author"], raw["content"], raw["metadata"]
        if not isinstance(author, str) or not isinstance(content, str):
            raise fail(f"message {position}: author and content must be strings")
        if not isinstance(metadata, dict):
            raise fail(f"message {position}: metadata must be an object")
        try:
            # NaN, Infinity and lone surrogates ("\\udcff") parse (Python's json accepts
            # them) but would not save again.
            check_text(author, f"message {position} author")
            check_text(content, f"message {position} content")
            check_metadata(metadata, f"message {position} metadata")
        except TranscriptFormatError as error:
            raise fail(error.message) from None
        messages.append(Message(author, content, copy.deepcopy(metadata)))
    raw_assets = data.get("assets", {})
    if not isinstance(raw_assets, dict):
        raise fail("assets must be an object of name -> base64")
    assets: dict[str, bytes] = {}
    for asset_name, encoded in raw_assets.items():
        if not isinstance(encoded, str):
            raise fail(f"asset {asset_name!r} is not a base64 string")
        try:
            assets[asset_name] = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise fail(f"asset {asset_name!r} is not valid base64") from None
    try:
        for asset_name, asset_data in assets.items():
            check_asset(asset_name, asset_data)
    except TranscriptError as error:
        raise fail(error.message) from None
    return messages, assets
