"""The ``lmml`` entry point. ``--help`` and ``--version`` are answered by the argument parser
alone, so they start as fast as Python does; every other command line (and any that the
parser does not end with its own help) runs through :func:`lmml_mdit.cli._commands.main`."""

from __future__ import annotations

import sys

from .._version import VERSION_LINE

TYPE_CHECKING = False  # not typing's, which ``lmml --version`` would pay for
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]

_ANSWERED_BY_THE_PARSER = frozenset({"-h", "--help", "--version"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lmml`` command line and return its exit status.

    :param argv: the arguments after the program name; ``sys.argv[1:]`` by default.
    """
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments == ["--version"]:
        print(VERSION_LINE)
        return 0
    if arguments in (["--help"], ["-h"]):
        from ._table import summary_parser

        summary_parser().print_help()
        return 0
    if "--" not in arguments and _ANSWERED_BY_THE_PARSER.intersection(arguments):
        status = _parser_answer(arguments)
        if status is not None:
            return status
    from ._commands import main as run

    return run(arguments)


def _parser_answer(arguments: list[str]) -> int | None:
    """The exit status once the parser printed its help or the version, or None when it did
    not (a usage error, or a ``--help`` that was an option's value): the whole command
    line then runs as usual and reports it."""
    from ._parser import parse_arguments

    try:
        parse_arguments(arguments)
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else 0 if done.code is None else 2
    except Exception:
        return None
    return None
