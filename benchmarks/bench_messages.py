"""Benchmark: ``bundle.messages()`` against a bare CommonMark parse of the same narrative.

A 2,000-turn transcript with 200 small PNG images (zip bundle). For each repetition a fresh
bundle is built (its one parse happens then, and is not timed); the timed part is the first
``messages()`` call, which reads the narrative's structure index (built then, from
``bundle.narrative.tokens``) and encodes each image. The baseline is
``MarkdownIt("commonmark").parse`` of the narrative text. Prints both, their ratio
(target: at most 1.5), and how many base64 encodings serving all four providers took
(target: one per image).

It then times the whole job a caller runs, ``lmml_mdit.open(path).messages("openai")`` of
the bundle saved as a ``.lmmlz`` (open, its one parse, the messages), against the same bare
parse, in interleaved rounds of CPU time with the garbage collector paused during each call
(target: at most 0.75; only the blocks that can hold LMML are inline-parsed, see
docs/performance.md), and ``render_html(lmml_mdit.open(path))``, the preview page with its
one parse (target: at most 1.5). Each ratio is printed with its goal; the script exits 1 when one is
missed.

Run: ``python benchmarks/bench_messages.py [--turns 2000] [--images 200] [--repeat 9]``
"""

from __future__ import annotations

import argparse
import statistics
import struct
import sys
import tempfile
import time
import zlib
from pathlib import Path

from markdown_it import MarkdownIt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_parse import compare

import lmml_mdit
from lmml_mdit.bundle import Bundle
from lmml_mdit.chat import bundle_state, to_request
from lmml_mdit.chat.providers import PROVIDERS
from lmml_mdit.narrative._narrative import _parsed


def _png(seed: int) -> bytes:
    row = b"\x00" + bytes((seed % 256, (seed * 7) % 256, (seed * 13) % 256)) * 4
    raw = row * 4

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def transcript(turns: int, images: int) -> tuple[str, dict[str, bytes]]:
    """A narrative of *turns* alternating user/assistant turns, *images* of them with a PNG."""
    every = max(1, turns // max(1, images))
    parts = ["You are a helpful assistant. Answer in **Markdown**.\n"]
    entries: dict[str, bytes] = {}
    for index in range(turns):
        role = "user" if index % 2 == 0 else "assistant"
        parts.append(f"## Turn {index + 1} -- {role}\n")
        parts.append(
            f"This is turn {index + 1}. It has *emphasis*, `code`, a [link](https://example.com)"
            " and a list:\n\n- first item\n- second item with more words in it\n"
        )
        if role == "user" and len(entries) < images and (index // 2) % max(1, every // 2) == 0:
            name = f"img/pic{len(entries)}.png"
            entries[name] = _png(len(entries))
            parts.append(f"Look at this: @{name}\n")
        parts.append("A closing paragraph, long enough to look like a real message body.\n")
    return "\n".join(parts), entries


def _open_anew(path: Path) -> Bundle:
    """``lmml_mdit.open(path)`` with its narrative parsed (no parse kept from an earlier
    open of the same archive: the figures are of the whole job, parse included)."""
    _parsed.clear()
    return lmml_mdit.open(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args(argv)

    text, entries = transcript(args.turns, args.images)
    bare = MarkdownIt("commonmark")
    bare.parse(text)  # warm up

    parse_times: list[float] = []
    message_times: list[float] = []
    build_times: list[float] = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        bare.parse(text)
        parse_times.append(time.perf_counter() - start)

        start = time.perf_counter()
        bundle = Bundle.from_zip("bench", text, entries)
        build_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        payload = bundle.messages()
        message_times.append(time.perf_counter() - start)

    parse_time = statistics.median(parse_times)
    message_time = statistics.median(message_times)
    images_sent = sum(
        part.get("type") == "image_url" for message in payload for part in message["content"] or []
    )
    print(f"narrative: {len(text):,} chars, {args.turns} turns, {len(entries)} images")
    print(
        f"bare MarkdownIt('commonmark').parse: {parse_time * 1000:8.1f} ms "
        f"(median of {args.repeat})"
    )
    print(
        f"bundle.messages() (first call):     {message_time * 1000:8.1f} ms "
        f"(median of {args.repeat})"
    )
    build_time = statistics.median(build_times)
    print(
        f"for reference, Bundle.from_zip (its one LMML parse): {build_time * 1000:8.1f} ms; "
        f"build + messages / bare parse: {(build_time + message_time) / parse_time:.2f}"
    )
    ratio = message_time / parse_time
    print(
        f"ratio messages/parse: {ratio:.2f} (target <= 1.5) -> {'OK' if ratio <= 1.5 else 'OVER'}"
    )

    bundle = Bundle.from_zip("bench", text, entries)
    for provider in PROVIDERS:
        to_request(bundle, provider, model="m", settings={"max_tokens": 10}, context="user")
    encodes = bundle_state(bundle).base64.encodes
    print(
        f"base64 encodes for {len(PROVIDERS)} providers: {encodes} for {len(entries)} images "
        f"({images_sent} image parts per payload) -> {'OK' if encodes == len(entries) else 'OVER'}"
    )
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "bench.lmmlz"
        Bundle.from_zip("bench", text, entries).save(path)
        print(f"{'comparison (A vs B)':<58} {'A ms':>9} {'B ms':>9} {'min':>7} {'median':>7}")
        whole, _ = compare(
            "bare parse vs open(zip) + messages('openai')",
            lambda: bare.parse(text),
            lambda: _open_anew(path).messages("openai"),
            max(args.repeat, 3),
        )
        rendered, _ = compare(
            "bare parse vs render_html(open(zip))",
            lambda: bare.parse(text),
            lambda: lmml_mdit.render_html(_open_anew(path)),
            max(args.repeat, 3),
        )
    whole_ok = whole <= 0.75
    render_ok = rendered <= 1.5
    print(
        f"render_html(open(zip)) / bare parse: {rendered:.2f} (goal <= 1.5) -> "
        f"{'OK' if render_ok else 'MISSED'}"
    )
    print(
        f"open + messages('openai') / bare parse: {whole:.2f} (goal <= 0.75) -> "
        f"{'OK' if whole_ok else 'MISSED'}"
    )
    return 0 if ratio <= 1.5 and encodes == len(entries) and whole_ok and render_ok else 1


if __name__ == "__main__":
    sys.exit(main())
