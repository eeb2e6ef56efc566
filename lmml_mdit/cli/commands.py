"""The ``lmml`` command line.

One subcommand per job, each a small function taking the parsed arguments and returning
the exit status. Every failure ends as one line ``lmml: error: ...`` on stderr with exit
status 2, never a traceback; ``lmml validate`` uses 1 for "an error-level defect found"
(any defect with ``--strict``) and ``lmml export`` for "some bundles failed".

Data goes to stdout (JSON, asset bytes, Markdown), confirmations and progress to stderr,
so ``lmml render x.lmmlz | jq`` and ``lmml cat x.lmmlz a.png > a.png`` stay clean. A path
of ``-`` reads standard input or writes standard output where that makes sense.

Modules above the bundle (messages, preview, bridge) are imported when their command
runs, so ``lmml --help`` and the other commands work without them.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import hashlib
import json
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn, TextIO

from .._version import __version__
from ..atomic import Terminated, atomic_write_bytes, terminate_cleanly
from ..bundle.archive import unsafe_reason
from ..errors import LmmlError, WriteError, location
from ..syntax import DELIMITER_MODES, REFERENCE_MODES, DelimiterMode, ReferenceMode, role_word

if TYPE_CHECKING:
    from ..bundle.bundle import Bundle
    from ..model import Issue

__all__ = ["COMMANDS", "CliError", "build_parser", "main"]

STDIO = "-"
"""The path meaning standard input or standard output."""

PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini")
"""The providers ``lmml render`` accepts (those of the messages module)."""

EXPORT_PROVIDERS = (*PROVIDERS, "sharegpt")
"""The targets ``lmml export`` accepts (those of the bridge)."""

IMPORT_FORMATS = ("openai", "openai-responses", "anthropic", "gemini", "sharegpt")
"""The formats ``lmml import`` reads (those of the bridge)."""

_DEBUG_VARIABLE = "LMML_DEBUG"


class CliError(Exception):
    """A failure the CLI reports as one ``lmml: error:`` line and exit status 2."""


class _UsageError(CliError):
    """A bad command line (unknown flag, missing argument)."""


class _Parser(argparse.ArgumentParser):
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
        # parse_known_intermixed_args calls back here; the flag lets those calls through.
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False

    def error(self, message: str) -> NoReturn:
        command = self.prog.split(" ", 1)[1] if " " in self.prog else ""
        where = f"{command}: " if command else ""
        raise _UsageError(f"{where}{message} (see '{self.prog} --help')")


# -- small helpers ------------------------------------------------------------------------


def shown(text: str) -> str:
    """*text* safe to print on a terminal: every control character (ESC, BEL, CR, NUL, a
    newline inside a name, C1 codes, line and paragraph separators) and every lone
    surrogate (a file name that is not UTF-8) written as a ``\\x1b``-style escape, so that a
    hostile name cannot clear the screen, move the cursor or forge a line of output.

    The CLI passes every name it prints (paths, entry and embed names, roles, messages
    that quote them) through this one function.
    """
    if text.isprintable():
        return text
    return "".join(
        char
        if char.isprintable() or char == " "
        else char.encode("unicode_escape", "backslashreplace").decode("ascii")
        if not 0xD800 <= ord(char) <= 0xDFFF
        else f"\\x{ord(char) - 0xDC00:02x}"
        if 0xDC80 <= ord(char) <= 0xDCFF
        else f"\\u{ord(char):04x}"
        for char in text
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _stdout_buffer() -> BinaryIO:
    stream = sys.stdout
    if stream is None or stream.closed:
        raise CliError("standard output is closed; give an output file instead of -")
    return stream.buffer


def _stdout_bytes(data: bytes) -> None:
    buffer = _stdout_buffer()
    sys.stdout.flush()
    buffer.write(data)
    buffer.flush()


def _stdout_text(text: str) -> None:
    # A path that is not UTF-8 reaches the output escaped, not as an encoding error.
    _stdout_bytes(text.encode("utf-8", "backslashreplace"))


def _stdin_buffer() -> BinaryIO:
    stream = sys.stdin
    if stream is None or stream.closed:
        raise CliError("standard input is closed; give a file instead of -")
    return stream.buffer


def _stdout_json(value: Any) -> None:
    _stdout_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n")


def _info(args: argparse.Namespace, text: str) -> None:
    """A confirmation line on stderr, unless ``--quiet``."""
    if not getattr(args, "quiet", False):
        print(shown(text), file=sys.stderr)


class _Progress:
    """``label done/total detail`` on stderr, redrawn in place, only when stderr is a
    terminal (and, when the total is known up front, only for more than one item).

    It is also the bridge's progress callback, ``(done, total, detail)``; *total* may then
    be None (a JSONL file is read as a stream, so its length is not known in advance).
    """

    def __init__(self, label: str, total: int | None = None) -> None:
        self.label = label
        self.total = total
        self.active = sys.stderr.isatty() and (total is None or total > 1)
        self.drawn = False

    def step(self, done: int, detail: str = "") -> None:
        self(done, self.total, detail)

    def __call__(self, done: int, total: int | None = None, detail: object = "") -> None:
        if self.active:
            count = f"{done}/{total}" if total else str(done)
            sys.stderr.write(f"\r{self.label} {count} {shown(str(detail))[-50:]}".ljust(80)[:120])
            sys.stderr.flush()
            self.drawn = True

    def close(self) -> None:
        if self.drawn:
            sys.stderr.write("\r" + " " * 80 + "\r")
            sys.stderr.flush()
            self.drawn = False


def _save_bundle(bundle: Bundle, dest: str, *, exclusive: bool = False) -> None:
    """Save *bundle* to *dest* (``-`` for stdout, the narrative entry then named after the
    bundle), atomically (see :func:`lmml_mdit.bundle.saving.save_bundle`)."""
    from ..bundle.saving import bundle_bytes, save_bundle

    if dest == STDIO:
        suffix = ".lmmlz" if bundle.kind == "zip" else ".lmml"
        _stdout_bytes(bundle_bytes(bundle, bundle.name + suffix))
        return
    save_bundle(bundle, dest, exclusive=exclusive)  # the caller made its folder


def _deliver(args: argparse.Namespace, dest: str, output: bytes | Bundle, done: str) -> None:
    """Write *output* (bytes, or a bundle to save) to *dest*, ``-`` meaning stdout; after a
    write to a file, print the confirmation *done* on stderr (see :func:`_info`)."""
    if dest == STDIO:
        if isinstance(output, bytes):
            _stdout_bytes(output)
        else:
            _save_bundle(output, dest)
        return
    _ensure_folder(dest)
    with _writing(dest):
        if isinstance(output, bytes):
            atomic_write_bytes(dest, output)
        else:
            _save_bundle(output, dest)
    _info(args, done)


def _ensure_folder(dest: str) -> None:
    """Create the folders *dest* needs, failing with one clear line when a file is in the
    way or the parent cannot be written."""
    folder = Path(dest).parent
    try:
        _make_folders(folder)
    except FileExistsError:
        raise CliError(f"{dest}: cannot write: {folder} is not a folder") from None
    except OSError as error:
        reason = error.strerror or _error_text(error)
        raise CliError(f"{dest}: cannot create the folder {folder}: {reason}") from None


def _make_folders(folder: Path) -> None:
    """``folder.mkdir(parents=True, exist_ok=True)`` without its recursion (one call per
    missing level), so a path of any depth works: the missing ancestors are found going
    up, then created going down.

    :raises FileExistsError: when something that is not a folder is in the way.
    """
    missing: list[Path] = []
    while not folder.is_dir():
        if os.path.lexists(folder):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(folder))
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by someone else
            path.mkdir()
        if not path.is_dir():
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path))


@contextlib.contextmanager
def _writing(dest: str) -> Iterator[None]:
    """Report a failed write as one error about *dest* itself, not about the temporary
    file or folder the atomic write was using at the time."""
    try:
        yield
    except (BrokenPipeError, FileExistsError):
        raise
    except WriteError as error:  # already about dest, as the user typed it
        raise CliError(_error_text(error)) from None
    except OSError as error:
        reason = error.strerror or _error_text(error)
        raise CliError(f"{dest}: cannot write: {reason}") from None


def _refuse_extension(dest: str, extension: str, reason: str) -> None:
    """Fail when the file *dest* ends in *extension*: the command writes the other kind."""
    if dest != STDIO and dest.lower().endswith(extension):
        raise CliError(f"{dest}: {reason}")


STDIN_LABEL = "<stdin>"
"""How messages name a bundle read from standard input."""

_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
"""The first bytes of a zip archive: a local file header, or the end record of an empty one."""


def _located(label: str, message: str, aliases: Sequence[str] = ()) -> str:
    """*message* about the bundle *label*, starting with that label exactly once.

    Library errors name what they know: an entry (``z.txt: ...``) or the file's base name
    (``bad.lmml:2: ...``). With several files on one command line the reader also needs
    the path as typed, so a base name (or another *alias*) at the start becomes *label*,
    and any other message is prefixed with it.
    """
    if message == label or message.startswith((label + ":", label + " ", label + "!")):
        return message
    for alias in aliases:
        if alias and (message == alias or message.startswith((alias + ":", alias + "!"))):
            return label + message[len(alias) :]
    return f"{label}: {message}"


@dataclass(frozen=True)
class _Source:
    """An opened bundle and how to name it in messages."""

    bundle: Bundle
    label: str
    aliases: tuple[str, ...] = ()

    @contextlib.contextmanager
    def about(self) -> Iterator[None]:
        """Name this bundle in any library error raised inside the block."""
        with _about(self.label, self.aliases):
            yield


@contextlib.contextmanager
def _about(label: str, aliases: Sequence[str]) -> Iterator[None]:
    try:
        yield
    except LmmlError as error:
        raise CliError(_located(label, _error_text(error), aliases)) from None


def _check_archive(path: str) -> None:
    """Warn when a ``.lmmlz`` path holds no zip archive.

    The library decides zip or text by the first bytes, never by the extension, so such a
    file is read as a bare narrative, as it is here; the warning surfaces the likely
    mistake (a download that saved an HTML error page, a narrative renamed by hand).
    """
    if not path.lower().endswith(".lmmlz"):
        return
    try:
        with open(path, "rb") as stream:
            head = stream.read(4)
    except OSError:
        return  # opening the bundle reports it, in the library's words
    if head in _ZIP_MAGIC:
        return
    what = "the file is empty" if not head else f"it starts with {head!r}"
    print(
        f"lmml: warning: {shown(path)}: not a zip archive ({what}); read as a bare narrative "
        "(rename it to .lmml if that is what it is)",
        file=sys.stderr,
    )


def _checked_base_dir(args: argparse.Namespace) -> str | None:
    """The command's ``--base-dir``, refused when it is not a folder: a mistyped folder
    would otherwise only show as every reference missing."""
    base_dir: str | None = args.base_dir
    if base_dir is not None and not os.path.isdir(base_dir):
        raise CliError(f"--base-dir {base_dir}: not a folder (give the folder of the assets)")
    return base_dir


def _open(path: str, args: argparse.Namespace) -> _Source:
    """Open the bundle *path* (``-`` for stdin) as the command's ``--base-dir``,
    ``--delimiters`` and ``--references`` say. A bare ``.lmml`` sees its own folder, as
    :func:`lmml_mdit.open` does, unless ``--base-dir`` names another (stdin has none)."""
    from ..chat.opening import open as open_bundle

    base_dir = _checked_base_dir(args)
    delimiters: DelimiterMode = getattr(args, "delimiters", "strict")
    references: ReferenceMode = getattr(args, "references", "assets")
    if path == STDIO:
        aliases: tuple[str, ...] = ("stdin.lmmlz", "stdin.lmml", "stdin")
        with _about(STDIN_LABEL, aliases):
            # Read by open() in bounded chunks, under the same limits as a file.
            bundle = open_bundle(
                _stdin_buffer(),
                name="stdin",
                base_dir=base_dir,
                delimiters=delimiters,
                references=references,
            )
        return _Source(bundle, STDIN_LABEL, aliases)
    if os.path.isdir(path):
        raise CliError(f"{path}: is a folder, not a .lmml or .lmmlz file")
    _check_archive(path)
    aliases = (os.path.basename(path),)
    with _about(path, aliases):
        bundle = open_bundle(path, base_dir=base_dir, delimiters=delimiters, references=references)
    return _Source(bundle, path, aliases)


def _bundle_stem(path: str) -> str:
    """``dir/convo.lmmlz`` -> ``dir/convo``; a path without extension is kept."""
    root, extension = os.path.splitext(path)
    return root if extension else path


def _same_file(first: str, second: str) -> bool:
    try:
        return os.path.samefile(first, second)
    except OSError:
        return os.path.abspath(first) == os.path.abspath(second)


def _require(module: str, command: str) -> None:
    """Fail clearly when a module a command needs is not present in this build."""
    import importlib.util

    if importlib.util.find_spec(f"lmml_mdit.{module}") is None:
        raise CliError(f"'lmml {command}' needs lmml_mdit.{module}, which this build lacks")


# -- media types --------------------------------------------------------------------------


def media_type(name: str, data: bytes) -> str:
    """The media type of an asset, as the messages module sees it: the bytes' own type
    when they announce one, else the extension's
    (see :func:`lmml_mdit.chat.handlers.media_type_for`)."""
    from ..chat.handlers import media_type_for

    return media_type_for(name, data)


# -- commands -----------------------------------------------------------------------------


def _starter(name: str) -> str:
    # A title naming a role would itself be a role delimiter, so such names get a plain
    # paragraph instead of a heading.
    title = f"# {name}" if role_word(name) is None else f"**{name}**"
    return (
        f"{title}\n"
        "\n"
        "Context for the whole conversation goes here. Refer to an asset with `@name.ext`\n"
        "(in a .lmmlz it is an archive entry), or embed a text asset directly:\n"
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


def cmd_new(args: argparse.Namespace) -> int:
    """``lmml new PATH``: write a starter narrative, never over an existing file."""
    path: str = args.path
    if path == STDIO:
        _stdout_text(_starter("session"))
        return 0
    if not os.path.basename(path):
        raise CliError(f"{path}: is a folder; give the new file's name (lmml new notes/session)")
    if not path.lower().endswith((".lmml", ".lmmlz")):
        path += ".lmml"  # as the reference's mix task: notes -> notes.lmml, x.txt -> x.txt.lmml
    if os.path.lexists(path):
        raise CliError(f"{path}: refusing to overwrite an existing file")
    name = os.path.splitext(os.path.basename(path))[0]
    text = _starter(name)
    _ensure_folder(path)
    try:
        with _writing(path):
            if path.lower().endswith(".lmmlz"):
                from ..bundle.bundle import Bundle

                _save_bundle(Bundle.from_zip(name, text, {}), path, exclusive=True)
            else:
                atomic_write_bytes(path, text.encode("utf-8"), exclusive=True)
    except FileExistsError:
        raise CliError(f"{path}: refusing to overwrite an existing file") from None
    _info(args, f"Created {path}")
    return 0


def _issue_record(issue: Issue) -> dict[str, Any]:
    return {
        "kind": issue.kind,
        "severity": issue.severity,
        "name": issue.name,
        "file": issue.file,
        "line": issue.line,
        "column": issue.column,
        "message": issue.cli_message or issue.message,
    }


def _issue_line(label: str, issue: Issue) -> str:
    """``FILE:LINE:COL: kind: message``, FILE being *label* (or ``label!entry`` for a line
    inside an archive entry), the message in the command line's words."""
    where = location(
        label if issue.file is None else f"{label}!{issue.file}", issue.line, issue.column
    )
    return shown(f"{where}: {issue.kind}: {_one_line(issue.cli_message or issue.message)}")


def cmd_validate(args: argparse.Namespace) -> int:
    """``lmml validate PATH...``: 0 when no error-level defect was found (warnings are still
    printed), 1 when one was (or, with ``--strict``, any defect), 2 when a file could not be
    read."""
    _stdout_buffer()  # the report goes there: fail before any work when it is closed
    status = 0
    report: list[dict[str, Any]] = []
    progress = _Progress("validating", len(args.paths))
    for done, path in enumerate(args.paths, 1):
        progress.step(done, path)
        try:
            source = _open(path, args)
            with source.about():
                issues = source.bundle.validate()
        except (LmmlError, OSError, CliError) as error:
            if isinstance(error, BrokenPipeError):
                raise
            progress.close()
            status = 2
            label = STDIN_LABEL if path == STDIO else path
            message = _located(label, _error_text(error), (os.path.basename(path),))
            report.append({"path": path, "error": message, "issues": []})
            if not args.json:
                print(f"lmml: error: {shown(message)}", file=sys.stderr)
            continue
        progress.close()
        if any(args.strict or issue.severity == "error" for issue in issues):
            status = max(status, 1)
        report.append({"path": path, "error": None, "issues": [_issue_record(i) for i in issues]})
        if args.json:
            continue
        for issue in issues:
            print(_issue_line(source.label, issue))
        if not issues:
            print(f"{shown(source.label)}: OK")
    progress.close()
    if args.json:
        _stdout_json(report)
    else:
        count = sum(len(entry["issues"]) for entry in report)
        if count:
            files = sum(1 for entry in report if entry["issues"])
            print(f"{count} issue(s) found in {files} file(s)", file=sys.stderr)
    return status


_RENDER_OPTIONS = (
    "context",
    "max_embed_bytes",
    "on_omit",
    "text_embeds",
    "image_detail",
    "attachment_lines",
)
_REQUEST_OPTIONS = ("unknown_settings",)


def cmd_render(args: argparse.Namespace) -> int:
    """``lmml render PATH``: the chat messages, or the whole request body, as JSON.

    Omissions (an embed over ``--max-embed-bytes``) are printed as ``lmml: warning:``
    lines on stderr; with ``--on-omit raise`` they fail the command instead.
    """
    _require("chat.outgoing", "render")
    from ..chat import outgoing as messages_module

    names = _RENDER_OPTIONS + (_REQUEST_OPTIONS if args.request else ())
    options = {name: getattr(args, name) for name in names if getattr(args, name) is not None}
    if not args.request:
        for flag in ("model", "unknown_settings"):
            if getattr(args, flag) is not None:
                raise CliError(f"--{flag.replace('_', '-')} only applies with --request")
    if args.settings:
        if not args.request:
            raise CliError("--set only applies with --request")
        options["settings"] = dict(args.settings)
    options["strict"] = not args.force
    source = _open(args.path, args)
    result: Any
    with source.about(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if args.request:
            if args.system is not None:
                options["system"] = args.system
            result = messages_module.to_request(
                source.bundle, args.provider, model=args.model, **options
            )
        else:
            if args.system not in (None, "separate"):
                options["system"] = args.system
            payload = messages_module.render_payload(source.bundle, args.provider, **options)
            if payload.system and args.system == "separate":
                result = {"system": payload.system, "messages": payload.messages}
            elif payload.system:
                raise CliError(
                    f"{source.label}: {args.provider} keeps system content outside the "
                    "messages list (add --request for the whole request body, or --system "
                    "separate|user|drop)"
                )
            else:
                result = payload.messages
    _print_warnings(source, caught)
    _stdout_json(result)
    return 0


def _print_warnings(source: _Source, caught: Sequence[warnings.WarningMessage]) -> None:
    """Each caught library warning as one ``lmml: warning:`` line about the bundle as typed;
    a defect sent anyway (``--force``) located as ``validate`` locates it."""
    from ..bundle.bundle import DefectWarning

    for warning in caught:
        message = warning.message
        if isinstance(message, DefectWarning):
            text = message.error.format(cli=True, hint=False)
        else:
            text = str(message)
        text = _located(source.label, text, source.aliases)
        print(f"lmml: warning: {shown(_one_line(text))}", file=sys.stderr)


def _turn_rows(bundle: Bundle) -> list[dict[str, Any]]:
    from ..narrative.narrative import numbered_turns

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
    args: argparse.Namespace,
    rows: Sequence[dict[str, Any]],
    header: Sequence[str],
    cells: Callable[[dict[str, Any]], list[str]],
    right: set[int],
) -> int:
    """Print *rows* as JSON with ``--json``, else as a table of ``cells(row)`` under
    *header*, the columns in *right* right-aligned."""
    if args.json:
        _stdout_json(rows)
    else:
        _stdout_text(_table(header, [cells(row) for row in rows], right))
    return 0


def cmd_turns(args: argparse.Namespace) -> int:
    """``lmml turns PATH``: one row per turn."""
    source = _open(args.path, args)
    with source.about():
        rows = _turn_rows(source.bundle)
    header = ["#", "role", "lines", "span", "characters", "embeds"]
    return _print_rows(args, rows, header, _turn_cells, right={0, 2, 4})


def _turn_cells(row: dict[str, Any]) -> list[str]:
    span = f"{row['start_line']}-{row['end_line']}" if row["lines"] else "-"
    embeds = ", ".join(row["embeds"]) or "-"
    cells = [row["role"], str(row["lines"]), span, str(row["characters"]), embeds]
    return [str(row["number"]), *cells]


def _asset_rows(bundle: Bundle) -> Iterator[dict[str, Any]]:
    """Inline fences first (document order, first occurrence), then archive entries, then
    for a bare narrative that sees a folder the referenced files found there."""
    for name, embed in bundle.narrative.first_embeds.items():
        if embed.kind == "inline" and embed.content is not None:
            yield _asset_row("inline", name, embed.content)
    for name in bundle.entries:
        yield _asset_row("entry", name, bundle.read(name))
    if bundle.kind == "text" and bundle.base_dir is not None:
        for name, embed in bundle.narrative.first_embeds.items():
            if embed.kind != "inline" and bundle.has_asset(name):
                yield _asset_row("file", name, bundle.embed(name))


def _asset_row(kind: str, name: str, data: bytes) -> dict[str, Any]:
    return {
        "kind": kind,
        "name": name,
        "size": len(data),
        "media_type": media_type(name, data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def cmd_ls(args: argparse.Namespace) -> int:
    """``lmml ls PATH``: every asset with size, media type and sha256."""
    source = _open(args.path, args)
    bundle = source.bundle
    total = len(bundle.entries) + len(bundle.narrative.first_embeds)
    progress = _Progress("hashing", total)
    rows = []
    with source.about():
        for done, row in enumerate(_asset_rows(bundle), 1):
            progress.step(done, row["name"])
            rows.append(row)
    progress.close()
    header = ["kind", "size", "media type", "sha256", "name"]
    return _print_rows(args, rows, header, _asset_cells, right={1})


def _asset_cells(row: dict[str, Any]) -> list[str]:
    return [row["kind"], str(row["size"]), row["media_type"], row["sha256"], row["name"]]


def cmd_cat(args: argparse.Namespace) -> int:
    """``lmml cat PATH NAME``: one asset's bytes (or the narrative's) to stdout."""
    source = _open(args.path, args)
    bundle = source.bundle
    with source.about():
        if args.name == bundle.narrative_name:
            data = bundle.narrative.text.encode("utf-8")
        elif bundle.has_asset(args.name) or unsafe_reason(args.name) is not None:
            data = bundle.embed(args.name)
        else:
            raise CliError(_unknown_entry(source, args.name))
    _stdout_bytes(data)
    return 0


def _unknown_entry(source: _Source, name: str) -> str:
    """Why ``lmml cat`` has nothing called *name*, listing what it does have."""
    bundle = source.bundle
    names = list(dict.fromkeys([*bundle.narrative.first_embeds, *bundle.entries]))
    known = [n for n in names if bundle.has_asset(n)]
    from ..bundle.validation import did_you_mean

    guess = did_you_mean(bundle, name)
    listed = ", ".join([*known, bundle.narrative_name])
    return f"{source.label}: no asset {name!r}; {guess}the bundle has: {listed}"


def _destination(args: argparse.Namespace, extension: str, verb: str) -> str:
    """Where ``pack``/``inline``/``to-md`` write: DEST, else SRC with *extension*.

    Never the source itself unless ``--in-place``; and a default DEST (one the user did not
    type) that already exists is kept unless ``--force``, since it may be someone's work.
    """
    src: str = args.src
    dest: str | None = args.dest
    in_place = getattr(args, "in_place", False)
    if in_place:
        if dest is not None:
            raise CliError("give either DEST or --in-place, not both")
        if src == STDIO:
            raise CliError("--in-place needs a file, not standard input")
        return src
    defaulted = dest is None
    if dest is None:
        dest = STDIO if src == STDIO else _bundle_stem(src) + extension
    if dest == STDIO or not os.path.lexists(dest):
        return dest
    if src != STDIO and _same_file(src, dest):
        raise CliError(
            f"{dest}: refusing to {verb} over the source (give another DEST, or --in-place)"
        )
    if defaulted and not args.force:
        raise CliError(
            f"{dest}: refusing to overwrite an existing file (give DEST explicitly, or --force)"
        )
    return dest


def cmd_pack(args: argparse.Namespace) -> int:
    """``lmml pack SRC [DEST]``: every inline fence becomes an archive entry."""
    dest = _destination(args, ".lmmlz", "pack")
    _refuse_extension(dest, ".lmml", "pack writes a .lmmlz archive; give a DEST ending in .lmmlz")
    source = _open(args.src, args)
    with source.about():
        missing = [i for i in source.bundle.validate() if i.kind == "missing_reference"]
    if missing and not args.allow_missing:
        for issue in missing:
            print(f"lmml: error: {_issue_line(source.label, issue)}", file=sys.stderr)
        print(
            f"lmml: error: {shown(source.label)}: not packed: {len(missing)} reference(s) do not "
            "resolve (add the files, give --base-dir DIR, or --allow-missing to pack anyway)",
            file=sys.stderr,
        )
        return 1
    with source.about():
        packed = source.bundle.pack()
        _deliver(args, dest, packed, f"Packed {source.label} -> {dest}")
    return 0


def cmd_inline(args: argparse.Namespace) -> int:
    """``lmml inline SRC [DEST]``: every referenced text asset becomes a fence."""
    dest = _destination(args, ".lmml", "inline")
    _refuse_extension(
        dest, ".lmmlz", "inline writes a bare .lmml file; give a DEST ending in .lmml"
    )
    source = _open(args.src, args)
    with source.about():
        inlined = source.bundle.inline(orphans=args.orphans)
        _deliver(args, dest, inlined, f"Inlined {source.label} -> {dest}")
    return 0


def cmd_to_md(args: argparse.Namespace) -> int:
    """``lmml to-md SRC [DEST]``: plain Markdown with placeholders for embeds."""
    from ..preview.markdown import to_markdown

    dest = _destination(args, ".md", "export")
    source = _open(args.src, args)
    with source.about():
        markdown = to_markdown(source.bundle).encode("utf-8")
    _deliver(args, dest, markdown, f"Exported {source.label} -> {dest}")
    return 0


def cmd_preview(args: argparse.Namespace) -> int:
    """``lmml preview PATH [-o OUT.html]``: one self-contained HTML page."""
    _require("preview.page", "preview")
    from ..preview.page import render_html

    out: str | None = args.output
    if out is None:
        out = STDIO if args.path == STDIO else _bundle_stem(args.path) + ".html"
    if out != STDIO and args.path != STDIO and os.path.exists(out) and _same_file(args.path, out):
        raise CliError(f"{out}: refusing to write the preview over the source")
    source = _open(args.path, args)
    with source.about():
        page = render_html(source.bundle).encode("utf-8")
    _deliver(args, out, page, f"Wrote {out}")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    """``lmml info PATH``: a short summary of a bundle."""
    source = _open(args.path, args)
    with source.about():
        summary = _summary(source)
    if args.json:
        _stdout_json(summary)
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
    _stdout_text("\n".join(lines) + "\n")
    return 0


def _summary(source: _Source) -> dict[str, Any]:
    bundle = source.bundle
    roles: dict[str, int] = {}
    for turn in bundle.narrative.turns:
        roles[turn.role] = roles.get(turn.role, 0) + 1
    summary: dict[str, Any] = {
        "path": source.label,
        "kind": bundle.kind,
        "name": bundle.name,
        "narrative": bundle.narrative_name,
        "lines": len(bundle.narrative.lines),
        "turns": len(bundle.narrative.turns),
        "roles": roles,
        "embeds": list(bundle.narrative.embed_names),
        "entries": list(bundle.entries),
        "manifest": bundle.manifest,
        "settings": bundle.settings,
    }
    return summary


def _short_json(value: object, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def cmd_import(args: argparse.Namespace) -> int:
    """``lmml import FILE -o OUT``: chat data (OpenAI, Anthropic, Gemini, ShareGPT) to LMML."""
    _require("chat.importer", "import")
    from ..chat.importer import import_path

    if args.file == STDIO:
        _stdin_buffer()  # fail clearly when it is closed, before any work
    # Like every other writer here, create the output's folder; the bridge expects it.
    _ensure_folder(args.output)
    counter = _Progress("importing") if sys.stderr.isatty() else None
    try:
        written = import_path(args.file, args.output, format=args.format, progress=counter)
    finally:
        if counter is not None:
            counter.close()
    if len(written) == 1:
        _info(args, f"Imported {args.file} -> {written[0]}")
    else:
        _info(args, f"Imported {len(written)} bundle(s) from {args.file} into {args.output}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """``lmml export DIR --provider P --jsonl OUT``: a folder of bundles as a JSONL dataset.

    A bundle that fails is reported (``lmml: error: PATH: reason``) and skipped; the exit
    status is then 1.
    """
    _require("chat.export", "export")
    from ..chat.export import export_folder

    _checked_base_dir(args)
    if args.jsonl != STDIO:
        _ensure_folder(args.jsonl)
    else:
        _stdout_buffer()  # fail before any work when there is nowhere to write
    # With progress=None the bridge draws its own counter, on a terminal only.
    report = export_folder(
        args.folder,
        args.provider,
        args.jsonl,
        workers=args.workers,
        progress=None,
        strict=not args.force,
        base_dir=args.base_dir,
        delimiters=args.delimiters,
        references=args.references,
    )
    for path, defect in report.warnings:
        located = _located(shown(path), shown(_one_line(defect)), (shown(os.path.basename(path)),))
        print(f"lmml: warning: {located}", file=sys.stderr)
    for path, reason in report.failures:
        located = _located(shown(path), shown(_one_line(reason)), (shown(os.path.basename(path)),))
        print(f"lmml: error: {located}", file=sys.stderr)
    if args.jsonl != STDIO:
        _info(
            args,
            f"Exported {report.written} of {report.total} bundle(s) from {args.folder} "
            f"-> {args.jsonl}",
        )
    return 1 if report.failures else 0


# -- the parser ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Command:
    name: str
    handler: Callable[[argparse.Namespace], int]
    summary: str
    example: str


COMMANDS: tuple[str, ...] = (
    "new",
    "validate",
    "render",
    "turns",
    "ls",
    "cat",
    "pack",
    "inline",
    "to-md",
    "preview",
    "info",
    "import",
    "export",
)
"""Every subcommand name, in help order."""


def _add_bundle(parser: argparse.ArgumentParser, dest: str = "path") -> None:
    """The positional bundle argument, PATH (or SRC for the commands that write one)."""
    parser.add_argument(dest, metavar=dest.upper(), help="the bundle (- for stdin)")


def _add_dest(parser: argparse.ArgumentParser, extension: str) -> None:
    parser.add_argument(
        "dest",
        metavar="DEST",
        nargs="?",
        help=f"where to write (default: SRC with {extension}; - for stdout)",
    )


def _add_json(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument("--json", action="store_true", help=f"print {what}")


def _add_provider(parser: argparse.ArgumentParser, choices: Sequence[str], what: str) -> None:
    parser.add_argument(
        "-p",
        "--provider",
        default="openai",
        choices=choices,
        help=f"{what} (default: openai)",
    )


def _add_base_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--base-dir",
        metavar="DIR",
        help="resolve a bare .lmml's @references against files in DIR (never outside it; "
        "default: the .lmml file's own folder)",
    )


def _add_syntax_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--delimiters",
        choices=DELIMITER_MODES,
        default="strict",
        help="role headings: strict (default: the heading is only the role, or "
        "'Turn N -- role' / 'NAME -- role') or loose (a role word anywhere in it)",
    )
    parser.add_argument(
        "--references",
        choices=REFERENCE_MODES,
        default="assets",
        help="@name: assets (default: a name with an extension, or a file the bundle has) "
        "or any (every @name, as RFC 4.1 reads it)",
    )


def _add_force(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-f",
        "--force",
        action="store_true",
        help="overwrite the default DEST when it exists (an explicit DEST is always written)",
    )


def _add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="print no confirmation line on stderr"
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value


def _setting(text: str) -> tuple[str, Any]:
    import yaml

    key, equals, value = text.partition("=")
    if not equals or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    except (RecursionError, ValueError, OverflowError) as error:
        # PyYAML recurses once per nesting level and converts integers with int().
        what = "nests too deeply" if isinstance(error, RecursionError) else "cannot be read"
        raise argparse.ArgumentTypeError(f"{key.strip()}: the value {what}") from None
    reason = _not_json(parsed)
    if reason is not None:
        raise argparse.ArgumentTypeError(
            f"{key.strip()}: {reason}; a setting must be a JSON value (quote it to pass text: "
            f"--set '{key.strip()}=\"...\"')"
        )
    return key.strip(), parsed


_MAX_SETTING_DEPTH = 100
"""How deeply a ``--set`` value may nest; real settings nest two or three levels."""

_MAX_SETTING_ITEMS = 100_000
"""How many values a ``--set`` value may hold once its YAML aliases are written out as
copies, as the JSON request will (ten nested aliases of ten items are ten billion)."""


def _not_json(value: object) -> str | None:
    """Why *value* (from YAML) is no JSON value, or None when it is one: a date, a set, a
    non-finite float, a key that is not a string, a structure that contains itself, nests
    past :data:`_MAX_SETTING_DEPTH` or holds more than :data:`_MAX_SETTING_ITEMS` values.
    Walked without recursion, within that budget."""
    pending: list[tuple[object, int, frozenset[int]]] = [(value, 0, frozenset())]
    visited = 0
    while pending:
        item, depth, inside = pending.pop()
        visited += 1
        if visited > _MAX_SETTING_ITEMS:
            return f"the value holds more than {_MAX_SETTING_ITEMS:,} items (aliases counted)"
        if isinstance(item, (dict, list)):
            if id(item) in inside:
                return "the value contains itself"
            if depth >= _MAX_SETTING_DEPTH:
                return f"the value nests deeper than {_MAX_SETTING_DEPTH} levels"
            children: list[object]
            if isinstance(item, dict):
                if not all(isinstance(key, str) for key in item):
                    return "a mapping key is not a string"
                children = list(item.values())
            else:
                children = list(item)
            below = inside | {id(item)}
            pending.extend((child, depth + 1, below) for child in children)
        elif isinstance(item, float):
            if item != item or item in (float("inf"), float("-inf")):
                return f"{item} is not a JSON number"
        elif item is not None and not isinstance(item, (str, int, bool)):
            return f"a {type(item).__name__} is not a JSON value"
    return None


def build_parser() -> argparse.ArgumentParser:
    """The ``lmml`` argument parser with every subcommand."""
    parser = _Parser(
        prog="lmml",
        description="Work with LMML bundles (.lmml narratives and .lmmlz archives).",
        epilog=(
            "examples:\n"
            "  lmml validate examples/sales-review.lmmlz\n"
            "  lmml render examples/sales-review.lmmlz --provider anthropic\n"
            "  lmml COMMAND --help    (every command has its own help and example)"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"lmml {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def command(
        name: str, summary: str, example: str, handler: Callable[[argparse.Namespace], int]
    ) -> argparse.ArgumentParser:
        command_parser = sub.add_parser(
            name,
            help=summary,
            description=summary[0].upper() + summary[1:] + ".",
            epilog=f"example:\n  {example}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        command_parser.set_defaults(handler=handler)
        if handler in opens_bundles:
            _add_syntax_options(command_parser)
        return command_parser

    opens_bundles = {
        cmd_validate,
        cmd_render,
        cmd_turns,
        cmd_ls,
        cmd_cat,
        cmd_pack,
        cmd_inline,
        cmd_to_md,
        cmd_preview,
        cmd_info,
        cmd_export,
    }

    p = command(
        "new",
        "write a starter narrative (never over an existing file)",
        "lmml new notes/session     # creates notes/session.lmml",
        cmd_new,
    )
    p.add_argument(
        "path",
        metavar="PATH",
        help="the file to create; .lmml is added unless it ends in .lmml or .lmmlz; "
        "a .lmmlz path makes an archive; - prints the starter",
    )
    _add_quiet(p)

    p = command(
        "validate",
        "check bundles for authoring defects",
        "lmml validate examples/*.lmml examples/*.lmmlz",
        cmd_validate,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="bundles to check (- for stdin)")
    _add_json(p, "one JSON report on stdout")
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 on warnings too (by default only an error-level defect fails)",
    )
    _add_base_dir(p)

    p = command(
        "render",
        "print a bundle's chat messages (or request body) as JSON",
        "lmml render examples/sales-review.lmmlz --provider anthropic --request",
        cmd_render,
    )
    _add_bundle(p)
    _add_provider(p, PROVIDERS, "the API shape")
    p.add_argument(
        "--request",
        action="store_true",
        help="print the whole request body: messages plus settings as parameters",
    )
    p.add_argument("--model", help="the model name for --request")
    p.add_argument(
        "--max-embed-bytes",
        type=_positive_int,
        metavar="N",
        help="per-message payload budget; larger embeds are left out",
    )
    p.add_argument(
        "--context",
        choices=("system", "user", "drop"),
        help="what the preamble (context turn) becomes (default: system)",
    )
    p.add_argument(
        "--system",
        choices=("separate", "user", "drop", "raise"),
        help="system content anthropic and gemini keep outside the messages list: print "
        '{"system": ..., "messages": [...]} (separate), send it as user content, drop it, or '
        "fail (the default, unless --request)",
    )
    p.add_argument(
        "--attachment-lines",
        choices=("drop", "keep"),
        help="a paragraph made only of references (@photo.png): leave it out, its parts "
        "standing in its place (default), or keep it in the text before its parts",
    )
    p.add_argument(
        "--on-omit",
        choices=("warn", "raise"),
        help="an embed over --max-embed-bytes: warn on stderr (default) or fail",
    )
    p.add_argument(
        "--text-embeds",
        choices=("text", "document"),
        help="text assets as text parts or as the provider's document parts "
        "(default: document for anthropic, text elsewhere)",
    )
    p.add_argument(
        "--image-detail", choices=("auto", "low", "high"), help="the OpenAI image detail"
    )
    p.add_argument(
        "-s",
        "--set",
        dest="settings",
        action="append",
        type=_setting,
        metavar="KEY=VALUE",
        help="with --request: a setting over the bundle's settings embed, the value read "
        "as YAML (--set max_tokens=300); repeatable",
    )
    p.add_argument(
        "--unknown-settings",
        choices=("pass", "warn", "error"),
        help="with --request: settings keys the provider does not name are passed as they "
        "are (default), left out with a warning, or fail",
    )
    p.add_argument(
        "-f",
        "--force",
        action="store_true",
        help="render even a bundle with an error-level defect (a missing reference, an "
        "unclosed fence, ...), reporting each as a warning",
    )
    _add_base_dir(p)

    p = command(
        "turns",
        "list the turns: number, role, lines, characters, embeds",
        "lmml turns examples/sales-review.lmml",
        cmd_turns,
    )
    _add_bundle(p)
    _add_json(p, "the rows as JSON")
    _add_base_dir(p)

    p = command(
        "ls",
        "list assets with size, media type and sha256",
        "lmml ls examples/sales-review.lmmlz",
        cmd_ls,
    )
    _add_bundle(p)
    _add_json(p, "the rows as JSON")
    _add_base_dir(p)

    p = command(
        "cat",
        "write one asset's bytes to stdout",
        "lmml cat examples/sales-review.lmmlz chart.png > chart.png",
        cmd_cat,
    )
    _add_bundle(p)
    p.add_argument(
        "name", metavar="NAME", help="the embed or entry name (the narrative's own name prints it)"
    )
    _add_base_dir(p)

    for name, extension, summary, example in (
        (
            "pack",
            ".lmmlz",
            "turn inline fences into archive entries (writes a .lmmlz)",
            "lmml pack examples/sales-review.lmml /tmp/trip-report.lmmlz",
        ),
        (
            "inline",
            ".lmml",
            "turn referenced text assets into fences (writes a .lmml)",
            "lmml inline notes.lmmlz     # writes notes.lmml",
        ),
    ):
        p = command(name, summary, example, cmd_pack if name == "pack" else cmd_inline)
        _add_bundle(p, "src")
        _add_dest(p, extension)
        p.add_argument(
            "--in-place", action="store_true", help="replace SRC itself (never done otherwise)"
        )
        _add_force(p)
        _add_base_dir(p)
        _add_quiet(p)
        if name == "pack":
            p.add_argument(
                "--allow-missing",
                action="store_true",
                help="pack even when a reference resolves to no file (it stays a reference)",
            )
        if name == "inline":
            p.add_argument(
                "--orphans",
                choices=("append", "drop", "error"),
                default="append",
                help="archive entries the narrative never mentions: append them as fences at "
                "the end (default), leave them out, or fail; either way they are named",
            )

    p = command(
        "to-md",
        "export plain Markdown, embeds replaced by [Image: x] placeholders",
        "lmml to-md examples/sales-review.lmmlz -",
        cmd_to_md,
    )
    _add_bundle(p, "src")
    _add_dest(p, ".md")
    _add_force(p)
    _add_base_dir(p)
    _add_quiet(p)

    p = command(
        "preview",
        "write a self-contained HTML preview",
        "lmml preview examples/sales-review.lmmlz -o /tmp/trip.html",
        cmd_preview,
    )
    _add_bundle(p)
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT.html",
        help="where to write (default: PATH with .html; - for stdout)",
    )
    _add_base_dir(p)
    _add_quiet(p)

    p = command(
        "info",
        "summarise a bundle: kind, turns, embeds, entries, manifest, settings",
        "lmml info examples/sales-review.lmmlz",
        cmd_info,
    )
    _add_bundle(p)
    _add_json(p, "the summary as JSON")
    _add_base_dir(p)

    p = command(
        "import",
        "import chat data (OpenAI, Anthropic, Gemini, ShareGPT) as LMML",
        "lmml import chat.json -o chat.lmmlz",
        cmd_import,
    )
    p.add_argument(
        "file", metavar="FILE", help="a .json conversation or a .jsonl dataset (- for stdin)"
    )
    p.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="the bundle to write (.lmmlz, or .lmml when it has no binary asset); a folder "
        "for JSONL input, one bundle per line",
    )
    p.add_argument(
        "--format",
        choices=IMPORT_FORMATS,
        help="the input format (detected when omitted)",
    )
    _add_quiet(p)

    p = command(
        "export",
        "export a folder of bundles as one JSONL dataset",
        "lmml export runs/ --provider openai --jsonl dataset.jsonl",
        cmd_export,
    )
    p.add_argument("folder", metavar="DIR", help="the folder of .lmml/.lmmlz bundles")
    _add_provider(p, EXPORT_PROVIDERS, "the record shape: a provider's request body, or sharegpt")
    p.add_argument(
        "--jsonl", required=True, metavar="OUT", help="the JSONL file to write (- for stdout)"
    )
    p.add_argument(
        "--workers",
        type=_positive_int,
        metavar="N",
        help="worker processes (default: one per core; never more than the cores or the bundles)",
    )
    p.add_argument(
        "-f",
        "--force",
        action="store_true",
        help="export bundles with an error-level defect too, reporting each defect as a "
        "warning (by default each such bundle is a failure)",
    )
    _add_base_dir(p)
    _add_quiet(p)

    return parser


# -- entry point --------------------------------------------------------------------------


def _error_text(error: BaseException) -> str:
    if isinstance(error, LmmlError):
        return _one_line(error.format(cli=True)) or type(error).__name__
    if isinstance(error, OSError) and error.strerror:
        where = error.filename if error.filename is not None else ""
        return _one_line(f"{where}: {error.strerror}" if where else error.strerror)
    return _one_line(str(error)) or type(error).__name__


def _shortcut(argv: list[str]) -> list[str]:
    """``lmml FILE`` (a path where the command goes) means ``lmml turns FILE``."""
    if (
        argv
        and argv[0] not in COMMANDS
        and (argv[0] == STDIO or (not argv[0].startswith("-") and os.path.isfile(argv[0])))
    ):
        return ["turns", *argv]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lmml`` command line and return its exit status.

    :param argv: the arguments after the program name; ``sys.argv[1:]`` by default.
    """
    if sys.stderr is None or sys.stderr.closed:
        # Started with stderr closed: messages have nowhere to go, so they go nowhere
        # (print() would otherwise fall back to stdout and mix them into the data).
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    arguments = _shortcut(list(sys.argv[1:] if argv is None else argv))
    try:
        with terminate_cleanly():
            return _run(arguments)
    except Terminated as stop:
        print(f"lmml: error: {stop}", file=sys.stderr)
        return int(stop.code or 1)


def _run(arguments: list[str]) -> int:
    try:
        args, extra = build_parser().parse_known_args(arguments)
        if extra:
            raise _UsageError(
                f"{args.command}: unrecognized arguments: {' '.join(extra)} "
                f"(see 'lmml {args.command} --help')"
            )
        handler: Callable[[argparse.Namespace], int] = args.handler
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return handler(args)
    except (LmmlError, OSError, CliError) as error:
        if isinstance(error, BrokenPipeError):
            return _broken_pipe()
        print(f"lmml: error: {shown(_error_text(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lmml: error: interrupted", file=sys.stderr)
        return 130
    except Exception as error:
        # A bug, not bad input: still one line, but say so and offer the traceback.
        if os.environ.get(_DEBUG_VARIABLE):
            raise
        print(
            f"lmml: error: internal error ({type(error).__name__}: {shown(_error_text(error))}); "
            f"set {_DEBUG_VARIABLE}=1 for the traceback",
            file=sys.stderr,
        )
        return 2


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """Library warnings (an orphaned entry, a left-out embed) as one ``lmml: warning:`` line."""
    print(f"lmml: warning: {shown(_one_line(str(message)))}", file=sys.stderr)


def _broken_pipe() -> int:
    # The reader went away (``lmml cat x a.png | head``): stop quietly, and point stdout at
    # /dev/null so the interpreter's final flush does not complain.
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 1
