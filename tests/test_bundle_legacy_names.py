"""Entry names written by zip tools that do not set the UTF-8 flag (general purpose bit 11).

Info-ZIP ``zip`` on Linux and macOS, and many other tools, store a name's UTF-8 bytes
without the flag; some add the Info-ZIP Unicode Path extra field (0x7075) beside a
legacy code-page name. Both must open under the name the user gave the file, never a
code-page misreading that ``save()`` would then write back as the entry's new name.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit.cli import main
from lmml_mdit.errors import InvalidZipError

NARRATIVE = "<!-- user -->\nSee @café.csv\n"
DATA = b"x,y\n1,2\n"


def _raw_zip(entries: list[tuple[bytes, bytes, bytes]]) -> bytes:
    """An archive of (raw name, data, extra field) entries with flag bit 11 clear, as
    Info-ZIP zip writes them: built under ASCII stand-ins of the same byte length (so
    zipfile sets no flag), then the raw names patched into both headers."""
    buffer = io.BytesIO()
    stand_ins: dict[bytes, bytes] = {}
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index, (raw, data, extra) in enumerate(entries):
            stand_in = f"{index:0{len(raw)}d}".encode("ascii")
            stand_ins[stand_in] = raw
            info = zipfile.ZipInfo(stand_in.decode("ascii"))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.extra = extra
            archive.writestr(info, data)
    data = buffer.getvalue()
    for stand_in, raw in stand_ins.items():
        assert data.count(stand_in) == 2
        data = data.replace(stand_in, raw)
    for entry in zipfile.ZipFile(io.BytesIO(data)).infolist():
        assert not entry.flag_bits & 0x800
    return data


def _zip_without_utf8_flag(names: dict[str, bytes]) -> bytes:
    return _raw_zip([(name.encode("utf-8"), data, b"") for name, data in names.items()])


def _unicode_path_extra(raw_name: bytes, name: str) -> bytes:
    body = struct.pack("<BL", 1, zlib.crc32(raw_name)) + name.encode("utf-8")
    return struct.pack("<HH", 0x7075, len(body)) + body


def test_utf8_names_without_the_flag_open_under_their_own_names(tmp_path: Path) -> None:
    data = _zip_without_utf8_flag({"café.lmml": NARRATIVE.encode(), "café.csv": DATA})
    for entry in zipfile.ZipFile(io.BytesIO(data)).infolist():
        assert not entry.flag_bits & 0x800  # the archive is what such a tool writes
    path = tmp_path / "café.lmmlz"
    path.write_bytes(data)
    with lmml_mdit.open(path) as bundle:
        assert bundle.narrative_name == "café.lmml"
        assert bundle.entries == ("café.csv",)
        assert bundle.embed("café.csv") == DATA
        assert bundle.validate() == []
        bundle.save(tmp_path / "out.lmmlz")
    with zipfile.ZipFile(tmp_path / "out.lmmlz") as written:
        assert written.namelist() == ["out.lmml", "café.csv"]
    assert main(["validate", str(path)]) == 0


def test_the_unicode_path_extra_field_names_the_entry() -> None:
    legacy = "café.csv".encode("cp1252")  # a Windows code page, read as cp437 otherwise
    data = _raw_zip(
        [
            (b"chat.lmml", NARRATIVE.encode(), b""),
            (legacy, DATA, _unicode_path_extra(legacy, "café.csv")),
        ]
    )
    bundle = lmml_mdit.open(data, name="chat.lmmlz")
    assert bundle.entries == ("café.csv",)
    assert bundle.embed("café.csv") == DATA
    assert bundle.validate() == []


def test_a_stale_unicode_path_field_is_ignored() -> None:
    # The field records the CRC of the name it was written for: a name changed since
    # (by a tool that kept the old field) keeps its own bytes.
    data = _raw_zip(
        [
            (b"chat.lmml", b"<!-- user -->\nSee @notes.txt\n", b""),
            (b"notes.txt", b"kept\n", _unicode_path_extra(b"old.txt", "old.txt")),
        ]
    )
    bundle = lmml_mdit.open(data, name="chat.lmmlz")
    assert bundle.entries == ("notes.txt",)
    assert bundle.embed("notes.txt") == b"kept\n"


def test_a_legacy_code_page_name_still_opens() -> None:
    # Bytes that are not UTF-8 stay the legacy code page (cp437), as before.
    data = _raw_zip([(b"chat.lmml", b"hi\n", b""), ("café.csv".encode("cp437"), DATA, b"")])
    bundle = lmml_mdit.open(data, name="chat.lmmlz")
    assert bundle.entries == ("café.csv",)


def test_a_unicode_path_field_cannot_smuggle_an_unsafe_name() -> None:
    data = _raw_zip(
        [
            (b"chat.lmml", b"hi\n", b""),
            (b"ok.txt", b"x", _unicode_path_extra(b"ok.txt", "../evil.txt")),
        ]
    )
    with pytest.raises(lmml_mdit.UnsafeEntryError) as raised:
        lmml_mdit.open(data, name="chat.lmmlz")
    assert "../evil.txt" in str(raised.value)


def test_local_and_central_names_must_still_agree() -> None:
    data = _zip_without_utf8_flag({"chat.lmml": b"hi\n", "café.csv": DATA})
    central = data.rindex("café.csv".encode())
    tampered = data[:central] + "cafè.csv".encode() + data[central + len("café.csv".encode()) :]
    bundle = lmml_mdit.open(tampered, name="chat.lmmlz")
    with pytest.raises(InvalidZipError):
        bundle.read("cafè.csv")


def test_a_name_in_another_unicode_form_is_told_apart_in_the_suggestion() -> None:
    # macOS writes file names decomposed (e + U+0301); the reference typed composed looks
    # the same, so "did you mean café.csv?" would read as nonsense.
    decomposed = "cafe\u0301.csv"
    bundle = lmml_mdit.Bundle.from_zip("m", NARRATIVE, {decomposed: DATA})
    missing = [issue for issue in bundle.validate() if issue.kind == "missing_reference"]
    assert len(missing) == 1
    assert "did you mean café.csv?" not in missing[0].message
    assert "'cafe\\u0301.csv'" in missing[0].message
    assert "Unicode form" in missing[0].message
