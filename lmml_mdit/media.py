"""The media-type policy: the one place that says what type a name or some bytes have.

Every module that needs a media type reads it here. :func:`sniff` reads the magic bytes and
:func:`media_type_for` decides an asset's type, the bytes first and the extension only for
text; :data:`EXTENSION_TYPES` and :func:`extension_for` map extensions and types both
ways; :data:`FILE_EXTENSIONS` are the extensions that make ``@name.ext`` a reference (see
docs/syntax.md, "External reference").
"""

from __future__ import annotations

import mimetypes
import posixpath
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import Final, Literal

from .formats import ARCHIVE_SUFFIX, NARRATIVE_SUFFIX

__all__ = [
    "AUDIO_FORMATS",
    "AUDIO_TYPES",
    "COMPRESSED_EXTENSIONS",
    "DOCUMENT_TYPES",
    "EXTENSION_TYPES",
    "FILE_EXTENSIONS",
    "FILE_EXTENSION_GROUPS",
    "IMAGE_EXTENSIONS",
    "IMAGE_TYPES",
    "OCTET_STREAM",
    "PDF_TYPE",
    "PLAIN_TEXT",
    "REFUSED_IMAGE_TYPES",
    "SHOWN_IMAGE_TYPES",
    "SVG_TYPE",
    "TEXT_SNIFF_BYTES",
    "TYPO_EXTENSIONS",
    "VIDEO_TYPES",
    "ZIP_TYPE",
    "extension",
    "extension_for",
    "extension_type",
    "guess_type",
    "is_compressed",
    "is_file_name",
    "is_image_type",
    "is_text",
    "is_text_type",
    "media_type_for",
    "sniff",
]

OCTET_STREAM: Final = "application/octet-stream"
"""The type of bytes nothing else describes."""

PLAIN_TEXT: Final = "text/plain"
"""The type of UTF-8 text nothing else describes."""

SVG_TYPE: Final = "image/svg+xml"
"""SVG: an image to look at, and XML text that may hold scripts."""

PDF_TYPE: Final = "application/pdf"
"""PDF, the one binary document type the chat providers take."""

ZIP_TYPE: Final = "application/zip"
"""A zip archive (see :data:`lmml_mdit.formats.ZIP_SIGNATURES`)."""

EXTENSION_TYPES: Final[Mapping[str, str]] = MappingProxyType(
    {
        ".png": "image/png",
        ".jpg": "image/jpeg",
        ".jpeg": "image/jpeg",
        ".gif": "image/gif",
        ".webp": "image/webp",
        ".avif": "image/avif",
        ".svg": SVG_TYPE,
        ".bmp": "image/bmp",
        ".tiff": "image/tiff",
        ".tif": "image/tiff",
        ".ico": "image/vnd.microsoft.icon",
        ".pdf": PDF_TYPE,
        ".wav": "audio/wav",
        ".mp3": "audio/mpeg",
        ".mp4": "video/mp4",
        ".webm": "video/webm",
        ".mov": "video/quicktime",
        ".csv": "text/csv",
        ".tsv": "text/tab-separated-values",
        ".json": "application/json",
        ".jsonl": "application/jsonl",
        ".yaml": "application/yaml",
        ".yml": "application/yaml",
        ".toml": "application/toml",
        ".xml": "application/xml",
        ".md": "text/markdown",
        ".markdown": "text/markdown",
        NARRATIVE_SUFFIX: "text/markdown",
        ".txt": PLAIN_TEXT,
        ".log": PLAIN_TEXT,
        ".diff": "text/x-diff",
        ".patch": "text/x-diff",
        ".html": "text/html",
        ".htm": "text/html",
        ".css": "text/css",
        ".py": "text/x-python",
        ".js": "text/javascript",
        ".ts": "text/x-typescript",
        ".rs": "text/x-rust",
        ".go": "text/x-go",
        ".java": "text/x-java",
        ".c": "text/x-c",
        ".h": "text/x-c",
        ".cpp": "text/x-c++",
        ".rb": "text/x-ruby",
        ".sh": "text/x-shellscript",
        ".sql": "text/x-sql",
        ".ini": PLAIN_TEXT,
        ".cfg": PLAIN_TEXT,
    }
)
"""The package's extension table (lower case, with the dot). Where two extensions share a
type, the first is the one :func:`extension_for` gives (``.jpg``, ``.tiff``, ``.md``)."""

IMAGE_TYPES: Final = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""The image types the chat providers accept."""

REFUSED_IMAGE_TYPES: Final = frozenset(
    {SVG_TYPE, "image/bmp", "image/tiff", "image/vnd.microsoft.icon"}
)
"""Image types :func:`sniff` recognises that the chat providers refuse."""

SHOWN_IMAGE_TYPES: Final = IMAGE_TYPES | {SVG_TYPE}
"""The sniffed image types a page may show through ``<img>`` (an SVG there runs no script)."""

IMAGE_EXTENSIONS: Final = frozenset(
    name for name, media_type in EXTENSION_TYPES.items() if media_type.startswith("image/")
)
"""The extensions whose names say "image"."""

DOCUMENT_TYPES: Final = frozenset({PDF_TYPE})
"""The binary document types the chat providers take as a document or file part."""

AUDIO_FORMATS: Final[Mapping[str, Literal["wav", "mp3"]]] = MappingProxyType(
    {"audio/wav": "wav", "audio/mpeg": "mp3"}
)
"""The audio types the chat providers take, and the format name they give each."""

VIDEO_TYPES: Final = frozenset({"video/mp4", "video/webm", "video/quicktime"})
"""The video types :func:`sniff` recognises (MP4, WebM, QuickTime ``.mov``); of the chat
providers, Gemini takes them (inline data)."""

AUDIO_TYPES: Final[Mapping[str, str]] = MappingProxyType(
    {audio_format: media_type for media_type, audio_format in AUDIO_FORMATS.items()}
)
"""The other way: the media type of each audio format name (``"wav"``, ``"mp3"``)."""

_TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/json",
        "application/jsonl",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/xml",
        "application/javascript",
        "application/x-sh",
        "application/sql",
    }
)

COMPRESSED_EXTENSIONS: Final = frozenset(
    {
        *(".png", ".jpg", ".jpeg", ".gif", ".webp", ".zip", ".gz", ".bz2", ".xz", ".zst"),
        *(".7z", ".mp3", ".mp4", ".m4a", ".ogg", ".webm", ".mov", ".pdf", ".docx", ".xlsx"),
        ".pptx",
        ARCHIVE_SUFFIX,
    }
)
"""Extensions whose data is already compressed: deflating it again only wastes time."""

FILE_EXTENSION_GROUPS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "media": (
            *EXTENSION_TYPES,
            *(".heic", ".heif", ".jfif", ".m4a", ".ogg", ".oga", ".opus", ".flac", ".aac"),
            *(".aiff", ".mkv", ".avi", ".m4v"),
        ),
        "documents": (
            *(".doc", ".docx", ".odt", ".ods", ".odp", ".rtf", ".xls", ".xlsx", ".xlsm"),
            *(".ppt", ".pptx", ".epub", ".tex", ".bib", ".rst", ".adoc", ".ipynb", ".eml"),
        ),
        "data": (
            *(".ndjson", ".parquet", ".arrow", ".feather", ".avro", ".orc", ".npy", ".npz"),
            *(".pkl", ".pickle", ".h5", ".hdf5", ".sqlite", ".sqlite3", ".db", ".dat"),
            *(".bin", ".msgpack", ".geojson", ".safetensors", ".onnx", ".pt", ".ckpt"),
            *(".lock", ".conf", ".proto", ".bak", ".orig", ".tmp", ".out"),
        ),
        "code": (
            *(".pyi", ".ipy", ".jsx", ".tsx", ".mjs", ".cjs", ".hpp", ".cc", ".cxx", ".cs"),
            *(".kt", ".kts", ".swift", ".php", ".scala", ".lua", ".hs", ".ex", ".exs"),
            *(".erl", ".clj", ".dart", ".vue", ".svelte", ".zig", ".jl", ".ps1", ".bat"),
            *(".bash", ".zsh", ".fish", ".scss", ".sass", ".less", ".graphql", ".gql"),
            *(".tf", ".nix", ".gradle", ".mk", ".cmake", ".dockerfile", ".ml", ".fs"),
            *(".sol", ".vb", ".asm", ".wasm", ".jsonc", ".json5"),
        ),
        "archives": (
            *(".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".jar"),
            *(".whl", ".deb", ".rpm", ".dmg", ".iso", ARCHIVE_SUFFIX),
        ),
    }
)
"""The extensions that say "a file", by group (lower case, with the dot): with the default
``references="assets"``, ``@name.ext`` is a reference when ``.ext`` is one of them (see
:doc:`/syntax`). Words that follow a dot in handles, domains and code (``.com``, ``.dev``,
``.route``, ``.design``) are left out on purpose."""

FILE_EXTENSIONS: Final = frozenset(
    extension for group in FILE_EXTENSION_GROUPS.values() for extension in group
)
"""Every extension of :data:`FILE_EXTENSION_GROUPS`."""

_NOT_TYPOS = frozenset({".sam", ".dot", ".ios", ".mel", ".goa", ".cio", ".gog", ".arr", ".rel"})
"""Words and common names among the swapped extensions: never taken for a typo."""


def _swapped(extension: str) -> Iterator[str]:
    """*extension* with two adjacent characters swapped, each way it can be."""
    for at in range(1, len(extension) - 1):
        yield extension[:at] + extension[at + 1] + extension[at] + extension[at + 2 :]


TYPO_EXTENSIONS: Final = (
    frozenset(
        typo for extension in FILE_EXTENSIONS if len(extension) > 3 for typo in _swapped(extension)
    )
    - FILE_EXTENSIONS
    - _NOT_TYPOS
)
"""Extensions of three or more characters with two adjacent ones swapped (``.pgn``,
``.josn``): a name ending in one is taken for a file whose name was mistyped, so that it is
reported as missing (with a did-you-mean), never silently read as a mention."""


_TYPE_ALIASES = {
    # Types the chat formats name that the table spells another way, or does not hold.
    "image/jpg": ".jpg",
    "image/heic": ".heic",
    "image/heif": ".heif",
    "audio/x-wav": ".wav",
    "audio/wave": ".wav",
    "audio/vnd.wave": ".wav",
    "audio/mp3": ".mp3",
    "audio/aac": ".aac",
    "audio/ogg": ".ogg",
    "audio/flac": ".flac",
    "audio/aiff": ".aiff",
}
_TYPE_EXTENSIONS: Mapping[str, str] = MappingProxyType(
    {
        **{media_type: name for name, media_type in reversed(list(EXTENSION_TYPES.items()))},
        **_TYPE_ALIASES,
    }
)
"""Each type's extension: the first the table gives it, or its alias."""

_XML_DECLARATION = re.compile(rb"\s*(?:<\?xml[^>]*>\s*)?", re.I)
_DOCTYPE_THEN_SVG = re.compile(rb"(?:<!doctype[^>]*>\s*)?<svg[\s/>]", re.I)
_SPACE = b" \t\n\r\x0b\x0c"


def _is_svg(head: bytes) -> bool:
    """Whether *head* opens an SVG document: an optional XML declaration, comments and
    doctype, then ``<svg``. Each comment ends at its first ``-->``, so the scan is linear
    in *head* (a regular expression repeating ``<!--.*?-->`` backtracks exponentially over
    a run of comments)."""
    match = _XML_DECLARATION.match(head)
    position = match.end() if match else 0
    while head.startswith(b"<!--", position):
        end = head.find(b"-->", position + 4)
        if end < 0:
            return False
        position = end + 3
        while position < len(head) and head[position] in _SPACE:
            position += 1
    return _DOCTYPE_THEN_SVG.match(head, position) is not None


_BMP_HEADER_SIZES = frozenset({12, 40, 52, 56, 64, 108, 124})

_QUICKTIME_BRAND = b"qt  "
_MP4_BRANDS = frozenset(
    {
        *(b"isom", b"iso2", b"iso3", b"iso4", b"iso5", b"iso6", b"mp41", b"mp42"),
        *(b"avc1", b"M4V ", b"M4VH", b"M4VP", b"dash", b"MSNV", b"3gp4", b"3gp5", b"3gp6"),
        *(b"mmp4", b"f4v ", b"av01"),
    }
)
"""The ISO base media ``ftyp`` major brands of MP4 video. Other brands of the same
container (``M4A `` audio, ``heic`` images) are not video, so they are not listed."""

_EBML_MAGIC = b"\x1a\x45\xdf\xa3"
_WEBM_DOCTYPE = b"\x42\x82\x84webm"
"""The EBML ``DocType`` element holding ``webm`` (Matroska files say ``matroska``)."""


def _video(head: bytes) -> str | None:
    """The video type of an ISO base media (``ftyp`` box) or EBML header, or None (not
    video, and no other type :func:`sniff` knows starts so)."""
    if head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand == _QUICKTIME_BRAND:
            return "video/quicktime"
        if brand in _MP4_BRANDS:
            return "video/mp4"
        return None
    if head.startswith(_EBML_MAGIC) and _WEBM_DOCTYPE in head[:64]:
        return "video/webm"
    return None


def _is_bmp(head: bytes) -> bool:
    """A BMP file header: ``BM``, reserved zero bytes and a known DIB header size (so a text
    that merely starts with "BM" is not taken for an image)."""
    return (
        len(head) >= 18
        and head.startswith(b"BM")
        and head[6:10] == b"\x00\x00\x00\x00"
        and int.from_bytes(head[14:18], "little") in _BMP_HEADER_SIZES
    )


def _is_id3(head: bytes) -> bool:
    """An ID3v2 tag header (an MP3's usual start): ``ID3``, a major version of 2 to 4, a
    revision below 0xFF and, when present, a size of four 7-bit bytes (so a text that
    merely starts with "ID3", as a CSV column or a note about tags may, is not audio)."""
    return (
        len(head) >= 5
        and head.startswith(b"ID3")
        and head[3] in (2, 3, 4)
        and head[4] != 0xFF
        and all(byte < 0x80 for byte in head[6:10])
    )


def sniff(data: bytes) -> str | None:
    """The media type the first bytes of *data* announce, or None when they say nothing.

    Recognises PNG, JPEG, GIF, WebP, BMP, TIFF, ICO, SVG, PDF, WAV, MP3, and MP4, WebM
    and QuickTime video.

    :param data: the bytes, or at least their first 4 KiB.
    """
    head = data[:32]
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"RIFF") and head[8:12] == b"WAVE":
        return "audio/wav"
    if head.startswith(b"%PDF-"):
        return PDF_TYPE
    if _is_id3(head) or (len(head) > 1 and head[0] == 0xFF and head[1] in (0xFB, 0xF3, 0xF2)):
        return "audio/mpeg"
    if _is_bmp(head):
        return "image/bmp"
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return "image/tiff"
    if head.startswith(b"\x00\x00\x01\x00"):
        return "image/vnd.microsoft.icon"
    if head[4:8] == b"ftyp" or head.startswith(_EBML_MAGIC):
        return _video(data[:64])
    if _is_svg(data[:4096].removeprefix(b"\xef\xbb\xbf")):
        return SVG_TYPE
    return None


TEXT_SNIFF_BYTES = 8192
"""How far :func:`is_text` looks for a NUL byte, past the most :func:`sniff` reads: the
head that tells every media type but text (which needs all its bytes to be UTF-8)."""


def is_text(data: bytes) -> bool:
    """Whether *data* reads as text: valid UTF-8 with no NUL byte in its first
    :data:`TEXT_SNIFF_BYTES`.

    :param data: the bytes.
    """
    if b"\x00" in data[:TEXT_SNIFF_BYTES]:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def extension(name: str) -> str:
    """The lower-case extension of *name* with its dot (``".png"``), or ``""``.

    :param name: a file or embed name (``/`` separates folders).
    """
    return posixpath.splitext(name)[1].lower()


def extension_type(name: str) -> str | None:
    """The type :data:`EXTENSION_TYPES` gives *name*'s extension, or None.

    :param name: a file or embed name.
    """
    return EXTENSION_TYPES.get(extension(name))


def guess_type(name: str) -> str | None:
    """The type *name* suggests when no bytes are at hand: the package's table first (so
    every system reports the same for the extensions it holds), then the platform's.

    :param name: a file or embed name.
    """
    known = extension_type(name)
    if known is not None:
        return known
    guessed, _ = mimetypes.guess_type(name, strict=False)
    return guessed


def media_type_for(name: str, data: bytes) -> str:
    """The media type of an asset: the bytes' own when they announce one, else the
    extension's for text, else ``text/plain`` for UTF-8 text, else
    ``application/octet-stream``.

    A binary extension whose bytes do not match (a ``.png`` holding text) follows the bytes.

    :param name: the asset's name.
    :param data: its bytes.
    """
    sniffed = sniff(data)
    if sniffed is not None:
        return sniffed
    if is_text(data):
        by_extension = extension_type(name)
        if by_extension is not None and is_text_type(by_extension):
            return by_extension
        return PLAIN_TEXT
    return OCTET_STREAM


def is_text_type(media_type: str) -> bool:
    """Whether *media_type* names text: any ``text/*`` type, or a textual ``application/*``
    one (JSON, JSON Lines, YAML, TOML, XML, JavaScript, shell, SQL).

    :param media_type: a media type, lower case.
    """
    return media_type.startswith("text/") or media_type in _TEXT_APPLICATION_TYPES


def is_image_type(media_type: str) -> bool:
    """Whether *media_type* names an image (any ``image/*`` type).

    :param media_type: a media type, lower case.
    """
    return media_type.startswith("image/")


def is_compressed(name: str) -> bool:
    """Whether *name*'s extension is one of :data:`COMPRESSED_EXTENSIONS`.

    :param name: a file or entry name.
    """
    return extension(name) in COMPRESSED_EXTENSIONS


def is_file_name(name: str) -> bool:
    """Whether *name* ends in one of :data:`FILE_EXTENSIONS`, in any case (``chart.PNG``,
    ``data.tar.gz``; not ``john.smith``, ``v1.2`` nor ``types/node``), or in one of their
    :data:`TYPO_EXTENSIONS` (``chart.pgn``).

    :param name: a reference or file name (``/`` separates folders).
    """
    dot = name.rfind(".")
    if dot < 0:
        return False
    extension = name[dot:].lower()
    return extension in FILE_EXTENSIONS or extension in TYPO_EXTENSIONS


def extension_for(media_type: str) -> str:
    """The file extension (with its dot) for *media_type*; ``.bin`` when none is known.

    :param media_type: a media type, in any case, parameters (``; charset=...``) allowed.
    """
    media_type = media_type.split(";", 1)[0].strip().lower()
    known = _TYPE_EXTENSIONS.get(media_type)
    if known is not None:
        return known
    guessed = mimetypes.guess_extension(media_type, strict=False)
    return guessed if guessed else ".bin"


def builtin_refusal(name: str, media_type: str, data: bytes) -> tuple[str, str] | None:
    """Why the built-in handlers send no part for these bytes, with what to do, or None.

    They refuse an image type no provider takes, a binary name with no bytes (nothing to
    tell its type by), bytes named as text that are not UTF-8, and any media type they
    have no part for; they send the rest.

    :param name: the asset's name (its extension says what it was meant to be).
    :param media_type: the type the bytes show (:func:`media_type_for`).
    :param data: the bytes, or their first :data:`TEXT_SNIFF_BYTES` for a type that is
        not text.
    """
    if media_type in IMAGE_TYPES or media_type in DOCUMENT_TYPES or media_type in VIDEO_TYPES:
        return None
    if media_type in AUDIO_FORMATS:
        return None
    if media_type in REFUSED_IMAGE_TYPES:
        return (
            f"the chat providers accept no {media_type} images",
            f"convert it to PNG, or register a handler for {media_type} with "
            "lmml_mdit.register_handler",
        )
    by_extension = extension_type(name)
    if not data and by_extension is not None and not is_text_type(by_extension):
        # No bytes to sniff: an empty '.png' would go out as an empty text file.
        return (
            f"embed is named as {by_extension} but holds no bytes (an empty file)",
            "put the file's content in it, or remove the reference",
        )
    if is_text_type(media_type):
        return None
    if by_extension is not None and is_text_type(by_extension):
        # A text extension whose bytes are not UTF-8 (Latin-1, UTF-16, binary).
        return (
            f"embed is named as {by_extension} but its bytes are not UTF-8 text",
            "re-encode it as UTF-8, or register a handler for its extension",
        )
    return (
        f"no handler for {media_type} content",
        "register one with lmml_mdit.register_handler(extension, fn)",
    )
