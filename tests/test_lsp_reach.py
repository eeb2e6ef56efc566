"""The language server answers only for documents the client has open, or regular files
inside the workspace folders within the size limit; anything else is an error response."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from lmml_mdit.lsp import LmmlLanguageServer, build_server


def _server(root: Path) -> LmmlLanguageServer:
    server = build_server(debounce=0)
    steps = server.protocol.lsp_initialize(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="w")],
        )
    )
    for _ in steps:  # pygls's initialize, run as its protocol runs it (no client here)
        pass
    return server


def test_a_closed_file_outside_the_workspace_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (root / "inside.lmml").write_text("## user\n\nhello\n", encoding="utf-8")
    secret = tmp_path / "secret.lmml"
    secret.write_text("## user\n\nTOP SECRET\n", encoding="utf-8")
    os.symlink(secret, root / "link.lmml")
    server = _server(root)
    assert "hello" in server.document((root / "inside.lmml").as_uri()).source
    for uri in (
        secret.as_uri(),
        (root / "link.lmml").as_uri(),
        "file:///etc/passwd",
        "untitled:x",
    ):
        with pytest.raises(JsonRpcInvalidParams, match="is not read"):
            server.analysis(uri)


def test_a_fifo_a_device_and_an_oversized_file_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    os.mkfifo(root / "pipe.lmml")
    big = root / "big.lmml"
    with big.open("wb") as stream:
        stream.truncate(33 * 1024 * 1024)  # sparse: over max_narrative_bytes
    server = _server(root)
    for path, reason in ((root / "pipe.lmml", "regular"), (big, "max_narrative_bytes")):
        with pytest.raises(JsonRpcInvalidParams, match=reason):
            server.analysis(path.as_uri())
    server_root = _server(Path("/dev"))
    with pytest.raises(JsonRpcInvalidParams, match="regular"):
        server_root.analysis("file:///dev/zero")


def test_an_open_document_is_answered_wherever_it_lies(tmp_path: Path) -> None:
    server = _server(tmp_path / "elsewhere")
    uri = (tmp_path / "open.lmml").as_uri()
    server.workspace.put_text_document(
        types.TextDocumentItem(uri=uri, language_id="lmml", version=1, text="## user\n\nhi\n")
    )
    assert server.analysis(uri).narrative is not None


def test_the_preview_of_etc_passwd_is_an_error_response_not_a_page(tmp_path: Path) -> None:
    from lmml_mdit.lsp import PREVIEW_METHOD

    server = _server(tmp_path)
    handler = server.protocol.fm.features[PREVIEW_METHOD]
    params = {"textDocument": {"uri": "file:///etc/passwd"}}
    with pytest.raises(JsonRpcInvalidParams, match="outside the workspace"):
        handler(params)
    hover = server.protocol.fm.features[types.TEXT_DOCUMENT_HOVER]
    with pytest.raises(JsonRpcInvalidParams):
        hover(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri="file:///etc/passwd"),
                position=types.Position(line=0, character=0),
            )
        )


@pytest.mark.parametrize("params", [5, {}, {"uri": 5}, ["x"], {"textDocument": {}}])
def test_a_preview_request_naming_no_document_is_an_invalid_params_error(
    tmp_path: Path, params: object
) -> None:
    from lmml_mdit.lsp import PREVIEW_METHOD

    handler = _server(tmp_path).protocol.fm.features[PREVIEW_METHOD]
    with pytest.raises(JsonRpcInvalidParams, match="takes"):
        handler(params)


def _message(body: dict[str, object]) -> bytes:
    import json

    data = json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def test_the_server_survives_oversize_and_malformed_input_and_answers_invalid_params() -> None:
    import subprocess
    import sys

    stream = (
        b"Content-Length: 99999999999\r\n\r\n"  # over MAX_MESSAGE_BYTES: refused unread
        + b"not a header at all\r\n"
        + b"X" * 20_000  # a header line over MAX_HEADER_BYTES
        + b"\r\n"
        + _message(
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
        )
        + _message(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "textDocument/hover",
                "params": {"textDocument": 7},
            }
        )
        + _message({"jsonrpc": "2.0", "id": 3, "method": "shutdown"})
        + _message({"jsonrpc": "2.0", "method": "exit"})
    )
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-m", "lmml_mdit", "lsp"],
        input=stream,
        capture_output=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    out = done.stdout
    assert b'"id": 1, "jsonrpc": "2.0", "result": {"capabilities"' in out
    assert b'"code": -32602' in out and b'"id": 2}' in out
    assert b'"id": 3, "jsonrpc": "2.0", "result": null' in out
    assert b"MemoryError" not in done.stderr and b"OverflowError" not in done.stderr


@pytest.mark.parametrize(
    ("offered", "agreed"),
    [(None, "utf-16"), (["utf-8", "utf-16"], "utf-8"), (["utf-32"], "utf-32")],
)
def test_the_agreed_position_encoding_is_its_value(offered: list[str] | None, agreed: str) -> None:
    # A client offering no encoding got pygls's default as an enum member, and str() of it
    # read "PositionEncodingKind.Utf16", which no column conversion recognised.
    server = build_server(debounce=0)
    general = types.GeneralClientCapabilities(position_encodings=offered)
    for _ in server.protocol.lsp_initialize(
        types.InitializeParams(capabilities=types.ClientCapabilities(general=general))
    ):
        pass
    assert server.encoding == agreed
    uri = "untitled:x"
    server.workspace.put_text_document(
        types.TextDocumentItem(
            uri=uri, language_id="lmml", version=1, text="## user\n\U0001f600 @a\n"
        )
    )
    analysis = server.analysis(uri)
    position = server.columns(analysis).position(1, 2)
    assert position.character == {"utf-8": 5, "utf-16": 3, "utf-32": 2}[agreed]
