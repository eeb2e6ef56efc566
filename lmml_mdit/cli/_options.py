"""The pieces the ``lmml`` parser is built from: a parser whose errors are one line, and
the options several subcommands share, each written once."""

from __future__ import annotations

import argparse
import functools
import os
import sys

from ..formats import DEFAULT_PROVIDER
from ._failure import CliError

TYPE_CHECKING = False  # not typing's: ``lmml --help`` reads this module and no more
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Literal, NoReturn

__all__ = [
    "DefaultValue",
    "FormatChoices",
    "HelpFormatter",
    "Parser",
    "RegistryHelp",
    "UsageError",
    "a_path",
    "add_base_dir",
    "add_bundle",
    "add_dest",
    "add_force",
    "add_json",
    "add_provider",
    "add_quiet",
    "add_send_anyway",
    "add_sending",
    "add_settings",
    "listing_options",
    "parse_setting",
    "positive_int",
    "registry_names",
    "seconds",
]


def _remembered(translate: Callable[[str], str]) -> Callable[[str], str]:
    """*translate* (argparse's ``gettext``) with its answers kept: argparse asks it about
    the same few messages for every option it adds, and each question searches the locale
    folders anew, a third of the time ``lmml --help`` takes to build its parsers."""
    if getattr(translate, "remembered", False):
        return translate
    answers: dict[str, str] = {}
    catalogue: list[bool] = []  # whether a catalogue folder exists, asked once

    def lookup(message: str) -> str:
        answer = answers.get(message)
        if answer is None:
            if not catalogue:
                catalogue.append(not _no_catalogue(translate))
            answer = answers[message] = translate(message) if catalogue[0] else message
        return answer

    lookup.remembered = True  # type: ignore[attr-defined]
    return lookup


def _no_catalogue(translate: Callable[[str], str]) -> bool:
    """Whether *translate* is :func:`gettext.gettext` and the folder it reads catalogues
    from (``FOLDER/LANGUAGE/LC_MESSAGES/DOMAIN.mo``, the folder bound to the current
    domain) does not exist: then every message is its own translation, and asking gettext
    would only import :mod:`locale` (about a thirtieth of ``lmml --help``) to list the
    languages it would look for."""
    import gettext

    if translate is not gettext.gettext:
        return False
    folder = gettext.bindtextdomain(gettext.textdomain())
    return bool(folder) and not os.path.exists(folder)


argparse._ = _remembered(argparse._)  # type: ignore[attr-defined]


class UsageError(CliError):
    """A bad command line (unknown flag, missing argument)."""


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help laid out as written, as wide as the terminal.

    The width is found here rather than by argparse, which imports :mod:`shutil` for it
    (and with it three compression modules) every time a parser is built, help or not.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or _terminal_width())

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        return text.written() if isinstance(text, RegistryHelp) else text


def registry_names(kind: Literal["providers", "formats"]) -> tuple[str, ...]:
    """The registry's built-in names of *kind* (``providers``, or ``formats``: every format
    read), in its order, as it has them now: the one late read of the registry behind
    :class:`FormatChoices` and :class:`RegistryHelp`, made each time the names are wanted
    (a name checked, a help shown, argparse listing an option's choices as it adds it),
    never on import."""
    from ..chat import providers

    return providers.PROVIDER_NAMES if kind == "providers" else providers.IMPORT_FORMATS


class RegistryHelp(str):
    """An option's help naming formats of the registry: ``{names}`` in it is written, when
    the help is shown, as *names* gives them from :func:`registry_names`.
    :class:`HelpFormatter` writes it."""

    names: Callable[[], str]

    def __new__(cls, text: str, names: Callable[[], str]) -> RegistryHelp:
        made = super().__new__(cls, text)
        made.names = names
        return made

    def written(self) -> str:
        """The help, the names written in."""
        return str(self).replace("{names}", self.names())


def _terminal_width() -> int:
    """``$COLUMNS``, else standard output's terminal width, else 80; less two, as argparse."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
    return max(columns, 1) - 2


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
        # A command line the plain parse reads whole, it reads as the intermixed one does,
        # and several times faster (the intermixed parse first formats the usage text);
        # the intermixed parse is for the rest: a positional after an option, an error.
        trial = argparse.Namespace(**vars(namespace)) if namespace is not None else None
        try:
            parsed, extra = super().parse_known_args(args, trial)
        except UsageError:
            pass
        else:
            if not extra:
                if namespace is None:
                    return parsed, extra
                vars(namespace).update(vars(parsed))
                return namespace, extra
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


def a_path(text: str) -> str:
    """*text*, a path on the command line, for ``type=``: an empty one names no file
    (``lmml turns ""`` said ``: cannot read the file``).

    :raises argparse.ArgumentTypeError: for an empty path.
    """
    if not text:
        raise argparse.ArgumentTypeError("an empty path names no file")
    return text


def add_bundle(parser: argparse.ArgumentParser, dest: str = "path") -> None:
    """The positional bundle argument, PATH (or SRC for the commands that write one)."""
    parser.add_argument(dest, type=a_path, metavar=dest.upper(), help="the bundle (- for stdin)")


def add_dest(parser: argparse.ArgumentParser, extension: str) -> None:
    """The optional positional DEST, SRC with *extension* by default."""
    parser.add_argument(
        "dest",
        type=a_path,
        metavar="DEST",
        nargs="?",
        help=f"where to write (default: SRC with {extension}; - for stdout)",
    )


def add_json(parser: argparse.ArgumentParser, what: str) -> None:
    """``--json``: print *what* instead of the table."""
    parser.add_argument("--json", action="store_true", help=f"print {what}")


class FormatChoices:
    """A command line option's choices: the registry's built-in format names (*kind*:
    ``providers`` or ``formats``, every format read; :func:`registry_names`), then with
    *plugins* the installed plugins' names, read (once) only for another name. A plugin the
    registry left out (it failed to load, or is no format of *kind*) is no choice: asking
    for it is the usual unknown-choice error."""

    def __init__(self, kind: Literal["providers", "formats"], *, plugins: bool = False) -> None:
        self.kind = kind
        self.plugins = plugins

    def builtin(self) -> tuple[str, ...]:
        """The built-in names, in the registry's order."""
        return registry_names(self.kind)

    def loaded_plugins(self) -> tuple[str, ...]:
        """The installed plugins' names the registry took as formats of this kind."""
        if not self.plugins:
            return ()
        from ..chat import providers

        registered = providers.PROVIDERS if self.kind == "providers" else providers.FORMATS
        return tuple(name for name in plugin_names() if name in registered)

    def __contains__(self, name: object) -> bool:
        return name in self.builtin() or name in self.loaded_plugins()

    def __iter__(self) -> Iterator[str]:
        return iter((*self.builtin(), *self.loaded_plugins()))


@functools.cache
def plugin_names() -> tuple[str, ...]:
    """The names installed packages register in the plugin entry point group, sorted,
    leaving out the built-in ones, read from the packages' metadata without loading any."""
    from importlib.metadata import entry_points

    from ..chat import PLUGIN_GROUP

    names = {point.name for point in entry_points(group=PLUGIN_GROUP)}
    return tuple(sorted(names - set(registry_names("formats"))))


class DefaultValue(str):
    """An option's default value, told apart from the same value given on the command
    line (``isinstance(args.provider, DefaultValue)``), so that a command can refuse an
    option that has no effect in the mode asked for."""


def add_provider(
    parser: argparse.ArgumentParser,
    choices: FormatChoices,
    what: str,
    *,
    default: str = DEFAULT_PROVIDER,
) -> None:
    """``-p/--provider``, one of *choices*, *default* when not given (a
    :class:`DefaultValue` of :data:`DEFAULT_PROVIDER` lets a command tell); *what* its help
    (a :class:`RegistryHelp` stays one)."""
    text = f"{what} (default: {DEFAULT_PROVIDER})"
    parser.add_argument(
        "-p",
        "--provider",
        default=default,
        choices=choices,
        help=RegistryHelp(text, what.names) if isinstance(what, RegistryHelp) else text,
    )


def add_base_dir(parser: argparse.ArgumentParser, *, values: str | None = None) -> None:
    """``--base-dir DIR``: the folder a bare narrative's references resolve against and,
    for a command reading a values or cases file (*values*: its flags, as the help names
    them), the folder that file's paths are held inside."""
    held = (
        ""
        if values is None
        else f", and hold an image, file or messages path of a {values} file inside DIR "
        "(default: that file's folder)"
    )
    parser.add_argument(
        "--base-dir",
        metavar="DIR",
        help="resolve a bare .lmml's @references against files in DIR (never outside it; "
        f"default: the .lmml file's own folder){held}",
    )


def listing_options(what: str) -> Callable[[argparse.ArgumentParser], None]:
    """The options of a command that lists what a bundle holds (``turns``, ``ls``,
    ``inputs``): the bundle, ``--json`` (its help naming *what*) and ``--base-dir``."""

    def add(parser: argparse.ArgumentParser) -> None:
        add_bundle(parser)
        add_json(parser, what)
        add_base_dir(parser)

    return add


def add_force(parser: argparse.ArgumentParser) -> None:
    """``-f/--force``: overwrite a default DEST that exists."""
    parser.add_argument(
        "-f",
        "--force",
        action="store_true",
        help="overwrite the default DEST when it exists (an explicit DEST is always written)",
    )


def add_settings(parser: argparse.ArgumentParser, help: str) -> None:
    """``-s/--set KEY=VALUE``: a setting over the bundle's settings, repeatable."""
    parser.add_argument(
        "-s",
        "--set",
        dest="settings",
        action="append",
        type=parse_setting,
        metavar="KEY=VALUE",
        help=help,
    )


def add_send_anyway(parser: argparse.ArgumentParser, help: str) -> None:
    """``-f/--force``: send (or render) a bundle with an error-level defect anyway."""
    parser.add_argument("-f", "--force", action="store_true", help=help)


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """``-q/--quiet``: no confirmation line."""
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print no confirmation line on stderr"
    )


def add_sending(parser: argparse.ArgumentParser, timeout_help: str) -> None:
    """``--retries``, ``--backoff`` and ``--timeout``: how each request is retried and
    bounded (the defaults are :class:`~lmml_mdit.run.RunOptions`'s, a test checks)."""
    parser.add_argument(
        "--retries",
        type=positive_int,
        default=3,
        metavar="N",
        help="retries of a 429 or 5xx answer, with exponential backoff honouring Retry-After "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--backoff",
        type=seconds,
        default=0.5,
        metavar="SECONDS",
        help="the first retry's delay, doubled for each next one (default: %(default)s)",
    )
    parser.add_argument("--timeout", type=seconds, metavar="SECONDS", help=timeout_help)


def _whole_number(text: str, least: int) -> int:
    """*text* as a whole number of *least* or more.

    :raises argparse.ArgumentTypeError: otherwise.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be {least} or more: {text!r}")
    return value


def positive_int(text: str) -> int:
    """*text* as a whole number of 0 or more, for ``type=``.

    :raises argparse.ArgumentTypeError: otherwise.
    """
    return _whole_number(text, 0)


def at_least_one(text: str) -> int:
    """*text* as a whole number of 1 or more, for ``type=``.

    :raises argparse.ArgumentTypeError: otherwise.
    """
    return _whole_number(text, 1)


def seconds(text: str) -> float:
    """*text* as a number of seconds, 0 or more, for ``type=``.

    :raises argparse.ArgumentTypeError: otherwise.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 <= value < float("inf"):  # NaN fails both comparisons
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds: {text!r}")
    return value


def parse_setting(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` as ``(key, value)``, the value read as YAML (``max_tokens=300`` gives
    the number 300, an empty value the empty string).

    :raises argparse.ArgumentTypeError: without ``=`` or a key, or for a value that is no
        JSON value (see :func:`lmml_mdit.jsonio.json_value_problem`).
    """
    import yaml

    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    parsed: object
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    except (RecursionError, ValueError, OverflowError) as error:
        # PyYAML recurses once per nesting level and converts integers with int(), which
        # refuses a decimal numeral over Python's 4,300 digits.
        what = "nests too deeply" if isinstance(error, RecursionError) else "cannot be read"
        if isinstance(error, ValueError) and "digits" in str(error):
            from ..jsonio import MAX_NUMBER_DIGITS

            what = f"holds a number written with more than {MAX_NUMBER_DIGITS:,} digits"
        raise argparse.ArgumentTypeError(f"{key.strip()}: the value {what}") from None
    from ..jsonio import json_value_problem

    reason = json_value_problem(parsed)
    if reason is not None:
        raise argparse.ArgumentTypeError(
            f"{key.strip()}: {reason}; a setting must be a JSON value (quote it to pass text: "
            f"--set '{key.strip()}=\"...\"')"
        )
    return key.strip(), parsed
