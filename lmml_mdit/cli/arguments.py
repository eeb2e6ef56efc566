"""The documented path ``lmml_mdit.cli.arguments``, kept: its names, from
``lmml_mdit.cli``'s private module ``_arguments`` (see docs/architecture.md)."""

from __future__ import annotations

from ._arguments import (
    Arguments,
    CommandHandler,
    Handler,
)

__all__ = ["Arguments", "CommandHandler", "Handler"]
