"""Small real assets and bundle builders shared by the test_messages_* modules."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping

from lmml_mdit import Bundle


def png(width: int = 1, height: int = 1, seed: int = 0) -> bytes:
    """A valid RGB PNG of the given size (pixel colour varies with *seed*)."""
    row = b"\x00" + bytes(((seed * 37) % 256, (seed * 91) % 256, 7)) * width
    raw = row * height

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def pdf() -> bytes:
    """A minimal one-page PDF with a correct cross-reference table."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def wav() -> bytes:
    """A 4-sample mono 8 kHz 16-bit WAV."""
    samples = struct.pack("<4h", 0, 1000, -1000, 0)
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", len(samples)) + samples
    return b"RIFF" + struct.pack("<I", len(body)) + body


def jpeg_header() -> bytes:
    """Bytes that sniff as JPEG (a JFIF start; enough for media-type tests)."""
    return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"


def zip_bundle(text: str, entries: Mapping[str, bytes], name: str = "t") -> Bundle:
    """A zip bundle built in memory with the real :class:`Bundle`."""
    return Bundle.from_zip(name, text, dict(entries))


def text_bundle(text: str, name: str = "t") -> Bundle:
    """A text bundle built in memory with the real :class:`Bundle`."""
    return Bundle.from_text(name, text)
