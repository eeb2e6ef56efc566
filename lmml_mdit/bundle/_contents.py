"""What a bundle holds, as the modules below :class:`~lmml_mdit.bundle.Bundle` read it.

Validation, packing and saving take a :class:`BundleContents`, the read side of a bundle,
rather than the class itself, so that the class calls down into them and they never reach
back into its internals.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Container, Iterator, Mapping
from typing import Literal, Protocol

from ..jsontypes import JSONObject
from ..model import Embed
from ..narrative import Narrative
from ._archive import unsafe_reason
from ._folder import path_under
from ._reserved import SETTINGS_NAMES

__all__ = [
    "BundleContents",
    "BundleKind",
    "entry_holding",
    "fences_differing_from_entries",
    "fences_differing_from_files",
    "first_fences",
    "folder_file",
    "has_reserved",
    "settings_embeds",
]

BundleKind = Literal["text", "zip"]
"""``"text"`` (a bare ``.lmml``) or ``"zip"`` (a ``.lmmlz``)."""


class BundleContents(Protocol):
    """The read side of a bundle (:class:`lmml_mdit.Bundle` provides it): its narrative,
    its entries and how an embed name resolves to bytes.

    Properties are read only; a class attribute or a cached property provides one.
    """

    @property
    def kind(self) -> BundleKind:
        """``"text"`` (a bare ``.lmml``) or ``"zip"`` (a ``.lmmlz``)."""

    @property
    def narrative(self) -> Narrative:
        """The parsed narrative."""

    @property
    def narrative_name(self) -> str:
        """The narrative's entry (or file) name, e.g. ``session.lmml``."""

    @property
    def file_name(self) -> str:
        """The file name locations name (``FILE:LINE:COL``)."""

    @property
    def base_dir(self) -> str | None:
        """For a text bundle, the folder references resolve against, or None."""

    @property
    def entries(self) -> tuple[str, ...]:
        """Asset entry names in archive order (the narrative entry excluded)."""

    @property
    def fences(self) -> Mapping[str, Embed]:
        """The first inline fence of each name."""

    @property
    def manifest(self) -> JSONObject | None:
        """The decoded ``manifest.json``, or None without one."""

    @property
    def front_matter(self) -> JSONObject | None:
        """The decoded YAML front matter, or None without any."""

    @property
    def settings(self) -> JSONObject | None:
        """The decoded settings, or None without any."""

    def read(self, name: str) -> bytes:
        """The bytes of the archive entry (or folder file) *name*."""

    def resolve(self, name: str) -> Callable[[], bytes]:
        """How a reference to *name* is read, without reading it yet."""

    def embed(self, name: str) -> bytes:
        """The bytes a reference to *name* resolves to (inline fence, entry or file)."""

    def embed_head(self, name: str, size: int) -> bytes:
        """Up to the first *size* of those bytes, a file read only that far."""

    def has_asset(self, name: str) -> bool:
        """Whether a reference to *name* resolves."""

    def closest_asset(self, name: str) -> str | None:
        """The asset name *name* most resembles (for a suggestion), or None."""


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


def folder_file(bundle: BundleContents, name: str) -> tuple[str, os.stat_result] | None:
    """The real path and status of the regular file *name* names in a bare narrative's
    ``base_dir``; None without a folder, for an unsafe name, one leading outside the folder,
    or no regular file there (what is there is the resolving reader's to report)."""
    if bundle.kind != "text" or bundle.base_dir is None or unsafe_reason(name) is not None:
        return None
    path = path_under(os.path.realpath(bundle.base_dir), name)
    if path is None:
        return None
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (path, status) if stat.S_ISREG(status.st_mode) else None


def fences_differing_from_files(bundle: BundleContents, skip: Container[str]) -> Iterator[Embed]:
    """For a bare narrative read with ``base_dir``: the first fence of each name not in
    *skip* whose bytes differ from the file of that name in the folder, which the fence
    hides (a file of another size is not read)."""
    for name, fence in bundle.fences.items():
        if name in skip or fence.content is None:
            continue
        found = folder_file(bundle, name)
        if found is None:
            continue
        path, status = found
        if status.st_size != len(fence.content):
            yield fence
            continue
        try:
            with open(path, "rb") as stream:
                if stream.read() != fence.content:
                    yield fence
        except OSError:  # unreadable: the fence is what is sent, and nothing hides it
            continue


def has_reserved(bundle: BundleContents, name: str) -> bool:
    """Whether *bundle* has the reserved embed *name* (a manifest or settings name): an
    entry, or mentioned in the narrative (as a fence, or a reference that must then
    resolve)."""
    return name in bundle.entries or name in bundle.narrative.first_embeds


def settings_embeds(bundle: BundleContents) -> list[str]:
    """The settings embeds *bundle* has (:func:`has_reserved`), in the order of
    :data:`~lmml_mdit.bundle.SETTINGS_NAMES`: one at most, in a bundle that
    reads."""
    return [name for name in SETTINGS_NAMES if has_reserved(bundle, name)]


def entry_holding(bundle: BundleContents, name: str) -> str | None:
    """*name* when the embed of that name is read from an archive entry or, for a bare
    narrative, from a file beside it (whose lines its errors count); None when it is an
    inline fence or absent (see :func:`~lmml_mdit.errors.file_location`)."""
    if name in bundle.fences:
        return None
    if name in bundle.entries:
        return name
    beside = bundle.kind == "text" and bundle.base_dir is not None and bundle.has_asset(name)
    return name if beside else None
