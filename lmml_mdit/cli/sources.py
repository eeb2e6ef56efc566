"""The documented path ``lmml_mdit.cli.sources``, kept: its names, from
``lmml_mdit.cli``'s private module ``_sources`` (see docs/architecture.md)."""

from __future__ import annotations

from ._sources import (
    STDIN_LABEL,
    Source,
    about,
    bundle_stem,
    checked_base_dir,
    located,
    open_source,
    same_file,
)

__all__ = [
    "STDIN_LABEL",
    "Source",
    "about",
    "bundle_stem",
    "checked_base_dir",
    "located",
    "open_source",
    "same_file",
]
