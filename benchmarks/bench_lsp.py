"""Language-server responsiveness (a script, not a test).

Run ``python benchmarks/bench_lsp.py [--size MB] [--reps N]``. It writes a narrative of about
*size* MB (1 by default: turns of prose, references to files beside it, inline fences) and
measures, in the same run (one turn in fifty names a file that is not there, so the
diagnostics are not empty):

- ``validate``: ``lmml_mdit.open(path).validate()`` in this process (what ``lmml validate``
  does for the file);
- ``lsp``: the real server (``python -m lmml_mdit lsp``, debounce 0) with the document open,
  from sending a one-character incremental change to receiving the diagnostics for that
  version: transport, applying the edit, the parse, validation and converting every issue;
- ``parse``: bare markdown-it-py's ``MarkdownIt("commonmark").parse`` of the same text (a
  full parse).

Each figure is the median of *reps* wall-clock runs (the server is another process, so CPU
time of this one would not count its work); the validate runs, the bare parses and the edits
alternate, so drift on a busy machine hits all three. The first edit after opening parses
the document once in full (the server keeps that parse to re-parse only the blocks around
later edits: see docs/editors.md), so it is not timed. Goals: lsp / validate <= 2.0 and
lsp / parse <= 0.3 (issue 33); the script exits 1 on a miss.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from goals import exit_status
from lsprotocol import types
from markdown_it import MarkdownIt
from pygls.lsp.client import LanguageClient

import lmml_mdit

GOAL = 2.0
PARSE_GOAL = 0.3
ROOT = Path(__file__).resolve().parent.parent
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)


def narrative(size: int) -> str:
    """About *size* characters of narrative: turns of prose with references and fences."""
    parts: list[str] = []
    total = 0
    turn = 0
    while total < size:
        turn += 1
        role = "user" if turn % 2 else "assistant"
        text = (
            f"## Turn {turn} -- {role}\n"
            f"Here is turn {turn}, with a look at @chart.png and @notes.txt for context. "
            + "Some ordinary words of a conversation, *emphasis* and `code`. " * 6
            + "\n\n- a list item\n- another, naming @chart.png again\n\n"
        )
        if turn % 50 == 0:
            text += f"A defect to report: @missing{turn}.png is nowhere.\n\n"
        if turn % 10 == 0:
            text += f'@@@snippet{turn}.json\n{{"turn": {turn}, "ok": true}}\n@@@\n\n'
        parts.append(text)
        total += len(text)
    return "".join(parts)


def _validate_once(path: Path) -> float:
    start = time.perf_counter()
    with lmml_mdit.open(path) as bundle:
        bundle.validate()
    return time.perf_counter() - start


async def _measure(
    path: Path, text: str, reps: int
) -> tuple[list[float], list[float], list[float]]:
    client = LanguageClient("bench-lsp", "1")
    arrived: dict[int, float] = {}
    received = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(params: types.PublishDiagnosticsParams) -> None:
        if params.version is not None:
            arrived[params.version] = time.perf_counter()
            received.set()

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    await client.start_io(sys.executable, "-m", "lmml_mdit", "lsp", env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(), initialization_options={"debounce": 0}
        )
    )
    client.initialized(types.InitializedParams())
    uri = path.as_uri()

    async def wait_for(version: int) -> float:
        while version not in arrived:
            received.clear()
            await asyncio.wait_for(received.wait(), 120)
        return arrived[version]

    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="lmml", version=1, text=text)
        )
    )
    await wait_for(1)
    middle = text.count("\n") // 2
    validate_times: list[float] = []
    edit_times: list[float] = []
    parse_times: list[float] = []
    bare = MarkdownIt("commonmark")
    for version in range(2, reps + 3):
        if version > 2:  # the first edit makes the parse later edits start from
            validate_times.append(_validate_once(path))
            start = time.perf_counter()
            bare.parse(text)
            parse_times.append(time.perf_counter() - start)
        at = types.Position(line=middle, character=0)
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(start=at, end=at), text="x"
                    )
                ],
            )
        )
        elapsed = await wait_for(version) - sent
        if version > 2:
            edit_times.append(elapsed)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return validate_times, edit_times, parse_times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=float, default=1.0, help="narrative size in MB")
    parser.add_argument("--reps", type=int, default=7, help="timed edits (and validations)")
    options = parser.parse_args()
    text = narrative(int(options.size * 1024 * 1024))
    with tempfile.TemporaryDirectory(prefix="lmml-bench-lsp-") as folder:
        root = Path(folder)
        (root / "chart.png").write_bytes(PNG)
        (root / "notes.txt").write_text("notes\n", encoding="utf-8")
        path = root / "big.lmml"
        path.write_text(text, encoding="utf-8")
        validate_times, edit_times, parse_times = asyncio.run(_measure(path, text, options.reps))
    bare_time = statistics.median(parse_times)
    validate_time = statistics.median(validate_times)
    edit_time = statistics.median(edit_times)
    ratio = edit_time / validate_time
    print(f"narrative: {len(text.encode()) / 1e6:.2f} MB, {text.count(chr(10)):,} lines")
    runs = f"(median of {len(edit_times)})"
    print(f"bare markdown-it-py parse:      {bare_time * 1000:8.1f} ms {runs}")
    print(f"validate (open + validate):     {validate_time * 1000:8.1f} ms {runs}")
    print(f"lsp: one-character edit -> diagnostics: {edit_time * 1000:8.1f} ms {runs}")
    print(f"ratio lsp / validate: {ratio:.2f} (goal <= {GOAL})")
    parse_ratio = edit_time / bare_time
    print(f"ratio lsp / bare markdown-it-py parse: {parse_ratio:.2f} (goal <= {PARSE_GOAL})")
    print(f"ratio validate / bare markdown-it-py: {validate_time / bare_time:.2f} (for scale)")
    missed = [
        name
        for name, value, goal in (
            ("lsp/validate", ratio, GOAL),
            ("lsp/parse", parse_ratio, PARSE_GOAL),
        )
        if value > goal
    ]
    return exit_status(missed)


if __name__ == "__main__":
    sys.exit(main())
