"""The language server end to end: ``python -m lmml_mdit lsp`` (and the ``lmml lsp`` console
script) started as a process and driven over stdio by pytest-lsp's client, with real LSP
messages: diagnostics as edits add and remove defects, completion, hover, definition,
references, the outline, folding, quick fixes, the ``lmml/preview`` request, and a server that
survives a failing request and input that is no narrative.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

ROOT = Path(__file__).resolve().parent.parent
PUBLISH = types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
TIMEOUT = 20.0

# A 3x2 PNG (its header is all the hover reads).
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAEklEQVR4nGP4z8DAwMDAwMDAAAAd9gP9Bv2h"
    "FwAAAABJRU5ErkJggg=="
)


def _server_env() -> dict[str, str]:
    """The test's environment, with this tree first on the path (the server must run the
    code under test, wherever the process starts)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _initialize_params(**options: Any) -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        initialization_options=options or None,
    )


pytestmark = pytest.mark.asyncio(loop_scope="module")

_PUBLISHED: dict[int, list[types.PublishDiagnosticsParams]] = {}
"""Every publication each client received, in order (keyed by the client's id)."""


def _log(client: LanguageClient) -> list[types.PublishDiagnosticsParams]:
    return _PUBLISHED.setdefault(id(client), [])


def _record(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    _log(client).append(params)


def _recording_client() -> LanguageClient:
    """pytest-lsp's test client, keeping every publication (not only the last per URI), so
    none is missed between two waits."""
    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, PUBLISH: _record})
    return client


def _config(command: list[str]) -> ClientServerConfig:
    return ClientServerConfig(
        server_command=command, client_factory=_recording_client, server_env=_server_env()
    )


@pytest_lsp.fixture(scope="module", config=_config([sys.executable, "-m", "lmml_mdit", "lsp"]))
async def client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    # Diagnostics at once after each change, so the tests wait for nothing else.
    await lsp_client.initialize_session(_initialize_params(debounce=0))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of assets beside the narratives the tests open."""
    root = tmp_path_factory.mktemp("narratives")
    (root / "screenshot.png").write_bytes(PNG)
    (root / "notes.txt").write_text("first line\nsecond line\n", encoding="utf-8")
    (root / "data").mkdir()
    (root / "data" / "table.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    return root


def _uri(path: Path) -> str:
    return path.as_uri()


class Document:
    """One document open in the server, its text kept in step with the edits sent."""

    def __init__(self, client: LanguageClient, path: Path, text: str) -> None:
        self.client = client
        self.path = path
        self.uri = _uri(path)
        self.text = text
        self.version = 1

    async def open(self) -> Sequence[types.Diagnostic]:
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=self.uri, language_id="lmml", version=self.version, text=self.text
                )
            )
        )
        return await published(self.client, self.uri, self.version)

    async def edit(self, edits: Sequence[types.TextEdit]) -> Sequence[types.Diagnostic]:
        """Apply *edits* here and send them as one incremental change each, in reverse
        document order (so earlier positions stay valid), then wait for the diagnostics."""
        self.version += 1
        ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character))
        changes = []
        for edit in reversed(ordered):
            self.text = apply_edit(self.text, edit)
            changes.append(
                types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)
            )
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=self.uri, version=self.version
                ),
                content_changes=changes,
            )
        )
        return await published(self.client, self.uri, self.version)

    async def insert(self, line: int, character: int, text: str) -> Sequence[types.Diagnostic]:
        at = types.Position(line=line, character=character)
        return await self.edit([types.TextEdit(range=types.Range(start=at, end=at), new_text=text)])

    def close(self) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=self.uri)
            )
        )

    def identifier(self) -> types.TextDocumentIdentifier:
        return types.TextDocumentIdentifier(uri=self.uri)

    def at(self, needle: str, offset: int = 0) -> types.Position:
        """The position *offset* characters into the first occurrence of *needle*."""
        index = self.text.index(needle) + offset
        before = self.text[:index]
        return types.Position(line=before.count("\n"), character=index - (before.rfind("\n") + 1))


def apply_edit(text: str, edit: types.TextEdit) -> str:
    lines = text.split("\n")

    def offset(position: types.Position) -> int:
        return sum(len(line) + 1 for line in lines[: position.line]) + position.character

    return text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]


async def published(
    client: LanguageClient, uri: str, version: int | None = None, *, after: int = 0
) -> Sequence[types.Diagnostic]:
    """The diagnostics first published for *uri* at *version* (or at any version), among
    the publications after the first *after*."""
    log = _log(client)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while True:
        for params in log[after:]:
            if params.uri == uri and (version is None or params.version == version):
                return list(params.diagnostics)
        if loop.time() > deadline:
            raise TimeoutError(f"no diagnostics for {uri} at version {version}")
        await asyncio.sleep(0.01)


def codes(diagnostics: Sequence[types.Diagnostic]) -> list[str]:
    return [str(d.code) for d in diagnostics]


NARRATIVE = """\
## Turn 1 -- user
Look at @screenshot.pgn and @notes.txt, please.

## Turn 2 -- assistant
Here is the summary:

@@@summary.json
{"ok": true}
@@@

See @summary.json again.
"""


# -- diagnostics ---------------------------------------------------------------------------


async def test_diagnostics_on_open_name_range_severity_code_and_hint(
    client: LanguageClient, folder: Path
) -> None:
    document = Document(client, folder / "open.lmml", NARRATIVE)
    found = await document.open()
    assert codes(found) == ["missing_reference"]
    (missing,) = found
    assert missing.severity == types.DiagnosticSeverity.Error
    assert missing.source == "lmml"
    start = document.at("@screenshot.pgn")
    assert missing.range.start == start
    assert missing.range.end.character == start.character + len("@screenshot.pgn")
    assert "did you mean screenshot.png?" in missing.message
    assert "escape the mention" in missing.message
    document.close()


async def test_edits_add_and_remove_defects(client: LanguageClient, folder: Path) -> None:
    document = Document(client, folder / "edits.lmml", "## user\nHello.\n")
    assert await document.open() == []
    # An unclosed fence: an error at its @@@.
    found = await document.insert(2, 0, "\n@@@config.yaml\nkey: 1\n")
    assert codes(found) == ["unclosed_embed"]
    assert found[0].severity == types.DiagnosticSeverity.Error
    assert found[0].range.start == types.Position(line=3, character=0)
    # Closing it removes the defect.
    found = await document.insert(5, 0, "@@@\n")
    assert found == []
    # A near-miss role word: a warning on the word.
    found = await document.insert(0, 0, "## Turn 0 -- asistant\nHi.\n\n")
    assert codes(found) == ["suspicious_delimiter"]
    assert found[0].severity == types.DiagnosticSeverity.Warning
    assert found[0].range.start == types.Position(line=0, character=len("## Turn 0 -- "))
    # Deleting the heading's line removes it again.
    start, end = types.Position(line=0, character=0), types.Position(line=3, character=0)
    found = await document.edit(
        [types.TextEdit(range=types.Range(start=start, end=end), new_text="")]
    )
    assert found == []
    assert document.text == "## user\nHello.\n\n@@@config.yaml\nkey: 1\n@@@\n"
    document.close()


async def test_one_character_edit_breaks_and_fixes_a_name(
    client: LanguageClient, folder: Path
) -> None:
    document = Document(client, folder / "typo.lmml", "## user\nSee @notes.txt.\n")
    assert await document.open() == []
    found = await document.insert(1, len("See @notes"), "s")
    assert codes(found) == ["missing_reference"]
    assert "did you mean notes.txt?" in found[0].message
    position = types.Position(line=1, character=len("See @notes"))
    end = types.Position(line=1, character=len("See @notess"))
    found = await document.edit(
        [types.TextEdit(range=types.Range(start=position, end=end), new_text="")]
    )
    assert found == []
    document.close()


async def test_a_file_created_beside_is_seen_on_save(client: LanguageClient, folder: Path) -> None:
    document = Document(client, folder / "created.lmml", "## user\nSee @later.md.\n")
    assert codes(await document.open()) == ["missing_reference"]
    (folder / "later.md").write_text("# later\n", encoding="utf-8")
    mark = len(_log(client))
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=document.identifier())
    )
    assert await published(client, document.uri, after=mark) == []
    document.close()


async def test_a_deleted_folder_is_no_longer_named_once_the_client_reports_it(
    client: LanguageClient, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    document = Document(client, project / "gone.lmml", "## user\nSee @chart.png.\n")
    (found,) = await document.open()
    assert str(project) in found.message
    shutil.rmtree(project)
    mark = len(_log(client))
    # A client reports the folder, not each file in it.
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=_uri(project), type=types.FileChangeType.Deleted)]
        )
    )
    (found,) = await published(client, document.uri, after=mark)
    assert found.code == "missing_reference"
    assert str(project) not in found.message and "without a folder" in found.message
    document.close()


async def test_invalid_utf8_on_disk_is_a_diagnostic(client: LanguageClient, folder: Path) -> None:
    path = folder / "latin1.lmml"
    data = "## user\ncaf\xe9 au lait\n".encode("latin-1")
    path.write_bytes(data)
    # What an editor shows: the bytes decoded with replacement characters.
    document = Document(client, path, data.decode("utf-8", "replace"))
    (found,) = await document.open()
    assert found.severity == types.DiagnosticSeverity.Error
    assert "invalid UTF-8 at byte offset 11" in found.message
    assert found.range.start.line == 1
    document.close()


async def test_ranges_count_utf16_units(client: LanguageClient, folder: Path) -> None:
    document = Document(client, folder / "emoji.lmml", "## user\n\U0001f600 \u00e9 @gone.png\n")
    (found,) = await document.open()
    # The emoji takes two UTF-16 units, the accented letter one.
    assert found.range.start == types.Position(line=1, character=5)
    assert found.range.end == types.Position(line=1, character=5 + len("@gone.png"))
    document.close()


async def test_undecodable_text_from_the_client_is_a_diagnostic(
    client: LanguageClient, folder: Path
) -> None:
    # A client that passes the bytes it could not decode on as surrogate escapes.
    document = Document(client, folder / "escaped.lmml", "## user\nbad \udcff byte\n")
    (found,) = await document.open()
    assert "invalid UTF-8" in found.message
    assert found.range.start.line == 1
    document.close()


async def test_a_binary_file_is_a_diagnostic(client: LanguageClient, folder: Path) -> None:
    path = folder / "picture.lmml"
    path.write_bytes(PNG)
    document = Document(client, path, PNG.decode("utf-8", "replace"))
    (found,) = await document.open()
    assert found.severity == types.DiagnosticSeverity.Error
    assert "PNG image, not an LMML narrative" in found.message
    # The server goes on answering.
    assert (
        await client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=document.identifier())
        )
        == []
    )
    document.close()


# -- completion ----------------------------------------------------------------------------


async def _complete(
    client: LanguageClient, document: Document, position: types.Position
) -> dict[str, types.CompletionItem]:
    result = await client.text_document_completion_async(
        types.CompletionParams(text_document=document.identifier(), position=position)
    )
    assert isinstance(result, types.CompletionList)
    return {item.label: item for item in result.items}


async def test_completion_after_at_offers_resolvable_names(
    client: LanguageClient, folder: Path
) -> None:
    document = Document(client, folder / "complete.lmml", NARRATIVE)
    await document.open()
    await document.insert(2, 0, "And @\n")
    items = await _complete(client, document, types.Position(line=2, character=len("And @")))
    assert {"screenshot.png", "notes.txt", "summary.json", "data/"} <= set(items)
    assert "complete.lmml" not in items
    png = items["screenshot.png"]
    assert png.detail == f"image/png, {len(PNG):,} bytes, file"
    assert png.text_edit is not None and png.text_edit.new_text == "screenshot.png"
    fence = items["summary.json"]
    assert fence.detail == "application/json, 13 bytes, inline fence"
    # Inside a folder: the files there.
    await document.insert(2, len("And @"), "data/")
    items = await _complete(client, document, types.Position(line=2, character=len("And @data/")))
    assert "data/table.csv" in items
    assert items["data/table.csv"].detail == "text/csv, 8 bytes, file"
    document.close()


async def test_completion_offers_only_names_a_reference_can_spell(
    client: LanguageClient, tmp_path: Path
) -> None:
    # "@a(1).png" reads as "@a" and text, "@my file.png" as "@my": completing such a name
    # would write a mention that resolves to nothing, and with no diagnostic.
    for name in ("ok.png", "Makefile", "a(1).png", "my file.png", "-dash.png", "x+y.txt"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "my folder").mkdir()
    text = "## user\nAnd @\n\n@@@my notes.txt\nhi\n@@@\n\n@@@good.txt\nhi\n@@@\n"
    document = Document(client, tmp_path / "names.lmml", text)
    await document.open()
    items = await _complete(client, document, types.Position(line=1, character=len("And @")))
    assert sorted(items) == ["Makefile", "good.txt", "ok.png"]
    for label in ("Makefile", "ok.png"):
        edit = items[label].text_edit
        assert isinstance(edit, types.TextEdit)
        spelled = Document(client, tmp_path / f"spelled-{label}.lmml", text)
        await spelled.open()
        await spelled.edit([edit])
        # The completed mention is a reference to the file.
        shown = await _hover(client, spelled, spelled.at(f"@{label}", 1))
        assert shown is not None and "the file beside the narrative" in shown
        spelled.close()
    document.close()


async def test_completion_after_fence_marker_offers_unsupplied_names(
    client: LanguageClient, folder: Path
) -> None:
    document = Document(client, folder / "unsupplied.lmml", NARRATIVE)
    await document.open()
    await document.insert(11, 0, "@@@\n")
    items = await _complete(client, document, types.Position(line=11, character=3))
    # screenshot.pgn is referenced and nothing supplies it; the rest resolve.
    assert list(items) == ["screenshot.pgn"]
    assert items["screenshot.pgn"].detail == "referenced on line 2, not supplied yet"
    document.close()


async def test_completion_on_a_heading_offers_delimiter_forms(
    client: LanguageClient, folder: Path
) -> None:
    document = Document(client, folder / "heading.lmml", NARRATIVE)
    await document.open()
    await document.insert(11, 0, "\n## \n")
    items = await _complete(client, document, types.Position(line=12, character=3))
    assert {"Turn 3 -- user", "Turn 3 -- assistant", "Turn 3 -- system", "Turn 3 -- tool"} <= set(
        items
    )
    assert {"user", "assistant", "system", "tool"} <= set(items)
    assert items["Turn 3 -- assistant"].detail == "opens turn 3, an assistant turn"
    assert items["user"].detail == "opens a user turn"
    edit = items["Turn 3 -- user"].text_edit
    assert isinstance(edit, types.TextEdit)
    found = await document.edit([edit])
    assert document.text.endswith("## Turn 3 -- user\n")
    # The new heading is a delimiter: only the narrative's one defect remains.
    assert codes(found) == ["missing_reference"]
    await document.insert(13, 0, "<!-- \n")
    items = await _complete(client, document, types.Position(line=13, character=5))
    assert items["<!-- assistant -->"].detail == "opens an assistant turn"
    document.close()


# -- hover and navigation -----------------------------------------------------------------


async def _hover(
    client: LanguageClient, document: Document, position: types.Position
) -> str | None:
    result = await client.text_document_hover_async(
        types.HoverParams(text_document=document.identifier(), position=position)
    )
    if result is None:
        return None
    assert isinstance(result.contents, types.MarkupContent)
    return result.contents.value


async def test_hover_describes_what_a_name_resolves_to(
    client: LanguageClient, folder: Path
) -> None:
    text = NARRATIVE + "\nAlso @screenshot.png here.\n"
    document = Document(client, folder / "hover.lmml", text)
    await document.open()
    image = await _hover(client, document, document.at("@screenshot.png", 3))
    assert image is not None
    assert "the file beside the narrative" in image
    assert f"image/png, {len(PNG):,} bytes, 3×2 px" in image
    notes = await _hover(client, document, document.at("@notes.txt", 1))
    assert notes is not None and "first line\nsecond line" in notes
    fence = await _hover(client, document, document.at("@summary.json again", 2))
    assert fence is not None and "an inline fence on line 7" in fence and '{"ok": true}' in fence
    on_fence = await _hover(client, document, document.at("@@@summary.json", 5))
    assert on_fence == fence
    missing = await _hover(client, document, document.at("@screenshot.pgn", 2))
    assert missing is not None and "resolves to nothing" in missing
    assert "did you mean screenshot.png?" in missing
    assert await _hover(client, document, document.at("Look at")) is None
    document.close()


async def test_hover_says_when_no_provider_can_take_what_a_name_resolves_to(
    client: LanguageClient, tmp_path: Path
) -> None:
    # A TIFF image resolves (a file beside the narrative), but every send refuses it: the
    # hover says so, in validation's words, as well as what it is.
    (tmp_path / "scan.tif").write_bytes(b"II*\x00" + bytes(20))
    document = Document(client, tmp_path / "refused.lmml", "## user\nSee @scan.tif.\n")
    (found,) = await document.open()
    assert found.code == "unsendable_embed"
    shown = await _hover(client, document, document.at("@scan.tif", 2))
    assert shown is not None
    assert "the file beside the narrative" in shown and "image/tiff, 24 bytes" in shown
    assert found.message in shown
    document.close()


async def test_definition_and_references(client: LanguageClient, folder: Path) -> None:
    document = Document(client, folder / "navigate.lmml", NARRATIVE)
    await document.open()
    result = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=document.identifier(), position=document.at("@summary.json again", 3)
        )
    )
    assert isinstance(result, list)
    (fence,) = result
    assert fence.uri == document.uri
    assert fence.range.start == document.at("@@@summary.json", 3)
    result = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=document.identifier(), position=document.at("@notes.txt", 2)
        )
    )
    assert isinstance(result, list)
    (file,) = result
    assert file.uri == (folder / "notes.txt").as_uri()
    result = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=document.identifier(), position=document.at("@screenshot.pgn", 2)
        )
    )
    assert result == []
    every = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=document.identifier(),
            position=document.at("@@@summary.json", 4),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert every is not None
    assert [location.range.start for location in every] == [
        document.at("@@@summary.json", 3),
        document.at("@summary.json again", 1),
    ]
    only_mentions = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=document.identifier(),
            position=document.at("@summary.json again", 1),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert only_mentions is not None and len(only_mentions) == 1
    document.close()


# -- outline -------------------------------------------------------------------------------


async def test_document_symbols_and_folding(client: LanguageClient, folder: Path) -> None:
    document = Document(client, folder / "outline.lmml", "Preamble text.\n\n" + NARRATIVE)
    await document.open()
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=document.identifier())
    )
    assert symbols is not None
    assert all(isinstance(symbol, types.DocumentSymbol) for symbol in symbols)
    names = [symbol.name for symbol in symbols]  # type: ignore[union-attr]
    assert names == [
        "context: Preamble text.",
        "user: Look at @screenshot.pgn and @notes.txt, please.",
        "assistant: Here is the summary:",
    ]
    assistant = symbols[2]
    assert isinstance(assistant, types.DocumentSymbol)
    assert assistant.detail == "Turn 2 -- assistant"
    assert assistant.range.start.line == 5 and assistant.range.end.line == 12
    assert [child.name for child in assistant.children or []] == ["@@@summary.json"]
    folds = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=document.identifier())
    )
    assert folds is not None
    assert [(fold.start_line, fold.end_line) for fold in folds] == [
        (0, 1),
        (2, 4),
        (5, 12),
        (8, 10),
    ]
    document.close()


# -- code actions --------------------------------------------------------------------------


async def _actions(
    client: LanguageClient, document: Document, line: int
) -> dict[str, types.CodeAction]:
    at = types.Position(line=line, character=0)
    result = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=document.identifier(),
            range=types.Range(start=at, end=at),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert result is not None
    return {action.title: action for action in result if isinstance(action, types.CodeAction)}


def _edits(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    assert action.edit is not None and action.edit.changes is not None
    return list(action.edit.changes[uri])


async def test_quick_fix_closes_an_unclosed_fence(client: LanguageClient, folder: Path) -> None:
    document = Document(
        client, folder / "unclosed.lmml", "## user\n> @@@quote.txt\n> quoted\n\nAfter.\n"
    )
    assert codes(await document.open()) == ["unclosed_embed"]
    actions = await _actions(client, document, 1)
    fix = actions["Close the fence @@@quote.txt"]
    assert fix.is_preferred and fix.kind == types.CodeActionKind.QuickFix
    assert fix.diagnostics and fix.diagnostics[0].code == "unclosed_embed"
    assert await document.edit(_edits(fix, document.uri)) == []
    assert document.text == "## user\n> @@@quote.txt\n> quoted\n> @@@\n\nAfter.\n"
    document.close()


async def test_quick_fix_closes_a_fence_running_to_the_end(
    client: LanguageClient, folder: Path
) -> None:
    document = Document(client, folder / "unclosed-end.lmml", "## user\n@@@end.txt\nno newline")
    assert codes(await document.open()) == ["unclosed_embed"]
    fix = (await _actions(client, document, 1))["Close the fence @@@end.txt"]
    assert await document.edit(_edits(fix, document.uri)) == []
    assert document.text == "## user\n@@@end.txt\nno newline\n@@@"
    document.close()


async def test_quick_fixes_write_the_document_s_line_ends(
    client: LanguageClient, folder: Path
) -> None:
    # A file saved with CRLF line ends gets CRLF from the fixes too, not a lone LF.
    text = "## user\r\nHi.\r\n\r\n**Assistant:** hello\r\n\r\n@@@crlf.txt\r\nhi\r\n"
    document = Document(client, folder / "crlf.lmml", text)
    assert codes(await document.open()) == ["suspicious_delimiter", "unclosed_embed"]
    fix = (await _actions(client, document, 3))["Write the label as the heading '## assistant'"]
    await document.edit(_edits(fix, document.uri))
    fix = (await _actions(client, document, 7))["Close the fence @@@crlf.txt"]
    assert await document.edit(_edits(fix, document.uri)) == []
    assert document.text == (
        "## user\r\nHi.\r\n\r\n## assistant\r\n\r\nhello\r\n\r\n@@@crlf.txt\r\nhi\r\n@@@\r\n"
    )
    assert "\n" not in document.text.replace("\r\n", "")
    document.close()


async def test_quick_fixes_for_a_missing_reference(client: LanguageClient, folder: Path) -> None:
    text = "## user\nLook at @screenshot.pgn, again @screenshot.pgn.\n"
    document = Document(client, folder / "missing.lmml", text)
    # Each place is marked, not only the first (issue 26).
    assert codes(await document.open()) == ["missing_reference", "missing_reference"]
    actions = await _actions(client, document, 1)
    assert set(actions) == {
        "Did you mean screenshot.png? Change @screenshot.pgn to @screenshot.png",
        "Create the file screenshot.pgn beside the narrative",
        "Escape @screenshot.pgn: it is not an asset",
    }
    create = actions["Create the file screenshot.pgn beside the narrative"]
    assert create.edit is not None and create.edit.document_changes is not None
    (operation,) = create.edit.document_changes
    assert isinstance(operation, types.CreateFile)
    assert operation.uri == (folder / "screenshot.pgn").as_uri()
    escape = actions["Escape @screenshot.pgn: it is not an asset"]
    assert await document.edit(_edits(escape, document.uri)) == []
    assert document.text == "## user\nLook at \\@screenshot.pgn, again \\@screenshot.pgn.\n"
    document.close()

    document = Document(client, folder / "near-miss.lmml", text)
    await document.open()
    actions = await _actions(client, document, 1)
    fix = actions["Did you mean screenshot.png? Change @screenshot.pgn to @screenshot.png"]
    assert fix.is_preferred
    assert await document.edit(_edits(fix, document.uri)) == []
    assert document.text == "## user\nLook at @screenshot.png, again @screenshot.png.\n"
    document.close()


async def test_quick_fixes_for_near_miss_role_words(client: LanguageClient, folder: Path) -> None:
    document = Document(
        client, folder / "roles.lmml", "## Turn 1 -- usr\nHi.\n\n## Turn 2 | assistant\nHello.\n"
    )
    assert codes(await document.open()) == [
        "suspicious_delimiter",
        "suspicious_delimiter",
        "no_turns",
    ]
    fix = (await _actions(client, document, 0))["Change 'usr' to the role 'user'"]
    assert fix.is_preferred
    found = await document.edit(_edits(fix, document.uri))
    assert codes(found) == ["suspicious_delimiter"]
    fix = (await _actions(client, document, 3))["Write the heading as 'Turn 2 -- assistant'"]
    assert await document.edit(_edits(fix, document.uri)) == []
    assert document.text == "## Turn 1 -- user\nHi.\n\n## Turn 2 -- assistant\nHello.\n"
    document.close()

    document = Document(
        client, folder / "stand-in.lmml", "## Turn 1 -- user\nHi.\n\n## Turn 2 -- bot\nHello.\n"
    )
    await document.open()
    actions = await _actions(client, document, 3)
    assert "Change 'bot' to the role 'assistant'" in actions
    document.close()

    # an emphasised label, a Turn with no space before its number, a chat page's label
    text = "## user\nHi.\n\n## **ChatGPT said:**\nHello.\n\n## Turn3: user\nThanks.\n\n"
    text += "## You said:\n?\n"
    document = Document(client, folder / "pasted.lmml", text)
    assert codes(await document.open()) == ["suspicious_delimiter"] * 3
    fix = (await _actions(client, document, 3))["Write the heading as 'assistant:'"]
    assert fix.is_preferred
    await document.edit(_edits(fix, document.uri))
    fix = (await _actions(client, document, 6))["Write the heading as 'Turn 3 -- user'"]
    await document.edit(_edits(fix, document.uri))
    fix = (await _actions(client, document, 9))["Change 'You said' to the role 'user'"]
    assert fix.is_preferred
    assert await document.edit(_edits(fix, document.uri)) == []
    assert document.text == (
        "## user\nHi.\n\n## assistant:\nHello.\n\n## Turn 3 -- user\nThanks.\n\n## user:\n?\n"
    )
    document.close()


async def test_a_role_word_with_a_stray_colon_is_fixed_to_that_role(
    client: LanguageClient, folder: Path
) -> None:
    text = "## Turn 1 -- user\nHi.\n\n## Turn 2 -- assistant:\nHello.\n"
    document = Document(client, folder / "colon.lmml", text)
    assert codes(await document.open()) == ["suspicious_delimiter"]
    actions = await _actions(client, document, 3)
    fix = actions["Change 'assistant:' to the role 'assistant'"]
    assert fix.is_preferred
    # The role meant, alone: not one choice among the four.
    assert len(actions) == 1
    assert await document.edit(_edits(fix, document.uri)) == []
    assert document.text == "## Turn 1 -- user\nHi.\n\n## Turn 2 -- assistant\nHello.\n"
    document.close()


async def test_a_speaker_label_is_rewritten_as_the_heading_it_stands_for(
    client: LanguageClient, folder: Path
) -> None:
    document = Document(
        client,
        folder / "labels.lmml",
        "## Turn 1 -- user\nHi.\n\n**Assistant:**\nHello.\n\n**User:** thanks\n",
    )
    assert codes(await document.open()) == ["suspicious_delimiter", "suspicious_delimiter"]
    fix = (await _actions(client, document, 3))["Write the label as the heading '## assistant'"]
    assert fix.is_preferred
    assert codes(await document.edit(_edits(fix, document.uri))) == ["suspicious_delimiter"]
    fix = (await _actions(client, document, 6))["Write the label as the heading '## user'"]
    assert await document.edit(_edits(fix, document.uri)) == []
    assert document.text == "## Turn 1 -- user\nHi.\n\n## assistant\nHello.\n\n## user\n\nthanks\n"
    document.close()


async def test_a_label_with_a_note_or_a_full_width_colon_is_rewritten_as_its_heading(
    client: LanguageClient, folder: Path
) -> None:
    document = Document(
        client,
        folder / "noted.lmml",
        "## Turn 1 -- user\nHi.\n\n**Assistant (GPT-4):**\nHello.\n\n**User\uff1a** thanks\n",
    )
    assert codes(await document.open()) == ["suspicious_delimiter", "suspicious_delimiter"]
    fix = (await _actions(client, document, 3))["Write the label as the heading '## assistant'"]
    await document.edit(_edits(fix, document.uri))
    fix = (await _actions(client, document, 6))["Write the label as the heading '## user'"]
    assert await document.edit(_edits(fix, document.uri)) == []
    assert document.text == "## Turn 1 -- user\nHi.\n\n## assistant\nHello.\n\n## user\n\nthanks\n"
    document.close()


async def test_a_turn_line_and_an_emphasised_turn_heading_are_rewritten_as_headings(
    client: LanguageClient, folder: Path
) -> None:
    document = Document(
        client,
        folder / "turns.lmml",
        "**Turn 1 - User**\nHi.\n\n## **Turn 2 - Assistant**\nHello.\n\nTurn 3: User\nok\n",
    )
    assert codes(await document.open()) == ["suspicious_delimiter"] * 3 + ["no_turns"]
    fix = (await _actions(client, document, 0))["Write the label as the heading '## Turn 1 - User'"]
    assert fix.is_preferred
    await document.edit(_edits(fix, document.uri))
    fix = (await _actions(client, document, 3))["Write the heading as 'Turn 2 - Assistant'"]
    await document.edit(_edits(fix, document.uri))
    fix = (await _actions(client, document, 6))["Write the label as the heading '## Turn 3: User'"]
    assert await document.edit(_edits(fix, document.uri)) == []
    assert document.text == (
        "## Turn 1 - User\nHi.\n\n## Turn 2 - Assistant\nHello.\n\n## Turn 3: User\nok\n"
    )
    document.close()


async def test_a_label_inside_a_paragraph_is_rewritten_as_a_heading_there(
    client: LanguageClient, folder: Path
) -> None:
    document = Document(client, folder / "inside.lmml", "## user\nhi\n**Assistant:**\nhello\n")
    assert codes(await document.open()) == ["suspicious_delimiter"]
    fix = (await _actions(client, document, 2))["Write the label as the heading '## assistant'"]
    assert await document.edit(_edits(fix, document.uri)) == []
    assert document.text == "## user\nhi\n## assistant\nhello\n"
    document.close()


# -- preview -------------------------------------------------------------------------------


async def test_preview_request_returns_the_html(client: LanguageClient, folder: Path) -> None:
    document = Document(client, folder / "preview.lmml", NARRATIVE)
    await document.open()
    params = SimpleNamespace(textDocument={"uri": document.uri})
    result = await client.protocol.send_request_async("lmml/preview", params)
    assert result.uri == document.uri and result.version == 1 and result.error is None
    assert result.html.lower().startswith("<!doctype html>")
    assert "Here is the summary" in result.html
    await document.insert(0, 0, "Fresh words.\n\n")
    result = await client.protocol.send_request_async("lmml/preview", params)
    assert result.version == 2 and "Fresh words." in result.html
    document.close()


# -- robustness ----------------------------------------------------------------------------


@pytest_asyncio.fixture(loop_scope="module")
async def script_client() -> AsyncIterator[LanguageClient]:
    """A server started as the ``lmml lsp`` console script, with its default debounce."""
    script = shutil.which("lmml", path=os.path.dirname(sys.executable)) or shutil.which("lmml")
    if script is None:
        pytest.fail("the lmml console script is not installed (pip install -e '.[test]')")
    # As VS Code's client starts a stdio server: with --stdio.
    config = _config([script, "lsp", "--stdio"])
    lsp_client = await config.start()
    assert isinstance(lsp_client, LanguageClient)
    await lsp_client.initialize_session(_initialize_params())
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_console_script_debounces_and_survives_failing_requests(
    script_client: LanguageClient, folder: Path
) -> None:
    client = script_client
    document = Document(client, folder / "script.lmml", "## user\nHi.\n")
    assert await document.open() == []
    # Three quick changes: one publication, for the last.
    mark = len(_log(client))
    for version, text in ((2, "@a.png "), (3, "@b.png "), (4, "@c.png ")):
        at = types.Position(line=1, character=0)
        document.version = version
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=document.uri, version=version
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=at, end=at), text=text
                    )
                ],
            )
        )
    found = await published(client, document.uri, after=mark)
    assert [params.version for params in _log(client)[mark:]] == [4]
    assert [d.message.split("'")[1] for d in found] == ["c.png", "b.png", "a.png"]

    # A request about a file that is not open and not on disk is an error response (the
    # server reads only open documents and files in the workspace), and it goes on serving.
    gone = types.TextDocumentIdentifier(uri=(folder / "no-such-file.lmml").as_uri())
    with pytest.raises(JsonRpcException, match="is not read"):
        await client.text_document_hover_async(
            types.HoverParams(text_document=gone, position=types.Position(line=0, character=0))
        )
    # A request whose params name no document is an error response, not a null result.
    with pytest.raises(JsonRpcException, match="takes"):
        await client.protocol.send_request_async("lmml/preview", SimpleNamespace(nothing=1))
    # Malformed params, written to the server's input as they come: the server goes on.
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": "malformed",
            "method": "textDocument/hover",
            "params": {"textDocument": {"uri": document.uri}},
        }
    ).encode()
    server = client._server
    assert server is not None and server.stdin is not None
    server.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    await server.stdin.drain()
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=document.identifier())
    )
    assert symbols is not None and len(symbols) == 1
    document.close()


async def test_hover_on_a_placeholder_names_its_input(client: LanguageClient, folder: Path) -> None:
    text = (
        "---\ninputs:\n  history: {type: messages, roles: [user, assistant], "
        "description: the chat so far}\n  who: {type: string, default: Ada}\n---\n"
        "## Turn 1 -- system\n\nHello {{ who }}.\n\n{{ history }}\n\n- {{ history }}\n"
    )
    document = Document(client, folder / "template.lmml", text)
    await document.open()
    history = await _hover(client, document, document.at("{{ history }}\n\n", 3))
    assert history is not None
    assert "the `messages` input 'history' (required)" in history
    assert "the chat so far" in history and "roles: user, assistant" in history
    assert "alone on its line" not in history
    listed = await _hover(client, document, document.at("- {{ history }}", 4))
    assert listed is not None and "must stand alone on its line" in listed
    who = await _hover(client, document, document.at("{{ who }}", 2))
    assert who is not None and 'default `"Ada"`' in who


async def test_edits_to_a_long_narrative_give_the_diagnostics_of_a_fresh_open(
    client: LanguageClient, folder: Path
) -> None:
    # The server parses again only the blocks around each edit: what it publishes must be
    # what opening the edited text afresh publishes.
    turns = []
    for number in range(1, 41):
        role = "user" if number % 2 else "assistant"
        turns.append(f"## Turn {number} -- {role}\nLook at @screenshot.png, turn {number}.\n\n")
        if number % 7 == 0:
            turns.append(f'@@@snippet{number}.json\n{{"n": {number}}}\n@@@\n\n')
    document = Document(client, folder / "long-edited.lmml", "".join(turns))
    assert await document.open() == []
    middle = document.text.count("\n") // 2
    edits = [
        (middle, 0, "A missing @gone.png here.\n"),
        (middle + 1, 0, "\n"),
        (middle, 0, "```\n"),
        (middle + 6, 0, "```\n"),
        (middle - 3, 0, "## Turn 99 -- tool\n"),
        (middle + 10, 0, "@@@open.txt\nnever closed\n"),
        (middle + 2, 0, "- a list @notes.txt\n"),
    ]
    for number, (line, character, text) in enumerate(edits):
        found = await document.insert(line, character, text)
        fresh = Document(client, folder / f"long-fresh-{number}.lmml", document.text)
        expected = await fresh.open()
        fresh.close()
        assert [(d.range, d.message, d.code) for d in found] == [
            (d.range, d.message, d.code) for d in expected
        ]
    document.close()


@pytest.mark.parametrize("debounce", [-1, float("inf"), "soon", True])
async def test_a_bad_debounce_option_is_refused_with_a_warning(debounce: object) -> None:
    # As `lmml lsp --debounce` refuses such a value, the initialisation option does too,
    # and says so: an infinite wait would leave every edit without diagnostics.
    config = _config([sys.executable, "-m", "lmml_mdit", "lsp"])
    lsp_client = await config.start()
    assert isinstance(lsp_client, LanguageClient)
    await lsp_client.initialize_session(_initialize_params(debounce=debounce))
    try:
        (shown,) = lsp_client.messages
        assert shown.type == types.MessageType.Warning
        assert "debounce" in shown.message and repr(debounce) in shown.message
        assert "0.3" in shown.message  # what it keeps
    finally:
        await lsp_client.shutdown_session()


async def test_no_create_file_fix_for_a_client_that_cannot_create_files(folder: Path) -> None:
    # A CreateFile operation is only for a client that lists "create" among its
    # workspaceEdit.resourceOperations (LSP 3.13); others get the text fixes alone.
    config = _config([sys.executable, "-m", "lmml_mdit", "lsp"])
    lsp_client = await config.start()
    assert isinstance(lsp_client, LanguageClient)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                workspace=types.WorkspaceClientCapabilities(
                    workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)
                )
            ),
            initialization_options={"debounce": 0},
        )
    )
    try:
        document = Document(lsp_client, folder / "no-create.lmml", "## user\nSee @screenshot.pgn\n")
        assert codes(await document.open()) == ["missing_reference"]
        assert set(await _actions(lsp_client, document, 1)) == {
            "Did you mean screenshot.png? Change @screenshot.pgn to @screenshot.png",
            "Escape @screenshot.pgn: it is not an asset",
        }
        document.close()
    finally:
        await lsp_client.shutdown_session()
