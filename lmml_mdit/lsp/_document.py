"""One open document, analysed: its text opened as a bundle the way ``lmml validate`` opens
the file, and the issues :meth:`Bundle.validate <lmml_mdit.bundle.Bundle.validate>`
finds in it.

A ``file:`` document resolves references against the files beside it; an unsaved buffer
has no folder. Text that is no narrative does not raise: the failure is kept, for a
diagnostic. See docs/editors.md, "The language server".
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote, urlparse

from ..bundle import Bundle, FolderNames, Limits, ParseOptions, narrative_cap, not_lmml, open_bundle
from ..chat import chat_payload_error
from ..errors import LmmlError, NotLmmlError
from ..formats import ARCHIVE_SUFFIX, NARRATIVE_SUFFIX, ZIP_SIGNATURES
from ..model import Issue
from ..narrative import Narrative, Tracked, parse, parse_tracked, reparse
from ..text import normalize_newlines

__all__ = ["Analysis", "analyse", "path_of"]

_REPLACEMENT = "\ufffd"
"""What an editor shows for bytes that are not UTF-8."""

_UNTITLED = "untitled" + NARRATIVE_SUFFIX
"""The narrative's name for a document with no file name."""


def path_of(uri: str) -> str | None:
    """The local path of a ``file:`` *uri*, or None for any other scheme."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/") and path[2:3] == ":":
        path = path[1:]
    return os.path.normpath(path)


@dataclass(frozen=True)
class Analysis:
    """A document's bundle and issues, for one version of its text.

    :ivar uri: the document's URI.
    :ivar version: the client's version of the text, or None.
    :ivar text: the text analysed.
    :ivar path: the file behind a ``file:`` URI, or None.
    :ivar bundle: the text opened as a bundle, or None when it could not be.
    :ivar failure: why it could not be opened (or validated), or None.
    :ivar issues: what validation found, ordered by line.
    """

    uri: str
    version: int | None
    text: str
    path: str | None
    bundle: Bundle | None
    failure: LmmlError | None = None
    issues: tuple[Issue, ...] = ()
    _lines: tuple[str, ...] = field(default=(), repr=False)
    tracked: Tracked | None = field(default=None, repr=False, compare=False)
    """The parse an edit re-parses in part (see :func:`analyse`), or None."""

    @property
    def narrative(self) -> Narrative | None:
        """The parsed narrative, or None when the text could not be opened."""
        return self.bundle.narrative if self.bundle is not None else None

    @property
    def lines(self) -> Sequence[str]:
        """The document's lines (the narrative's, or the raw text's when it has none)."""
        narrative = self.narrative
        return narrative.lines if narrative is not None else self._lines

    @property
    def folder(self) -> str | None:
        """The folder references resolve against, or None."""
        return self.bundle.base_dir if self.bundle is not None else None


def analyse(
    uri: str, text: str, version: int | None = None, previous: Analysis | None = None
) -> Analysis:
    """Open *text*, the document at *uri*, as a bundle and validate it.

    Given the *previous* analysis of an earlier text of the same document (a bare
    narrative that opened), only the blocks around the edit are parsed again
    (:mod:`lmml_mdit.narrative`): the bundle and issues are those of a full open.

    :param uri: the document's URI (a ``file:`` URI gives it a folder and a name).
    :param text: its current text.
    :param version: the client's version of it.
    :param previous: the analysis of the document's text before the edit, or None.
    """
    if previous is not None:
        again = _analyse_again(previous, uri, text, version)
        if again is not None:
            return again
    path = path_of(uri)
    folder = os.path.dirname(path) if path is not None else None
    if folder is not None and not os.path.isdir(folder):
        folder = None
    name = os.path.basename(path) if path is not None else _UNTITLED
    failure: LmmlError | None = None
    bundle: Bundle | None = None
    try:
        bundle = _open(text, name, path, folder)
    except LmmlError as error:
        failure = error
    if bundle is None:
        return Analysis(uri, version, text, path, None, failure, _lines=_raw_lines(text))
    try:
        issues = tuple(bundle.validate())
    except LmmlError as error:
        failure, issues = error, ()
    return Analysis(uri, version, text, path, bundle, failure, issues)


def _analyse_again(previous: Analysis, uri: str, text: str, version: int | None) -> Analysis | None:
    """The analysis of *text* re-parsed in part from *previous*, or None where only a full
    open gives the same answer (no bundle before, an archive, a payload, an undecodable
    file, a text over the size limit, a folder since deleted)."""
    old = previous.bundle
    if old is None or old.kind != "text" or previous.failure is not None or previous.uri != uri:
        return None
    if _REPLACEMENT in text or text.lstrip()[:1] in ("{", "[") or text.startswith("\ufeff"):
        return None
    if old.base_dir is not None and not os.path.isdir(old.base_dir):
        return None  # the folder is gone (one stat per check): a full open has none
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    if len(data) > narrative_cap(old.limits) or not_lmml(data, old.file_name or "") is not None:
        return None
    tracked = previous.tracked
    if tracked is None:
        tracked = parse_tracked(previous.text, known_names=_known(old.base_dir), name=old.file_name)
    tracked = reparse(tracked, text, name=old.file_name)
    bundle = Bundle(
        kind="text",
        name=old.name,
        narrative_name=old.narrative_name,
        narrative=tracked.narrative,
        limits=old.limits,
        base_dir=old.base_dir,
        file_name=old.file_name,
    )
    if chat_payload_error(bundle, path=previous.path) is not None:
        return None
    try:
        issues = tuple(bundle.validate())
    except LmmlError as error:
        return Analysis(uri, version, text, previous.path, bundle, error, (), tracked=tracked)
    return Analysis(uri, version, text, previous.path, bundle, None, issues, tracked=tracked)


def _known(base_dir: str | None) -> FolderNames | None:
    return FolderNames(base_dir) if base_dir is not None else None


def _open(text: str, name: str, path: str | None, folder: str | None) -> Bundle:
    """The bundle *text* opens as, or the error the file itself gives.

    :raises LmmlError: for text that is no narrative.
    """
    if _REPLACEMENT in text and path is not None:
        _refuse_undecodable_file(text, name, path, folder)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates: those a lossy decode leaves are its bytes back; parse() names any
        # other, with its line and column.
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            parse(text, name=name)
            raise
    return _open_data(data, name, path, folder)


def _open_data(data: bytes, name: str, path: str | None, folder: str | None) -> Bundle:
    """The bundle *data* opens as, as :func:`lmml_mdit.open` opens the file at *path*: a
    chat payload refused with the ``lmml import`` command for that file.

    :raises LmmlError: for data that is no narrative.
    """
    bundle = open_bundle(
        data, Limits(), folder if folder is not None else False, name, ParseOptions()
    )
    error = chat_payload_error(bundle, path=path)
    if error is not None:
        bundle.close()
        raise error
    return bundle


def _refuse_undecodable_file(text: str, name: str, path: str, folder: str | None) -> None:
    """Raise what opening the file on disk raises when the editor shows it decoded lossily
    (an image, a zip, text that is not UTF-8); return when it is not that file.

    :raises LmmlError: the file's own failure.
    """
    try:
        with open(path, "rb") as stream:
            data = stream.read(len(text) * 4 + 4)
    except OSError:
        return
    if data.decode("utf-8", "replace").removeprefix("\ufeff") != text.removeprefix("\ufeff"):
        return  # edited since: the text itself is what is analysed
    if data[:4] in ZIP_SIGNATURES:
        raise NotLmmlError(
            f"this is a {ARCHIVE_SUFFIX} archive, not a narrative an editor can change",
            name=name,
            hint=f"run `lmml inline {name}` to write its narrative as an editable "
            f"{NARRATIVE_SUFFIX} file",
        )
    _open_data(data, name, path, folder).close()


def _raw_lines(text: str) -> tuple[str, ...]:
    lines = normalize_newlines(text).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return tuple(lines)
