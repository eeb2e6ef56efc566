"""The documented path ``lmml_mdit.cli.options``, kept: its names, from
``lmml_mdit.cli``'s private module ``_options`` (see docs/architecture.md)."""

from __future__ import annotations

from ._options import (
    FormatChoices,
    HelpFormatter,
    Parser,
    UsageError,
    add_base_dir,
    add_bundle,
    add_dest,
    add_force,
    add_json,
    add_provider,
    add_quiet,
    listing_options,
    parse_setting,
    positive_int,
    seconds,
)

__all__ = [
    "FormatChoices",
    "HelpFormatter",
    "Parser",
    "UsageError",
    "add_base_dir",
    "add_bundle",
    "add_dest",
    "add_force",
    "add_json",
    "add_provider",
    "add_quiet",
    "listing_options",
    "parse_setting",
    "positive_int",
    "seconds",
]
