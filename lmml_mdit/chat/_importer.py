"""Import chat payloads: JSON values, files and JSONL datasets, into bundles."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from ..atomic import batched_folder_syncs, write_error
from ..bundle import LIMITS_CLI_HINT, Limits, open_input
from ..conversation import ChatConversation, resolve_calls
from ..errors import (
    ImportFormatError,
    InvalidSettingsError,
    LimitExceededError,
    NotInlinableError,
    WriteError,
)
from ..formats import ARCHIVE_SUFFIX, BUNDLE_SUFFIXES, NARRATIVE_SUFFIX, ZIP_SIGNATURES
from ..jsonio import load_json
from ..media import SVG_TYPE, sniff
from ..stdin import STDIN_LABEL, STDIN_NAME, stdin_buffer
from ..text import is_unicode
from ._detect import detect_format
from ._tools import portable_settings
from ._writer import checked_bundle, save_conversation, warn_unsendable, write_bundle
from .providers import FORMATS

if TYPE_CHECKING:
    from ..bundle import Bundle

__all__ = [
    "MAX_DEPTH",
    "READ_CHUNK",
    "Progress",
    "import_messages",
    "import_path",
    "read_conversation",
]


class Progress(Protocol):
    """A progress callback: the library reports, the caller (the ``lmml`` command line)
    draws. Called as ``progress(done, total, detail)`` after each item; *total* is None
    when the count is not known in advance (a JSONL file is read as a stream)."""

    def __call__(self, done: int, total: int | None, detail: str) -> None: ...


_JSONL_SUFFIXES = (".jsonl", ".ndjson")
MAX_DEPTH = 200
"""How deep a payload may nest (lists and objects); chat payloads nest a few levels, and
the JSON writers recurse once per level."""


def _load_json(data: str | bytes) -> Any:
    return load_json(
        data,
        error_class=ImportFormatError,
        name=None,
        subject="chat data",
        hint="fix the JSON; for one conversation per line use a .jsonl file",
        lone_surrogates=True,  # refused later, naming their place
    )


def _place(nodes: list[tuple[int, object, int]], index: int) -> str:
    """The payload path (``messages[0].content``) of node *index*, from its parent links."""
    steps: list[str] = []
    while index > 0:
        parent, key, _ = nodes[index]
        steps.append(f"[{key}]" if isinstance(key, int) else f".{key}")
        index = parent
    return "".join(reversed(steps)).lstrip(".") or "the payload"


def _check_payload(data: object) -> None:
    """Refuse a string that is not valid Unicode, or nesting past :data:`MAX_DEPTH`,
    anywhere in *data*, naming the place.

    One walk over the payload, without recursion (payloads may nest deeply): each node
    keeps only its parent's index, key and depth, so a path is spelled out only for the
    error.

    :raises ImportFormatError: for a key or value holding a lone surrogate, or a payload
        nested too deeply.
    """
    values: list[Any] = [data]
    nodes: list[tuple[int, object, int]] = [(-1, "", 0)]
    for index, value in enumerate(values):  # the list grows while walked: breadth first
        depth = nodes[index][2]
        if isinstance(value, (dict, list, tuple)) and depth >= MAX_DEPTH:
            raise ImportFormatError(
                f"the payload nests deeper than {MAX_DEPTH} levels",
                name=_place(nodes, index),
                hint="a chat payload nests a few levels; check that this is the right data",
            )
        if isinstance(value, dict):
            children: Any = value.items()
        elif isinstance(value, (list, tuple)):
            children = enumerate(value)
        else:
            if isinstance(value, str) and not is_unicode(value):
                raise ImportFormatError(
                    "a string holds a lone surrogate, which is not valid Unicode",
                    name=_place(nodes, index),
                    hint="fix the text (a \\udXXX escape without its pair) before importing",
                )
            continue
        for key, child in children:
            if isinstance(key, str) and not is_unicode(key):
                raise ImportFormatError(
                    "a key holds a lone surrogate, which is not valid Unicode",
                    name=_place(nodes, index),
                    hint="fix the key before importing",
                )
            values.append(child)
            nodes.append((index, key, depth + 1))


def read_conversation(data: object, format: str | None = None) -> ChatConversation:
    """Read a payload into the neutral :class:`~lmml_mdit.conversation.ChatConversation`.

    A ``tool`` message whose format gives only the id of the call it answers gets the
    assistant's call of that id when the payload holds it (so :attr:`ToolCall.name
    <lmml_mdit.conversation.ToolCall.name>` is known); otherwise a call with that id, name
    ``""`` and arguments None.

    Tools, tool choice and structured output in the payload's own form are stored in the
    portable form (:func:`~lmml_mdit.chat.portable_settings`), so the bundle sends
    them to every provider.

    :raises ImportFormatError: for an unknown format name, a payload that does not fit, or
        a malformed tool, tool choice or output schema.
    """
    if isinstance(data, (str, bytes, bytearray)):
        data = _load_json(bytes(data) if isinstance(data, bytearray) else data)
    _check_payload(data)
    chosen = format if format is not None else detect_format(data)
    found = FORMATS.get(chosen)
    if found is None:
        raise ImportFormatError(
            f"unknown import format {chosen!r}", hint=f"use one of {', '.join(FORMATS)}"
        )
    try:
        conversation = found.read(data)
    except ImportFormatError as error:
        if format is not None:
            raise
        raise _detected_as(error, chosen) from None
    resolve_calls(conversation.messages)
    try:
        conversation.settings = portable_settings(conversation.settings)
    except InvalidSettingsError as error:
        raise ImportFormatError(error.message, name=error.name, hint=error.hint) from None
    return conversation


def _detected_as(error: ImportFormatError, chosen: str) -> ImportFormatError:
    """*error* of a payload read as *chosen*, its format found from its shape: the hint
    also says so, since the payload may be another format's that looks the same (an
    Anthropic body of plain user and assistant text reads as an OpenAI chat)."""
    others = ", ".join(name for name in FORMATS if name != chosen)
    said = f"it was read as {chosen}, judged by its shape"

    def joined(hint: str | None, choose: str) -> str:
        return f"{hint}; {said}: {choose}" if hint else f"{said}: {choose}"

    return ImportFormatError(
        error.message,
        name=error.name,
        line=error.line,
        column=error.column,
        file=error.file,
        kind=error.kind,
        hint=joined(error.hint, f"if it is another format's, pass format= ({others})"),
        cli_hint=joined(
            error.cli_hint or error.hint, f"if it is another format's, give --format ({others})"
        ),
    )


def import_messages(
    data: object, format: str | None = None, *, name: str = "conversation"
) -> Bundle:
    """Import one conversation into a zip bundle held in memory.

    :param data: the parsed JSON value (a messages list or a request body), or its JSON
        text as ``str``/``bytes``.
    :param format: ``openai``, ``openai-responses``, ``anthropic``, ``gemini`` or
        ``sharegpt``; detected from the shape when left out.
    :param name: the bundle name (the narrative becomes ``<name>.lmml``).
    :raises ImportFormatError: when the format is unknown, ambiguous, or the data does not
        fit it; the message names the place in the payload and the hint what to do.
    """
    return write_bundle(read_conversation(data, format), name=name)


def _save(bundle: Bundle, target: Path) -> Path:
    if target.suffix == NARRATIVE_SUFFIX:
        try:
            bundle = bundle.inline()
        except NotInlinableError as error:
            # The asset's own error names only the asset and offers inline's remedies; the
            # one to act on here is the file being written, and an archive holds anything.
            archive = target.with_suffix(ARCHIVE_SUFFIX)
            raise NotInlinableError(
                f"a {NARRATIVE_SUFFIX} holds text only, and the conversation's asset "
                f"{error.name} cannot be inlined: {error.message}",
                name=str(target),
                hint=f"import to a {ARCHIVE_SUFFIX} path, such as {archive}",
                cli_hint=f"give -o {archive}",
            ) from None
    bundle.save(target)
    return target


def _located(error: ImportFormatError, file: str, line: int | None) -> ImportFormatError:
    """*error* again, naming the file (and line), its place in the payload kept."""
    message = f"{error.name}: {error.message}" if error.name else error.message
    return ImportFormatError(
        message, name=file, line=line, hint=error.hint, cli_hint=error.cli_hint
    )


def _report(progress: Progress | None, done: int, total: int | None, detail: str) -> None:
    if progress is not None:
        progress(done, total, detail)


READ_CHUNK = 1024 * 1024
"""The most bytes a payload is read at a time, from a file or standard input."""


def _too_large(display: str, limits: Limits, line: int | None = None) -> LimitExceededError:
    what = "a line" if line is not None else "the payload"
    return LimitExceededError(
        f"{what} is larger than max_total_size ({limits.max_total_size} bytes), the most "
        "a bundle may hold",
        name=display,
        line=line,
        hint="split the conversation, or pass limits=lmml_mdit.Limits(max_total_size=...) "
        "if you trust the data",
        cli_hint=LIMITS_CLI_HINT,
    )


def _read_payload(stream: IO[bytes], limits: Limits, display: str) -> bytes:
    """A payload read to its end in chunks, refusing more than ``max_total_size`` bytes
    before holding more than that (a pipe may not say how much is coming).

    :raises LimitExceededError: for a longer payload.
    """
    cap = limits.max_total_size
    data = bytearray()
    while len(data) <= cap:
        chunk = stream.read(min(READ_CHUNK, cap + 1 - len(data)))
        if not chunk:
            return bytes(data)
        data += chunk
    raise _too_large(display, limits)


def import_path(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    format: str | None = None,
    progress: Progress | None = None,
    *,
    limits: Limits | None = None,
) -> list[Path]:
    """Import a chat file into bundles and return the paths written.

    A ``.json`` file (or ``-`` for standard input) holds one conversation and is written to
    *out* (``.lmmlz``; ``.lmml`` when it has no binary asset); when *out* is an existing
    folder the bundle is ``<out>/<stem>.lmmlz``. A ``.jsonl``/``.ndjson`` file holds one
    conversation per line; *out* is then a folder (created if needed) receiving one bundle
    per non-blank line, named by its line number: ``000001.lmmlz``, ``000002.lmmlz``...

    A JSONL file is read a line at a time, each line's JSON dropped once its conversation
    is read, and each bundle is written with :func:`~lmml_mdit.chat.save_conversation`,
    which escapes and checks the narrative a bounded piece at a time: memory follows the
    largest line, not the file, nor the whole parse of a narrative. A payload (a JSON
    file, standard input, one line) is read in chunks, and one larger than the limits'
    ``max_total_size`` (the most a bundle may hold) is refused before it is held.

    :param progress: called as ``progress(done, total, detail)`` after each bundle.
    :param limits: the limits payloads are read under (default :class:`Limits`).
    :raises ImportFormatError: for data that does not fit, naming the file and line.
    :raises LimitExceededError: for a payload over ``max_total_size``.
    :raises StdinClosedError: for ``-`` when standard input is closed.
    :raises BundleNotFoundError: when *path* does not exist (also a FileNotFoundError).
    :raises BundleError: when *path* cannot be read, or a bundle cannot be written.
    :raises WriteError: when a JSONL import's folder *out* cannot be made (a file in the
        way, a read-only parent), naming *out*.
    """
    limits = limits if limits is not None else Limits()
    source = Path(path)
    target = Path(out)
    stdin = str(path) == "-"
    if not stdin and source.suffix.lower() in _JSONL_SUFFIXES:
        return _import_jsonl(source, target, format, progress, limits)
    # Standard input is named as every reader names it: "<stdin>" in messages, and
    # "stdin" for the bundle (never "-.lmmlz", a name other tools read as an option).
    shown, stem = (STDIN_LABEL, STDIN_NAME) if stdin else (str(source), source.stem)
    if stdin:
        raw = _read_payload(stdin_buffer(), limits, shown)
    else:
        with open_input(source) as handle:
            raw = _read_payload(handle, limits, shown)
    name = target.stem if target.suffix in BUNDLE_SUFFIXES else stem
    other = _not_chat_data(raw, shown)
    if other is not None:
        raise other
    try:
        conversation = read_conversation(_load_json(raw), format)
        bundle = checked_bundle(conversation, name)
    except ImportFormatError as error:
        raise _located(error, shown, error.line) from None
    if target.is_dir():
        target = target / f"{stem}.lmmlz"
    written = [_save(bundle, target)]
    warn_unsendable(conversation, bundle, str(written[0]))
    _report(progress, 1, 1, str(target))
    return written


def _not_chat_data(raw: bytes, shown: str) -> ImportFormatError | None:
    """The error for a file that is plainly no chat payload: an LMML bundle (an archive,
    or a ``.lmml`` not starting as JSON does), an image, a PDF; None for anything else,
    which the JSON reader then judges."""
    head = raw.lstrip()[:1]
    if raw[:4] in ZIP_SIGNATURES or (
        shown.lower().endswith(BUNDLE_SUFFIXES) and head not in (b"{", b"[")
    ):
        return ImportFormatError(
            "this is an LMML bundle, not chat data",
            name=shown,
            hint=f"{_READS}; 'lmml render PATH --request' makes a request body of a bundle",
        )
    kind = sniff(raw)
    if kind is not None and kind != SVG_TYPE:
        major, _, subtype = kind.partition("/")
        label = subtype.removeprefix("vnd.microsoft.").removeprefix("x-").upper()
        what = {"image": "image", "audio": "audio file"}.get(major, "document")
        return ImportFormatError(
            f"this is a {label} {what}, not chat data", name=shown, hint=_READS
        )
    return None


_READS = "lmml import reads a chat request body or chat export (JSON)"


def _folder_error(folder: Path, error: OSError) -> WriteError:
    """The error for a JSONL import's output *folder* that cannot be made: a file in the
    way (at *folder* or above it) is said as such, any other failure as a write."""
    if not isinstance(error, (FileExistsError, NotADirectoryError)):
        return write_error(str(folder), error)
    failure = WriteError(
        "a JSONL file imports into a folder, one bundle per line, and a file is in the way",
        name=str(folder),
        hint="give an output folder with -o (a new one, or an existing folder)",
    )
    failure.errno = error.errno
    return failure


def _import_jsonl(
    source: Path, folder: Path, format: str | None, progress: Progress | None, limits: Limits
) -> list[Path]:
    if folder.suffix in BUNDLE_SUFFIXES:
        raise ImportFormatError(
            "a JSONL file imports into a folder, one bundle per line",
            name=str(folder),
            hint="give an output folder with -o",
        )
    handle = open_input(source)  # before the folder is made: a missing file leaves none
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except BaseException as error:
        handle.close()
        if isinstance(error, OSError):
            raise _folder_error(folder, error) from None
        raise
    written: list[Path] = []
    cap = limits.max_total_size
    # One folder fsync for the whole batch: each bundle is still written atomically.
    with handle, batched_folder_syncs():
        number = 0
        while line := handle.readline(cap + 1):
            number += 1
            if len(line) > cap:
                raise _too_large(str(source), limits, number)
            if not line.strip():
                continue
            stem = f"{number:06d}"
            target = folder / f"{stem}.lmmlz"
            try:
                # The line and its JSON go as soon as the conversation is read.
                conversation = read_conversation(_load_json(line), format)
                del line
                save_conversation(conversation, str(target))
            except ImportFormatError as error:
                raise _located(error, str(source), number) from None
            del conversation
            written.append(target)
            _report(progress, len(written), None, stem)
    return written
