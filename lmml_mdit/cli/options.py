"""The pieces the ``lmml`` parser is built from: a parser whose errors are one line, and
the options several subcommands share, each written once."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

from ..syntax import DELIMITER_MODES, REFERENCE_MODES
from .arguments import Arguments
from .output import CliError

__all__ = [
    "Parser",
    "UsageError",
    "add_base_dir",
    "add_bundle",
    "add_dest",
    "add_force",
    "add_json",
    "add_provider",
    "add_quiet",
    "add_syntax_options",
    "positive_int",
]


class UsageError(CliError):
    """A bad command line (unknown flag, missing argument)."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line instead of usage plus message.

    A subcommand's parser reads its arguments intermixed, so a positional may follow an
    option: ``lmml pack chat.lmml --force out.lmmlz`` gives DEST as ``out.lmmlz``.
    """

    _intermixing = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._intermixing or self._subparsers is not None:
            return super().parse_known_args(args, namespace)
        # parse_known_intermixed_args calls back here; the flag lets those calls through.
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False

    def error(self, message: str) -> NoReturn:
        command = self.prog.split(" ", 1)[1] if " " in self.prog else ""
        where = f"{command}: " if command else ""
        raise UsageError(f"{where}{message} (see '{self.prog} --help')")


def add_bundle(parser: argparse.ArgumentParser, dest: str = "path") -> None:
    """The positional bundle argument, PATH (or SRC for the commands that write one)."""
    parser.add_argument(dest, metavar=dest.upper(), help="the bundle (- for stdin)")


def add_dest(parser: argparse.ArgumentParser, extension: str) -> None:
    """The optional positional DEST, SRC with *extension* by default."""
    parser.add_argument(
        "dest",
        metavar="DEST",
        nargs="?",
        help=f"where to write (default: SRC with {extension}; - for stdout)",
    )


def add_json(parser: argparse.ArgumentParser, what: str) -> None:
    """``--json``: print *what* instead of the table."""
    parser.add_argument("--json", action="store_true", help=f"print {what}")


def add_provider(parser: argparse.ArgumentParser, choices: Sequence[str], what: str) -> None:
    """``-p/--provider``, one of *choices*, openai by default."""
    parser.add_argument(
        "-p",
        "--provider",
        default="openai",
        choices=choices,
        help=f"{what} (default: openai)",
    )


def add_base_dir(parser: argparse.ArgumentParser) -> None:
    """``--base-dir DIR``: the folder a bare narrative's references resolve against."""
    parser.add_argument(
        "--base-dir",
        metavar="DIR",
        help="resolve a bare .lmml's @references against files in DIR (never outside it; "
        "default: the .lmml file's own folder)",
    )


def add_syntax_options(parser: argparse.ArgumentParser) -> None:
    """``--delimiters`` and ``--references``, for every command that opens a bundle."""
    parser.add_argument(
        "--delimiters",
        choices=DELIMITER_MODES,
        default=Arguments.delimiters,
        help="role headings: strict (default: the heading is only the role, or "
        "'Turn N -- role' / 'NAME -- role') or loose (a role word anywhere in it)",
    )
    parser.add_argument(
        "--references",
        choices=REFERENCE_MODES,
        default=Arguments.references,
        help="@name: assets (default: a name with an extension, or a file the bundle has) "
        "or any (every @name, as RFC 4.1 reads it)",
    )


def add_force(parser: argparse.ArgumentParser) -> None:
    """``-f/--force``: overwrite a default DEST that exists."""
    parser.add_argument(
        "-f",
        "--force",
        action="store_true",
        help="overwrite the default DEST when it exists (an explicit DEST is always written)",
    )


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """``-q/--quiet``: no confirmation line."""
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print no confirmation line on stderr"
    )


def positive_int(text: str) -> int:
    """*text* as a whole number of 0 or more, for ``type=``.

    :raises argparse.ArgumentTypeError: otherwise.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value
