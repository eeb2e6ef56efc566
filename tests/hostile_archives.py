"""A corpus of hostile and broken ``.lmmlz`` archives, built byte by byte for the tests.

:func:`raw_zip` writes local headers, central directory and end record by hand with
:mod:`struct`, so a test can make any field lie: the declared sizes, the names (NUL,
traversal, backslash, duplicates), the flags (encryption) and the file mode (symlinks).
"""

from __future__ import annotations

import io
import random
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass

import pytest

from lmml_mdit.bundle import ZipArchive

_LOCAL = struct.Struct("<4s2B4HL2L2H")
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
_END = struct.Struct("<4s4H2LH")


@dataclass
class Record:
    """One entry as :func:`raw_zip` writes it; every field can lie."""

    name: bytes
    data: bytes  # the stored bytes (already compressed when method is 8)
    method: int = 0
    crc: int | None = None  # None: the CRC of *plain* (or of data when stored)
    plain: bytes | None = None  # the uncompressed bytes, for the CRC
    declared_size: int | None = None  # None: the real uncompressed size
    declared_compressed: int | None = None
    flags: int = 0x800
    external_attr: int = 0o100644 << 16
    local_name: bytes | None = None
    local_extra_length: int = 0  # declared in the local header; no extra bytes are written


def deflated(name: str, plain: bytes, **changes: object) -> Record:
    """A deflate record for *plain*; *changes* override fields (e.g. a lying size)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    data = compressor.compress(plain) + compressor.flush()
    record = Record(name=name.encode("utf-8"), data=data, method=8, plain=plain)
    for key, value in changes.items():
        setattr(record, key, value)
    return record


def stored(name: str | bytes, plain: bytes, **changes: object) -> Record:
    """A stored record; *changes* override fields."""
    raw = name if isinstance(name, bytes) else name.encode("utf-8")
    record = Record(name=raw, data=plain, plain=plain)
    for key, value in changes.items():
        setattr(record, key, value)
    return record


def raw_zip(records: list[Record]) -> bytes:
    """Write *records* as an archive exactly as given, lies included."""
    out = io.BytesIO()
    central = io.BytesIO()
    for record in records:
        plain = record.plain if record.plain is not None else record.data
        crc = record.crc if record.crc is not None else zlib.crc32(plain)
        size = record.declared_size if record.declared_size is not None else len(plain)
        compressed = (
            record.declared_compressed
            if record.declared_compressed is not None
            else len(record.data)
        )
        local_name = record.local_name if record.local_name is not None else record.name
        # The fields both headers share: flags, method, mod time, mod date, CRC, sizes.
        shared = (record.flags, record.method, 0, 0x21, crc, compressed, size)
        offset = out.tell()
        out.write(
            _LOCAL.pack(b"PK\x03\x04", 20, 0, *shared, len(local_name), record.local_extra_length)
        )
        out.write(local_name)
        out.write(record.data)
        central.write(
            _CENTRAL.pack(
                b"PK\x01\x02",
                20,
                3,
                20,
                0,
                *shared,
                len(record.name),
                0,
                0,
                0,
                0,
                record.external_attr,
                offset,
            )
        )
        central.write(record.name)
    directory = central.getvalue()
    start = out.tell()
    out.write(directory)
    out.write(_END.pack(b"PK\x05\x06", 0, 0, len(records), len(records), len(directory), start, 0))
    return out.getvalue()


def normal_zip(entries: dict[str, bytes]) -> bytes:
    """A well-formed deflate archive made by :mod:`zipfile`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


NARRATIVE = stored("evil.lmml", b"See @a.txt.\n")
ASSET = stored("a.txt", b"hello\n")


def bomb_high_ratio(size: int = 16 * 1024 * 1024) -> bytes:
    """An honest archive whose entry declares a huge compression ratio (~1000:1)."""
    return raw_zip([NARRATIVE, deflated("a.txt", bytes(size))])


def bomb_lying_size(size: int = 32 * 1024 * 1024, declared: int = 1000) -> bytes:
    """An entry whose headers declare *declared* bytes but that inflates to *size*."""
    return raw_zip([NARRATIVE, deflated("a.txt", bytes(size), declared_size=declared)])


def overlapping_entries(copies: int = 20) -> bytes:
    """Many directory entries all pointing at one local entry's data (an overlap bomb).

    The blob is incompressible, so that only the overlap (not the ratio) gives it away.
    """
    blob = random.Random(0).randbytes(256 * 1024)
    names = [f"copy{index}.txt" for index in range(copies)]
    built = raw_zip([NARRATIVE, *(deflated(name, blob) for name in names)])
    return _point_all_at_first(built, names)


def _point_all_at_first(data: bytes, names: list[str]) -> bytes:
    archive = zipfile.ZipFile(io.BytesIO(data))
    first = archive.getinfo(names[0]).header_offset
    out = bytearray(data)
    end = data.rfind(b"PK\x05\x06")
    fields = _END.unpack_from(data, end)
    position = fields[6]
    while out[position : position + 4] == b"PK\x01\x02":
        header = list(_CENTRAL.unpack_from(out, position))
        name = bytes(out[position + _CENTRAL.size : position + _CENTRAL.size + header[12]])
        if name.decode() in names:
            header[18] = first
            _CENTRAL.pack_into(out, position, *header)
        position += _CENTRAL.size + header[12] + header[13] + header[14]
    return bytes(out)


def traversal() -> bytes:
    return raw_zip([NARRATIVE, stored("../../evil.txt", b"nope")])


def absolute_name() -> bytes:
    return raw_zip([NARRATIVE, stored("/etc/passwd", b"nope")])


def backslash_name() -> bytes:
    return raw_zip([NARRATIVE, stored("..\\evil.txt", b"nope")])


def drive_letter_name() -> bytes:
    return raw_zip([NARRATIVE, stored("C:/evil.txt", b"nope")])


def nul_name() -> bytes:
    return raw_zip([NARRATIVE, stored(b"a.txt\x00.png", b"nope")])


def empty_name() -> bytes:
    return raw_zip([NARRATIVE, stored(b"", b"nope")])


def symlink() -> bytes:
    return raw_zip(
        [NARRATIVE, stored("a.txt", b"/etc/passwd", external_attr=(stat.S_IFLNK | 0o777) << 16)]
    )


def duplicates() -> bytes:
    return raw_zip([NARRATIVE, ASSET, stored("a.txt", b"second copy\n")])


def case_collision() -> bytes:
    return raw_zip([NARRATIVE, ASSET, stored("A.TXT", b"other\n")])


def encrypted() -> bytes:
    return raw_zip([NARRATIVE, stored("a.txt", b"\x00" * 24, flags=0x801)])


def truncated() -> bytes:
    whole = normal_zip({"evil.lmml": b"See @a.txt.\n", "a.txt": b"hello\n" * 100})
    return whole[: len(whole) // 2]


def damaged_data() -> bytes:
    """The directory is intact but the entry's bytes fail their CRC."""
    return raw_zip([NARRATIVE, stored("a.txt", b"hello\n", crc=12345)])


def local_name_mismatch() -> bytes:
    return raw_zip([NARRATIVE, stored("a.txt", b"hello\n", local_name=b"../x.t")])


def no_narrative() -> bytes:
    return normal_zip({"image.png": b"\x89PNG"})


def two_narratives() -> bytes:
    return normal_zip({"one.lmml": b"one", "two.lmml": b"two"})


def invalid_utf8_narrative() -> bytes:
    return normal_zip({"evil.lmml": b"ok line\n\xff\xfe broken\n"})


def too_many_entries(count: int = 50) -> bytes:
    return raw_zip([NARRATIVE, *(stored(f"f{index}.txt", b"x") for index in range(count))])


def empty_archive() -> bytes:
    return normal_zip({})


def _central_record(name: bytes, offset: int, comment_length: int = 0) -> bytes:
    """A central directory record for an empty stored entry *name* at *offset*."""
    header = _CENTRAL.pack(
        b"PK\x01\x02", 20, 3, 20, 0, 0x800, 0, 0, 0x21, 0, 0, 0, len(name), 0,
        comment_length, 0, 0, 0o100644 << 16, offset,
    )  # fmt: skip
    return header + name


def decoy_end_record(entries: int = 20_000) -> bytes:
    """A small honest archive whose comment holds a second end record: :mod:`zipfile` reads
    that one, which names a central directory of *entries* records hidden in a stored
    entry's data (the last one's comment swallowing the real directory and end record).
    """
    fake = b"".join(_central_record(f"x{index}".encode(), 0) for index in range(entries - 1))

    def build(swallowed: int) -> tuple[bytes, bytes]:
        pad = fake + _central_record(b"last", 0, comment_length=swallowed)
        return raw_zip([NARRATIVE, stored("pad.bin", pad)]), pad

    first, _ = build(0)
    real_directory_start = _END.unpack_from(first, len(first) - _END.size)[6]
    swallowed = len(first) - real_directory_start  # the real directory and end record
    built, pad = build(swallowed)
    decoy = _END.pack(
        b"PK\x05\x06", 0, 0, entries, entries, len(pad) + swallowed, built.index(pad), 0
    )
    # One byte after the decoy: its comment length (0) no longer reaches the end, which
    # zipfile does not check when it searches for the last signature.
    comment = decoy + b"!"
    fields = list(_END.unpack_from(built, len(built) - _END.size))
    fields[7] = len(comment)
    return built[: -_END.size] + _END.pack(*fields) + comment


def local_extra_overlap() -> bytes:
    """The first asset's local header declares an extra field that runs into the next
    entry, so its data would start inside it (the central directory says nothing)."""
    return raw_zip(
        [NARRATIVE, stored("a.txt", b"hello\n", local_extra_length=40), stored("b.txt", b"b" * 64)]
    )


def unicode_caseless_twins() -> bytes:
    """Two names equal only under canonical caseless matching (``Ϊ́`` and ``ΐ``)."""
    return raw_zip([NARRATIVE, stored("\u03aa\u0301.txt", b"one"), stored("\u0390.txt", b"two")])


def record_entry_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the entries a test's bundles read, in order (``ZipArchive.read`` calls)."""
    reads: list[str] = []
    real_read = ZipArchive.read

    def recording_read(self: ZipArchive, name: str) -> bytes:
        reads.append(name)
        return real_read(self, name)

    monkeypatch.setattr(ZipArchive, "read", recording_read)
    return reads
