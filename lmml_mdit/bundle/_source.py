"""What the layers above read from a bundle: the :class:`BundleSource` protocol.

The chat payloads (:mod:`lmml_mdit.chat`) and the preview (:mod:`lmml_mdit.preview`) take a
bundle through this protocol rather than the :class:`~lmml_mdit.bundle.Bundle` class,
so each names exactly what it reads and mypy checks it where the layers meet. It is the
read side the bundle's own modules take (:class:`~lmml_mdit.bundle.BundleContents`)
and what a bundle adds for sending. :class:`~lmml_mdit.bundle.Bundle` provides all of
it.
"""

from __future__ import annotations

from typing import Protocol

from ._contents import BundleContents

__all__ = ["BundleSource"]


class BundleSource(BundleContents, Protocol):
    """A narrative and what resolves its references: what chat and the preview read."""

    @property
    def name(self) -> str:
        """The bundle name without extension, e.g. ``session``."""

    @property
    def RESERVED_NAMES(self) -> tuple[str, ...]:
        """The entry names that are the bundle's own (``manifest.json``, settings)."""

    def entry_size(self, name: str) -> int:
        """An entry's uncompressed size, without reading it."""

    def check_sendable(self, *, strict: bool = True) -> None:
        """Refuse (or, not *strict*, warn) an error-level defect before sending."""

    def warn_defects(self) -> None:
        """Warn each defect every command that sends or shows a bundle reports."""
