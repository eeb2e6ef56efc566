"""The ``lmml`` command line, the top layer: it reads every layer below and nothing reads it.

Its modules are private: ``_launch`` is the entry point (help and the version from the
parser alone), ``_commands`` runs everything else, ``_table`` declares the subcommands
(:func:`command`) and finds them in the private modules' sources, and the subcommands live
by concern in modules of their own; docs/architecture.md ("cli") lists each module's job
and docs/cli.md each command. The names below are the package's surface, each imported on
first use but :func:`main`.
"""

from __future__ import annotations

from ..lazy import lazy_attributes, public_names
from ._launch import main as main

TYPE_CHECKING = False  # not typing's, as in the package root: ``lmml --version`` stays quick
if TYPE_CHECKING:  # the lazy names below, with their real types for type checkers
    from ._arguments import Arguments as Arguments
    from ._output import shown as shown
    from ._parser import COMMANDS as COMMANDS
    from ._parser import build_parser as build_parser
    from ._progress import ProgressLine as ProgressLine
    from ._table import command as command

# The entry point is light (``lmml --version`` loads the parser alone); the rest on first use.
_NAMES = {
    "COMMANDS": "._parser",
    "Arguments": "._arguments",
    "ProgressLine": "._progress",
    "build_parser": "._parser",
    "command": "._table",
    "shown": "._output",
}
__getattr__ = lazy_attributes(__name__, _NAMES)

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names([*_NAMES, "main"])
