"""The ``lmml`` command line, the top layer: it reads every layer below and nothing reads it.

:mod:`~lmml_mdit.cli.launch` is the entry point (help and the version from the parser
alone), :mod:`~lmml_mdit.cli.commands` runs everything else, and the subcommands live by
concern in modules of their own; docs/architecture.md ("cli") lists each module's job and
docs/cli.md each command.
"""

from __future__ import annotations

from ..lazy import lazy_attributes
from .launch import main

__all__ = ["build_parser", "main", "shown"]

TYPE_CHECKING = False  # not typing's, as in the package root: ``lmml --version`` stays quick
if TYPE_CHECKING:  # the lazy names below, with their real types for type checkers
    from .output import shown
    from .parser import build_parser

# The entry point is light (``lmml --version`` loads the parser alone); the rest on first use.
__getattr__ = lazy_attributes(__name__, {"build_parser": ".parser", "shown": ".output"})
