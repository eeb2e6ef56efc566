"""The documented path ``lmml_mdit.cli.rewrite``, kept: its names, from
``lmml_mdit.cli``'s private module ``_rewrite`` (see docs/architecture.md)."""

from __future__ import annotations

from ._rewrite import (
    InlineArguments,
    NewArguments,
    PackArguments,
    cmd_inline,
    cmd_new,
    cmd_pack,
    cmd_to_md,
    destination,
)

__all__ = [
    "InlineArguments",
    "NewArguments",
    "PackArguments",
    "cmd_inline",
    "cmd_new",
    "cmd_pack",
    "cmd_to_md",
    "destination",
]
