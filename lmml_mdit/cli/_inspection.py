"""The commands that read a bundle and report on it: ``validate``, ``turns``, ``ls``,
``cat`` and ``info``. None of them writes a file."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..errors import BundleError, LmmlError
from ..jsontypes import JSONObject
from ._arguments import Arguments
from ._options import a_path, add_base_dir, add_bundle, add_json, listing_options
from ._output import (
    STDIO,
    CliError,
    error,
    error_text,
    issue_line,
    missing_summary,
    shown,
    stdout_buffer,
    stdout_bytes,
    stdout_json,
    stdout_text,
)
from ._progress import ProgressLine
from ._sources import STDIN_LABEL, Source, located, open_source
from ._table import command
from ._templates import given_inputs

if TYPE_CHECKING:
    from ..bundle import Bundle
    from ..model import Issue

__all__ = ["CatArguments", "cmd_cat", "cmd_info", "cmd_ls", "cmd_turns", "cmd_validate"]

_Row = JSONObject
"""One row of a listing, as ``--json`` prints it."""


# -- validate -----------------------------------------------------------------------------


def _issue_record(issue: Issue) -> _Row:
    return {**issue.record(), "message": issue.cli_message or issue.message}


def _validate_options(parser: argparse.ArgumentParser) -> None:
    """``lmml validate``'s own options."""
    parser.add_argument(
        "paths", type=a_path, nargs="+", metavar="PATH", help="bundles to check (- for stdin)"
    )
    add_json(parser, "one JSON report on stdout")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 on warnings too (by default only an error-level defect fails)",
    )
    parser.add_argument(
        "--input",
        dest="input_values",
        action="append",
        metavar="NAME=VALUE",
        help="a template input's value, checked too (missing_input, invalid_input); repeatable",
    )
    parser.add_argument(
        "--inputs",
        dest="inputs_file",
        metavar="FILE",
        help="a JSON object of input values (- for stdin)",
    )
    add_base_dir(parser, values="--inputs")


@command(
    order=20,
    summary="check bundles for authoring defects",
    example="lmml validate examples/*.lmml examples/*.lmmlz",
    opens_bundles=True,
    options=_validate_options,
)
def cmd_validate(args: Arguments) -> int:
    """``lmml validate PATH...``: 0 when no error-level defect was found (warnings are still
    printed), 1 when one was (or, with ``--strict``, any defect), 2 when a file could not be
    read."""
    if args.paths.count(STDIO) > 1:  # a second read of standard input would find it empty
        raise CliError("- (standard input) can be given once; give the other bundles as files")
    stdout_buffer()  # the report goes there: fail before any work when it is closed
    status = 0
    report: list[_Row] = []
    found: list[Issue] = []
    with ProgressLine("validating", len(args.paths)) as progress:
        for done, path in enumerate(args.paths, 1):
            progress.step(done, path)
            try:
                source = open_source(path, args)
                values = given_inputs(args, source)
                with source.about():
                    issues = source.bundle.validate(inputs=values)
            except (LmmlError, OSError, CliError) as failure:
                if isinstance(failure, BrokenPipeError):
                    raise
                progress.close()
                status = 2
                label = STDIN_LABEL if path == STDIO else path
                message = located(label, error_text(failure), (os.path.basename(path),))
                report.append({"path": path, "error": message, "issues": []})
                error(message)  # with --json too: standard output keeps the JSON alone
                continue
            progress.close()
            if any(args.strict or issue.severity == "error" for issue in issues):
                status = max(status, 1)
            found.extend(issues)
            records = [_issue_record(issue) for issue in issues]
            report.append({"path": path, "error": None, "issues": records})
            if args.json:
                continue
            for issue in issues:
                print(issue_line(source.label, issue, archive=source.bundle.kind == "zip"))
            if not issues:
                print(f"{shown(source.label)}: OK")
    if args.json:
        stdout_json(report)
    else:
        count = sum(len(entry["issues"]) for entry in report)
        if count:
            files = sum(1 for entry in report if entry["issues"])
            print(f"{count} issue(s) found in {files} file(s)", file=sys.stderr)
        missing = missing_summary(found)
        if missing is not None:
            print(missing, file=sys.stderr)
    return status


# -- tables: turns and ls -----------------------------------------------------------------


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> str:
    rows = [[shown(cell) for cell in row] for row in rows]
    widths = [len(title) for title in header]
    for row in rows:
        widths = [max(width, len(cell)) for width, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.rjust(width) if index in right else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    return "\n".join([line(header), *(line(row) for row in rows)]) + "\n"


def _print_rows(
    args: Arguments,
    rows: Sequence[_Row],
    header: Sequence[str],
    cells: Callable[[_Row], list[str]],
    right: set[int],
) -> int:
    """Print *rows* as JSON with ``--json``, else as a table of ``cells(row)`` under
    *header*, the columns in *right* right-aligned."""
    if args.json:
        stdout_json(rows)
    else:
        stdout_text(_table(header, [cells(row) for row in rows], right))
    return 0


def _turn_rows(bundle: Bundle) -> list[_Row]:
    from ..narrative import numbered_turns

    rows = []
    for number, turn in numbered_turns(bundle.narrative.turns):
        rows.append(
            {
                "number": number,
                "role": turn.role,
                "start_line": turn.start_line,
                "end_line": turn.end_line,
                "lines": max(0, turn.end_line - turn.start_line + 1),
                "characters": len(turn.text),
                "embeds": [embed.name for embed in turn.embeds],
                "heading": turn.heading,
                "delimiter_line": turn.delimiter_line,
            }
        )
    return rows


@command(
    order=40,
    summary="list the turns: number, role, lines, characters, embeds",
    example="lmml turns examples/sales-review.lmml",
    opens_bundles=True,
    options=listing_options("the rows as JSON"),
)
def cmd_turns(args: Arguments) -> int:
    """``lmml turns PATH``: one row per turn."""
    from ._render import caught_warnings, print_warnings, report_refusals

    source = open_source(args.path, args)
    with source.about(), caught_warnings() as caught:
        rows = _turn_rows(source.bundle)
        source.bundle.warn_defects()
    print_warnings(source, caught)
    report_refusals(source)
    header = ["#", "role", "lines", "span", "characters", "embeds"]
    return _print_rows(args, rows, header, _turn_cells, right={0, 2, 4})


def _turn_cells(row: _Row) -> list[str]:
    span = f"{row['start_line']}-{row['end_line']}" if row["lines"] else "-"
    embeds = ", ".join(row["embeds"]) or "-"
    cells = [row["role"], str(row["lines"]), span, str(row["characters"]), embeds]
    return [str(row["number"]), *cells]


def _asset_names(bundle: Bundle) -> list[tuple[str, str, bytes | None]]:
    """``(kind, name, content)`` of each asset ``lmml ls`` lists, in its order: inline
    fences first (document order, first fence of each name, wherever the name was first
    referenced; *content* their bytes, already in the narrative), then archive entries,
    then for a bare narrative that sees a folder the referenced files found there
    (*content* None: read when listed). A reference to a fence or an entry is no asset of
    its own, so the list's length is the count of rows."""
    fences = bundle.fences
    names: list[tuple[str, str, bytes | None]] = [
        ("inline", name, embed.content)
        for name, embed in fences.items()
        if embed.content is not None
    ]
    names += [("entry", name, None) for name in bundle.entries]
    if bundle.kind == "text" and bundle.base_dir is not None:
        names += [
            ("file", name, None)
            for name in bundle.narrative.first_embeds
            if name not in fences and bundle.has_asset(name)
        ]
    return names


def _asset_data(bundle: Bundle, kind: str, name: str, content: bytes | None) -> bytes:
    """The bytes of the asset :func:`_asset_names` gave as *kind*, *name* and *content*."""
    if content is not None:
        return content
    return bundle.read(name) if kind == "entry" else bundle.embed(name)


def _asset_row(kind: str, name: str, data: bytes) -> _Row:
    # Imported here (and unsafe_reason in cmd_cat), so that ``lmml ls --help`` loads no YAML.
    from ..bundle import sha256_hex
    from ..media import media_type_for

    return {
        "kind": kind,
        "name": name,
        "size": len(data),
        "media_type": media_type_for(name, data),
        "sha256": sha256_hex(data),
    }


@command(
    order=50,
    summary="list assets with size, media type and sha256",
    example="lmml ls examples/sales-review.lmmlz",
    opens_bundles=True,
    options=listing_options("the rows as JSON"),
)
def cmd_ls(args: Arguments) -> int:
    """``lmml ls PATH``: every asset with size, media type and sha256."""
    source = open_source(args.path, args)
    bundle = source.bundle
    rows = []
    with source.about():
        names = _asset_names(bundle)
        with ProgressLine("hashing", len(names)) as progress:
            for done, (kind, name, content) in enumerate(names, 1):
                progress.step(done, name)
                rows.append(_asset_row(kind, name, _asset_data(bundle, kind, name, content)))
    header = ["kind", "size", "media type", "sha256", "name"]
    return _print_rows(args, rows, header, _asset_cells, right={1})


def _asset_cells(row: _Row) -> list[str]:
    return [row["kind"], str(row["size"]), row["media_type"], row["sha256"], row["name"]]


# -- cat ----------------------------------------------------------------------------------


class CatArguments(Arguments):
    """``lmml cat``'s own options, typed (the parser sets each)."""

    name: str


def _cat_options(parser: argparse.ArgumentParser) -> None:
    """``lmml cat``'s own options."""
    add_bundle(parser)
    parser.add_argument(
        "name",
        metavar="NAME",
        help="the embed or entry name (the narrative's own name prints it)",
    )
    add_base_dir(parser)


@command(
    order=60,
    summary="write one asset's bytes to stdout",
    example="lmml cat examples/sales-review.lmmlz chart.png > chart.png",
    opens_bundles=True,
    options=_cat_options,
)
def cmd_cat(args: CatArguments) -> int:
    """``lmml cat PATH NAME``: one asset's bytes (or the narrative's) to stdout."""
    from ..errors import MissingEntryError, UnresolvableReferenceError

    source = open_source(args.path, args)
    bundle = source.bundle
    with source.about():
        if args.name == bundle.narrative_name:
            data = bundle.narrative.text.encode("utf-8")
        else:
            try:
                # Its own error for an unsafe name or a folder file that is a link leading
                # out; only a name that is simply not there gets the list below.
                data = bundle.embed(args.name)
            except (MissingEntryError, UnresolvableReferenceError):
                raise CliError(_unknown_entry(source, args.name)) from None
    stdout_bytes(data)
    return 0


def _unknown_entry(source: Source, name: str) -> str:
    """Why ``lmml cat`` has nothing called *name*, listing what it does have."""
    from ..bundle import did_you_mean

    bundle = source.bundle
    names = list(dict.fromkeys([*bundle.narrative.first_embeds, *bundle.entries]))
    known = [n for n in names if bundle.has_asset(n)]
    guess = did_you_mean(bundle, name)
    listed = ", ".join([*known, bundle.narrative_name])
    return f"{source.label}: no asset {name!r}; {guess}the bundle has: {listed}"


# -- info ---------------------------------------------------------------------------------


def _info_options(parser: argparse.ArgumentParser) -> None:
    """``lmml info``'s own options."""
    add_bundle(parser)
    add_json(parser, "the summary as JSON")
    add_base_dir(parser)


@command(
    order=110,
    summary="summarise a bundle: kind, turns, embeds, entries, manifest, settings",
    example="lmml info examples/sales-review.lmmlz",
    opens_bundles=True,
    options=_info_options,
)
def cmd_info(args: Arguments) -> int:
    """``lmml info PATH``: a short summary of a bundle; what a send would refuse or warn of
    is warned of, as ``turns`` does, and a manifest or settings that do not decode show as
    none."""
    from ._render import caught_warnings, print_warnings, report_refusals

    source = open_source(args.path, args)
    with source.about(), caught_warnings() as caught:
        summary = _summary(source)
        source.bundle.warn_defects()
    print_warnings(source, caught)
    report_refusals(source)
    if args.json:
        stdout_json(summary)
        return 0
    lines = []
    for key, value in summary.items():
        if isinstance(value, dict):
            text = ", ".join(f"{k}={_short_json(v)}" for k, v in value.items())
        elif isinstance(value, list):
            text = ", ".join(value)
        else:
            text = "" if value is None else str(value)
        lines.append(f"{key + ':':<11}{shown(text) or '-'}")
    stdout_text("\n".join(lines) + "\n")
    return 0


def _summary(source: Source) -> _Row:
    bundle = source.bundle
    roles: dict[str, int] = {}
    for turn in bundle.narrative.turns:
        roles[turn.role] = roles.get(turn.role, 0) + 1
    return {
        "path": source.label,
        "kind": bundle.kind,
        "name": bundle.name,
        "narrative": bundle.narrative_name,
        "lines": len(bundle.narrative.lines),
        "turns": len(bundle.narrative.turns),
        "roles": roles,
        "embeds": list(bundle.narrative.embed_names),
        "entries": list(bundle.entries),
        "manifest": _decoded(lambda: bundle.manifest),
        "settings": _decoded(lambda: bundle.settings),
    }


def _decoded(read: Callable[[], JSONObject | None]) -> JSONObject | None:
    """What *read* decodes, or None when it does not decode (the warnings say why)."""
    try:
        return read()
    except BundleError:
        return None


def _short_json(value: object, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."
