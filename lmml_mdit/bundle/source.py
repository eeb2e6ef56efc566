"""What the layers above read from a bundle: the :class:`BundleSource` protocol.

The chat payloads (:mod:`lmml_mdit.chat`) and the preview (:mod:`lmml_mdit.preview`) take a
bundle through this protocol rather than the :class:`~lmml_mdit.bundle.bundle.Bundle` class,
so each names exactly what it reads and mypy checks it where the layers meet.
:class:`~lmml_mdit.bundle.bundle.Bundle` provides all of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..narrative.narrative import Narrative

__all__ = ["BundleSource"]


class BundleSource(Protocol):
    """A narrative and what resolves its references: what chat and the preview read.

    Properties are read only; a class attribute or a cached property provides one.
    """

    @property
    def name(self) -> str:
        """The bundle name without extension, e.g. ``session``."""

    @property
    def kind(self) -> str:
        """``"text"`` (a bare ``.lmml``) or ``"zip"`` (a ``.lmmlz``)."""

    @property
    def narrative_name(self) -> str:
        """The narrative's entry (or file) name, e.g. ``session.lmml``."""

    @property
    def file_name(self) -> str:
        """The file name locations name (``FILE:LINE:COL``)."""

    @property
    def narrative(self) -> Narrative:
        """The parsed narrative."""

    @property
    def entries(self) -> tuple[str, ...]:
        """Asset entry names in archive order (the narrative entry excluded)."""

    @property
    def base_dir(self) -> str | None:
        """For a text bundle, the folder references resolve against, or None."""

    @property
    def RESERVED_NAMES(self) -> tuple[str, ...]:
        """The entry names that are the bundle's own (``manifest.json``, settings)."""

    @property
    def manifest(self) -> dict[str, Any] | None:
        """The decoded ``manifest.json``, or None without one."""

    @property
    def settings(self) -> dict[str, Any] | None:
        """The decoded settings, or None without any."""

    def embed(self, name: str) -> bytes:
        """The bytes a reference to *name* resolves to (inline fence, entry or file)."""

    def entry_size(self, name: str) -> int:
        """An entry's uncompressed size, without reading it."""

    def has_asset(self, name: str) -> bool:
        """Whether a reference to *name* resolves."""

    def check_sendable(self, *, strict: bool = True) -> None:
        """Refuse (or, not *strict*, warn) an error-level defect before sending."""
