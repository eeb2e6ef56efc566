"""The documented path ``lmml_mdit.syntax.links``, kept: its names, from
``lmml_mdit.syntax``'s private module ``_links`` (see docs/architecture.md)."""

from __future__ import annotations

from ._links import LinkParser, normalize_link

__all__ = ["LinkParser", "normalize_link"]
