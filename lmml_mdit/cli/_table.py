"""The ``lmml`` subcommands, each declared in its own module: the declaration, the list of
them read from the modules' sources, and the top-level help built from that list alone.

A subcommand is a function ``cmd_<name>`` (``-`` written ``_``) in a private module
(``_name.py``) of :mod:`lmml_mdit.cli`, decorated with :func:`command`: its summary,
example, place in the help and options sit next to it. ``lmml --help`` reads the
decorators' literal arguments from the sources (cached beside the bytecode) without
importing any command; a command line naming its command imports that command's module
alone. docs/architecture.md ("To add a CLI command") has the steps.
"""

from __future__ import annotations

import argparse
import contextlib
import marshal
import os
import sys

from .._version import VERSION_LINE
from ._options import HelpFormatter, Parser

TYPE_CHECKING = False  # not typing's: ``lmml --help`` reads this module and no more
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import TypeVar

    from ._arguments import Arguments

    Parsed = TypeVar("Parsed", bound=Arguments)

__all__ = [
    "Command",
    "command",
    "declared",
    "modules",
    "summaries",
    "summary_parser",
    "top_parser",
]

_DECORATOR = "\n@command("
"""How a declaration starts in a module's source: the decorator, at the start of a line."""

_FUNCTION = "\ndef cmd_"
"""How the declared function's line starts."""


class Command:
    """What the parser knows of a subcommand besides its options."""

    __slots__ = ("example", "module", "opens_bundles", "options", "order", "summary")

    def __init__(
        self,
        module: str,
        *,
        order: int,
        summary: str,
        example: str,
        opens_bundles: bool,
        options: Callable[[argparse.ArgumentParser], None] | None,
    ) -> None:
        self.module = module
        """The module of :mod:`lmml_mdit.cli` its function lives in."""
        self.order = order
        """Its place in ``lmml --help`` (lowest first, then by name)."""
        self.summary = summary
        """Its line in ``lmml --help``; with a capital and a full stop, its description."""
        self.example = example
        """The example closing its own help."""
        self.opens_bundles = opens_bundles
        """Whether it reads bundles, and so takes the syntax options."""
        self.options = options
        """Adds its own options to its parser."""


_MODULES: dict[str, str] = {}
"""What :func:`modules` found, once read."""

_DECLARED: dict[str, Command] = {}
"""The commands whose modules are imported, by name, as their decorators declared them."""


def command(
    *,
    order: int,
    summary: str,
    example: str,
    opens_bundles: bool = False,
    options: Callable[[argparse.ArgumentParser], None] | None = None,
) -> Callable[[Callable[[Parsed], int]], Callable[[Parsed], int]]:
    """Declare the decorated ``cmd_<name>(args)`` a subcommand; the function is unchanged.
    Its *args* may be typed as a subclass of :class:`~lmml_mdit.cli.Arguments`
    naming the command's own options, without defaults: the parser sets each (the object
    it fills is an ``Arguments``).

    *order* (its place in ``lmml --help``) and *summary* must be literals: ``lmml --help``
    reads them from the source. *opens_bundles*: the command reads bundles, and so takes
    ``--delimiters`` and ``--references``. *options* adds the command's own options to its
    parser. The decorator starts its line and is the function's last.
    """

    def declare(function: Callable[[Parsed], int]) -> Callable[[Parsed], int]:
        name = function.__name__.removeprefix("cmd_").replace("_", "-")
        _DECLARED[name] = Command(
            function.__module__.rpartition(".")[2],
            order=order,
            summary=summary,
            example=example,
            opens_bundles=opens_bundles,
            options=options,
        )
        return function

    return declare


def modules() -> dict[str, str]:
    """Every subcommand's name and the module it lives in, in no particular order: from the
    cache :func:`summaries` keeps, else by a plain text search of the sources (nothing
    parsed or imported).

    :raises RuntimeError: for a name two functions declare.
    """
    if not _MODULES:
        stamped = _stamps()
        if stamped is None:
            _MODULES.update((name, module) for _, name, module, _ in _imported())
            return _MODULES
        key, sources = stamped
        cached = _cached(key)
        if cached is not None:
            _MODULES.update((name, module) for _, name, module, _ in cached)
        for module, source in _sources(sources) if cached is None else ():
            for name, _ in _declarations(module, source):
                _add_module(name, module)
    return _MODULES


def _add_module(name: str, module: str) -> None:
    if _MODULES.get(name, module) != module:
        raise RuntimeError(f"the command {name} is declared twice ({_MODULES[name]}, {module})")
    _MODULES[name] = module


def declared(name: str) -> Command:
    """The declaration of subcommand *name*, its module imported (its decorator runs).

    :raises KeyError: for a name no module declares.
    """
    if name not in _DECLARED:
        import importlib

        importlib.import_module(f"{__package__}.{modules()[name]}")
    return _DECLARED[name]


def summaries() -> list[tuple[str, str]]:
    """Every subcommand's name and summary, in help order, read from the literal arguments
    of the decorators in the sources (no command's module is imported) and cached beside
    the package's bytecode until a module of the package changes."""
    stamped = _stamps()
    if stamped is None:
        return [(name, summary) for _, name, _, summary in _imported()]
    key, sources = stamped
    found = _cached(key)
    if found is None:
        found = _read(sources)
        _store(key, found)
    return [(name, summary) for _, name, _, summary in found]


_Listing = list[tuple[int, str, str, str]]
"""Every subcommand's order, name, module and summary, in help order."""


def _read(sources: list[str]) -> _Listing:
    """The commands *sources* (paths) declare, read with :mod:`ast`.

    :raises RuntimeError: for a declaration whose order or summary is no literal.
    """
    import ast

    found = []
    for module, source in _sources(sources):
        for name, written in _declarations(module, source):
            call = ast.parse(written, mode="eval").body
            try:
                given = {
                    keyword.arg: ast.literal_eval(keyword.value)
                    for keyword in (call.keywords if isinstance(call, ast.Call) else ())
                    if keyword.arg in ("order", "summary")
                }
            except ValueError:
                given = {}
            if not (isinstance(given.get("order"), int) and isinstance(given.get("summary"), str)):
                raise RuntimeError(
                    f"{module}: the @command of {name} needs a literal order and summary"
                )
            _add_module(name, module)
            found.append((given["order"], name, module, given["summary"]))
    return sorted(found)


def _imported() -> _Listing:
    """The commands every command module of this package declares, each module imported:
    for a package whose sources are not files in a folder (imported from a zip archive)."""
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(sys.modules[__package__].__path__):
        if _is_command_module(info.name):
            importlib.import_module(f"{__package__}.{info.name}")
    return sorted(
        (known.order, name, known.module, known.summary) for name, known in _DECLARED.items()
    )


def _is_command_module(name: str) -> bool:
    """Whether the module *name* of this package may declare commands: a private module
    (``_render``), where every module of the package lives; not ``__init__``, nor a public
    module (each one only re-exports a private module's names at a path the docs named)."""
    return name.startswith("_") and not name.startswith("__")


def _stamps() -> tuple[tuple[tuple[str, int, int], ...], list[str]] | None:
    """The package's command modules (see :func:`_is_command_module`) as (name,
    modification time, size), which the cache is valid for, and their paths; None when the
    package is not a folder (a zip archive)."""
    stamps = []
    paths = []
    try:
        listing = os.scandir(os.path.dirname(__file__))
    except OSError:
        return None
    with listing as entries:
        for entry in entries:
            if not (entry.name.endswith(".py") and _is_command_module(entry.name[:-3])):
                continue
            found = entry.stat()
            stamps.append((entry.name, found.st_mtime_ns, found.st_size))
            paths.append(entry.path)
    return tuple(sorted(stamps)), sorted(paths)


def _cache_path() -> str:
    """Where :func:`summaries` keeps what it read: where the bytecode of this package goes."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
    if sys.pycache_prefix:
        folder = os.path.join(sys.pycache_prefix, folder.lstrip(os.sep))
    return os.path.join(folder, f"lmml-commands.{sys.implementation.cache_tag}.marshal")


def _cached(key: tuple[tuple[str, int, int], ...]) -> _Listing | None:
    """The listing cached for the modules as *key* stamps them, or None."""
    try:
        with open(_cache_path(), "rb") as file:
            stored = marshal.load(file)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0] == key):
        return None
    listing: _Listing = stored[1]
    return listing


def _store(key: tuple[tuple[str, int, int], ...], listing: _Listing) -> None:
    """Keep *listing* for the modules as *key* stamps them; quietly not, where the folder
    cannot be written (as Python's own bytecode)."""
    if sys.dont_write_bytecode:
        return
    path = _cache_path()
    partial = f"{path}.{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(partial, "wb") as file:
            marshal.dump((key, listing), file)
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(partial)


def _sources(paths: list[str]) -> list[tuple[str, str]]:
    """Those of *paths* that declare a command: their module names and sources."""
    found = []
    for path in paths:
        with open(path, encoding="utf-8") as file:
            source = file.read()
        if _DECORATOR in source:
            found.append((os.path.basename(path).removesuffix(".py"), source))
    return found


def _declarations(module: str, source: str) -> Iterator[tuple[str, str]]:
    """Each command *source* declares: its name and the decorator's call, as written.

    :raises RuntimeError: for a decorator not followed by the line of a ``cmd_`` function.
    """
    at = source.find(_DECORATOR)
    while at != -1:
        start = source.find(_FUNCTION, at)
        if start == -1 or "\n@" in source[at + 1 : start]:
            raise RuntimeError(
                f"{module}: @command must decorate a function named cmd_<name>, alone"
            )
        end = source.find("(", start)
        yield source[start + len(_FUNCTION) : end].replace("_", "-"), source[at + 2 : start]
        at = source.find(_DECORATOR, end)


def top_parser() -> tuple[Parser, argparse._SubParsersAction[Parser]]:
    """The ``lmml`` parser without its subcommands, and the action they are added to."""
    parser = Parser(
        prog="lmml",
        description="Work with LMML bundles (.lmml narratives and .lmmlz archives).",
        epilog=(
            "examples:\n"
            "  lmml validate examples/sales-review.lmmlz\n"
            "  lmml render examples/sales-review.lmmlz --provider openai\n"
            "  lmml COMMAND --help    (every command has its own help and example)"
        ),
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=VERSION_LINE)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    return parser, sub


def summary_parser() -> Parser:
    """The ``lmml`` parser as ``lmml --help`` shows it: every subcommand's summary, none of
    their options, and no command's module imported."""
    parser, sub = top_parser()
    for name, summary in summaries():
        sub._choices_actions.append(sub._ChoicesPseudoAction(name, (), summary))
    return parser
