"""The documented path ``lmml_mdit.transcript.encoding``, kept: its names, from
``lmml_mdit.transcript``'s private module ``_encoding`` (see docs/architecture.md)."""

from __future__ import annotations

from ._encoding import (
    CONTENT_FENCE_INFO,
    ENCODINGS,
    Encoding,
    _unescape,
    _unfence,
    base_column,
    decode_author,
    decode_content,
    digest,
    encode_author,
    escape_content,
    fence_content,
    insert_backslashes,
)

__all__ = [
    "CONTENT_FENCE_INFO",
    "ENCODINGS",
    "Encoding",
    "_unescape",
    "_unfence",
    "base_column",
    "decode_author",
    "decode_content",
    "digest",
    "encode_author",
    "escape_content",
    "fence_content",
    "insert_backslashes",
]
