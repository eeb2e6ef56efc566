"""The ``lmml`` argument parser: every subcommand (each one's options declared in its own
module, see :mod:`~lmml_mdit.cli._table`), the options all bundle readers take, and the
parse itself.

The chat format and provider names its choices offer come from the chat layer's registry
(:mod:`lmml_mdit.chat.providers`), the one list of them.
"""

from __future__ import annotations

import argparse

from ..modes import DELIMITER_MODES, REFERENCE_MODES
from ._arguments import Arguments, CommandHandler
from ._options import HelpFormatter, UsageError
from ._table import declared, modules, summaries, summary_parser, top_parser

TYPE_CHECKING = False  # not typing's, which a subcommand's ``--help`` would pay for
if TYPE_CHECKING:
    from collections.abc import Sequence

    COMMANDS: tuple[str, ...]  # read by __getattr__ below; declared for type checkers

__all__ = ["COMMANDS", "build_parser", "parse_arguments"]


def __getattr__(name: str) -> tuple[str, ...]:
    """``COMMANDS``, every subcommand's name in help order, read from the commands' modules
    (once: the tuple is then kept, so every path the docs name gives the same one);
    ``PROVIDERS``, ``IMPORT_FORMATS`` and ``EXPORT_PROVIDERS``: the registry's names. Each
    read when asked for (building the parser loads no format)."""
    if name == "COMMANDS":
        commands = tuple(command for command, _ in summaries())
        globals()["COMMANDS"] = commands
        return commands
    if name not in ("PROVIDERS", "IMPORT_FORMATS", "EXPORT_PROVIDERS"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..chat import providers

    found: tuple[str, ...] = getattr(providers, "PROVIDER_NAMES" if name == "PROVIDERS" else name)
    return found


SUMMARIES = "--help"
"""``build_parser(SUMMARIES)``: every subcommand's one-line summary and nothing of its
options, which is all ``lmml --help`` prints (:func:`~lmml_mdit.cli._table.summary_parser`)."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``lmml`` argument parser with every subcommand, or with *only* that one.

    :param only: a subcommand's name: the parser then knows no other, and only its module
        is imported (building all of them costs more than some commands take to run);
        :data:`SUMMARIES` for the top-level help alone.
    """
    if only == SUMMARIES:
        return summary_parser()
    parser, sub = top_parser()
    names = list(modules()) if only is None else [only]
    commands = sorted((declared(name).order, name) for name in names)
    for _, name in commands:
        known = declared(name)
        command_parser = sub.add_parser(
            name,
            help=known.summary,
            description=known.summary[0].upper() + known.summary[1:] + ".",
            epilog=f"example:\n  {known.example}",
            formatter_class=HelpFormatter,
        )
        function = "cmd_" + name.replace("-", "_")
        command_parser.set_defaults(handler=CommandHandler(known.module, function))
        if known.opens_bundles:
            _add_syntax_options(command_parser)
        if known.options is not None:
            known.options(command_parser)
    return parser


def _add_syntax_options(parser: argparse.ArgumentParser) -> None:
    """``--delimiters`` and ``--references``, for every command that opens a bundle."""
    parser.add_argument(
        "--delimiters",
        choices=DELIMITER_MODES,
        default=Arguments.delimiters,
        help="role headings: strict (default: the heading is only the role, 'Role:', "
        "'Turn N' with any of - -- : en/em dash then the role, or 'NAME -- role') or loose "
        "(a role word anywhere in it)",
    )
    parser.add_argument(
        "--references",
        choices=REFERENCE_MODES,
        default=Arguments.references,
        help="@name: assets (default: a name with a known file extension, such as "
        "@chart.png, or a file the bundle has) or any (every @name, as RFC 4.1 reads it)",
    )


_OWN_OPTIONS = ("-h", "--help", "--version")
"""The options ``lmml`` itself takes, before the command."""


def _own_option(argument: str) -> bool:
    """Whether *argument* is one of :data:`_OWN_OPTIONS` as argparse reads them: a long
    one abbreviated to a prefix only it has (``--vers``), ``-h`` with more letters after it."""
    if argument.startswith("--"):
        return sum(option.startswith(argument) for option in _OWN_OPTIONS) == 1
    return argument.startswith("-h")


def _unknown_leading_options(arguments: Sequence[str]) -> list[str]:
    """The flags before the command that ``lmml`` does not take, or ``[]``; also ``[]``
    when help or the version is asked for there, which argparse answers first.

    argparse reports a missing COMMAND before an unknown flag (``lmml --verison`` said
    that a COMMAND is required), and hands a flag typed before the command to the
    command's own check (``lmml --bogus validate x`` blamed ``validate``).
    """
    leading: list[str] = []
    for argument in arguments:
        if argument in ("-", "--") or not argument.startswith("-"):
            break
        leading.append(argument)
    if any(_own_option(argument) for argument in leading):
        return []
    return leading


def parse_arguments(arguments: Sequence[str]) -> Arguments:
    """*arguments* (those after the program name) parsed into an :class:`Arguments`.

    :raises UsageError: for a bad command line, unrecognised arguments included.
    """
    unknown = _unknown_leading_options(arguments)
    if unknown:
        raise UsageError(f"unrecognized arguments: {' '.join(unknown)} (see 'lmml --help')")
    parsed = Arguments()  # filled in place
    named = next((argument for argument in arguments if not argument.startswith("-")), None)
    only = named if named in modules() and arguments[0] == named else None
    _, extra = build_parser(only).parse_known_args(arguments, parsed)
    if extra:
        raise UsageError(
            f"{parsed.command}: unrecognized arguments: {' '.join(extra)} "
            f"(see 'lmml {parsed.command} --help')"
        )
    return parsed
