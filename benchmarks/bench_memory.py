"""Peak memory over input size, against bare markdown-it-py (a script, not a test).

Run ``python benchmarks/bench_memory.py [--scale 1.0]``. For each shape, at 1x and 2x
size, the script measures the peak of :mod:`tracemalloc` during one call and prints it
as a multiple of the input's size, next to the peak of bare markdown-it-py on the same
text, their ratio, and the goal the ratio is held to. It exits with status 1 when a ratio
misses its goal.

The yardstick reads the same Markdown grammar as :func:`lmml_mdit.parse`: markdown-it-py's
``commonmark`` preset with the GFM rules the default parser enables (tables and
strikethrough, ``GFM_RULES``) and the front matter plugin, without the LMML plugin. (Plain
``MarkdownIt("commonmark")`` reads a GFM table as one paragraph of text, a different and
much smaller parse.)

Operations and goals:

- ``parse``: :func:`lmml_mdit.parse` against the yardstick's ``parse``; at most 1.5 times
  markdown-it's peak;
- ``open``: :func:`lmml_mdit.open` of the narrative's bytes (a text bundle) and of a zip
  bundle holding it, against markdown-it's parse of the text; at most 1.5 times;
- ``preview``: the whole job, :func:`lmml_mdit.render_html` of :func:`lmml_mdit.open` of
  the zip bundle, against the yardstick's ``render`` of the text (its parse and its page).
  The columns show both peaks over the input; the ratio and its goal compare the peaks
  over the size of the page each produces, at most 1.5 times: the preview shows every
  reference as its asset (an image, a chip), so its page is up to about 30 times the
  input where markdown-it's is about the input's size, and a bigger page costs more in
  proportion (the asset bytes copied in are capped by ``max_embedded_bytes``). The page's
  size over the input is printed after the goal;
- ``import``: :func:`lmml_mdit.import_path` of a JSONL file whose largest line is the
  shape's chat payload, measured against that line's size; at most 20 times.

Shapes (about 0.7 MB of narrative at ``--scale 1``):

- ``prose``: plain paragraphs;
- ``chat``: alternating user/assistant turns, a few references in each;
- ``refs-lines``: one ``@a.png`` reference per line;
- ``see-refs``: ``See @a.png and @b.png.`` lines (text between references);
- ``table-refs``: a table whose cells are references;
- ``fences``: small inline fences, each referenced once.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import sys
import tempfile
import tracemalloc
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from goals import exit_status
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

import lmml_mdit
from lmml_mdit.narrative import GFM_RULES

SIZE = 700_000


def prose(size: int) -> str:
    return "Some plain words here and there, in a sentence.\n\n" * (size // 50)


def chat(size: int) -> str:
    turn = "## user\nPlease look at @a.png and @b.txt, then tell me.\n\n## assistant\nA cat.\n\n"
    return turn * (size // len(turn))


def refs_lines(size: int) -> str:
    return "@a.png\n" * (size // 7)


def see_refs(size: int) -> str:
    return "See @a.png and @b.png.\n" * (size // 23)


def table_refs(size: int) -> str:
    return "| a | b |\n|---|---|\n" + "| @a.png | @b.png |\n" * (size // 20)


def fences(size: int) -> str:
    unit = "@@@f{0}.txt\nline {0}\n@@@\n\nabout @f{0}.txt\n\n"
    return "".join(unit.format(index) for index in range(size // 40))


SHAPES: dict[str, Callable[[int], str]] = {
    "prose": prose,
    "chat": chat,
    "refs-lines": refs_lines,
    "see-refs": see_refs,
    "table-refs": table_refs,
    "fences": fences,
}

GOALS = {"parse": 1.5, "open": 1.5, "open-zip": 1.5, "preview": 1.5, "import": 20.0}


def yardstick() -> MarkdownIt:
    """Bare markdown-it-py reading the grammar of :func:`lmml_mdit.parse`'s default parser,
    without the LMML plugin."""
    return MarkdownIt("commonmark").enable(GFM_RULES).use(front_matter_plugin)


def peak(function: Callable[[], object]) -> int:
    """The peak traced memory, in bytes, of one call of *function*."""
    gc.collect()
    tracemalloc.start()
    try:
        result = function()
        highest = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del result
    gc.collect()
    return highest


def zipped(text: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        # Stored: the shapes repeat one line, which deflates past the ratio limit.
        archive.writestr("x.lmml", text, compress_type=zipfile.ZIP_STORED)
        archive.writestr("a.png", b"\x89PNG\r\n\x1a\n")
        archive.writestr("b.txt", "b\n")
        archive.writestr("b.png", b"\x89PNG\r\n\x1a\n")
    return buffer.getvalue()


def chat_line(text: str) -> str:
    """One JSONL line: the shape's turns as an OpenAI messages payload."""
    messages = []
    for index, part in enumerate(text.split("\n\n")):
        if part.strip():
            role = "user" if index % 2 == 0 else "assistant"
            messages.append({"role": role, "content": part})
    return json.dumps({"messages": messages})


def measure(shape: str, text: str, folder: Path) -> list[tuple[str, float, float, float, str]]:
    """Rows of (operation, our peak / input, markdown-it's peak / input, ratio, note)."""
    data = text.encode()
    size = len(data)
    md = yardstick()
    md_parse = peak(lambda: md.parse(text))
    md_page = md.render(text)
    md_render = peak(lambda: md.render(text))
    rows = []

    def row(operation: str, ours: int, base: int) -> None:
        rows.append((operation, ours / size, base / size, ours / base, ""))

    row("parse", peak(lambda: lmml_mdit.parse(text)), md_parse)
    row("open", peak(lambda: lmml_mdit.open(data, name="x.lmml")), md_parse)
    archive = zipped(text)
    row("open-zip", peak(lambda: lmml_mdit.open(archive, name="x.lmmlz")), md_parse)
    page = lmml_mdit.render_html(lmml_mdit.open(archive, name="x.lmmlz"))
    ours = peak(lambda: lmml_mdit.render_html(lmml_mdit.open(archive, name="x.lmmlz")))
    per_page = (ours / len(page)) / (md_render / len(md_page))
    note = f"(per page byte; the page is {len(page) / size:.1f}x the input)"
    rows.append(("preview", ours / size, md_render / size, per_page, note))
    line = chat_line(text)
    source = folder / f"{shape}.jsonl"
    source.write_text("\n".join([chat_line("hi\n\nthere")] * 3 + [line]) + "\n")
    ours = peak(lambda: lmml_mdit.import_path(source, folder / f"{shape}-out"))
    rows.append(("import", ours / len(line.encode()), 0.0, ours / len(line.encode()), ""))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="input size factor")
    parser.add_argument("--shape", action="append", choices=sorted(SHAPES), help="only these")
    options = parser.parse_args()
    warnings.simplefilter("ignore")
    missed: list[str] = []
    print(f"{'shape':<11} {'size':>9} {'operation':<9} {'ours':>8} {'mdit':>8} {'ratio':>7} goal")
    with tempfile.TemporaryDirectory() as scratch:
        for shape, build in SHAPES.items():
            if options.shape and shape not in options.shape:
                continue
            for factor in (1, 2):
                text = build(int(SIZE * options.scale * factor))
                for operation, ours, base, ratio, note in measure(shape, text, Path(scratch)):
                    goal = GOALS[operation]
                    verdict = "ok" if ratio <= goal else "MISSED"
                    if ratio > goal:
                        missed.append(f"{shape} {operation} x{factor}")
                    mdit = f"{base:7.1f}x" if base else "  (line)"
                    print(
                        f"{shape:<11} {len(text.encode()):>9} {operation:<9} {ours:7.1f}x "
                        f"{mdit} {ratio:6.2f}x <= {goal:g}x {verdict} {note}".rstrip(),
                        flush=True,
                    )
    return exit_status(missed, "every ratio within its goal")


if __name__ == "__main__":
    sys.exit(main())
