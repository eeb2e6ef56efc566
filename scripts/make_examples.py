"""Rebuild the example bundles in ``examples/`` from the definitions in this file.

Run from the repository root::

    python scripts/make_examples.py          # (re)write examples/
    python scripts/make_examples.py --check  # exit 1 if examples/ differs from a rebuild

The output is deterministic: the PNG and PDF are built byte by byte here (zlib + struct,
and a hand-laid PDF 1.4 with computed xref offsets), and the archive's entries carry a
fixed timestamp, fixed permissions and a fixed order. Running it twice gives identical
bytes.

What it writes:

- ``sales-review.lmmlz``: a five-turn conversation (system, user, assistant, user,
  assistant) with a real PNG chart, a real one-page PDF, a CSV, ``settings.yaml`` and
  ``manifest.json`` as archive entries, each referenced from the narrative.
- ``sales-review.lmml``: the same conversation as a bare narrative; the three text assets
  (CSV, YAML, JSON) are inline fences where the archive form has their references. A bare
  ``.lmml`` cannot hold binary files, so the two lines that reference the PNG and the PDF
  name them in plain words instead (see ``docs/examples.md``).
- ``weather-tools.lmml``: a tool call and its result in the tool-call convention.
- ``capitals.lmml`` with ``capitals.cases.jsonl`` and ``capitals.cases.csv``: a template
  with a default ``expect`` and its cases, each with assertions of its own, for
  ``lmml eval`` (see ``docs/eval.md``).

After writing, every example is opened with :func:`lmml_mdit.open` and validated; the
script fails if one has a defect.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import struct
import sys
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lmml_mdit.atomic import atomic_write_bytes  # noqa: E402

EXAMPLES = ROOT / "examples"
ZIP_TIMESTAMP = (2026, 1, 1, 0, 0, 0)
"""Every archive entry's modification time, so rebuilds are byte-identical."""

QUARTERS = (("Q1", 120, 340), ("Q2", 135, 362), ("Q3", 98, 301), ("Q4", 160, 415))
"""Quarter, revenue in kEUR, orders: the one data set the CSV, chart and PDF share."""


# -- assets -------------------------------------------------------------------------------


def sales_csv() -> bytes:
    rows = ["quarter,revenue_keur,orders"]
    rows += [f"{quarter},{revenue},{orders}" for quarter, revenue, orders in QUARTERS]
    return ("\n".join(rows) + "\n").encode("utf-8")


def settings_yaml() -> bytes:
    return b"temperature: 0.2\ntop_p: 0.9\nmax_tokens: 800\n"


def manifest_json(assets: Sequence[tuple[str, bytes]]) -> bytes:
    """Session metadata, recording a sha256 per asset so ``validate`` can catch changes."""
    manifest: dict[str, object] = {
        "schema": "lmml/1",
        "title": "Quarterly sales review",
        "session_id": "6f1c2a9e-3b7d-4e21-9a55-0c8d4f7b2e10",
        "created": "2026-01-01T00:00:00Z",
        "tags": ["example", "sales"],
        "assets": {name: {"sha256": hashlib.sha256(data).hexdigest()} for name, data in assets},
    }
    return (json.dumps(manifest, indent=2) + "\n").encode("utf-8")


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def chart_png(width: int = 64, height: int = 48) -> bytes:
    """A bar chart of the quarterly revenue: a sky gradient, two axes, four bars (the
    weakest quarter in red). 8-bit RGB, no interlace."""
    top, bottom = (214, 232, 250), (255, 255, 255)
    pixels = [
        [
            tuple(top[c] + (bottom[c] - top[c]) * y // (height - 1) for c in range(3))
            for _ in range(width)
        ]
        for y in range(height)
    ]
    base, left, tallest = height - 5, 5, height - 12
    peak = max(revenue for _, revenue, _ in QUARTERS)
    weakest = min(revenue for _, revenue, _ in QUARTERS)
    for index, (_, revenue, _) in enumerate(QUARTERS):
        bar_height = round(revenue * tallest / peak)
        colour = (200, 60, 50) if revenue == weakest else (50, 100, 190)
        x0 = left + 3 + index * 14
        for y in range(base - bar_height, base):
            for x in range(x0, x0 + 10):
                pixels[y][x] = colour
    axis = (60, 60, 60)
    for x in range(left, width - 2):
        pixels[base][x] = axis
    for y in range(4, base + 1):
        pixels[y][left] = axis
    raw = b"".join(b"\x00" + bytes(v for pixel in row for v in pixel) for row in pixels)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(raw, 9))
        + _png_chunk(b"IEND", b"")
    )


def _pdf_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def report_pdf() -> bytes:
    """A one-page PDF 1.4 summary in Helvetica (a standard font, so nothing is embedded),
    with a correct cross-reference table."""
    total = sum(revenue for _, revenue, _ in QUARTERS)
    weakest = min(QUARTERS, key=lambda row: row[1])[0]
    strongest = max(QUARTERS, key=lambda row: row[1])[0]
    lines = [("F2", 16, "Quarterly sales summary"), ("F1", 11, "")]
    for quarter, revenue, orders in QUARTERS:
        note = " (lowest)" if quarter == weakest else " (highest)" if quarter == strongest else ""
        lines.append(("F1", 11, f"{quarter}: {revenue} kEUR from {orders} orders{note}"))
    lines += [("F1", 11, ""), ("F2", 11, f"Total: {total} kEUR")]
    commands = ["BT", "50 250 Td"]
    for font, size, text in lines:
        commands.append(f"/{font} {size} Tf ({_pdf_text(text)}) Tj 0 -18 Td")
    commands.append("ET")
    stream = ("\n".join(commands) + "\n").encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 298] "
        b"/Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"endstream",
        b"<< /Title (Quarterly sales summary) /Producer (lmml_mdit make_examples.py) >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n" % (len(objects) + 1))
    out.write(b"0000000000 65535 f \n")
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(
        b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
        % (len(objects) + 1, len(objects), xref)
    )
    return out.getvalue()


# -- narratives ---------------------------------------------------------------------------


def _fence(name: str, data: bytes) -> str:
    return f"@@@{name}\n{data.decode('utf-8')}@@@"


def sales_review(*, archive: bool) -> str:
    """The sales conversation. In the archive form each asset is an ``@name`` reference on
    its own line; in the bare form the text assets are fences in the same places and the
    binary ones are named in words."""

    def text_asset(name: str, data: bytes) -> str:
        return f"@{name}" if archive else _fence(name, data)

    digested = text_assets() + (binary_assets() if archive else [])
    chart = "@chart.png" if archive else "chart.png (in sales-review.lmmlz)"
    report = "@report.pdf" if archive else "report.pdf (in sales-review.lmmlz)"
    return f"""# Quarterly sales review

A review of last year's sales with an analyst assistant. Sampling settings and session
metadata:

{text_asset("settings.yaml", settings_yaml())}

{text_asset("manifest.json", manifest_json(digested))}

## Turn 1 -- system

You are a careful sales analyst. Answer briefly and cite the numbers you use.

## Turn 2 -- user

Here are last year's figures per quarter:

{text_asset("sales.csv", sales_csv())}

Which quarter was weakest, and how far above it did the year end?

## Turn 3 -- assistant

Q3 was the weakest quarter at 98 kEUR, 27% below Q2 (135 kEUR). Q4 closed the year at
160 kEUR, 63% above Q3.

## Turn 4 -- user

This chart shows the same numbers:

{chart}

And here is the board's one-page summary:

{report}

Does the summary agree with the chart?

## Turn 5 -- assistant

Yes. Both show the Q3 dip and the Q4 high, and the summary's total of 513 kEUR is the sum
of the four quarters in the CSV.
"""


def weather_tools() -> str:
    """A tool call (an inline JSON fence in an assistant turn) and the tool turn answering
    it, in the tool-call convention."""
    call = {"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}}
    return f"""<!-- system -->

You are a weather assistant. Call a tool when you need live data.

## Turn 1 -- user

What is the weather in Paris right now?

## Turn 2 -- assistant

Let me check the weather.

@@@call_1.tool_call.json
{json.dumps(call)}
@@@

## Turn 3 -- tool

@call_1.tool_call.json

Sunny, 21 C, light wind from the west.

## Turn 4 -- assistant

It is sunny in Paris: 21 °C with a light westerly wind.
"""


# -- writing ------------------------------------------------------------------------------


CAPITALS_TEMPLATE = """\
---
inputs:
  country: string
expect:
  - max-latency: 30
---

## system

Answer with the capital's name only.

## user

What is the capital of {{ country }}?
"""

CAPITALS_CASES = (
    {"country": "France", "expect": [{"equals": "Paris"}]},
    {"country": "Peru", "expect": [{"contains": "Lima"}, {"max-tokens": 5}]},
    {"country": "Japan", "expect": [{"regex": "^Tokyo\\.?$"}, {"not-contains": "Kyoto"}]},
    {
        "country": "Australia",
        "expect": [
            {"judge": "The answer names Canberra, not Sydney."},
            {"not-contains": "Sydney"},
        ],
    },
    {"country": "Italy"},
)
"""The cases of ``capitals.lmml``: one line of ``capitals.cases.jsonl`` each (the last
has no ``expect``: the template's default applies)."""


def capitals_cases_jsonl() -> bytes:
    return "".join(json.dumps(case) + "\n" for case in CAPITALS_CASES).encode("utf-8")


def capitals_cases_csv() -> bytes:
    """The same cases as CSV: a ``country`` column, the ``expect`` lists as JSON text."""
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(["country", "expect"])
    for case in CAPITALS_CASES:
        expect = case.get("expect")
        writer.writerow([case["country"], "" if expect is None else json.dumps(expect)])
    return stream.getvalue().encode("utf-8")


def build_zip(narrative_name: str, narrative: str, entries: Sequence[tuple[str, bytes]]) -> bytes:
    """A deterministic zip: narrative first, then *entries* in order, fixed metadata."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in ((narrative_name, narrative.encode("utf-8")), *entries):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIMESTAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = 0o100644 << 16
            archive.writestr(info, data, compresslevel=9)
    return buffer.getvalue()


def text_assets() -> list[tuple[str, bytes]]:
    return [("settings.yaml", settings_yaml()), ("sales.csv", sales_csv())]


def binary_assets() -> list[tuple[str, bytes]]:
    return [("chart.png", chart_png()), ("report.pdf", report_pdf())]


def build() -> dict[str, bytes]:
    """Every example file: name -> bytes."""
    digested = text_assets() + binary_assets()
    settings, csv = text_assets()
    assets = [settings, ("manifest.json", manifest_json(digested)), csv, *binary_assets()]
    return {
        "sales-review.lmmlz": build_zip("sales-review.lmml", sales_review(archive=True), assets),
        "sales-review.lmml": sales_review(archive=False).encode("utf-8"),
        "weather-tools.lmml": weather_tools().encode("utf-8"),
        "capitals.lmml": CAPITALS_TEMPLATE.encode("utf-8"),
        "capitals.cases.jsonl": capitals_cases_jsonl(),
        "capitals.cases.csv": capitals_cases_csv(),
    }


def verify(folder: Path, names: Sequence[str]) -> list[str]:
    """Open and validate each example with the library; the problems found."""
    from lmml_mdit.chat.opening import open as open_bundle

    problems = []
    for name in names:
        if not name.endswith((".lmml", ".lmmlz")):
            continue  # a cases file
        bundle = open_bundle(folder / name)
        problems += [
            f"{name}:{issue.line}: {issue.kind}: {issue.message}" for issue in bundle.validate()
        ]
    zipped = open_bundle(folder / "sales-review.lmmlz")
    bare = open_bundle(folder / "sales-review.lmml")
    if [t.role for t in zipped.narrative.turns] != [t.role for t in bare.narrative.turns]:
        problems.append("sales-review: the two forms have different turns")
    for asset in ("settings.yaml", "sales.csv"):
        if zipped.embed(asset) != bare.embed(asset):
            problems.append(f"sales-review: {asset} differs between the two forms")
    # The bare form's manifest records digests only for the assets it can hold.
    zipped_manifest = dict(zipped.manifest or {})
    bare_manifest = dict(bare.manifest or {})
    zipped_assets = zipped_manifest.pop("assets", {})
    bare_assets = bare_manifest.pop("assets", {})
    if zipped_manifest != bare_manifest or any(
        zipped_assets.get(name) != record for name, record in bare_assets.items()
    ):
        problems.append("sales-review: the manifests disagree")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--out", type=Path, default=EXAMPLES, help="output folder")
    args = parser.parse_args(argv)
    files = build()
    if args.check:
        stale = [n for n, data in files.items() if _read(args.out / n) != data]
        for name in stale:
            print(f"examples out of date: {name} (run scripts/make_examples.py)")
        return 1 if stale else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        target = args.out / name
        if _read(target) != data:
            atomic_write_bytes(target, data)
        print(f"wrote {target} ({len(data)} bytes)")
    problems = verify(args.out, list(files))
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


if __name__ == "__main__":
    sys.exit(main())
