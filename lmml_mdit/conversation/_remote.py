"""The remote asset: an image or file named by URL or by a provider's file id instead of its
bytes, which are never fetched (see docs/bridge.md, "Remote assets")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["FILE_ID_PROVIDERS", "MAX_URL_LENGTH", "RemoteAsset", "RemoteKind"]

MAX_URL_LENGTH = 8192
"""The longest URL or file id a remote asset holds, in characters (browsers and APIs
refuse much longer ones)."""

FILE_ID_PROVIDERS = ("openai", "anthropic")
"""The providers that issue file ids (OpenAI's Files API serves Chat and Responses)."""

RemoteKind = Literal["image", "file"]


@dataclass(frozen=True)
class RemoteAsset:
    """Where an image or file is, instead of its bytes.

    :ivar kind: ``"image"`` or ``"file"``.
    :ivar url: the URL, when the payload gave one.
    :ivar file_id: the provider's file id, when the payload gave one.
    :ivar provider: the provider that issued *file_id*.
    :ivar media_type: the declared media type, lower case, or None.
    """

    kind: RemoteKind
    url: str | None = None
    file_id: str | None = None
    provider: str | None = None
    media_type: str | None = None

    def __post_init__(self) -> None:
        problem = _problem(self)
        if problem is not None:
            raise ValueError(problem)

    @property
    def label(self) -> str:
        """What the asset points at, for messages: its URL or ``provider file id``."""
        if self.url is not None:
            return self.url if len(self.url) <= 80 else self.url[:77] + "..."
        return f"{self.provider} file {self.file_id}"

    def as_json(self) -> dict[str, str]:
        """The entry's JSON object (keys with no value left out)."""
        value: dict[str, str] = {"kind": self.kind}
        for key in ("url", "file_id", "provider", "media_type"):
            given = getattr(self, key)
            if given is not None:
                value[key] = given
        return value


def _clean(text: str) -> bool:
    return 0 < len(text) <= MAX_URL_LENGTH and not any(
        ord(char) < 0x20 or ord(char) == 0x7F for char in text
    )


def _problem(remote: RemoteAsset) -> str | None:
    """Why *remote* is not a valid remote asset, or None."""
    if remote.kind not in ("image", "file"):
        return f"kind must be 'image' or 'file', not {remote.kind!r}"
    if (remote.url is None) == (remote.file_id is None):
        return "give exactly one of url and file_id"
    for key in ("url", "file_id", "provider", "media_type"):
        value = getattr(remote, key)
        if value is not None and not isinstance(value, str):
            return f"{key} must be a string"
    if remote.url is not None and not _clean(remote.url):
        return (
            f"url must be 1 to {MAX_URL_LENGTH} characters without control characters "
            f"(found {len(remote.url)} characters)"
        )
    if remote.file_id is not None:
        if not _clean(remote.file_id):
            return f"file_id must be 1 to {MAX_URL_LENGTH} characters without control characters"
        if remote.provider not in FILE_ID_PROVIDERS:
            return f"a file id needs provider one of {FILE_ID_PROVIDERS}, not {remote.provider!r}"
    elif remote.provider is not None:
        return "provider goes with file_id only"
    if remote.media_type is not None and not _clean(remote.media_type):
        return "media_type must be a short string without control characters"
    return None
