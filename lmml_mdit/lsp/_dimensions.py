"""An image's size in pixels, read from the first bytes of its file (PNG, GIF, JPEG, WebP
and BMP); nothing is decoded."""

from __future__ import annotations

import struct

__all__ = ["HEAD_BYTES", "image_dimensions"]

HEAD_BYTES = 64 * 1024
"""How many leading bytes :func:`image_dimensions` may need (a JPEG's frame header can follow
long metadata)."""

_JPEG_FRAMES = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
"""The JPEG markers that start a frame header (every SOF), not a table."""


def image_dimensions(head: bytes) -> tuple[int, int] | None:
    """``(width, height)`` of the image whose file starts with *head*, or None when its
    format is not one of those read here or its header is cut short."""
    try:
        return _dimensions(head)
    except (struct.error, IndexError):
        return None


def _dimensions(head: bytes) -> tuple[int, int] | None:
    if head.startswith(b"\x89PNG\r\n\x1a\n") and head[12:16] == b"IHDR":
        width, height = struct.unpack(">II", head[16:24])
        return width, height
    if head[:6] in (b"GIF87a", b"GIF89a"):
        width, height = struct.unpack("<HH", head[6:10])
        return width, height
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return _webp(head)
    if head.startswith(b"BM"):
        width, height = struct.unpack("<ii", head[18:26])
        return abs(width), abs(height)
    if head.startswith(b"\xff\xd8"):
        return _jpeg(head)
    return None


def _webp(head: bytes) -> tuple[int, int] | None:
    chunk = head[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", head[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L":
        bits = int.from_bytes(head[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        width = int.from_bytes(head[24:27], "little") + 1
        height = int.from_bytes(head[27:30], "little") + 1
        return width, height
    return None


def _jpeg(head: bytes) -> tuple[int, int] | None:
    at = 2
    while at + 4 <= len(head):
        if head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            at += 2
            continue
        (length,) = struct.unpack(">H", head[at + 2 : at + 4])
        if marker in _JPEG_FRAMES:
            height, width = struct.unpack(">HH", head[at + 5 : at + 9])
            return width, height
        at += 2 + length
    return None
