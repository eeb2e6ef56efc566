"""Template inputs on the command line: ``--input NAME=VALUE``, ``--inputs FILE`` (``-``:
standard input), the batch ``render --cases FILE`` and ``lmml inputs``.

A ``--input`` value is read as its declared type says (``@PATH`` reads a file, ``@@`` a
literal ``@``); ``--inputs FILE`` and ``--cases FILE`` are read by
:func:`~lmml_mdit.templates.read_values_file` and
:func:`~lmml_mdit.templates.read_cases_file`, worded here as flags. See docs/templates.md,
"On the command line".
"""

from __future__ import annotations

import collections
import json
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..errors import InputError, LmmlError
from ._arguments import Arguments
from ._options import listing_options
from ._output import (
    PROGRAM,
    STDIO,
    CliError,
    error,
    error_text,
    issue_line,
    stdin_buffer,
    stdout_buffer,
    stdout_json,
    warn,
    write_all,
    writing,
)
from ._progress import ProgressLine
from ._sources import STDIN_LABEL, Source, located, open_source
from ._table import command

if TYPE_CHECKING:
    from ..chat import CaseInput, RequestOptions
    from ..templates import InputDeclarations
    from ._render import RenderArguments

__all__ = ["cmd_inputs", "given_inputs", "render_case_file"]


def _flag_value(declarations: InputDeclarations, text: str) -> tuple[str, object]:
    """``NAME=VALUE`` read as the input *NAME*'s declared type."""
    from ..templates import assigned_value

    try:
        return assigned_value(declarations, text)
    except ValueError as error:
        raise CliError(f"--input {error}") from None


def declared(source: Source) -> InputDeclarations:
    """The inputs *source*'s bundle declares; a front matter that does not parse is refused
    as itself (``FILE:3:22: invalid_front_matter: ...``), never left to surface later as
    "no input of that name is declared".

    :raises CliError: for that front matter.
    """
    from ..templates import declared_inputs

    bundle = source.bundle
    try:
        _ = bundle.front_matter
    except LmmlError:
        found = [issue for issue in bundle.validate() if issue.kind == "invalid_front_matter"]
        if not found:
            raise
        raise CliError(issue_line(source.label, found[0])) from None
    with source.about():
        return declared_inputs(bundle)


def given_inputs(args: Arguments, source: Source) -> dict[str, object] | None:
    """The values ``--inputs FILE`` and ``--input NAME=VALUE`` give (the flags win), or
    None when neither is given."""
    if not args.inputs_file and not args.input_values:
        return None
    values: dict[str, object] = {}
    declarations = declared(source)
    if args.inputs_file:
        from ..templates import read_values_file

        if args.inputs_file == STDIO:
            _stdin_for_values(args)
        try:
            values.update(read_values_file(args.inputs_file, declarations, base_dir=args.base_dir))
        except InputError as failure:
            raise CliError(f"--inputs {args.inputs_file}: {failure.message}") from None
    if args.input_values:
        for text in args.input_values:
            name, value = _flag_value(declarations, text)
            values[name] = value
    return values


def _stdin_for_values(args: Arguments) -> None:
    """Refuse ``--inputs -`` where standard input is taken already (a bundle read from
    ``-``) or would be read for more than one bundle (``validate`` with several PATHs);
    fail clearly when it is closed.

    :raises CliError: in those cases.
    """
    named = vars(args)
    paths: list[str] = named.get("paths") or [named.get("path", "")]
    if STDIO in paths:
        raise CliError(
            "--inputs - and PATH - cannot both read standard input; give one of them as a file"
        )
    if len(paths) > 1:
        raise CliError("--inputs - reads standard input once; give one PATH, or a values file")
    stdin_buffer()


_EXPECT = "expect"
"""The key or column of a cases file that holds ``lmml eval``'s checks of a case."""


def render_case_file(args: RenderArguments, options: RequestOptions) -> int:
    """``lmml render PATH --cases FILE``: one output line per case line, in the cases'
    order, on every core: ``{"case": N, "request": ...}`` (or ``"messages"``), or for a
    failed case ``{"case": N, "error": ..., "kind": ...}``, also reported on stderr; the
    rest go on (exit 1 at the end)."""
    from ..chat import render_cases
    from ..templates import UnreadCase, read_cases_file

    if args.inputs_file == STDIO and args.cases == STDIO:
        raise CliError(
            "--inputs - and --cases - cannot both read standard input; give one of them as a "
            "file (with --cases, each case gives its inputs)"
        )
    if args.input_values or args.inputs_file:
        raise CliError("--cases gives each case's inputs; leave out --input and --inputs")
    cases_path = args.cases
    assert cases_path is not None  # called for --cases only
    if cases_path == STDIO:
        stdin_buffer()  # fail clearly when it is closed, before any work
    elif not os.path.isfile(cases_path):
        raise CliError(f"--cases {cases_path}: no such file")
    source = open_source(args.path, args)
    source.refuse_over_folder_file(args.output, "give another -o OUT")
    declarations = declared(source)
    processes = max(1, min(os.cpu_count() or 1, args.workers or os.cpu_count() or 1))
    label = STDIN_LABEL if cases_path == STDIO else cases_path
    out = args.output if args.output is not None else STDIO
    failed = 0
    done = 0
    numbers: collections.deque[int | None] = collections.deque()  # each case's line

    # A cases file written for lmml eval gives each case an expect list beside its values:
    # what eval checks the answer against, no input (unless the template declares one).
    checks = _EXPECT not in declarations.specs

    def cases() -> Iterator[CaseInput]:
        for case in read_cases_file(cases_path, declarations, base_dir=args.base_dir):
            numbers.append(case.number)
            if isinstance(case, UnreadCase):
                yield case
                continue
            values = case.held(declarations)
            if checks and _EXPECT in values:
                values = {name: value for name, value in values.items() if name != _EXPECT}
            yield values

    def lines(results: Iterator[Any]) -> Iterator[bytes]:
        nonlocal failed, done
        with ProgressLine("render") as progress:
            for result in results:
                done += 1
                line = numbers.popleft() or result.number
                progress.step(done, f"case {result.number}")
                for text in result.cli_warnings or result.warnings:
                    progress.close()
                    warn(f"{label}:{line}: {located(source.label, text)}")
                record = result.record()
                if result.error is not None:
                    failed += 1
                    progress.close()
                    if result.lies_at(label, line):  # unread, or a path it holds refused
                        reason = result.cli_problem or ""
                    else:  # a line of the template, named as the command line names it
                        failure = result.cli_error or result.error
                        reason = located(source.label, failure, source.aliases)
                    error(f"{label}:{line}: {reason}")
                    record["error"] = reason  # line N of the output is case N, failed or not
                yield (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")

    try:
        results = render_cases(
            source.bundle,
            cases(),
            args.provider,
            request=args.request,
            model=args.model,
            processes=processes,
            base_dir=args.base_dir,
            **options,
        )
        if out == STDIO:
            sink = stdout_buffer()
            for line in lines(results):
                write_all(sink, line, "standard output")
            write_all(sink, b"", "standard output", flush=True)
        else:
            from ..atomic import atomic_write

            with writing(out), atomic_write(out) as stream:
                for line in lines(results):
                    stream.write(line)
    except BrokenPipeError:
        raise  # the reader of standard output went away: the quiet stop of every command
    except OSError as failure:
        raise CliError(
            f"--cases {cases_path}: cannot read: {failure.strerror or failure}"
        ) from None
    except LmmlError as failure:
        raise CliError(located(source.label, error_text(failure), source.aliases)) from None
    if failed:
        print(f"{PROGRAM}: {failed} of {done} cases failed", file=sys.stderr)
        return 1
    if out != STDIO and not args.quiet:
        print(f"Wrote {done} cases to {out}", file=sys.stderr)
    return 0


@command(
    order=160,
    summary="list a template's declared inputs and where each is used",
    example="lmml inputs support.lmml",
    opens_bundles=True,
    options=listing_options("the inputs as JSON"),
)
def cmd_inputs(args: Arguments) -> int:
    """``lmml inputs PATH``: the declared inputs (type, required or default, description)
    and each line that uses them; undeclared placeholders too."""
    source = open_source(args.path, args)
    declarations = declared(source)
    with source.about():
        bundle = source.bundle
        placeholders = bundle.narrative.placeholders.found
    from ..templates import input_issues

    # A placeholder validate refuses (an in_code one in a tool call, a field of a string)
    # takes no value: it is said, never listed as a use.
    refused = [
        issue
        for issue in input_issues(bundle, declarations, placeholders)
        if issue.kind == "invalid_input"
    ]
    unfilled = {(issue.line, issue.column) for issue in refused}
    uses: dict[str, list[dict[str, object]]] = {}
    for placeholder in placeholders:
        spec = declarations.specs.get(placeholder.name)
        if spec is not None and not spec.fills(placeholder):
            continue
        if spec is not None and (placeholder.line, placeholder.column) in unfilled:
            continue
        if spec is None and placeholder.context != "text":
            continue
        uses.setdefault(placeholder.name, []).append(
            {
                "line": placeholder.line,
                "column": placeholder.column,
                "placeholder": "{{ " + placeholder.path + " }}",
                "context": placeholder.context,
            }
        )
    rows: list[dict[str, object]] = []
    for name, spec in declarations.specs.items():
        row: dict[str, object] = {
            "name": name,
            "type": spec.type,
            "required": spec.required,
            "description": spec.description,
            "declared": f"{source.label}{'!' + spec.file if spec.file else ''}:{spec.line}",
            "used": uses.get(name, []),
        }
        if spec.has_default:
            row["default"] = spec.default
        if spec.in_code:
            row["in_code"] = True
        if spec.roles is not None:
            row["roles"] = list(spec.roles)
        rows.append(row)
    undeclared = {name: found for name, found in uses.items() if name not in declarations.specs}
    for issue in refused:
        warn(issue_line(source.label, issue, archive=bundle.kind == "zip"))
    if args.json:
        stdout_json({"inputs": rows, "undeclared": undeclared})
        return 0
    if not rows and not undeclared:
        print(f"{source.label}: no inputs declared")
        return 0
    for row in rows:
        need = (
            "required"
            if row["required"]
            else (
                f"default {json.dumps(row['default'], ensure_ascii=False)}"
                if "default" in row
                else "optional"
            )
        )
        code = ", in code too" if row.get("in_code") else ""
        roles = row.get("roles")
        code += f", roles {' '.join(roles)}" if isinstance(roles, list) else ""
        print(f"{row['name']}  ({row['type']}, {need}{code})")
        if row["description"]:
            print(f"  {row['description']}")
        used = _where(source.label, row["used"])
        print(f"  used: {used}" if used else "  used: nowhere (unused_input)")
    for name, found in undeclared.items():
        print(f"{name}  (undeclared)")
        print(f"  used: {_where(source.label, found)}")
    return 0


def _where(label: str, found: object) -> str:
    assert isinstance(found, list)
    return ", ".join(f"{label}:{use['line']}:{use['column']}" for use in found)
