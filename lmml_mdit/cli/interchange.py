"""The commands that move conversations between LMML and the chat formats: ``import``
(a chat JSON file or JSONL dataset to bundles) and ``export`` (a folder of bundles to one
JSONL dataset). The library does the work and reports progress; the counter is drawn here."""

from __future__ import annotations

import os

from .arguments import Arguments
from .output import (
    STDIO,
    ensure_folder,
    error,
    info,
    one_line,
    shown,
    stdin_buffer,
    stdout_buffer,
    warn,
)
from .progress import ProgressLine
from .sources import checked_base_dir, located

__all__ = ["cmd_export", "cmd_import"]


def cmd_import(args: Arguments) -> int:
    """``lmml import FILE -o OUT``: chat data (OpenAI, Anthropic, Gemini, ShareGPT) to LMML."""
    from ..chat.importer import import_path

    output = args.out
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


def cmd_export(args: Arguments) -> int:
    """``lmml export DIR --provider P --jsonl OUT``: a folder of bundles as a JSONL dataset.

    A bundle that fails is reported (``lmml: error: PATH: reason``) and skipped; the exit
    status is then 1.
    """
    from ..chat.export import export_folder

    checked_base_dir(args)
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


def _about_bundle(path: str, message: str) -> str:
    """*message* about the exported bundle *path*, shown safely, starting with the path."""
    return located(shown(path), shown(one_line(message)), (shown(os.path.basename(path)),))
