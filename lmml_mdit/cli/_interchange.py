"""The commands that move conversations between LMML and the chat formats: ``import``
(a chat JSON file or JSONL dataset to bundles, or a Parquet file of conversation rows back
to a folder) and ``export`` (a folder of bundles to one JSONL dataset, or to Parquet rows).
The library does the work and reports progress; the counter is drawn here."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal

from ..chat import DEFAULT_PROVIDER
from ..formats import BUNDLE_SUFFIXES, PARQUET_SIGNATURE, PARQUET_SUFFIX
from ._arguments import Arguments
from ._options import (
    DefaultValue,
    FormatChoices,
    RegistryHelp,
    add_base_dir,
    add_provider,
    add_quiet,
    positive_int,
    registry_names,
)
from ._output import (
    STDIO,
    CliError,
    ends_in_separator,
    ensure_folder,
    error,
    info,
    one_line,
    shown,
    stdin_buffer,
    stdout_buffer,
    warn,
)
from ._progress import ProgressLine
from ._sources import checked_base_dir, located, named_as_typed, refuse_over_input
from ._table import command

if TYPE_CHECKING:
    import pyarrow as pa

    from ..errors import DefectError

__all__ = [
    "ConvertArguments",
    "ExportArguments",
    "ImportArguments",
    "cmd_convert",
    "cmd_export",
    "cmd_import",
]


class ImportArguments(Arguments):
    """``lmml import``'s own options, typed (the parser sets each)."""

    file: str
    out: str
    allow_remote: bool
    format: str | None


def _import_options(parser: argparse.ArgumentParser) -> None:
    """``lmml import``'s own options."""
    parser.add_argument(
        "file",
        metavar="FILE",
        help="a .json conversation, a .jsonl dataset (- for stdin), a .parquet file of "
        "conversation rows, or a prompt file (.prompty, .prompt, .prompt.yml, LangChain "
        "ChatPromptTemplate .json), which becomes a template and its cases",
    )
    parser.add_argument(
        "-o",
        "--output",
        dest="out",
        required=True,
        metavar="OUT",
        help="the bundle to write (.lmmlz, or .lmml when it has no binary asset); a folder "
        "for JSONL input, one bundle per line, and for Parquet input, each bundle at its path",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="for Parquet input, fetch an asset whose location is a URL (by default only "
        "a local regular file is read)",
    )
    parser.add_argument(
        "--format",
        choices=FormatChoices("formats", plugins=True),
        help="the input format (detected when omitted)",
    )
    add_quiet(parser)


@command(
    order=120,
    summary="import a chat request body or chat export (see --format), or a prompt file, as LMML",
    example="lmml import chat.json -o chat.lmmlz",
    options=_import_options,
)
def cmd_import(args: ImportArguments) -> int:
    """``lmml import FILE -o OUT``: chat data, in any format the registry reads, to LMML."""
    from ..chat import import_path

    output = args.out
    if output == STDIO:  # never a file named "-": every other command reads it as stdout
        raise CliError(
            "-o -: import writes files (a bundle, or a folder of bundles), not standard "
            "output; give the bundle to write, such as -o chat.lmmlz"
        )
    refuse_over_input(output, [(args.file, "the file imported")], "give another -o OUT")
    if _is_parquet(args.file):
        return _import_parquet(args)
    prompt_format = _prompt_format(args.file)
    if prompt_format is not None:
        if args.format is not None:
            raise CliError(
                f"{args.file}: --format {args.format} names a chat data format, and this "
                f"file reads as a prompt file ({prompt_format}); leave --format out to import "
                "it as a template, or give a file of chat data"
            )
        return _import_prompt_file(args)
    if args.file == STDIO:
        stdin_buffer()  # fail clearly when it is closed, before any work
    # Like every other writer here, create the output's folder; the importer expects it.
    ensure_folder(output)
    with ProgressLine("importing") as progress:
        written = import_path(args.file, output, format=args.format, progress=progress)
    if len(written) == 1:
        info(args, f"Imported {args.file} -> {written[0]}")
    else:
        info(args, f"Imported {len(written)} bundle(s) from {args.file} into {output}")
    return 0


class ExportArguments(Arguments):
    """``lmml export``'s own options, typed (the parser sets each)."""

    folder: str
    jsonl: str | None
    parquet: str | None
    payloads: list[str] | None
    assets: Literal["embed", "reference"] | None


def _record_shapes() -> str:
    """The record shapes ``lmml export --jsonl`` writes, as its help names them: a
    provider's request body, or the record of a format that is no provider (by the
    registry's names)."""
    providers = registry_names("providers")
    records = [name for name in registry_names("formats") if name not in providers]
    return ", or ".join(["a request body", *records])


def _export_options(parser: argparse.ArgumentParser) -> None:
    """``lmml export``'s own options."""
    from ..chat import UNKNOWN_SETTINGS_CHOICES

    parser.add_argument(
        "folder", metavar="DIR", help="the folder of .lmml/.lmmlz bundles (or a URL)"
    )
    add_provider(
        parser,
        FormatChoices("formats"),
        RegistryHelp("with --jsonl, the record shape: {names}", _record_shapes),
        default=DefaultValue(DEFAULT_PROVIDER),
    )
    written = parser.add_mutually_exclusive_group(required=True)
    written.add_argument(
        "--jsonl", metavar="OUT", help="the JSONL file to write (- for stdout; not a folder)"
    )
    written.add_argument(
        "--parquet",
        metavar="OUT",
        help="the Parquet file of conversation rows to write (a path or fsspec URL; not a folder)",
    )
    parser.add_argument(
        "--payload",
        dest="payloads",
        action="append",
        choices=FormatChoices("formats"),
        metavar="P",
        help=RegistryHelp(
            "with --parquet, add the column request_P: each bundle in format P's record "
            "shape ({names}), as --jsonl writes it; P is one of --provider's choices "
            "(repeatable)",
            _record_shapes,
        ),
    )
    parser.add_argument(
        "--assets",
        choices=("embed", "reference"),
        help="with --parquet, store asset bytes in the rows (embed, the default) or where "
        "they live (reference)",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="worker processes (default: one per core; never more than the cores or the bundles)",
    )
    parser.add_argument(
        "-f",
        "--force",
        action="store_true",
        help="export bundles with an error-level defect too, reporting each defect as a "
        "warning (by default each such bundle is a failure: left out of --jsonl, and with "
        "--parquet still a row, its defects in the issues column)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="a bundle with a warning every send reports (a suspicious delimiter) is a failure "
        "too (with --parquet still a row)",
    )
    parser.add_argument(
        "--unknown-settings",
        choices=UNKNOWN_SETTINGS_CHOICES,
        help="with --jsonl: settings keys the provider has no parameter for are kept as they "
        "are (pass, the default: a dataset line loses nothing), left out with a warning "
        "(warn: each line then passes the provider's SDK), or fail the bundle (error)",
    )
    add_base_dir(parser)
    add_quiet(parser)


@command(
    order=140,
    summary="export a folder of bundles as one JSONL dataset, or as Parquet rows",
    example="lmml export runs/ --provider openai --jsonl dataset.jsonl",
    opens_bundles=True,
    options=_export_options,
)
def cmd_export(args: ExportArguments) -> int:
    """``lmml export DIR --provider P --jsonl OUT``: a folder of bundles as a JSONL dataset.

    A bundle that fails is reported (``lmml: error: PATH: reason``) and skipped; the exit
    status is then 1.
    """
    from ..chat import export_folder

    checked_base_dir(args)
    if args.strict and args.force:
        raise CliError("--strict and --force cannot be given together")
    _refuse_other_mode(args)
    if args.parquet is not None:
        _checked_output("--parquet", args.parquet)
        return _export_parquet(args)
    assert args.jsonl is not None
    _checked_output("--jsonl", args.jsonl)
    if args.jsonl != STDIO:
        ensure_folder(args.jsonl)
    else:
        stdout_buffer()  # fail before any work when there is nowhere to write
    with ProgressLine("exporting") as progress:
        report = export_folder(
            args.folder,
            args.provider,
            args.jsonl,
            workers=args.workers,
            progress=progress,
            strict=not args.force,
            base_dir=args.base_dir,
            delimiters=args.delimiters,
            references=args.references,
            unknown_settings=args.unknown_settings or "pass",
            strict_warnings=args.strict,
        )
    for path, defect in report.warnings:
        warn(_about_bundle(path, defect))
    for path, reason in report.failures:
        error(_about_bundle(path, reason))
    if args.jsonl != STDIO:
        info(
            args,
            f"Exported {report.written} of {report.total} bundle(s) from {args.folder} "
            f"-> {args.jsonl}",
        )
    return 1 if report.failures else 0


def _refuse_other_mode(args: ExportArguments) -> None:
    """Refuse an option the output asked for does not use: each has an effect in one mode
    only, and none is ever ignored."""
    if args.parquet is not None:
        if not isinstance(args.provider, DefaultValue):
            raise CliError(
                "--provider has no effect with --parquet: a row holds the bundle itself "
                "(add a request body column with --payload P)"
            )
        if args.unknown_settings is not None:
            raise CliError(
                "--unknown-settings has no effect with --parquet: a --payload column keeps "
                "every setting (write --jsonl to choose)"
            )
        return
    if args.payloads is not None:
        raise CliError(
            "--payload has no effect with --jsonl: each line is in --provider's record shape "
            "(--payload adds request columns to --parquet rows)"
        )
    if args.assets is not None:
        raise CliError(
            "--assets has no effect with --jsonl: it says how --parquet rows hold asset bytes"
        )


def _checked_output(flag: str, out: str) -> None:
    """Refuse, before any work, an output that names a folder: one ending in a path
    separator, or an existing folder (the file would otherwise be named after it)."""
    example = "dataset.jsonl" if flag == "--jsonl" else "rows.parquet"
    if out == STDIO and flag == "--parquet":  # never a file named "-"
        raise CliError(
            f"--parquet -: Parquet is written to a file, not standard output; give the file "
            f"to write, such as {example}"
        )
    if out != STDIO and ends_in_separator(out):
        raise CliError(
            f"{flag} {shown(out)}: names a folder (it ends in a separator); give the file to "
            f"write, such as {shown(out)}{example}"
        )
    if os.path.isdir(out):
        raise CliError(
            f"{flag} {shown(out)}: is a folder; give the file to write, such as "
            f"{shown(os.path.join(out, example))}"
        )
    if out != STDIO and out.endswith(BUNDLE_SUFFIXES) and os.path.isfile(out):
        raise CliError(
            f"{flag} {shown(out)}: refusing to write over a bundle; give the file to write, "
            f"such as {example}"
        )


def _about_bundle(path: str, message: str, source: str | None = None) -> str:
    """*message* about the exported bundle *path*, shown safely, starting with the path
    (once: a message opening with the bundle's file name, or with its *source* as read,
    opens with *path* instead)."""
    aliases = (shown(source),) if source else ()
    return located(shown(path), shown(one_line(message)), (*aliases, shown(os.path.basename(path))))


def _is_parquet(file: str) -> bool:
    """Whether the input of ``lmml import`` is a Parquet file: by its suffix, or by its
    first bytes for a local file."""
    if file.lower().endswith(PARQUET_SUFFIX):
        return True
    if file == STDIO or not os.path.isfile(file):
        return False
    with open(file, "rb") as stream:
        return stream.read(len(PARQUET_SIGNATURE)) == PARQUET_SIGNATURE


def _dataset_layer() -> None:
    """Refuse clearly when the ``datasets`` extra (pyarrow) is not installed."""
    import importlib.util

    from ..errors import BundleError

    if importlib.util.find_spec("pyarrow") is None:
        raise BundleError(
            "Parquet needs pyarrow, which is not installed",
            hint="pip install 'lmml-mdit[datasets]'",
        )


def _import_parquet(args: ImportArguments) -> int:
    """``lmml import ROWS.parquet -o DIR``: each row's bundle written under DIR at its path."""
    _dataset_layer()
    from ..dataset import import_parquet

    with ProgressLine("importing") as progress:
        report = import_parquet(
            args.file, args.out, progress=progress, allow_remote=args.allow_remote
        )
    for path, reason in report.failures:
        error(_about_bundle(path, reason))
    info(args, f"Imported {len(report.written)} bundle(s) from {args.file} into {args.out}")
    return 1 if report.failures else 0


def _export_parquet(args: ExportArguments) -> int:
    """``lmml export DIR --parquet OUT``: a folder of bundles as Parquet conversation rows.

    A bundle that fails is still a row (holding its error, or its defects in ``issues``)
    and is reported; the exit status is then 1. Defects are judged as ``--jsonl`` judges
    them: an error-level one is a failure unless ``--force``, a warned one a warning
    unless ``--strict``.
    """
    _dataset_layer()
    import pyarrow as pa

    from ..chat import usable_cores
    from ..dataset import is_folder, to_arrow, write_parquet
    from ..errors import BundleError

    assert args.parquet is not None
    if not is_folder(args.folder):
        raise BundleError("not a folder", name=args.folder, hint="give a folder of bundles")
    reader = to_arrow(
        args.folder,
        args.payloads,
        assets=args.assets or "embed",
        workers=args.workers or usable_cores(),
        base_dir=args.base_dir,
        delimiters=args.delimiters,
        references=args.references,
        strict=not args.force,
    )
    verdicts = _RowVerdicts(args.folder, force=args.force, strict=args.strict)
    watched = pa.RecordBatchReader.from_batches(reader.schema, verdicts.watch(reader))
    with ProgressLine("exporting") as progress:
        report = write_parquet(watched, args.parquet, progress=progress)
    for is_error, text in verdicts.notes:
        (error if is_error else warn)(text)
    info(
        args,
        f"Exported {report.rows - verdicts.failed} of {report.rows} bundle(s) from "
        f"{args.folder} -> {args.parquet}",
    )
    return 1 if verdicts.failed else 0


class _RowVerdicts:
    """What each Parquet row says about its bundle, judged as ``lmml export --jsonl``
    judges a bundle: the notes to print (``(is_error, line)``, in row order) and how many
    bundles failed. Each bundle is named as ``--jsonl`` names it: DIR as typed, then the
    row's ``path``."""

    def __init__(self, folder: str, *, force: bool, strict: bool) -> None:
        self.folder = folder
        self.force = force
        self.strict = strict
        self.notes: list[tuple[bool, str]] = []
        self.failed = 0

    def watch(self, reader: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
        """The batches of *reader*, unchanged, each row judged as it passes."""
        for batch in reader:
            columns = ("path", "source", "kind", "error", "issues")
            notes = (
                batch.column("request_notes").to_pylist()
                if "request_notes" in batch.schema.names
                else [[]] * batch.num_rows
            )
            cells = (batch.column(name).to_pylist() for name in columns)
            for row in zip(*cells, notes, strict=True):
                path, *rest = row
                self._judge(_under(self.folder, path), *rest)
            yield batch

    def _judge(
        self,
        path: str,
        source: str | None,
        kind: str | None,
        failure: dict[str, str] | None,
        issues: list[dict[str, str | int | None]],
        notes: list[dict[str, str]] | None,
    ) -> None:
        if failure is not None:
            self.failed += 1
            self.notes.append((True, _about_bundle(path, str(failure["message"]), source)))
            return
        before = self.failed
        self._judge_issues(path, kind, issues)
        unbuilt = [note for note in notes or [] if note["severity"] == "error"]
        if unbuilt and self.failed == before:  # a body --payload asked for is not there
            note = unbuilt[0]
            self._fail(path, f"{note['message']} (--payload {note['provider']}: no request body)")

    def _judge_issues(
        self, path: str, kind: str | None, issues: list[dict[str, str | int | None]]
    ) -> None:
        from ..severity import WARNED_KINDS

        defects = [_defect(path, kind, record) for record in issues]
        warned = [defect for defect in defects if defect.kind in WARNED_KINDS]
        if self.strict and warned:
            self._fail(path, warned[0].format(cli=True))
            return
        for defect in warned:
            self.notes.append((False, _about_bundle(path, defect.format(cli=True, hint=False))))
        errors = [defect for defect in defects if defect.issue.severity == "error"]
        if errors and not self.force:
            self._fail(path, errors[0].format(cli=True))
            return
        for defect in errors:
            self.notes.append((False, _about_bundle(path, defect.format(cli=True, hint=False))))

    def _fail(self, path: str, reason: str) -> None:
        self.failed += 1
        self.notes.append((True, _about_bundle(path, reason)))


def _under(folder: str, path: str) -> str:
    """The bundle at the row *path* (``/``-separated) under *folder*, a path or URL as the
    user typed it: the name ``lmml export --jsonl`` gives the same bundle."""
    from ..bundle import is_url

    if is_url(folder):
        return folder.rstrip("/") + "/" + path
    return os.path.join(folder, *path.split("/"))


def _defect(path: str, kind: str | None, record: dict[str, str | int | None]) -> DefectError:
    """The defect a row's ``issues`` entry *record* holds, located as ``validate`` locates
    it (``PATH:LINE:COL``, or ``PATH!ENTRY:LINE:COL`` inside an archive)."""
    from ..errors import DefectError, file_location
    from ..model import Issue

    def text(key: str) -> str | None:
        value = record[key]
        return None if value is None else str(value)

    def number(key: str) -> int | None:
        value = record[key]
        return value if isinstance(value, int) else None

    inner = text("file")
    issue = Issue(
        kind=str(record["kind"]),
        name=text("name") or "",
        line=number("line"),
        column=number("column"),
        message=str(record["message"]),
        file=inner,
    )
    return DefectError(issue, file=file_location(path, inner, archive=kind == "zip"))


def _prompt_format(file: str) -> str | None:
    """The prompt-file format of ``lmml import``'s input, or None for chat data."""
    if file == STDIO:
        return None
    from ..promptfiles import detect_prompt_format

    return detect_prompt_format(file)


def _import_prompt_file(args: ImportArguments) -> int:
    """``lmml import FILE.prompty -o OUT``: a prompt file as an LMML template."""
    from ..promptfiles import import_prompt_file

    ensure_folder(args.out)
    written = import_prompt_file(args.file, args.out)
    info(args, f"Imported {args.file} -> {', '.join(str(path) for path in written)}")
    return 0


class ConvertArguments(Arguments):
    """``lmml convert``'s own options, typed (the parser sets each)."""

    lossy: bool


def _convert_options(parser: argparse.ArgumentParser) -> None:
    """``lmml convert``'s own options."""
    parser.add_argument("src", metavar="SRC", help="a prompt file, or a .lmml/.lmmlz bundle")
    parser.add_argument(
        "dest",
        metavar="DEST",
        help="the file to write; its extension names the format (.lmml, .lmmlz, .prompty, "
        ".prompt, .prompt.yml, .json for LangChain)",
    )
    parser.add_argument(
        "--lossy",
        action="store_true",
        help="leave out what DEST's format cannot hold, with a warning per item, instead "
        "of refusing",
    )
    add_base_dir(parser)
    add_quiet(parser)


@command(
    order=130,
    summary="convert a prompt file (Prompty, dotprompt, .prompt.yml, LangChain) to LMML, or back",
    example="lmml convert chat.prompty chat.lmml",
    options=_convert_options,
    opens_bundles=True,
)
def cmd_convert(args: ConvertArguments) -> int:
    """``lmml convert SRC DEST``: a prompt file to LMML, LMML to a prompt file."""
    from ..promptfiles import convert

    assert args.dest is not None
    ensure_folder(args.dest)
    # A bundle's messages name it by its base name, as lmml_mdit.open does; say the path
    # as typed, as every other command does (a prompt file's already are).
    base_dir = checked_base_dir(args)
    with named_as_typed(args.src):
        written = convert(
            args.src,
            args.dest,
            lossy=args.lossy,
            base_dir=base_dir,
            delimiters=args.delimiters,
            references=args.references,
        )
    info(args, f"Converted {args.src} -> {', '.join(str(path) for path in written)}")
    return 0
