"""The parsed ``lmml`` command line, typed: one attribute per option several subcommands
share.

:func:`lmml_mdit.cli.build_parser` parses into an :class:`Arguments`; a subcommand
sets the options it has, and an option shared by only some subcommands (``--quiet``,
``--in-place``, the syntax options) keeps the class default elsewhere, so a handler reads
``args.quiet`` instead of probing for it. The options one subcommand alone has are typed
by a subclass beside it, in its own module (``RenderArguments`` in
:mod:`~lmml_mdit.cli._render`).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable

TYPE_CHECKING = False  # not typing's: ``lmml --help`` reads this module and no more
if TYPE_CHECKING:
    from ..chat import UnknownSettings
    from ..modes import DelimiterMode, ReferenceMode

__all__ = ["Arguments", "CommandHandler", "Handler"]


class Arguments(argparse.Namespace):
    """What argparse found, an attribute per destination (see the parser for each help)."""

    command: str
    handler: CommandHandler
    # the bundle argument(s) and where output goes
    path: str
    paths: list[str]
    src: str
    dest: str | None
    output: str | None
    # sending and rendering (render, run, export, eval)
    provider: str
    model: str | None
    settings: list[tuple[str, object]] | None
    unknown_settings: UnknownSettings | None
    input_values: list[str] | None = None
    inputs_file: str | None = None
    cases: str | None = None
    strict: bool = False
    workers: int | None
    retries: int
    backoff: float
    timeout: float | None
    # shared by some subcommands only: the default stands for the others
    json: bool = False
    force: bool = False
    quiet: bool = False
    in_place: bool = False
    base_dir: str | None = None
    delimiters: DelimiterMode = "strict"
    references: ReferenceMode = "assets"


Handler = Callable[[Arguments], int]
"""A subcommand: the parsed arguments in, the exit status out."""


class CommandHandler:
    """A subcommand's function, named by its module in :mod:`lmml_mdit.cli` and imported
    when the command runs, so that starting one command does not load every other one.

    :param module: the module's name inside :mod:`lmml_mdit.cli` (``"_inspection"``).
    :param name: the function's name there (``"cmd_validate"``).
    """

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __repr__(self) -> str:
        return f"CommandHandler({self.module!r}, {self.name!r})"

    def resolve(self) -> Handler:
        """The function itself, its module imported on the first call."""
        function: Handler = getattr(
            importlib.import_module(f"{__package__}.{self.module}"), self.name
        )
        return function

    def __call__(self, args: Arguments) -> int:
        return self.resolve()(args)
