"""Opening a file that should be a bundle, telling a chat payload apart: :func:`open`.

The bundle layer opens the bytes (:func:`~lmml_mdit.bundle.opening.open_bundle`); only here,
where the chat formats are known, can a JSON file be recognised as a chat to import rather
than read as a narrative that happens to hold JSON.
"""

from __future__ import annotations

import os
import re

from ..bundle import BaseDir, Bundle, BundleInput, Limits, ParseOptions, open_bundle
from ..errors import LmmlError, NotLmmlError
from ..formats import ARCHIVE_SUFFIX
from ..jsonio import parse_json
from ..syntax import DelimiterMode, ReferenceMode

__all__ = ["chat_payload_error", "open"]

_LEADING_SPACE = re.compile(r"\s*")


def open(
    source: BundleInput,
    *,
    limits: Limits | None = None,
    base_dir: BaseDir = None,
    name: str | None = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
) -> Bundle:
    """Open a bundle from a path or fsspec URL, bytes or a binary file object.

    Zip or text is decided by the first bytes (``PK\\x03\\x04`` or the empty-archive
    ``PK\\x05\\x06``), never by the extension. A path's archive is read lazily: only the
    central directory and the narrative are read now.

    A bare ``.lmml`` opened from a path sees its own folder: its references resolve against
    the files beside it (never outside that folder: no absolute names, no ``..``, no links
    leading out), and those file names count as known asset names for the parser.

    :param source: a path, an fsspec URL (``memory://``, ``file://``, ``s3://``, ...: see
        :mod:`lmml_mdit.bundle.urls`; an archive there is read entry by entry through the
        filesystem's file object), the bundle's bytes, or a readable binary file object.
    :param limits: safety limits (see :class:`~lmml_mdit.Limits`); defaults when None.
    :param base_dir: for a text bundle, the folder to resolve external references against:
        None (default) means the file's own folder for a path and none for bytes or a file
        object; False means no folder at all.
    :param name: the bundle or file name, when *source* is not a path (or to override it).
    :param delimiters: ``"strict"`` (default) or ``"loose"`` role headings, as for
        :func:`~lmml_mdit.parse`.
    :param references: ``"assets"`` (default) or ``"any"``, as for :func:`~lmml_mdit.parse`.
    :raises BundleNotFoundError: when the path does not exist (also a FileNotFoundError).
    :raises NotLmmlError: when the file is plainly something else (an image, a PDF, a JSON
        chat payload: then it says to run ``lmml import``).
    :raises MissingNarrativeError: when an archive's narrative entry cannot be found.
    :raises LmmlSyntaxError: when the narrative is not valid UTF-8.
    :raises BundleError: when the file cannot be read; see
        :func:`lmml_mdit.bundle.archive.open_archive` for every archive error.
    """
    # The bundle layer opens the bytes; a chat payload can only be told apart here.
    bundle = open_bundle(
        source,
        limits if limits is not None else Limits(),
        base_dir,
        name,
        ParseOptions(delimiters, references),
    )
    path = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
    error = chat_payload_error(bundle, path=path)
    if error is not None:
        bundle.close()
        raise error
    return bundle


def chat_payload_error(bundle: Bundle, *, path: str | None = None) -> NotLmmlError | None:
    """The error for a text bundle whose narrative is a JSON chat payload (its format
    guessed as :func:`~lmml_mdit.chat.detect_format` guesses it), or None: for any
    other narrative, JSON that is no chat and ``[]`` or ``{}`` included.

    :param path: the path the bundle was opened from, for the command to run (None: it came
        from standard input, where ``lmml import`` reads ``-``).
    """
    if bundle.kind != "text":
        return None
    text = bundle.narrative.text
    leading = _LEADING_SPACE.match(text)
    start = leading.end() if leading is not None else 0
    if not text.startswith(("{", "["), start):
        return None
    try:
        value = parse_json(text[start:])
    except (ValueError, RecursionError):  # not JSON (or nested too deeply): a narrative
        return None
    if not value:
        return None  # "[]" or "{}" is as much a (tiny) narrative as anything
    # Imported here: the chat formats are read only for a narrative that is JSON, so
    # opening any other bundle does not pay for them.
    from ._detect import FORMAT_DESCRIPTIONS, detect_format

    try:
        chat = FORMAT_DESCRIPTIONS.get(detect_format(value), "a chat")
    except LmmlError:
        return None  # JSON, but no chat: Markdown text may hold anything
    return NotLmmlError(
        f"this is not an LMML narrative: it looks like {chat}; run `lmml import` to convert it",
        name=bundle.file_name,
        hint="or call lmml_mdit.chat.importer.import_path()",
        # Bytes reach the command line only from standard input, which lmml import reads as -.
        cli_hint=f"lmml import {path} -o {os.path.splitext(path)[0]}{ARCHIVE_SUFFIX}"
        if path is not None
        else f"lmml import - -o chat{ARCHIVE_SUFFIX}",
    )
