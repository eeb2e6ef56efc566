"""The commands that write a bundle in another form: ``new`` (a starter narrative),
``pack`` (inline fences to archive entries), ``inline`` (text entries to fences) and
``to-md`` (plain Markdown). Each writes SRC's sibling by default, never SRC itself
unless ``--in-place``."""

from __future__ import annotations

import argparse
import os
from typing import Literal

from ..atomic import atomic_write_bytes
from ..formats import ARCHIVE_SUFFIX, BUNDLE_SUFFIXES, NARRATIVE_SUFFIX
from ._arguments import Arguments
from ._options import a_path, add_base_dir, add_bundle, add_dest, add_force, add_quiet
from ._output import (
    STDIO,
    CliError,
    deliver,
    ensure_folder,
    error,
    info,
    issue_line,
    named_for_other_kind,
    save_bundle,
    stdout_text,
    writing,
)
from ._sources import bundle_stem, open_source, same_file
from ._table import command

__all__ = [
    "InlineArguments",
    "NewArguments",
    "PackArguments",
    "cmd_inline",
    "cmd_new",
    "cmd_pack",
    "cmd_to_md",
    "destination",
]


def _template_starter(name: str) -> str:
    """A starter template: declared inputs in the front matter, their placeholders in the
    turns (see the templates page of the docs)."""
    title = _title(name)
    return (
        "---\n"
        "inputs:\n"
        "  customer:\n"
        "    type: string\n"
        "    description: the customer's name\n"
        "  question:\n"
        "    type: string\n"
        "    description: what the customer asks\n"
        "  tone:\n"
        "    type: string\n"
        "    default: friendly\n"
        "    description: how the answer should sound\n"
        "  screenshot:\n"
        "    type: image\n"
        "    required: false\n"
        "    description: a picture of the problem, attached where its placeholder stands\n"
        "---\n"
        f"{title}\n"
        "\n"
        "You answer support questions in a {{ tone }} tone. Placeholders are filled with\n"
        "each case's values as plain text: render with\n"
        "`lmml render THIS --input customer=Ada --input question=...`, or one request per\n"
        "line of a JSONL file with `--cases cases.jsonl --request`.\n"
        "\n"
        "## Turn 1 -- user\n"
        "\n"
        "Hello, I am {{ customer }}. {{ question }}\n"
        "\n"
        "{{ screenshot }}\n"
    )


def _title(name: str) -> str:
    """The starter's title line. A title naming a role would itself be a role delimiter,
    so such names get a plain paragraph instead of a heading."""
    from ..syntax import role_word  # here, so that `lmml new --help` loads no parser

    return f"# {name}" if role_word(name) is None else f"**{name}**"


def _starter(name: str) -> str:
    title = _title(name)
    return (
        f"{title}\n"
        "\n"
        "Context for the whole conversation goes here. Refer to an asset with `@name.ext`\n"
        f"(in a {ARCHIVE_SUFFIX} it is an archive entry), or embed a text asset directly:\n"
        "\n"
        "@@@settings.yaml\n"
        "temperature: 0.2\n"
        "@@@\n"
        "\n"
        "## Turn 1 -- user\n"
        "\n"
        "Ask your question here.\n"
        "\n"
        "## Turn 2 -- assistant\n"
        "\n"
        "The answer goes here.\n"
    )


class NewArguments(Arguments):
    """``lmml new``'s own options, typed (the parser sets each)."""

    template: bool


def _new_options(parser: argparse.ArgumentParser) -> None:
    """``lmml new``'s own options."""
    parser.add_argument(
        "path",
        type=a_path,
        metavar="PATH",
        help="the file to create; .lmml is added unless it ends in .lmml or .lmmlz; "
        "a .lmmlz path makes an archive; - prints the starter",
    )
    parser.add_argument(
        "--template",
        action="store_true",
        help="write a template: a starter with declared inputs and their placeholders",
    )
    add_quiet(parser)


_NEW_ELSEWHERE = " (give another PATH, or move the file away first)"
"""What ``lmml new`` says to do when its file exists."""


@command(
    order=10,
    summary="write a starter narrative (never over an existing file)",
    example="lmml new notes/session     # creates notes/session.lmml",
    options=_new_options,
)
def cmd_new(args: NewArguments) -> int:
    """``lmml new PATH``: write a starter narrative, never over an existing file."""
    path = args.path
    starter = _template_starter if args.template else _starter
    if path == STDIO:
        stdout_text(starter("session"))
        return 0
    if not os.path.basename(path):
        raise CliError(
            f"{path}: names a folder (it ends in a separator); give the new file's name "
            "(lmml new notes/session)"
        )
    if not path.lower().endswith(BUNDLE_SUFFIXES):
        # As the reference's mix task: notes -> notes.lmml, x.txt -> x.txt.lmml.
        path += NARRATIVE_SUFFIX
    if os.path.lexists(path):
        what = "folder" if os.path.isdir(path) else "file"
        raise CliError(f"{path}: refusing to overwrite an existing {what}{_NEW_ELSEWHERE}")
    name = os.path.splitext(os.path.basename(path))[0]
    # A file name need not be UTF-8 (its bytes arrive as surrogates); the text must be.
    name = os.fsencode(name).decode("utf-8", "replace")
    text = starter(name)
    ensure_folder(path)
    try:
        with writing(path):
            if path.lower().endswith(ARCHIVE_SUFFIX):
                from ..bundle import Bundle

                save_bundle(Bundle.from_zip(name, text, {}), path, exclusive=True)
            else:
                atomic_write_bytes(path, text.encode("utf-8"), exclusive=True)
    except FileExistsError:
        raise CliError(f"{path}: refusing to overwrite an existing file{_NEW_ELSEWHERE}") from None
    info(args, f"Created {path}")
    return 0


_ANOTHER_DEST = "give another DEST"
"""What to do instead of writing over a file the command reads."""


def destination(args: Arguments, extension: str, verb: str, *, in_place: bool = True) -> str:
    """Where ``pack``/``inline``/``to-md`` write: DEST, else SRC with *extension*.

    Never the source itself unless ``--in-place`` (for a command that has it: *in_place*);
    and a default DEST (one the user did not type) that already exists is kept unless
    ``--force``, since it may be someone's work.
    """
    src = args.src
    dest = args.dest
    if args.in_place:
        if dest is not None:
            raise CliError("give either DEST or --in-place, not both")
        if src == STDIO:
            raise CliError("--in-place needs a file, not standard input")
        return src
    defaulted = dest is None
    if dest is None:
        dest = STDIO if src == STDIO else bundle_stem(src) + extension
    if dest == STDIO or not os.path.lexists(dest):
        return dest
    if src != STDIO and same_file(src, dest):
        # --in-place only where it can work: pack replaces an archive, inline a bare file
        workable = in_place and not named_for_other_kind(src, extension)
        remedy = "give another DEST, or --in-place" if workable else "give another DEST"
        raise CliError(f"{dest}: refusing to {verb} over the source ({remedy})")
    if defaulted and not args.force:
        raise CliError(
            f"{dest}: refusing to overwrite an existing file (give DEST explicitly, or --force)"
        )
    return dest


def _bundle_destination(args: Arguments, suffix: str, verb: str, kind: str) -> str:
    """:func:`destination` for a command writing the bundle kind *suffix*, refusing a DEST
    of the other kind: the file would not hold what its name says."""
    dest = destination(args, suffix, verb)
    if named_for_other_kind(dest, suffix):
        instead = " instead of --in-place" if args.in_place else ""
        raise CliError(f"{dest}: {verb} writes {kind}; give a DEST ending in {suffix}{instead}")
    return dest


def _rewritten_options(parser: argparse.ArgumentParser, extension: str) -> None:
    """The options ``pack`` and ``inline`` share: SRC, DEST (SRC with *extension* by
    default), ``--in-place``, ``--force``, ``--base-dir`` and ``--quiet``."""
    add_bundle(parser, "src")
    add_dest(parser, extension)
    parser.add_argument(
        "--in-place", action="store_true", help="replace SRC itself (never done otherwise)"
    )
    add_force(parser)
    add_base_dir(parser)
    add_quiet(parser)


class PackArguments(Arguments):
    """``lmml pack``'s own options, typed (the parser sets each)."""

    allow_missing: bool


def _pack_options(parser: argparse.ArgumentParser) -> None:
    """``lmml pack``'s own options."""
    _rewritten_options(parser, ARCHIVE_SUFFIX)
    parser.add_argument(
        "--allow-missing",
        action="store_true",
        help="pack even when a reference resolves to no file (it stays a reference)",
    )


@command(
    order=70,
    summary="turn inline fences into archive entries (writes a .lmmlz)",
    example="lmml pack examples/sales-review.lmml /tmp/trip-report.lmmlz",
    opens_bundles=True,
    options=_pack_options,
)
def cmd_pack(args: PackArguments) -> int:
    """``lmml pack SRC [DEST]``: every inline fence becomes an archive entry."""
    dest = _bundle_destination(args, ARCHIVE_SUFFIX, "pack", f"a {ARCHIVE_SUFFIX} archive")
    source = open_source(args.src, args)
    source.refuse_over_folder_file(dest, _ANOTHER_DEST)
    with source.about():
        missing = [i for i in source.bundle.validate() if i.kind == "missing_reference"]
    if missing and not args.allow_missing:
        for issue in missing:
            error(issue_line(source.label, issue, archive=source.bundle.kind == "zip"))
        error(
            f"{source.label}: not packed: {len(missing)} reference(s) do not "
            "resolve (add the files, give --base-dir DIR, or --allow-missing to pack anyway)"
        )
        return 1
    with source.about():
        packed = source.bundle.pack()
        deliver(args, dest, packed, f"Packed {source.label} -> {dest}")
    return 0


class InlineArguments(Arguments):
    """``lmml inline``'s own options, typed (the parser sets each)."""

    orphans: Literal["append", "drop", "error"]
    keep_binary: bool


def _inline_options(parser: argparse.ArgumentParser) -> None:
    """``lmml inline``'s own options."""
    _rewritten_options(parser, NARRATIVE_SUFFIX)
    parser.add_argument(
        "--orphans",
        choices=("append", "drop", "error"),
        default="append",
        help="archive entries the narrative never mentions: append them as fences at "
        "the end (default), leave them out, or fail; either way they are named",
    )
    parser.add_argument(
        "--keep-binary",
        action="store_true",
        help="inline the text assets and keep each binary one as an archive entry "
        "(writes a .lmmlz when there is one)",
    )


@command(
    order=80,
    summary="turn referenced text assets into fences (writes a .lmml)",
    example="lmml inline notes.lmmlz     # writes notes.lmml",
    opens_bundles=True,
    options=_inline_options,
)
def cmd_inline(args: InlineArguments) -> int:
    """``lmml inline SRC [DEST]``: every referenced text asset becomes a fence; with
    ``--keep-binary`` each binary asset stays an archive entry (a ``.lmmlz`` then)."""
    if not args.keep_binary:
        dest = _bundle_destination(
            args, NARRATIVE_SUFFIX, "inline", f"a bare {NARRATIVE_SUFFIX} file"
        )
    source = open_source(args.src, args)
    if not args.keep_binary:
        source.refuse_over_folder_file(dest, _ANOTHER_DEST)
    with source.about():
        inlined = source.bundle.inline(orphans=args.orphans, keep_binary=args.keep_binary)
        if args.keep_binary:
            suffix = ARCHIVE_SUFFIX if inlined.kind == "zip" else NARRATIVE_SUFFIX
            kind = f"a {ARCHIVE_SUFFIX} archive" if inlined.kind == "zip" else "a bare file"
            dest = _bundle_destination(args, suffix, "inline --keep-binary", kind)
            source.refuse_over_folder_file(dest, _ANOTHER_DEST)
        deliver(args, dest, inlined, f"Inlined {source.label} -> {dest}")
    return 0


def _to_md_options(parser: argparse.ArgumentParser) -> None:
    """``lmml to-md``'s own options."""
    add_bundle(parser, "src")
    add_dest(parser, ".md")
    add_force(parser)
    add_base_dir(parser)
    add_quiet(parser)


@command(
    order=90,
    summary="export plain Markdown, embeds replaced by [Image: x] placeholders",
    example="lmml to-md examples/sales-review.lmmlz -",
    opens_bundles=True,
    options=_to_md_options,
)
def cmd_to_md(args: Arguments) -> int:
    """``lmml to-md SRC [DEST]``: plain Markdown with placeholders for embeds."""
    from ..preview import to_markdown
    from ._render import caught_warnings, print_warnings, report_refusals

    dest = destination(args, ".md", "export", in_place=False)
    source = open_source(args.src, args)
    source.refuse_over_folder_file(dest, _ANOTHER_DEST)
    with source.about(), caught_warnings() as caught:
        markdown = to_markdown(source.bundle).encode("utf-8")
        source.bundle.warn_defects()  # a near miss, as every command that shows turns says
    print_warnings(source, caught)
    report_refusals(source)  # what a send would refuse
    deliver(args, dest, markdown, f"Exported {source.label} -> {dest}")
    return 0
