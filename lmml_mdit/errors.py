"""The errors lmml_mdit raises.

Every error the library raises on user input derives from :class:`LmmlError` and carries
what a person needs to act (name, line, hint; see docs/errors.md). Some also derive from
the builtin a caller would expect, shown in brackets.

The tree, in the order the classes are defined below::

    LmmlError
    ├── LmmlSyntaxError
    ├── MissingPluginError [TypeError]
    ├── BundleError
    │   ├── BundleNotFoundError [FileNotFoundError]
    │   ├── NotLmmlError
    │   ├── InvalidZipError
    │   ├── MissingNarrativeError
    │   ├── UnsafeEntryError
    │   ├── DuplicateEntryError
    │   ├── CaseCollisionError
    │   ├── SymlinkEntryError
    │   ├── EncryptedEntryError
    │   ├── LimitExceededError
    │   ├── MissingEntryError
    │   ├── UnresolvableReferenceError
    │   ├── ConflictingEmbedError
    │   ├── InvalidManifestError
    │   ├── InvalidSettingsError
    │   ├── NotInlinableError
    │   ├── DefectError
    │   └── WriteError [OSError]
    ├── UnsupportedContentError
    ├── EmbedBudgetError
    ├── InvalidToolCallError
    ├── InputError
    │   └── StdinClosedError
    ├── ImportFormatError
    ├── FormatError
    ├── PromptFileError
    ├── TranscriptError
    │   ├── ReadOnlyTranscriptError [TypeError]
    │   ├── TranscriptTypeError [TypeError]
    │   ├── TranscriptIndexError [IndexError]
    │   ├── MessageNotFoundError [ValueError]
    │   ├── TranscriptFormatError [ValueError]
    │   └── ChatTemplateError
    ├── RunError
    │   ├── MissingCredentialsError
    │   ├── ProviderError
    │   ├── ProviderConnectionError
    │   ├── StreamCutError
    │   └── ToolLoadError
    └── ExpectError

The warnings, all below, derive from :class:`LmmlWarning` (a ``UserWarning``), so one
filter silences or raises them all::

    LmmlWarning
    ├── DefectWarning
    ├── OrphanedEntryWarning
    ├── FolderReferenceWarning
    ├── NativeItemDroppedWarning
    ├── EmbedOmittedWarning
    ├── SystemContentWarning
    ├── UnknownSettingWarning
    ├── SettingRangeWarning
    ├── MissingSettingWarning
    ├── ProviderPluginWarning
    ├── PromptFileWarning
    └── RewrittenHeadingWarning
"""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Issue


def location(where: str, line: int | None, column: int | None) -> str:
    """The one location format: ``WHERE:LINE:COL`` with the parts that are known (``line N``
    when there is no *where*).

    :param where: the file (``chat.lmml``, ``session.lmmlz!settings.yaml``), or ``""``.
    """
    if line is None:
        return where
    text = f"{where}:{line}" if where else f"line {line}"
    return f"{text}:{column}" if column is not None else text


def file_location(bundle_file: str, inner: str | None, *, archive: bool) -> str:
    """The file a line of a bundle counts in: *bundle_file* itself (*inner* None), an
    archive entry as ``bundle.lmmlz!settings.yaml``, or a file beside a bare narrative
    as its path (``chats/settings.yaml`` for ``chats/x.lmml``).

    :param inner: the entry or file name the line counts in, or None for the narrative.
    :param archive: whether *bundle_file* is an archive (else a bare narrative).
    """
    if inner is None:
        return bundle_file
    if archive:
        return f"{bundle_file}!{inner}"
    return os.path.join(os.path.dirname(bundle_file), inner)


class LmmlError(Exception):
    """Base class of every error raised by lmml_mdit.

    ``str(error)`` reads ``FILE:LINE:COL: kind: message (hint)``, each part present when
    known: FILE is *file* (the narrative, or ``bundle.lmmlz!settings.yaml`` for a line inside
    an entry), else *name*; LINE counts in that file.

    :param message: what went wrong, in one sentence.
    :param name: the file, entry or embed the error is about, if any.
    :param line: the 1-based line in the narrative, if known.
    :param column: the 1-based column in that line, if known.
    :param hint: what the reader can do about it, in Python terms.
    :param file: the file *line* counts in, when it is known and differs from *name*.
    :param kind: the defect's kind as ``validate`` names it (``missing_reference``), if any.
    :param cli_hint: *hint* as the command line words it (naming flags, never Python
        arguments), when the two differ; see :meth:`format`.
    """

    def __init__(
        self,
        message: str,
        *,
        name: str | None = None,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
        file: str | None = None,
        kind: str | None = None,
        cli_hint: str | None = None,
    ) -> None:
        self.message = message
        self.name = name
        self.line = line
        self.column = column
        self.hint = hint
        self._entry: str | None = None
        self.file = file
        self.kind = kind
        self.cli_hint = cli_hint
        super().__init__(self._format())

    def _format(self) -> str:
        return self.format()

    @property
    def file(self) -> str | None:
        """The file the error's line counts in (``bundle.lmmlz!settings.yaml`` for a line
        inside an archive entry), or None."""
        if self._entry is None or self._file is None:
            return self._file
        return file_location(self._file, self._entry, archive=True)

    @file.setter
    def file(self, file: str | None) -> None:
        self._file = file
        self._entry = None

    def _lie_in(self, file: str, entry: str | None = None) -> None:
        """Name the file this error's line counts in: *file*, or its archive *entry*, kept
        apart from it (:attr:`file` joins them); ``str(error)`` then reads the new place."""
        self._file, self._entry = file, entry
        self.args = (self._format(),)

    def locate(self, file: str) -> None:
        """Name *file* as the file this error's line counts in, when the error has a line
        but names no file yet (raised below the bundle, which knows the narrative's name);
        ``str(error)`` then reads ``FILE:LINE:COL: ...``."""
        if self.line is not None and self.file is None:
            self.file = file
            self.args = (self._format(),)

    def concern(self, name: str) -> None:
        """Name *name* (a file's path) as what the error is about, when it names nothing
        yet (raised while reading that file, below the code that knows its path);
        ``str(error)`` then reads ``NAME: ...``."""
        if self.name is None and self.file is None:
            self.name = name
            self.args = (self._format(),)

    def place(self) -> tuple[str, int | None, int | None]:
        """Where the error lies: ``(FILE, LINE, COL)`` as :meth:`format` starts with them
        (FILE ``""`` when it names none; LINE and COL None when not known)."""
        return self.file if self.file is not None else self.name or "", self.line, self.column

    def _message(self, cli: bool) -> str:
        """The message part of :meth:`format` (for the command line when *cli*)."""
        return self.message

    def advice(self, *, cli: bool = False) -> str | None:
        """The hint to show: :attr:`cli_hint` for the command line (and an editor, which
        runs commands, not Python) where set, else :attr:`hint`; None when there is none."""
        return self.cli_hint if cli and self.cli_hint is not None else self.hint

    def format(self, *, cli: bool = False, hint: bool = True, place: bool = True) -> str:
        """The error as one line: ``FILE:LINE:COL: kind: message (hint)``.

        :param cli: word it for the command line (:attr:`cli_hint` where set).
        :param hint: whether to add the hint.
        :param place: whether to start with ``FILE:LINE:COL`` (for a caller that says the
            place itself).
        """
        message = self._message(cli)
        text = f"{self.kind}: {message}" if self.kind else message
        where = location(*self.place()) if place else ""
        if where:
            text = f"{where}: {text}"
        advice = self.advice(cli=cli)
        if advice and hint:
            text += f" ({advice})"
        return text


class LmmlSyntaxError(LmmlError):
    """The narrative cannot be read: invalid UTF-8, for example."""


class MissingPluginError(LmmlError, TypeError):
    """A parser handed to :func:`lmml_mdit.parse` lacks :func:`lmml_mdit.lmml_plugin`."""


class BundleError(LmmlError):
    """A bundle cannot be opened, read or written."""


class BundleNotFoundError(BundleError, FileNotFoundError):
    """The path given to :func:`lmml_mdit.open` (or :func:`lmml_mdit.import_path`) does not
    exist (also a :class:`FileNotFoundError`, so either ``except`` catches it)."""

    def __init__(self, message: str, *, name: str, hint: str | None = None) -> None:
        BundleError.__init__(self, message, name=name, hint=hint)
        self.errno = errno.ENOENT
        self.filename = name
        self.strerror = message

    def __str__(self) -> str:
        return self._format()


class NotLmmlError(BundleError):
    """The file is something else (an image, a PDF, a zip without a narrative, a JSON chat
    payload); the message says what it is."""


class InvalidZipError(BundleError):
    """The archive is truncated or corrupt."""


class MissingNarrativeError(BundleError):
    """A ``.lmmlz`` archive has no narrative entry, or more than one candidate."""


class UnsafeEntryError(BundleError):
    """An entry or embed name is absolute, has a backslash, a ``..`` segment, a drive letter,
    a NUL or is empty."""


class DuplicateEntryError(BundleError):
    """An archive holds the same entry name twice."""


class CaseCollisionError(BundleError):
    """An archive holds entry names that differ only in case."""


class SymlinkEntryError(BundleError):
    """An archive entry is a symbolic link."""


class EncryptedEntryError(BundleError):
    """An archive entry is encrypted."""


class LimitExceededError(BundleError):
    """An archive crosses a safety limit (entry count, size or compression ratio)."""


class MissingEntryError(BundleError):
    """An external reference names an entry the archive does not hold."""


class UnresolvableReferenceError(BundleError):
    """An external reference in a bare ``.lmml`` has nothing to resolve against."""


class ConflictingEmbedError(BundleError):
    """One embed name stands for different bytes (two fences, or a fence and an entry)."""


class InvalidManifestError(BundleError):
    """``manifest.json`` is not valid JSON or not a JSON object."""


class InvalidSettingsError(BundleError):
    """The settings embed is not a valid YAML or JSON mapping."""


class NotInlinableError(BundleError):
    """An asset cannot become an inline fence (binary, or not valid UTF-8 text)."""


class DefectError(BundleError):
    """A bundle with an error-level defect was asked to send (``messages()``,
    ``to_request()``, ``render_turns()``): the error :meth:`Bundle.validate` reports. (A
    warning-level defect every send reports is carried in one too, inside a
    ``DefectWarning``, and raised by ``lmml render --strict``.)

    :ivar issue: the :class:`~lmml_mdit.model.Issue` (its ``kind`` is also :attr:`kind`).
    """

    def __init__(self, issue: Issue, *, file: str | None = None) -> None:
        self.issue = issue
        refused = issue.severity == "error" and issue.forceable
        super().__init__(
            issue.message,
            name=issue.name,
            line=issue.line,
            column=issue.column,
            file=file,
            kind=issue.kind,
            hint="fix it, or pass strict=False to send anyway" if refused else None,
            cli_hint="fix it, or add --force to send anyway" if refused else None,
        )

    def _message(self, cli: bool) -> str:
        if cli and self.issue.cli_message is not None:
            return self.issue.cli_message
        return self.message


class WriteError(BundleError, OSError):
    """A file cannot be written: the destination is not a regular file (a folder, a device,
    a FIFO, a socket), or its folder is missing, read-only or full. It names the
    destination as given, never a temporary file, and is also an :class:`OSError`."""


class UnsupportedContentError(LmmlError):
    """A provider cannot take an embed's content."""


class EmbedBudgetError(LmmlError):
    """An embed does not fit the ``max_embed_bytes`` budget of its message and the caller
    asked for omissions to raise."""


class InvalidToolCallError(LmmlError):
    """A ``*.tool_call.json`` fence is not a JSON object with ``id``, ``name`` and
    ``arguments``, or a ``tool`` turn does not answer a known call."""


class InputError(LmmlError):
    """A template's input value is missing, undeclared or of the wrong type (``inputs=``,
    ``--input``, a ``--cases`` line); its :attr:`kind` is the ``validate`` kind
    (``missing_input``, ``undeclared_input``, ``invalid_input``)."""


class StdinClosedError(InputError):
    """A path of ``-`` names standard input, and the process has none (it was started
    with standard input closed)."""


class ImportFormatError(LmmlError):
    """Chat data to import is not in the format given, or in none known."""


class FormatError(LmmlError):
    """Formatting a narrative (``lmml fmt``, ``format_text``) would change its conversation
    (a turn, an embed, a reference, an escape, a placeholder or the text sent), so it is
    left as it is; mdformat with the plugin leaves it so too, with this as a warning."""


class PromptFileError(LmmlError):
    """A prompt file (Prompty, dotprompt, ``.prompt.yml``, LangChain JSON) holds what the
    other side cannot hold: logic LMML lacks, or what the written format lacks."""


class TranscriptError(LmmlError):
    """A transcript operation cannot be done."""


class ReadOnlyTranscriptError(TranscriptError, TypeError):
    """A mutator was called on a read-only ``Transcript.with_extra()`` view."""


class TranscriptTypeError(TranscriptError, TypeError):
    """A transcript method got an argument of the wrong type (a ``bool`` message reference,
    a tokenizer without ``apply_chat_template``, a ``pov`` without a name)."""


class TranscriptIndexError(TranscriptError, IndexError):
    """A message index lies outside the transcript."""


class MessageNotFoundError(TranscriptError, ValueError):
    """A ``Message`` given as a reference is not (by identity) in the transcript."""


class TranscriptFormatError(TranscriptError, ValueError):
    """A saved transcript file has the wrong version or shape, or metadata cannot be stored
    losslessly."""


class ChatTemplateError(TranscriptError):
    """A tokenizer's chat template refused the rendered messages."""


class RunError(LmmlError):
    """Sending a conversation to a provider (``send``, ``lmml run``) failed."""


class MissingCredentialsError(RunError):
    """No API key: the provider's SDK found none in its environment variable, and no
    client or key was given."""


class ProviderError(RunError):
    """The provider refused the request (a 4xx, or a 429 or 5xx after the retries); its
    :attr:`status` is the HTTP status and the message is the provider's own."""

    status: int | None = None


class ProviderConnectionError(RunError):
    """The provider could not be reached (connection refused, DNS, a timeout); the
    message names the URL."""


class StreamCutError(RunError):
    """The connection failed while a reply was streaming; what arrived is in
    :attr:`partial` (text), and nothing was written unless asked."""

    partial: str = ""


class ToolLoadError(RunError):
    """A ``--tool MODULE:FUNCTION`` cannot be imported, or is not a function."""


# --- warnings ----------------------------------------------------------------------------


class ExpectError(LmmlError):
    """An ``expect`` list is malformed or names an unknown assertion (checked before anything
    is sent; names the cases file and line)."""


class LmmlWarning(UserWarning):
    """The base of every warning lmml_mdit issues:
    ``warnings.filterwarnings("ignore", category=lmml_mdit.LmmlWarning)`` silences them all.

    :ivar cli_message: the message as the command line words it (naming flags such as
        ``--set max_tokens=N`` or ``--midway-system user``, never Python arguments), or
        None when it is the same.
    """

    def __init__(self, *args: object, cli_message: str | None = None) -> None:
        super().__init__(*args)
        self.cli_message = cli_message


class DefectWarning(LmmlWarning):
    """An error-level defect in a bundle sent anyway (``strict=False``, ``--force``), or a
    warning-level one every command that sends or shows a bundle reports
    (:data:`lmml_mdit.severity.WARNED_KINDS`: ``suspicious_delimiter``).

    :ivar error: the :class:`~lmml_mdit.errors.DefectError` a strict send would raise.
    :ivar issue: its :class:`~lmml_mdit.model.Issue`.
    """

    def __init__(self, error: DefectError) -> None:
        super().__init__(error.format(hint=False))
        self.error = error
        self.issue = error.issue


class OrphanedEntryWarning(LmmlWarning):
    """``inline()`` met entries the narrative never mentions (kept as fences at the end, or
    left out with ``orphans="drop"``; the warning names them)."""


class FolderReferenceWarning(LmmlWarning):
    """``save()`` wrote a bare ``.lmml`` away from the folder its references resolve in:
    the files it used there (named in the warning) are not beside the new file."""


class NativeItemDroppedWarning(LmmlWarning):
    """A provider-specific item was left out of an export to a provider that cannot take it."""


class EmbedOmittedWarning(LmmlWarning):
    """An embed was left out of a message because it did not fit ``max_embed_bytes``."""


class SystemContentWarning(LmmlWarning):
    """``messages()`` for Anthropic or Gemini kept system content out of the list (on the
    result's ``system`` attribute) without being told where it goes."""


class UnknownSettingWarning(LmmlWarning):
    """A setting the provider has no parameter for was left out of a request."""


class SettingRangeWarning(LmmlWarning):
    """A number setting outside the range the provider's API reference gives was sent as
    given (the warning names the rule)."""


class MissingSettingWarning(LmmlWarning):
    """A request went without a setting it usually has: a required parameter took its
    documented default (Anthropic's ``max_tokens``), or a model the API does not require
    was left out (OpenAI Responses). Its ``cli_message`` names ``--set max_tokens=N``.
    """


class ProviderPluginWarning(LmmlWarning):
    """An installed chat format plugin (entry point group ``lmml_mdit.providers``) was left
    out: it failed to load, is not a format, or takes a name already registered. The message
    names the entry point."""


class PromptFileWarning(LmmlWarning):
    """Converting a prompt file kept something as it was (an unknown model parameter) or,
    with ``lossy``, left out what the written format cannot hold; the message names it."""


class RewrittenHeadingWarning(LmmlWarning):
    """A transcript read from a bundle opened with ``delimiters="loose"`` was written with
    delimiter headings that only loose parsing reads as delimiters (``## User question``):
    the transcript writes strict delimiters, so those headings change although their turns
    were not edited. The message names them."""
