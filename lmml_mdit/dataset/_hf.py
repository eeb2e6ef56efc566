"""Conversation rows for Hugging Face ``datasets``, and messages for chat templates.

:func:`hf_rows` and :func:`hf_features` feed ``datasets.Dataset.from_generator`` one bundle
at a time; :func:`hf_fingerprint` hashes the folder's listing so a bundle added later is
seen; :func:`template_messages` gives ``tokenizer.apply_chat_template`` its list. See
docs/datasets.md, "Hugging Face datasets".
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence

from .._version import __version__
from ..bundle import Limits, filesystem, is_url, local_path, url_failures
from ..chat import ChatMessage
from ..jsontypes import JSONMapping
from ._arrow import iter_rows
from ._rows import OpenOptions, Row
from ._schema import SCHEMA_VERSION, AssetMode, checked_providers, conversation_schema
from ._storage import walk

__all__ = ["TEMPLATE_ROLES", "hf_features", "hf_fingerprint", "hf_rows", "template_messages"]

TEMPLATE_ROLES: Mapping[str, str] = {
    "context": "system",
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
}
"""The chat-template role of each LMML role (a preamble is system text, as in requests)."""


def hf_rows(
    folder: str | os.PathLike[str],
    providers: Sequence[str] | None = None,
    assets: AssetMode = "embed",
    limits: Limits | None = None,
) -> Iterator[Row]:
    """The conversation row of each bundle under *folder* (a path or URL), with a
    ``messages`` column (:func:`template_messages`): a generator for
    ``Dataset.from_generator`` (whose ``gen_kwargs`` these parameters are).

    A bundle that fails is a row holding its ``error`` (and no messages).
    """
    options = OpenOptions(
        limits=limits if limits is not None else Limits(),
        assets=assets,
        providers=checked_providers(providers),
    )
    for row in iter_rows(folder, options):
        row["messages"] = template_messages(row)
        yield row


def hf_fingerprint(
    folder: str | os.PathLike[str],
    providers: Sequence[str] | None = None,
    assets: AssetMode = "embed",
    limits: Limits | None = None,
) -> str:
    """The ``fingerprint=`` for ``Dataset.from_generator(hf_rows, ...)`` over *folder* (a
    path or URL) with these options: a digest of the folder's listing (every bundle's
    relative path, size and modification time), the options, this package's version and
    the schema's, so that a bundle added, removed or changed gives another dataset instead
    of the cached one.

    The files beside a bare ``.lmml`` that it references are not listed: touch the
    narrative (or rebuild with a new ``cache_dir``) after changing only those.
    """
    entries = []
    for source, relative in walk(folder):
        size, modified = _size_and_time(source)
        entries.append([relative, size, modified])
    options = {
        "providers": list(checked_providers(providers)),
        "assets": assets,
        "limits": repr(limits if limits is not None else Limits()),
    }
    described = {
        "lmml_mdit": __version__,
        "schema": SCHEMA_VERSION,
        "options": options,
        "bundles": entries,
    }
    text = json.dumps(described, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


_TIME_KEYS = ("mtime", "LastModified", "last_modified", "updated", "modified", "created", "ETag")
"""Where fsspec filesystems keep a file's time (or, for some stores, a version tag)."""


def _size_and_time(source: str) -> tuple[int, str]:
    """The size and modification time (or version tag) of the bundle at *source*."""
    local = local_path(source) if is_url(source) else source
    if local is not None:
        stat = os.stat(local)
        return stat.st_size, str(stat.st_mtime_ns)
    fs, path = filesystem(source)
    with url_failures(source):
        info = fs.info(path)
    size = info.get("size")
    stamp = next((info[key] for key in _TIME_KEYS if info.get(key) is not None), "")
    return int(size) if isinstance(size, int) else -1, str(stamp)


def hf_features(providers: Sequence[str] | None = None) -> object:
    """The ``datasets.Features`` of :func:`hf_rows`: the conversation schema and
    ``messages``, so every row is typed alike (a first row of nulls decides nothing).

    Imports ``datasets``, which must be installed.
    """
    import pyarrow as pa
    from datasets import Features

    message = pa.struct([pa.field("role", pa.string()), pa.field("content", pa.large_string())])
    schema = conversation_schema(providers).append(pa.field("messages", pa.list_(message)))
    return Features.from_arrow_schema(schema)


def template_messages(row: JSONMapping) -> list[ChatMessage]:
    """A row's turns as chat-template messages: ``{"role", "content"}``, the content the
    turn's text parts joined by a blank line (asset, tool-call and provider-specific parts
    are left out), turns without text left out. Roles map by :data:`TEMPLATE_ROLES`.
    """
    messages: list[ChatMessage] = []
    for turn in row.get("turns") or []:
        texts = [part["text"] for part in turn["parts"] if part["type"] == "text"]
        content = "\n\n".join(text for text in texts if text)
        if content:
            role = TEMPLATE_ROLES.get(turn["role"], turn["role"])
            messages.append({"role": role, "content": content})
    return messages
