"""The language server: :class:`LmmlLanguageServer`, its features registered by
:func:`build_server`, and :func:`serve` (what ``lmml lsp`` runs, over stdio).

Each open document is analysed once per version (:func:`~.document.analyse`) and every
request reads that analysis; diagnostics are debounced, and no failing request stops the
server. See docs/editors.md, "The language server".
"""

from __future__ import annotations

import asyncio
import functools
import os
import stat
import sys
import threading
import traceback
from collections.abc import Awaitable, Callable, Sequence
from math import inf
from typing import Any, Final, Protocol, TypeVar, cast
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.io_ import StdinAsyncReader, StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.workspace import TextDocument

from .._version import __version__
from ..bundle import Limits
from ..jsontypes import JSONObject
from ._actions import code_actions
from ._completion import TRIGGER_CHARACTERS, complete
from ._diagnostics import SOURCE, diagnostics
from ._document import Analysis, analyse, path_of
from ._hover import hover
from ._navigation import definition, references
from ._outline import document_symbols, folding_ranges
from ._positions import Columns
from ._preview import PREVIEW_METHOD, preview, preview_uri

__all__ = ["DEFAULT_DEBOUNCE", "SERVER_NAME", "LmmlLanguageServer", "build_server", "serve"]

SERVER_NAME = "lmml"
"""The name the server gives the client."""

DEFAULT_DEBOUNCE = 0.3
"""Seconds to wait after a change before the document is analysed again."""

_Params = TypeVar("_Params")
_Result = TypeVar("_Result")


class LmmlLanguageServer(LanguageServer):
    """The LMML language server.

    :param debounce: seconds to wait after a change before publishing diagnostics again
        (0 publishes at once).
    """

    def __init__(self, debounce: float = DEFAULT_DEBOUNCE) -> None:
        super().__init__(
            SERVER_NAME, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental
        )
        self.debounce = debounce
        self.analyses: dict[str, Analysis] = {}
        self._pending: dict[str, asyncio.TimerHandle] = {}

    # -- analyses ------------------------------------------------------------------------

    @property
    def encoding(self) -> str:
        """The position encoding agreed with the client: ``utf-8``, ``utf-16`` or ``utf-32``."""
        agreed = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
        # pygls keeps the client's string, or its own default as the enum member (whose
        # str() is "PositionEncodingKind.Utf16", not the value).
        return agreed.value if isinstance(agreed, types.PositionEncodingKind) else agreed

    def document(self, uri: str) -> TextDocument:
        """The document *uri*: the one the client has open, or else a regular file inside
        a workspace folder, read within ``max_narrative_bytes``.

        :raises JsonRpcInvalidParams: for any other URI (a file outside the workspace
            folders, a FIFO, a device, a folder, a file over the limit, another scheme).
        """
        opened: TextDocument | None = self.workspace.text_documents.get(unquote(uri))
        if opened is not None:
            return opened
        return TextDocument(uri, source=self._read_closed(uri))

    def _read_closed(self, uri: str) -> str:
        path = path_of(uri)
        if path is None:
            raise _refused(uri, "it is not open and not a file: URI")
        real = os.path.realpath(path)
        roots = [
            os.path.realpath(root)
            for root in (path_of(folder.uri) for folder in self.workspace.folders.values())
            if root is not None
        ]
        if self.workspace.root_path and not roots:
            roots.append(os.path.realpath(self.workspace.root_path))
        if not any(real != root and os.path.commonpath([root, real]) == root for root in roots):
            raise _refused(uri, "it is not open and lies outside the workspace folders")
        limit = Limits().max_narrative_bytes
        try:
            descriptor = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as error:
            raise _refused(uri, f"it cannot be read ({error.strerror or error})") from None
        with os.fdopen(descriptor, "rb") as stream:
            status = os.fstat(descriptor)
            if not stat.S_ISREG(status.st_mode):
                raise _refused(uri, "it is not a regular file")
            if status.st_size > limit:
                raise _refused(uri, f"it is over max_narrative_bytes ({limit} bytes)")
            data = stream.read(limit + 1)
        if len(data) > limit:
            raise _refused(uri, f"it is over max_narrative_bytes ({limit} bytes)")
        return data.decode("utf-8", errors="replace")

    def analysis(self, uri: str) -> Analysis:
        """The analysis of the document *uri*'s current text (made now when its version has
        none yet; see :meth:`document` for a document the client never opened)."""
        document = self.document(uri)
        text = document.source
        cached = self.analyses.get(uri)
        if cached is not None and cached.version == document.version and cached.text == text:
            return cached
        # The re-parse reuses (and shifts) the cached parse's tokens: once started, the cached
        # analysis is spent, even if this one fails.
        self.analyses.pop(uri, None)
        fresh = analyse(uri, text, document.version, cached)
        if uri in self.workspace.text_documents:
            self.analyses[uri] = fresh
        return fresh

    def latest(self, uri: str) -> Analysis:
        """The document's latest analysis, even if its text has changed since (made now when
        there is none)."""
        cached = self.analyses.get(uri)
        return cached if cached is not None else self.analysis(uri)

    def columns(self, analysis: Analysis) -> Columns:
        """The positions of *analysis*'s lines in the client's units."""
        return Columns(analysis.lines, self.encoding)

    # -- diagnostics ---------------------------------------------------------------------

    def publish(self, uri: str) -> None:
        """Analyse *uri* now and publish its diagnostics."""
        self._cancel(uri)
        if uri not in self.workspace.text_documents:
            return
        version: int | None = None
        try:
            analysis = self.analysis(uri)
            version = analysis.version
            found = diagnostics(analysis, self.columns(analysis))
        except Exception as error:
            self.log_failure("diagnostics", uri)
            start = types.Position(line=0, character=0)
            found = [
                types.Diagnostic(
                    range=types.Range(start=start, end=start),
                    message=f"internal error in the LMML language server ({type(error).__name__}: "
                    f"{error}); the log has the traceback",
                    severity=types.DiagnosticSeverity.Error,
                    source=SOURCE,
                )
            ]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=version)
        )

    def schedule(self, uri: str) -> None:
        """Publish *uri*'s diagnostics :attr:`debounce` seconds from now, unless another
        change comes first (which schedules them again)."""
        self._cancel(uri)
        if self.debounce <= 0:
            self.publish(uri)
            return
        loop = asyncio.get_running_loop()
        self._pending[uri] = loop.call_later(self.debounce, self.publish, uri)

    def forget(self, uri: str) -> None:
        """Drop a closed document: no pending publication, no analysis, no diagnostics."""
        self._cancel(uri)
        self.analyses.pop(uri, None)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )

    def refresh(self, changed: Sequence[str]) -> None:
        """Analyse again the open documents beside (or above) the files *changed* (URIs),
        or whose folder is among them (deleted, say): an asset they reference may have
        appeared or gone. A change to an open document's own file is the editor's business,
        not news."""
        # Each as a folder name ending in a separator: a file in the folder or below starts
        # with the folder's; the folder itself or one above it, the folder with it.
        paths = [os.path.join(os.path.abspath(path), "") for path in map(path_of, changed) if path]
        for uri in list(self.workspace.text_documents):
            analysis = self.analyses.get(uri)
            folder = analysis.folder if analysis is not None else None
            if folder is None or uri in changed:
                continue
            root = os.path.join(os.path.abspath(folder), "")
            if any(path.startswith(root) or root.startswith(path) for path in paths):
                self.analyses.pop(uri, None)
                self.publish(uri)

    def _cancel(self, uri: str) -> None:
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()

    # -- failures ------------------------------------------------------------------------

    def log_failure(self, what: str, uri: str | None) -> None:
        """Log the exception being handled, with its traceback, to the client."""
        about = f" for {uri}" if uri else ""
        self.window_log_message(
            types.LogMessageParams(
                type=types.MessageType.Error,
                message=f"lmml: {what} failed{about}:\n{traceback.format_exc()}",
            )
        )


class _CustomParams(Protocol):
    """The params of a request outside the protocol (a JSON object, as the JSON-RPC layer
    makes attribute objects of them). Not ``object``: pygls passes the server as well to a
    handler whose first parameter the server's type satisfies."""


class _AtPosition(Protocol):
    """What a request about one position holds."""

    @property
    def text_document(self) -> types.TextDocumentIdentifier: ...

    @property
    def position(self) -> types.Position: ...


def _refused(uri: str, reason: str) -> JsonRpcInvalidParams:
    """The error response to a request on a document the server does not read."""
    return JsonRpcInvalidParams(f"lmml: {uri} is not read: {reason}")


def _uri_of(params: object) -> str | None:
    document = getattr(params, "text_document", None)
    uri = getattr(document, "uri", None)
    return uri if isinstance(uri, str) else preview_uri(params)


def _guarded(
    server: LmmlLanguageServer, what: str
) -> Callable[[Callable[[_Params], _Result]], Callable[[_Params], _Result | None]]:
    """A handler that answers None, the empty result (and logs why), instead of failing
    the request."""

    def wrap(handler: Callable[[_Params], _Result]) -> Callable[[_Params], _Result | None]:
        @functools.wraps(handler)
        def run(params: _Params) -> _Result | None:
            try:
                return handler(params)
            except JsonRpcException:
                raise  # an error response, by design
            except Exception:
                server.log_failure(what, _uri_of(params))
                return None

        return run

    return wrap


def _can_create_files(capabilities: types.ClientCapabilities) -> bool:
    """Whether the client applies a ``CreateFile`` operation in a workspace edit: it lists
    ``create`` among its ``workspace.workspaceEdit.resourceOperations`` (LSP 3.13)."""
    workspace = capabilities.workspace
    edit = workspace.workspace_edit if workspace is not None else None
    operations = edit.resource_operations if edit is not None else None
    return operations is not None and types.ResourceOperationKind.Create in operations


def build_server(debounce: float = DEFAULT_DEBOUNCE) -> LmmlLanguageServer:
    """A server with every feature registered.

    :param debounce: see :class:`LmmlLanguageServer` (an initialisation option overrides it).
    """
    server = LmmlLanguageServer(debounce)

    @server.feature(types.INITIALIZE)
    @_guarded(server, "initialize")
    def initialize(params: types.InitializeParams) -> None:
        options = params.initialization_options
        if not isinstance(options, dict) or "debounce" not in options:
            return
        value = options["debounce"]
        # As `lmml lsp --debounce` reads it: finite, 0 or more (NaN fails both comparisons).
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < inf:
            server.debounce = float(value)
            return
        server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=(
                    f"lmml: the initialisation option debounce must be 0 or more seconds, "
                    f"not {value!r}; keeping {server.debounce:g}"
                ),
            )
        )

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    @_guarded(server, "open")
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        server.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    @_guarded(server, "change")
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        server.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    @_guarded(server, "save")
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        server.analyses.pop(params.text_document.uri, None)
        server.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    @_guarded(server, "close")
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        server.forget(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    @_guarded(server, "file change")
    def files_changed(params: types.DidChangeWatchedFilesParams) -> None:
        server.refresh([change.uri for change in params.changes])

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS),
    )
    @_guarded(server, "completion")
    def completion(params: types.CompletionParams) -> types.CompletionList | None:
        uri = params.text_document.uri
        document = server.document(uri)
        line = params.position.line
        lines = document.lines
        text = lines[line].rstrip("\r\n") if line < len(lines) else ""
        columns = Columns.of_line(line, text, server.encoding)
        return complete(server.latest(uri), columns, line, columns.column(params.position))

    def at(params: _AtPosition) -> tuple[Analysis, Columns, int, int]:
        analysis = server.analysis(params.text_document.uri)
        columns = server.columns(analysis)
        return analysis, columns, params.position.line, columns.column(params.position)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @_guarded(server, "hover")
    def on_hover(params: types.HoverParams) -> types.Hover | None:
        return hover(*at(params))

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @_guarded(server, "definition")
    def on_definition(params: types.DefinitionParams) -> list[types.Location] | None:
        return definition(*at(params))

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @_guarded(server, "references")
    def on_references(params: types.ReferenceParams) -> list[types.Location] | None:
        return references(*at(params), declaration=params.context.include_declaration)

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @_guarded(server, "document symbols")
    def on_symbols(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
        analysis = server.analysis(params.text_document.uri)
        narrative = analysis.narrative
        if narrative is None:
            return []
        return document_symbols(narrative, server.columns(analysis))

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    @_guarded(server, "folding ranges")
    def on_folding(params: types.FoldingRangeParams) -> list[types.FoldingRange] | None:
        narrative = server.analysis(params.text_document.uri).narrative
        return folding_ranges(narrative) if narrative is not None else []

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    @_guarded(server, "code actions")
    def on_code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        analysis = server.analysis(params.text_document.uri)
        span = params.range
        return code_actions(
            analysis,
            server.columns(analysis),
            span.start.line,
            span.end.line,
            create_files=_can_create_files(server.client_capabilities),
        )

    @server.feature(PREVIEW_METHOD)
    @_guarded(server, "preview")
    def on_preview(params: _CustomParams) -> JSONObject | None:
        uri = preview_uri(params)
        if uri is None:  # invalid params: an error response, as for any other request
            raise JsonRpcInvalidParams(
                f"lmml: {PREVIEW_METHOD} takes {{'textDocument': {{'uri': URI}}}}"
            )
        return preview(server.analysis(uri))

    return server


MAX_MESSAGE_BYTES: Final = 4 * Limits().max_narrative_bytes
"""The largest message body the server reads (a ``Content-Length`` above it is refused
without reading the body): room for the largest narrative, JSON-escaped."""

MAX_HEADER_BYTES: Final = 8 * 1024
"""The longest header line the server reads; a longer one is read in pieces, none
matching a header, so it is skipped."""

_REFUSED_BODY: Final = b"\x00refused"
"""What the reader hands pygls for a refused body: no JSON, so pygls logs it and reads on."""


class _BoundedReader(StdinAsyncReader):
    """Standard input for pygls's message loop, within :data:`MAX_HEADER_BYTES` a line and
    :data:`MAX_MESSAGE_BYTES` a body."""

    def readline(self) -> Awaitable[bytes]:
        loop: asyncio.AbstractEventLoop = self.loop
        return loop.run_in_executor(self.executor, self.stdin.readline, MAX_HEADER_BYTES)

    def readexactly(self, n: int) -> Awaitable[bytes]:
        if n > MAX_MESSAGE_BYTES:
            future: asyncio.Future[bytes] = self.loop.create_future()
            future.set_result(_REFUSED_BODY)
            return future
        return super().readexactly(n)


def _answer_invalid_requests(server: LmmlLanguageServer) -> None:
    """Make a request whose params do not read get a JSON-RPC error response (pygls only
    logs it, leaving the client waiting)."""
    protocol = server.protocol
    structure = protocol.structure_message

    def answering(data: Any) -> Any:
        try:
            return structure(data)
        except JsonRpcException as failure:
            if isinstance(data, dict) and "id" in data and "method" in data:
                error = types.ResponseError(
                    code=failure.code, message=f"lmml: {data['method']}: {failure.message}"
                )
                protocol._send_response(data["id"], error=error)
            raise

    protocol.structure_message = answering  # type: ignore[method-assign]


def serve(debounce: float = DEFAULT_DEBOUNCE) -> None:
    """Run the language server over standard input and output until the client exits.

    A message over :data:`MAX_MESSAGE_BYTES` or a malformed header is logged and skipped;
    the server reads on.

    :param debounce: see :class:`LmmlLanguageServer`.
    """
    server = build_server(debounce)
    stop = threading.Event()
    server._stop_event = stop
    server.protocol.set_writer(StdoutWriter(sys.stdout.buffer))
    reader = _BoundedReader(sys.stdin.buffer, server.thread_pool)
    _answer_invalid_requests(server)
    try:
        asyncio.run(
            run_async(
                stop_event=stop,
                reader=reader,
                protocol=server.protocol,
                error_handler=server.report_server_error,
            )
        )
    except BrokenPipeError:
        pass  # the client is gone
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        cast("Callable[[], object]", server.shutdown)()
