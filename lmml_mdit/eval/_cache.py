"""The answer cache: one file per answer, keyed by a hash of the exact request and target.

A key is the SHA-256 of the request body (as canonical JSON) and the target's text, so an
edited case, template or setting gives a new key and an unchanged one is answered from
disk. Each answer is written atomically; a file that cannot be read as an answer counts as
missing and is written again.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..atomic import atomic_write_bytes
from ..jsonio import unicode_json
from ..jsontypes import JSONMapping, JSONObject
from ._targets import Target

__all__ = ["AnswerCache", "request_key"]


def request_key(body: JSONMapping, target: Target) -> str:
    """The content hash of *body* sent to *target*."""
    text = json.dumps(
        {"target": str(target), "request": body},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class AnswerCache:
    """Answers on disk under *folder*, by :func:`request_key`."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> JSONObject | None:
        """The answer stored under *key*, or None."""
        try:
            value = json.loads(self._path(key).read_bytes())
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, answer: JSONMapping) -> None:
        """Store *answer* under *key* (atomically: a reader sees the old file or the new)."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, unicode_json(answer).encode("utf-8"))
