"""Opening the bundle a command line names, and naming it in every message.

A path is opened as the command's ``--base-dir``, ``--delimiters`` and ``--references``
say, ``-`` reading standard input. Library errors name what they know (an entry, the
file's base name); :func:`located` turns that into the path as typed, so a message about
one of several files on a command line says which.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ..errors import DefectError, LmmlError
from ..formats import ARCHIVE_SUFFIX, NARRATIVE_SUFFIX, not_an_archive
from ..severity import ERROR_KINDS
from ..stdin import STDIN_LABEL as STDIN_LABEL
from ..stdin import STDIN_NAME
from ..warn import cli_wording
from ._arguments import Arguments
from ._output import (
    STDIO,
    CliError,
    error,
    error_text,
    issue_line,
    missing_summary,
    shown,
    stdin_buffer,
    warn,
    warnings_worded,
)

if TYPE_CHECKING:
    from ..bundle import Bundle

__all__ = [
    "STDIN_LABEL",
    "Source",
    "about",
    "as_typed",
    "bundle_stem",
    "checked_base_dir",
    "located",
    "named_as_typed",
    "open_source",
    "refuse_over_input",
    "same_file",
]


def located(label: str, message: str, aliases: Sequence[str] = ()) -> str:
    """*message* about the bundle *label*, starting with that label exactly once.

    Library errors name what they know: an entry (``z.txt: ...``) or the file's base name
    (``bad.lmml:2: ...``). With several files on one command line the reader also needs
    the path as typed, so a base name (or another *alias*) at the start becomes *label*,
    and any other message is prefixed with it.
    """
    if _spelt_at_start(message, label, (":", " ", "!")) is not None:
        return message
    for alias in aliases:
        if alias and (length := _spelt_at_start(message, alias, (":", "!"))) is not None:
            return label + message[length:]
    return f"{label}: {message}"


def _spelt_at_start(message: str, name: str, separators: tuple[str, ...]) -> int | None:
    """How long *name* is at the start of *message*, followed by one of *separators* or
    nothing, or ``None`` when it is not there. The name counts as typed and as
    :func:`~lmml_mdit.cli._output.error_text` writes an error's place, its control
    characters escaped (a file named ``n\\x1b.lmml`` is the same file in both)."""
    for spelling in dict.fromkeys((name, shown(name))):
        if message == spelling or message.startswith(tuple(spelling + s for s in separators)):
            return len(spelling)
    return None


@contextlib.contextmanager
def about(label: str, aliases: Sequence[str] = ()) -> Iterator[None]:
    """Name the bundle *label* in any library error raised inside the block."""
    try:
        yield
    except LmmlError as error:
        raise CliError(located(label, error_text(error), aliases)) from None


def as_typed(path: str, message: str) -> str:
    """*message* with a leading base name of *path* (``x.lmml:3: ...``, ``x.lmmlz!a.txt``)
    spelt as *path* was typed; any other message as it is."""
    alias = os.path.basename(path)
    if alias != path and (length := _spelt_at_start(message, alias, (":", "!"))) is not None:
        return path + message[length:]
    return message


@contextlib.contextmanager
def named_as_typed(path: str) -> Iterator[None]:
    """Within the block, a library error or warning that starts with *path*'s base name
    starts with *path* as typed instead; other messages are left as they are (unlike
    :func:`about`, which names the bundle in every one)."""

    try:
        with warnings_worded(lambda message: as_typed(path, cli_wording(message))):
            yield
    except LmmlError as error:
        raise CliError(as_typed(path, error_text(error))) from None


class Source:
    """An opened bundle and how to name it in messages.

    A plain class, not a dataclass: :mod:`dataclasses` loads :mod:`inspect`, which every
    command's ``--help`` would then pay for (this module is imported with the command's).
    """

    __slots__ = ("aliases", "bundle", "label")

    def __init__(self, bundle: Bundle, label: str, aliases: tuple[str, ...] = ()) -> None:
        self.bundle = bundle
        self.label = label
        self.aliases = aliases

    @contextlib.contextmanager
    def about(self) -> Iterator[None]:
        """Name this bundle in any library error raised inside the block; a refusal to
        send says every error-level defect (:meth:`refusal`)."""
        with about(self.label, self.aliases):
            try:
                yield
            except DefectError as refused:
                raise self.refusal(refused) from None

    def refuse_over_folder_file(self, out: str | None, hint: str) -> None:
        """Refuse to write *out* when it is a file in a bare narrative's folder (its own,
        or ``--base-dir``) that the narrative refers to: the command reads it as it reads
        the source, and what it writes may not hold it (``to-md`` keeps only its name).

        *hint* says what to give instead. Checked once the bundle is open, before the work.
        """
        bundle = self.bundle
        if out is None or out == STDIO or bundle.kind != "text" or bundle.base_dir is None:
            return
        if not os.path.lexists(out):
            return
        for name in bundle.narrative.first_embeds:
            path = os.path.join(bundle.base_dir, name)
            if os.path.lexists(path) and same_file(path, out):
                raise CliError(
                    f"{out}: refusing to write over {name}, a file {self.label} refers to, "
                    f"which this command reads ({hint})"
                )

    def refusal(self, refused: DefectError) -> CliError:
        """What a refusal to send gives: *refused* (the first error-level defect), with
        the missing references counted by name when there are two or more. When other
        error-level defects refuse the send too, *refused* and each of them are said as
        ``lmml: error:`` lines worded as ``validate`` words them, and the error counts
        them, so one run shows every fix to make."""
        text = located(self.label, error_text(refused), self.aliases)
        try:
            found = self.bundle.validate()
        except LmmlError:
            return CliError(text)
        errors = [issue for issue in found if issue.kind in ERROR_KINDS]
        if refused.issue not in errors:
            return CliError(text)  # a warning raised by --strict, a template's own refusal
        summary = missing_summary(errors)
        if summary is not None:
            text = f"{text}; {summary}"
        others = [
            issue
            for issue in errors
            if issue != refused.issue
            and not (summary is not None and issue.kind == "missing_reference")
        ]
        if not others:
            return CliError(text)
        error(text)
        for issue in others:
            error(issue_line(self.label, issue, archive=self.bundle.kind == "zip"))
        return CliError(
            f"{self.label}: {len(errors)} error-level defects refuse the send (fix "
            "them, or add --force to send anyway)"
        )


def _check_archive(path: str) -> None:
    """Warn when a ``.lmmlz`` path holds no zip archive.

    The library decides zip or text by the first bytes, never by the extension, so such a
    file is read as a bare narrative, as it is here; the warning surfaces the likely
    mistake (a download that saved an HTML error page, a narrative renamed by hand).
    """
    if not path.lower().endswith(ARCHIVE_SUFFIX) or not os.path.isfile(path):
        return  # a pipe is read once, by the library: a look here would take its first bytes
    try:
        with open(path, "rb") as stream:
            head = stream.read(4)
    except OSError:
        return  # opening the bundle reports it, in the library's words
    message = not_an_archive(path, head)
    if message is not None:
        warn(message)


def checked_base_dir(args: Arguments) -> str | None:
    """The command's ``--base-dir``, refused when it is not a folder: a mistyped folder
    would otherwise only show as every reference missing."""
    base_dir = args.base_dir
    if base_dir is not None and not os.path.isdir(base_dir):
        raise CliError(f"--base-dir {base_dir}: not a folder (give the folder of the assets)")
    return base_dir


def open_source(path: str, args: Arguments) -> Source:
    """Open the bundle *path* (``-`` for stdin) as the command's ``--base-dir``,
    ``--delimiters`` and ``--references`` say. A bare ``.lmml`` sees its own folder, as
    :func:`lmml_mdit.open` does, unless ``--base-dir`` names another (stdin has none)."""
    # Imported here, so that a command's module (and with it its --help) loads no parser.
    from ..chat import open as open_bundle

    base_dir = checked_base_dir(args)
    if path == STDIO:
        aliases = tuple(STDIN_NAME + suffix for suffix in (ARCHIVE_SUFFIX, NARRATIVE_SUFFIX, ""))
        with about(STDIN_LABEL, aliases):
            # Read by open() in bounded chunks, under the same limits as a file.
            bundle = open_bundle(
                stdin_buffer(),
                name=STDIN_NAME,
                base_dir=base_dir,
                delimiters=args.delimiters,
                references=args.references,
            )
        return Source(bundle, STDIN_LABEL, aliases)
    if os.path.isdir(path):
        raise CliError(f"{path}: is a folder, not a {NARRATIVE_SUFFIX} or {ARCHIVE_SUFFIX} file")
    _check_archive(path)
    aliases = (os.path.basename(path),)
    with about(path, aliases):
        bundle = open_bundle(
            path, base_dir=base_dir, delimiters=args.delimiters, references=args.references
        )
    return Source(bundle, path, aliases)


def bundle_stem(path: str) -> str:
    """``dir/convo.lmmlz`` -> ``dir/convo``; a path without extension is kept."""
    root, extension = os.path.splitext(path)
    return root if extension else path


def same_file(first: str, second: str) -> bool:
    """Whether the paths *first* and *second* are one file (or, when either cannot be
    looked at, spell the same absolute path)."""
    try:
        return os.path.samefile(first, second)
    except OSError:
        return os.path.abspath(first) == os.path.abspath(second)


def refuse_over_input(out: str | None, inputs: Sequence[tuple[str | None, str]], hint: str) -> None:
    """Refuse to write *out* when it is one of the files the command reads.

    *inputs* pairs each path read (None or ``-`` when not a file) with how a message names
    it (``the source``, ``the --cases file``); *hint* says what to give instead. Checked
    before any work, so the file read is never replaced by what was made from it.
    """
    if out is None or out == STDIO or not os.path.lexists(out):
        return
    for path, what in inputs:
        if path is not None and path != STDIO and same_file(path, out):
            raise CliError(
                f"{out}: refusing to write over {what}, which this command reads ({hint})"
            )
