"""The documented path ``lmml_mdit.cli.parser``, kept: its names, from
``lmml_mdit.cli``'s private module ``_parser`` (see docs/architecture.md)."""

from __future__ import annotations

from . import _parser
from ._parser import build_parser, parse_arguments

__all__ = ["COMMANDS", "build_parser", "parse_arguments"]  # noqa: F822 (COMMANDS: __getattr__)

_READ_WHEN_ASKED = frozenset({"COMMANDS", "PROVIDERS", "IMPORT_FORMATS", "EXPORT_PROVIDERS"})


def __getattr__(name: str) -> tuple[str, ...]:
    """``COMMANDS`` and the registry's names, read by ``_parser`` each time they are asked
    for."""
    if name not in _READ_WHEN_ASKED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    found: tuple[str, ...] = getattr(_parser, name)
    return found
