"""``lmml fmt``: bundles formatted by mdformat with the LMML plugin, in place.

A ``.lmml`` is rewritten as a whole; in a ``.lmmlz`` only the narrative changes, and the
archive is saved again (atomically, its entries as they were). The options are those of
the ``.mdformat.toml`` mdformat's command line would read for the file. The formatter
comes from the optional extra ``mdformat``, imported only when the command runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ..atomic import atomic_write_bytes
from ..errors import LmmlError
from ..formats import BUNDLE_SUFFIXES
from ._arguments import Arguments
from ._options import add_quiet
from ._output import (
    STDIO,
    CliError,
    error,
    error_text,
    info,
    save_bundle,
    shown,
    stdout_text,
    writing,
)
from ._sources import located, open_source
from ._table import command

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ..toolchain import MdformatConfig

__all__ = ["FmtArguments", "cmd_fmt"]

_INSTALL_HINT = "lmml fmt needs mdformat: pip install 'lmml-mdit[mdformat]'"


def _bundle_paths(paths: list[str]) -> list[str]:
    """*paths*, each folder replaced by the bundles under it (sorted, hidden ones left out)."""
    found: list[str] = []
    for path in paths:
        if path == STDIO or not os.path.isdir(path):
            found.append(path)
        else:
            found.extend(_bundles_under(path))
    return found


def _bundles_under(top: str) -> Iterator[str]:
    """The bundles under *top*: a folder's own files first, sorted by name, then each
    subfolder's in turn; names starting with ``.`` left out, links to folders not followed,
    an unreadable folder skipped. The walk keeps its own stack of folders to visit instead
    of recursing, so a chain of thousands of nested folders is walked like any other."""
    pending = [top]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        files: list[str] = []
        folders: list[str] = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                into = entry.is_dir() and not entry.is_symlink()
                is_folder = entry.is_dir()
            except OSError:
                into = is_folder = False
            if into:
                folders.append(entry.name)
            elif not is_folder and entry.name.lower().endswith(BUNDLE_SUFFIXES):
                files.append(entry.name)
        yield from (os.path.join(folder, name) for name in sorted(files))
        pending.extend(os.path.join(folder, name) for name in sorted(folders, reverse=True))


def _configs(paths: list[str]) -> dict[str, MdformatConfig]:
    """The ``.mdformat.toml`` of each path (read once per folder): as mdformat reads it,
    from the file's folder (the working folder for stdin) or its nearest parent."""
    from ..toolchain import mdformat_config

    by_folder: dict[str, MdformatConfig] = {}
    found: dict[str, MdformatConfig] = {}
    for path in paths:
        folder = os.getcwd() if path == STDIO else os.path.dirname(os.path.abspath(path))
        if folder not in by_folder:
            by_folder[folder] = mdformat_config(folder)
        found[path] = by_folder[folder]
    return found


def _format_one(path: str, args: FmtArguments, config: MdformatConfig) -> bool:
    """Format the bundle at *path* with *config*'s options; whether it changed (or, with
    ``--check``, would)."""
    from ..bundle import Bundle
    from ..toolchain import format_text

    source = open_source(path, args)
    bundle = source.bundle
    text = bundle.narrative.text
    try:
        formatted = format_text(
            text,
            options=config.options,
            name=bundle.narrative_name,
            known_names=frozenset(bundle.entries),
        )
    except LmmlError as error:
        raise CliError(located(source.label, error_text(error), source.aliases)) from None
    formatted = formatted.replace("\n", config.newline(text))
    if path == STDIO:
        if not args.check:
            stdout_text(formatted)
        return formatted != text
    if formatted == text:
        return False
    if args.check:
        return True
    with writing(path):
        if bundle.kind == "zip":
            entries = {name: bundle.read(name) for name in bundle.entries}
            bundle.close()
            save_bundle(Bundle.from_zip(bundle.name, formatted, entries), path)
        else:
            atomic_write_bytes(path, formatted.encode("utf-8"))
    return True


class FmtArguments(Arguments):
    """``lmml fmt``'s own options, typed (the parser sets each)."""

    check: bool


def _fmt_options(parser: argparse.ArgumentParser) -> None:
    """``lmml fmt``'s own options."""
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="bundles to format in place (.lmml, or the narrative inside a .lmmlz); a folder "
        "means the bundles under it; - formats stdin to stdout",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 when a file would be reformatted",
    )
    add_quiet(parser)


@command(
    order=170,
    summary="format narratives with mdformat, every LMML construct kept as written",
    example="lmml fmt examples/ --check",
    options=_fmt_options,
)
def cmd_fmt(args: FmtArguments) -> int:
    """``lmml fmt PATH... [--check]``: format bundles in place (with ``--check``, only say
    which would change: exit 1 if any would)."""
    try:
        import mdformat  # noqa: F401  (the extra's presence, checked before any file)
    except ImportError:
        raise CliError(_INSTALL_HINT) from None
    status = 0
    changed = 0
    failed = 0
    paths = _bundle_paths(args.paths)
    try:
        configs = _configs(paths)
    except LmmlError as failure:
        raise CliError(error_text(failure)) from None
    paths = [path for path in paths if path == STDIO or not configs[path].excludes(path)]
    for path in paths:
        try:
            did_change = _format_one(path, args, configs[path])
        except (LmmlError, OSError, CliError) as failure:
            error(error_text(failure))
            status = 2
            failed += 1
            continue
        if did_change:
            changed += 1
            if args.check:
                print(shown(f"{path}: would be reformatted"), file=sys.stderr)
                status = max(status, 1)
            elif path != STDIO:
                info(args, f"{path}: reformatted")
    if failed == len(paths):
        return status  # each failure said so in its one line; there is nothing to sum up
    if not args.check:
        info(args, f"{changed} of {len(paths)} file(s) reformatted")
    elif not changed and status == 0:
        info(args, f"{len(paths)} file(s) already formatted")
    return status
