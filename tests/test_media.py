"""The media-type policy (:mod:`lmml_mdit.media`): one table, read the same by every consumer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from xss_corpus import make_png

import lmml_mdit
from lmml_mdit import media
from lmml_mdit.formats import ARCHIVE_SUFFIX, NARRATIVE_SUFFIX
from lmml_mdit.media import (
    AUDIO_FORMATS,
    COMPRESSED_EXTENSIONS,
    EXTENSION_TYPES,
    IMAGE_EXTENSIONS,
    IMAGE_TYPES,
    OCTET_STREAM,
    REFUSED_IMAGE_TYPES,
    SHOWN_IMAGE_TYPES,
    extension,
    extension_for,
    extension_type,
    guess_type,
    is_compressed,
    is_image_type,
    is_text,
    is_text_type,
    media_type_for,
    sniff,
)
from lmml_mdit.preview import placeholder

WAV = b"RIFF\x24\x00\x00\x00WAVEfmt "
BMP = (
    b"BM"
    + (70).to_bytes(4, "little")
    + bytes(4)
    + (54).to_bytes(4, "little")
    + (40).to_bytes(4, "little")
    + bytes(40)
)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (make_png(2, 2), "image/png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"),
        (b"GIF87a\x01\x00", "image/gif"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "image/webp"),
        (WAV, "audio/wav"),
        (b"%PDF-1.7\n", "application/pdf"),
        (b"ID3\x04\x00", "audio/mpeg"),
        (b"\xff\xfb\x90\x00", "audio/mpeg"),
        (BMP, "image/bmp"),
        (b"II*\x00\x08\x00", "image/tiff"),
        (b"\x00\x00\x01\x00\x01\x00", "image/vnd.microsoft.icon"),
        (b"\xef\xbb\xbf<?xml version='1.0'?>\n<!-- x -->\n<svg/>", "image/svg+xml"),
        (b"BMW service history\n", None),
        (b"PK\x03\x04", None),  # a zip is an archive, not a media type the messages take
        (b"", None),
    ],
)
def test_sniff_reads_magic_bytes(data: bytes, expected: str | None) -> None:
    assert sniff(data) == expected


def test_a_run_of_comments_is_read_once() -> None:
    """A narrative that opens with many role comments (``<!-- user -->`` lines one after
    another) is not an SVG, and saying so takes one pass: each comment ends at its first
    ``-->``, with no retrying of where the comments split (before, forty of them took
    hours)."""
    comments = b"<!-- user -->\n" * 40
    assert sniff(comments) is None
    assert sniff(comments + b"<svg/>") == "image/svg+xml"
    assert sniff(b"<!-- a -->\n<!DOCTYPE svg>\n<svg xmlns='x'>") == "image/svg+xml"
    assert sniff(b"<!-- open <svg>") is None
    assert sniff(b"<!-- a --> text <!-- b --> <svg>") is None


def test_the_bytes_decide_and_the_extension_only_names_text() -> None:
    assert media_type_for("photo.png", b"\xff\xd8\xff\xe0") == "image/jpeg"
    assert media_type_for("notes.png", b"just text\n") == "text/plain"
    assert media_type_for("table.csv", b"a,b\n") == "text/csv"
    assert media_type_for("CONFIG.YML", b"a: 1\n") == "application/yaml"
    assert media_type_for("notes", b"plain\n") == "text/plain"
    assert media_type_for("blob.csv", b"\x00\x01") == OCTET_STREAM
    assert media_type_for("latin.txt", "caf\xe9".encode("latin-1")) == OCTET_STREAM


def test_text_opening_with_id3_is_text_not_audio() -> None:
    # An ID3v2 tag has a version byte of 2 to 4 and a 7-bit size: a note or a CSV column
    # that starts with "ID3" stays text, and goes to the model as text, not as an MP3.
    assert sniff(b"ID3\x03\x00\x00\x00\x00\x02\x01") == "audio/mpeg"
    assert media_type_for("tags.md", b"ID3v2 frames are listed below.\n") == "text/markdown"
    assert media_type_for("ids.csv", b"ID3,name\n1,a\n") == "text/csv"
    assert sniff(b"ID3 tags\n") is None
    bundle = lmml_mdit.Bundle.from_zip("t", "## user\n@tags.md\n", {"tags.md": b"ID3v2 tags\n"})
    [message] = bundle.messages("openai")
    assert message["content"] == [{"type": "text", "text": "tags.md:\n```md\nID3v2 tags\n```"}]


@given(st.binary(max_size=64), st.sampled_from(sorted(EXTENSION_TYPES)))
def test_media_type_for_is_the_sniffed_type_or_follows_text(data: bytes, suffix: str) -> None:
    found = media_type_for("x" + suffix, data)
    sniffed = sniff(data)
    if sniffed is not None:
        assert found == sniffed
    elif is_text(data):
        assert is_text_type(found)
    else:
        assert found == OCTET_STREAM


def test_text_types() -> None:
    assert is_text_type("text/x-python") and is_text_type("application/json")
    assert is_text_type("application/toml") and is_text_type("application/jsonl")
    assert not is_text_type("application/pdf") and not is_text_type("image/svg+xml")
    assert is_text(b"ok\n") and not is_text(b"a\x00b") and not is_text(b"\xff")


def test_image_document_and_audio_types_are_disjoint_sets() -> None:
    assert IMAGE_TYPES.isdisjoint(REFUSED_IMAGE_TYPES)
    assert IMAGE_TYPES | {"image/svg+xml"} == SHOWN_IMAGE_TYPES
    assert all(is_image_type(kind) for kind in IMAGE_TYPES | REFUSED_IMAGE_TYPES)
    assert dict(AUDIO_FORMATS) == {"audio/wav": "wav", "audio/mpeg": "mp3"}
    assert {"application/pdf"} == media.DOCUMENT_TYPES


def test_one_extension_table() -> None:
    assert all(suffix == suffix.lower() and suffix.startswith(".") for suffix in EXTENSION_TYPES)
    assert extension_type(f"talk{NARRATIVE_SUFFIX}") == "text/markdown"
    assert extension_type("a/b.tar.GZ") is None
    assert extension("charts/Q3.PNG") == ".png" and extension("Makefile") == ""
    assert {".png", ".jpg", ".svg", ".avif"} <= IMAGE_EXTENSIONS
    assert all(EXTENSION_TYPES[suffix].startswith("image/") for suffix in IMAGE_EXTENSIONS)
    assert placeholder("a.PNG") == "[Image: a.PNG]"
    assert placeholder("a.csv") == "[Attachment: a.csv]"


def test_guess_type_reads_the_table_first_then_the_platform() -> None:
    assert guess_type("a.yaml") == "application/yaml"
    assert guess_type("a.xml") == "application/xml"  # the platform may say text/xml
    assert guess_type("a.zip") == "application/zip"
    assert guess_type("no-extension") is None


@pytest.mark.parametrize(
    ("media_type", "suffix"),
    [
        ("image/png", ".png"),
        ("IMAGE/JPEG; q=1", ".jpg"),
        ("image/jpg", ".jpg"),
        ("image/tiff", ".tiff"),
        ("audio/x-wav", ".wav"),
        ("audio/mpeg", ".mp3"),
        ("text/markdown", ".md"),
        ("text/plain; charset=utf-8", ".txt"),
        ("application/json", ".json"),
        ("application/yaml", ".yaml"),
        ("application/x-unknown-kind", ".bin"),
    ],
)
def test_extension_for(media_type: str, suffix: str) -> None:
    assert extension_for(media_type) == suffix


@given(st.sampled_from(sorted(set(EXTENSION_TYPES.values()))))
def test_extension_for_goes_back_to_the_same_type(media_type: str) -> None:
    assert EXTENSION_TYPES[extension_for(media_type)] == media_type


def test_compressed_extensions() -> None:
    assert ARCHIVE_SUFFIX in COMPRESSED_EXTENSIONS
    assert is_compressed("photos/a.JPG") and is_compressed("b.zip")
    assert not is_compressed("notes.txt") and not is_compressed("Makefile")
