"""What a bundle holds, as the modules below :class:`~lmml_mdit.bundle.bundle.Bundle` read it.

Validation, packing and saving take a :class:`BundleContents`, the read side of a bundle,
rather than the class itself, so that the class calls down into them and they never reach
back into its internals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal, Protocol

from ..model import Embed
from ..narrative.narrative import Narrative

__all__ = [
    "BundleContents",
    "BundleKind",
    "entry_holding",
    "fences_differing_from_entries",
    "first_fences",
]

BundleKind = Literal["text", "zip"]
"""``"text"`` (a bare ``.lmml``) or ``"zip"`` (a ``.lmmlz``)."""


class BundleContents(Protocol):
    """The read side of a bundle (:class:`lmml_mdit.Bundle` provides it): its narrative,
    its entries and how an embed name resolves to bytes."""

    @property
    def kind(self) -> BundleKind: ...

    @property
    def narrative(self) -> Narrative: ...

    @property
    def narrative_name(self) -> str: ...

    @property
    def file_name(self) -> str: ...

    @property
    def base_dir(self) -> str | None: ...

    @property
    def entries(self) -> tuple[str, ...]: ...

    @property
    def fences(self) -> Mapping[str, Embed]: ...

    @property
    def manifest(self) -> dict[str, Any] | None: ...

    @property
    def front_matter(self) -> dict[str, Any] | None: ...

    @property
    def settings(self) -> dict[str, Any] | None: ...

    def read(self, name: str) -> bytes: ...

    def resolve(self, name: str) -> Callable[[], bytes]: ...

    def embed(self, name: str) -> bytes: ...

    def has_asset(self, name: str) -> bool: ...

    def closest_asset(self, name: str) -> str | None: ...


def first_fences(narrative: Narrative) -> dict[str, Embed]:
    """The first inline fence of each name, in document order."""
    first: dict[str, Embed] = {}
    for embed in narrative.embeds:
        if embed.kind == "inline":
            first.setdefault(embed.name, embed)
    return first


def fences_differing_from_entries(bundle: BundleContents) -> Iterator[Embed]:
    """The first fence of each name whose bytes differ from the archive entry of that name,
    in document order (each such entry is read once)."""
    entries = frozenset(bundle.entries)
    for name, fence in bundle.fences.items():
        if name in entries and bundle.read(name) != fence.content:
            yield fence


def entry_holding(bundle: BundleContents, name: str) -> str | None:
    """*name* when the embed of that name is read from an archive entry (whose lines its
    errors count), None when it is an inline fence or absent."""
    return name if name not in bundle.fences and name in bundle.entries else None
