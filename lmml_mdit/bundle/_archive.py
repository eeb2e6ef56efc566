"""Safe reading of ``.lmmlz`` zip archives (RFC 9).

Everything about an archive is checked on its central directory (read with
:mod:`zipfile`) before a single entry is decompressed; an entry is then read here, not by
:mod:`zipfile`, which trusts the declared sizes: a bounded streaming read whose output is
counted, never written to disk. See docs/bundles.md, "Hostile archives and limits".
"""

from __future__ import annotations

import io
import os
import re
import stat
import struct
import threading
import unicodedata
import weakref
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..errors import (
    BundleError,
    CaseCollisionError,
    DuplicateEntryError,
    EncryptedEntryError,
    InvalidZipError,
    LimitExceededError,
    SymlinkEntryError,
    UnsafeEntryError,
)
from ..formats import ZIP_SIGNATURES
from ..text import is_unicode

if TYPE_CHECKING:
    # zipfile is imported where an archive is read, so opening a bare .lmml never loads it.
    import zipfile

__all__ = [
    "MAX_NAME_BYTES",
    "Limits",
    "Member",
    "SeekableFile",
    "ZipArchive",
    "check_entry_names",
    "collision_key",
    "is_zip",
    "open_archive",
    "unsafe_reason",
]

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB

_CHUNK = 256 * 1024
_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")
_CENTRAL_HEADER = struct.Struct("<4s4B4HL2L5H2L")
_END_RECORD = struct.Struct("<4s4H2LH")
_ZIP64_LOCATOR = struct.Struct("<4sLQL")
_ZIP64_END_RECORD = struct.Struct("<4sQ2H2L4Q")
_FLAG_ENCRYPTED = 0x1
_FLAG_STRONG_ENCRYPTION = 0x40
_FLAG_UTF8 = 0x800
_DRIVE = re.compile(r"^[A-Za-z]:")
MAX_NAME_BYTES = 0xFFFF
"""The longest entry name, in bytes of UTF-8: the zip format's 16-bit name length."""


@dataclass(frozen=True)
class Limits:
    """Safety limits for opening an archive; every one can be overridden.

    :ivar max_entries: most entries an archive may hold (directory entries included).
    :ivar max_entry_size: largest uncompressed size of one entry, the narrative included.
    :ivar max_total_size: largest sum of all entries' uncompressed sizes.
    :ivar max_ratio: largest uncompressed-to-compressed size ratio of one entry.
    :ivar ratio_floor: entries at most this large (uncompressed) are exempt from
        *max_ratio*, since small files of repeated bytes (a few KiB of blank lines or
        zeros) legitimately compress far better than 200:1 and are harmless;
        *max_total_size* still bounds them. Kept small so that any bomb of real size is
        caught by its ratio.
    :ivar max_central_directory: largest central directory, in bytes.
    :ivar max_narrative_bytes: largest narrative, in bytes: a bare ``.lmml`` file, an
        archive's narrative entry (checked on its declared size, before decompressing) or
        standard input. Parsing holds the tokens of the whole narrative, from about 20
        times its size for prose, about 90 times for text made of ``@name`` references,
        up to about 160 times for a table, so the default (32 MiB) keeps the worst case
        to a few gigabytes.
    """

    max_entries: int = 10_000
    max_entry_size: int = 512 * MiB
    max_total_size: int = 1 * GiB
    max_ratio: int = 200
    ratio_floor: int = 64 * KiB
    max_central_directory: int = 16 * MiB
    max_narrative_bytes: int = 32 * MiB

    def __post_init__(self) -> None:
        # A zero or negative limit would refuse everything, or nothing if mistyped; say so.
        for field, value in vars(self).items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Limits.{field} must be a positive integer, not {value!r}")


def is_zip(head: bytes) -> bool:
    """Whether bytes starting with *head* are a zip archive (decided by content only)."""
    return head[:4] in ZIP_SIGNATURES


def unsafe_reason(name: str) -> str | None:
    """Why *name* cannot be an archive entry name, or None when it is safe.

    A safe name is relative, uses ``/`` as its only separator and has no empty, ``.`` or
    ``..`` segment, no drive letter (``C:``), no NUL or other control character and no
    lone surrogate, and is at most :data:`MAX_NAME_BYTES` bytes of UTF-8.
    """
    if not name:
        return "the name is empty"
    if "\x00" in name:
        return "the name holds a NUL character"
    if any(unicodedata.category(char) == "Cc" for char in name):
        return "the name holds a control character"
    if not is_unicode(name):
        return "the name holds a lone surrogate, which is not valid Unicode"
    # Four bytes of UTF-8 at most per character: a shorter name needs no encoding.
    if len(name) > MAX_NAME_BYTES // 4 and len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return f"the name is longer than a zip entry name can be ({MAX_NAME_BYTES:,} bytes)"
    if "\\" in name:
        return "the name holds a backslash"
    if name.startswith("/"):
        return "the name is an absolute path"
    if _DRIVE.match(name):
        return "the name starts with a drive letter"
    for segment in name.split("/"):
        if segment == "..":
            return "the name has a '..' segment"
        if segment in ("", "."):
            return "the name has an empty or '.' segment"
    return None


def _collision_key(name: str) -> str:
    """The form two names share when they differ only in case or Unicode form: compatibility
    caseless matching (Unicode 3.13, D146), so ``Ϊ́`` and ``ΐ``, or ``ﬁ`` and ``FI``, meet."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFD", name).casefold())
    return unicodedata.normalize("NFKD", folded.casefold())


def collision_key(name: str) -> str:
    """The form *name* shares with every name a case-insensitive file system takes for
    the same file (case and Unicode form folded)."""
    return _collision_key(name)


def check_entry_names(names: Iterable[str]) -> None:
    """Check entry names for safety, duplicates and case collisions.

    :raises UnsafeEntryError: for the first unsafe name.
    :raises DuplicateEntryError: when a name repeats.
    :raises CaseCollisionError: when two names differ only in case (or Unicode form).
    """
    seen: dict[str, str] = {}
    exact: set[str] = set()
    for name in names:
        reason = unsafe_reason(name)
        if reason is not None:
            raise UnsafeEntryError(
                f"unsafe entry name: {reason}",
                name=name,
                hint="entry names must be relative paths with '/' separators",
            )
        if name in exact:
            raise DuplicateEntryError(
                "the archive holds this entry name more than once",
                name=name,
                hint="rebuild the archive with one entry per name",
            )
        exact.add(name)
        key = _collision_key(name)
        other = seen.get(key)
        if other is not None:
            raise CaseCollisionError(
                f"entry names {other!r} and {name!r} differ only in case",
                name=name,
                hint="rename one of them; they would overwrite each other on many file systems",
            )
        seen[key] = name


@dataclass(frozen=True)
class Member:
    """One file entry of an archive, as its central directory describes it."""

    name: str
    header_offset: int
    compress_type: int
    compress_size: int
    file_size: int
    crc: int
    raw_name: bytes = b""


class SeekableFile(Protocol):
    """A binary file object with random access: what an archive is read lazily through.

    A file opened from a path is one; so is a file of any fsspec filesystem
    (``fsspec.open(url, "rb")``), which is how archives behind a URL are read entry by
    entry without downloading the whole file.
    """

    def read(self, size: int = -1, /) -> bytes:
        """Up to *size* bytes from the current position."""

    def seek(self, offset: int, whence: int = 0, /) -> int:
        """Move to *offset* (from the start, the position or the end, by *whence*)."""

    def tell(self) -> int:
        """The current position."""

    def close(self) -> None:
        """Release the file."""


class _Source:
    """Random access to the archive's bytes, from memory or from an open file."""

    def __init__(
        self, data: bytes | None = None, path: str | None = None, file: SeekableFile | None = None
    ) -> None:
        self._data = data
        self._file: SeekableFile | None = None
        self._lock = threading.Lock()
        if path is not None:
            opened = open(path, "rb")  # noqa: SIM115 - closed by close() or the finalizer
            self._file = opened
            self._finalizer = weakref.finalize(self, opened.close)
            self.length = os.fstat(opened.fileno()).st_size
        elif file is not None:
            self._file = file
            self._finalizer = weakref.finalize(self, file.close)
            self.length = file.seek(0, os.SEEK_END)
        else:
            assert data is not None
            self.length = len(data)

    def read_at(self, offset: int, size: int) -> bytes:
        if offset < 0 or size < 0 or offset + size > self.length:
            raise InvalidZipError("the archive is truncated: a read runs past its end")
        if self._data is not None:
            return self._data[offset : offset + size]
        with self._lock:
            if self._file is None or not self._finalizer.alive:
                raise BundleError(
                    "the archive has been closed", hint="open the bundle again to read it"
                )
            self._file.seek(offset)
            data = self._file.read(size)
        if len(data) != size:
            raise InvalidZipError("the archive is truncated: a read runs past its end")
        return data

    def file_object(self) -> SeekableFile | io.BytesIO:
        if self._file is not None:
            return self._file
        assert self._data is not None
        return io.BytesIO(self._data)

    def close(self) -> None:
        if self._file is not None:
            self._finalizer()


LIMITS_CLI_HINT = (
    "the command line keeps the default safety limits; if you trust the file, raise the "
    "limit where you open it from Python (see 'Hostile archives and limits' in the bundles "
    "guide)"
)
"""What the command line says about a safety limit it has no flag for."""


def _limit_error(message: str, name: str | None, limit: str) -> LimitExceededError:
    return LimitExceededError(
        message,
        name=name,
        hint=f"pass lmml_mdit.Limits({limit}=...) to open() if you trust this archive",
        cli_hint=LIMITS_CLI_HINT,
    )


def _end_record(source: _Source) -> tuple[int, tuple[int, ...]]:
    """Find the end record the way :mod:`zipfile` does, so the limits check the directory
    it will read: the record with no comment that ends the file, else the last signature in
    the final 64 KiB (whatever its comment length says; a comment may hold a decoy record).

    :returns: the record's offset and its unpacked fields.
    """
    size = _END_RECORD.size
    if source.length >= size:
        last = source.read_at(source.length - size, size)
        if last[:4] == b"PK\x05\x06" and last[-2:] == b"\x00\x00":
            return source.length - size, _END_RECORD.unpack(last)
    tail_start = max(source.length - 65536 - size, 0)
    tail = source.read_at(tail_start, source.length - tail_start)
    position = tail.rfind(b"PK\x05\x06")
    if position < 0 or position + size > len(tail):
        raise InvalidZipError(
            "the archive has no end-of-central-directory record (truncated or not a zip)",
            hint="the file is damaged; get a complete copy",
        )
    return tail_start + position, _END_RECORD.unpack_from(tail, position)


def _central_directory_span(source: _Source) -> tuple[int, int]:
    """The central directory's (start, size), computed as :mod:`zipfile` computes it."""
    end_offset, fields = _end_record(source)
    cd_size, cd_offset = fields[5], fields[6]
    start = end_offset - cd_size
    locator_offset = end_offset - _ZIP64_LOCATOR.size
    if locator_offset >= 0:
        locator = source.read_at(locator_offset, _ZIP64_LOCATOR.size)
        record_start = locator_offset - _ZIP64_END_RECORD.size
        if locator[:4] == b"PK\x06\x07" and record_start >= 0:
            record = _ZIP64_END_RECORD.unpack(source.read_at(record_start, _ZIP64_END_RECORD.size))
            # Like zipfile, a locator without its record leaves the plain record in force.
            if record[0] == b"PK\x06\x06":
                cd_size, cd_offset = record[8], record[9]
                start = record_start - cd_size
    # Like zipfile, allow bytes prepended to the archive: the directory ends at its record.
    if start < 0 or cd_offset > end_offset:
        raise InvalidZipError("the archive's central directory lies outside the file")
    return start, cd_size


def _count_central_records(source: _Source, start: int, size: int, limits: Limits) -> None:
    """Walk the central directory's records, refusing too many before zipfile builds them."""
    if size > limits.max_central_directory:
        raise _limit_error(
            f"the central directory is {size} bytes, over max_central_directory "
            f"({limits.max_central_directory})",
            None,
            "max_central_directory",
        )
    directory = source.read_at(start, size)
    offset = 0
    count = 0
    while offset + _CENTRAL_HEADER.size <= len(directory):
        if directory[offset : offset + 4] != b"PK\x01\x02":
            break
        fields = _CENTRAL_HEADER.unpack_from(directory, offset)
        name_start = offset + _CENTRAL_HEADER.size
        offset = name_start + fields[12] + fields[13] + fields[14]
        count += 1
        if count > limits.max_entries:
            # Name the first entry past the limit, so the error says where it was crossed.
            raw_name = directory[name_start : name_start + fields[12]]
            extra_start = name_start + fields[12]
            raise _limit_error(
                f"the archive holds more than max_entries ({limits.max_entries}) entries; "
                "this is the first one past the limit",
                decode_entry_name(
                    raw_name, fields[5], directory[extra_start : extra_start + fields[13]]
                ),
                "max_entries",
            )


_UNICODE_PATH_FIELD = 0x7075


def _unicode_path(raw_name: bytes, extra: bytes) -> str | None:
    """The name an Info-ZIP Unicode Path extra field (0x7075) records, or None when there
    is none, or it is stale (its CRC is not that of *raw_name*) or not UTF-8."""
    offset = 0
    while offset + 4 <= len(extra):
        field, length = struct.unpack_from("<HH", extra, offset)
        body = extra[offset + 4 : offset + 4 + length]
        offset += 4 + length
        if field != _UNICODE_PATH_FIELD or len(body) < 5 or body[0] != 1:
            continue
        if struct.unpack_from("<L", body, 1)[0] != zlib.crc32(raw_name):
            return None
        try:
            return body[5:].decode("utf-8")
        except UnicodeDecodeError:
            return None
    return None


def decode_entry_name(raw_name: bytes, flags: int, extra: bytes = b"") -> str:
    """An entry name as the tool that wrote it meant it.

    With the UTF-8 flag (general purpose bit 11), UTF-8. Without it, the Info-ZIP Unicode
    Path extra field when it matches the name; else the bytes as UTF-8 when they are
    valid UTF-8 (Info-ZIP ``zip`` on Linux and macOS, among others, stores UTF-8 names
    without the flag); else the legacy code page, cp437.
    """
    if flags & _FLAG_UTF8:
        return raw_name.decode("utf-8", "replace")
    recorded = _unicode_path(raw_name, extra)
    if recorded is not None:
        return recorded
    try:
        return raw_name.decode("utf-8")
    except UnicodeDecodeError:
        return raw_name.decode("cp437")


def _raw_name(info: zipfile.ZipInfo) -> bytes:
    """*info*'s name as stored (zipfile decodes a flagged name as UTF-8, others as cp437)."""
    return info.orig_filename.encode("utf-8" if info.flag_bits & _FLAG_UTF8 else "cp437")


def _check_info(info: zipfile.ZipInfo, limits: Limits) -> None:
    import zipfile

    name = info.orig_filename
    if info.flag_bits & (_FLAG_ENCRYPTED | _FLAG_STRONG_ENCRYPTION):
        raise EncryptedEntryError(
            "the entry is encrypted",
            name=name,
            hint="LMML archives cannot be encrypted; re-save the bundle without a password",
        )
    if stat.S_ISLNK(info.external_attr >> 16):
        raise SymlinkEntryError(
            "the entry is a symbolic link",
            name=name,
            hint="store the file itself in the archive, not a link to it",
        )
    if name.endswith("/"):
        return
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise BundleError(
            f"the entry uses compression method {info.compress_type}, which is not supported",
            name=name,
            hint="re-save the archive with deflate or no compression",
        )
    if info.compress_type == zipfile.ZIP_STORED and info.compress_size != info.file_size:
        raise InvalidZipError(
            f"the stored entry declares {info.file_size} bytes but holds {info.compress_size}",
            name=name,
        )
    if info.file_size > limits.max_entry_size:
        raise _limit_error(
            f"the entry declares {info.file_size} bytes, over max_entry_size "
            f"({limits.max_entry_size})",
            name,
            "max_entry_size",
        )
    if info.file_size > limits.ratio_floor and (
        info.file_size > limits.max_ratio * max(info.compress_size, 1)
    ):
        raise _limit_error(
            f"the entry declares a compression ratio of "
            f"{info.file_size // max(info.compress_size, 1)}:1, over max_ratio "
            f"({limits.max_ratio}:1)",
            name,
            "max_ratio",
        )


def _local_header(source: _Source, member: Member) -> tuple[int, int, int] | None:
    """The flags, name length and extra-field length of *member*'s local header, or None
    when there is no readable header at its offset."""
    if member.header_offset + _LOCAL_HEADER.size > source.length:
        return None
    fields = _LOCAL_HEADER.unpack(source.read_at(member.header_offset, _LOCAL_HEADER.size))
    if fields[0] != b"PK\x03\x04":
        return None
    return int(fields[3]), int(fields[10]), int(fields[11])


def _local_header_size(source: _Source, member: Member) -> int:
    """The size of *member*'s local header, its name and extra field included (the fixed
    part only when the header is unreadable, which reading the entry then reports)."""
    header = _local_header(source, member)
    return _LOCAL_HEADER.size + (header[1] + header[2] if header is not None else 0)


def _check_layout(source: _Source, members: list[Member], directory_start: int) -> None:
    """Refuse entries whose header or data overlaps another's or the central directory."""
    ordered = sorted(members, key=lambda member: member.header_offset)
    for index, member in enumerate(ordered):
        end = member.header_offset + _local_header_size(source, member) + member.compress_size
        following = index + 1
        limit = ordered[following].header_offset if following < len(ordered) else directory_start
        if end > limit:
            raise InvalidZipError(
                "the entry's data overlaps another entry or the central directory",
                name=member.name,
                hint="overlapping entries are a zip-bomb technique; the archive is refused",
            )


class ZipArchive:
    """A checked archive whose entries are decompressed only when read.

    Build one with :func:`open_archive`. ``members`` holds the file entries (directory
    entries are left out) in archive order.
    """

    def __init__(self, source: _Source, members: dict[str, Member], limits: Limits) -> None:
        self._source = source
        self.members = members
        self.limits = limits

    def size(self, name: str) -> int:
        """The uncompressed size of entry *name*, from the central directory."""
        return self.members[name].file_size

    def close(self) -> None:
        """Close the archive file (a no-op for an archive held in memory)."""
        self._source.close()

    def _data_offset(self, member: Member) -> int:
        header = _local_header(self._source, member)
        if header is None:
            raise InvalidZipError("the entry's local header is missing", name=member.name)
        flags, name_length, extra_length = header
        raw_name = self._source.read_at(member.header_offset + _LOCAL_HEADER.size, name_length)
        extra = self._source.read_at(
            member.header_offset + _LOCAL_HEADER.size + name_length, extra_length
        )
        local_name = decode_entry_name(raw_name, flags, extra)
        if local_name != member.name and raw_name != member.raw_name:
            raise InvalidZipError(
                f"the entry's local header names it {local_name!r}",
                name=member.name,
                hint="the archive's two name tables disagree; it is damaged or hostile",
            )
        return member.header_offset + _LOCAL_HEADER.size + name_length + extra_length

    def read(self, name: str) -> bytes:
        """Decompress entry *name*, counting the output against the limits.

        :raises KeyError: when there is no such entry.
        :raises LimitExceededError: when the data inflates past its declared size or a
            limit, however its headers lie.
        :raises InvalidZipError: for damaged data (bad CRC, early end, truncation).
        """
        import zipfile

        member = self.members[name]
        start = self._data_offset(member)
        if start + member.compress_size > self._source.length:
            raise InvalidZipError("the entry's data runs past the end of the archive", name=name)
        if member.compress_type == zipfile.ZIP_STORED:
            data = self._source.read_at(start, member.compress_size)
            crc = zlib.crc32(data)
        else:
            data, crc = self._inflate(member, start)
        if crc != member.crc:
            raise InvalidZipError(
                "the entry's data fails its CRC check", name=name, hint="the archive is damaged"
            )
        return data

    def read_head(self, name: str, size: int) -> bytes:
        """Up to the first *size* bytes of entry *name*, decompressing no further than that
        (what tells a media type); the whole entry, CRC checked, when it is no longer.

        :raises KeyError: when there is no such entry.
        :raises LimitExceededError: when the data read inflates past a limit.
        :raises InvalidZipError: for damaged data.
        """
        import zipfile

        member = self.members[name]
        if size >= member.file_size:
            return self.read(name)
        start = self._data_offset(member)
        if start + member.compress_size > self._source.length:
            raise InvalidZipError("the entry's data runs past the end of the archive", name=name)
        if member.compress_type == zipfile.ZIP_STORED:
            return self._source.read_at(start, size)
        return self._inflate(member, start, stop=size)[0]

    def _inflate(self, member: Member, start: int, *, stop: int | None = None) -> tuple[bytes, int]:
        """The entry's bytes and their CRC, inflated in chunks within the limits; with
        *stop*, only its first *stop* bytes (no CRC check then: the rest is not read)."""
        limits = self.limits
        ceiling = min(member.file_size, limits.max_entry_size)
        decompressor = zlib.decompressobj(-zlib.MAX_WBITS)
        chunks: list[bytes] = []
        produced = 0
        crc = 0
        consumed = 0
        wanted = ceiling + 1 if stop is None else min(ceiling + 1, stop)
        while consumed < member.compress_size and not decompressor.eof and produced < wanted:
            size = min(_CHUNK, member.compress_size - consumed)
            pending = self._source.read_at(start + consumed, size)
            consumed += size
            while pending and not decompressor.eof and produced < wanted:
                try:
                    out = decompressor.decompress(pending, wanted - produced)
                except zlib.error as error:
                    raise InvalidZipError(
                        f"the entry's compressed data is damaged ({error})", name=member.name
                    ) from None
                pending = decompressor.unconsumed_tail
                produced += len(out)
                self._check_output(member, produced, consumed)
                crc = zlib.crc32(out, crc)
                chunks.append(out)
        if stop is not None and produced >= stop:
            return b"".join(chunks)[:stop], crc
        if not decompressor.eof:
            raise InvalidZipError("the entry's compressed data ends early", name=member.name)
        if produced != member.file_size:
            raise InvalidZipError(
                f"the entry declares {member.file_size} bytes but holds {produced}",
                name=member.name,
            )
        data = b"".join(chunks)
        chunks.clear()
        return data, crc

    def _check_output(self, member: Member, produced: int, consumed: int) -> None:
        limits = self.limits
        if produced > limits.max_entry_size:
            raise _limit_error(
                f"the entry inflates past max_entry_size ({limits.max_entry_size} bytes)",
                member.name,
                "max_entry_size",
            )
        if produced > member.file_size:
            raise _limit_error(
                f"the entry inflates past its declared size ({member.file_size} bytes); "
                "its headers lie, so it is treated as a zip bomb",
                member.name,
                "max_entry_size",
            )
        if produced > limits.ratio_floor and produced > limits.max_ratio * max(consumed, 1):
            raise _limit_error(
                f"the entry inflates past max_ratio ({limits.max_ratio}:1)",
                member.name,
                "max_ratio",
            )


def _read_directory(source: _Source, limits: Limits) -> ZipArchive:
    import zipfile

    directory_start, directory_size = _central_directory_span(source)
    _count_central_records(source, directory_start, directory_size, limits)
    try:
        with zipfile.ZipFile(source.file_object()) as archive:
            infos = archive.infolist()
            read_from = archive.start_dir
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        NotImplementedError,
        EOFError,
        ValueError,
        struct.error,
    ) as error:
        raise InvalidZipError(
            f"the archive's central directory is damaged ({error})",
            hint="the file is truncated or corrupt; get a complete copy",
        ) from None
    except UnicodeDecodeError:
        raise InvalidZipError(
            "an entry name in the central directory is not valid UTF-8",
            hint="re-create the archive with UTF-8 names",
        ) from None
    if read_from != directory_start:  # a zipfile that finds its directory another way
        raise InvalidZipError(
            "the archive's end records disagree about where its central directory is",
            hint="the archive is damaged or hostile; re-create it",
        )
    if len(infos) > limits.max_entries:
        raise _limit_error(
            f"the archive holds {len(infos)} entries, over max_entries ({limits.max_entries})",
            None,
            "max_entries",
        )
    raw_names = [_raw_name(info) for info in infos]
    for info, raw_name in zip(infos, raw_names, strict=True):
        info.orig_filename = info.filename = decode_entry_name(raw_name, info.flag_bits, info.extra)
    check_entry_names(info.orig_filename.removesuffix("/") for info in infos)
    members: dict[str, Member] = {}
    total = 0
    for info, raw_name in zip(infos, raw_names, strict=True):
        _check_info(info, limits)
        if info.orig_filename.endswith("/"):
            continue
        total += info.file_size
        if total > limits.max_total_size:
            raise _limit_error(
                f"the entries declare more than max_total_size ({limits.max_total_size} bytes)",
                info.orig_filename,
                "max_total_size",
            )
        members[info.orig_filename] = Member(
            name=info.orig_filename,
            header_offset=info.header_offset,
            compress_type=info.compress_type,
            compress_size=info.compress_size,
            file_size=info.file_size,
            crc=info.CRC,
            raw_name=raw_name,
        )
    _check_layout(source, list(members.values()), directory_start)
    return ZipArchive(source, members, limits)


def open_archive(source: bytes | str | SeekableFile, limits: Limits | None = None) -> ZipArchive:
    """Check an archive's central directory and return it, decompressing nothing.

    :param source: the archive's bytes, the path of a file, or a seekable binary file
        object (:class:`SeekableFile`, such as an fsspec file); a file is then kept open for
        lazy reads and closed by :meth:`ZipArchive.close`.
    :param limits: the safety limits; :class:`Limits` defaults when None.
    :raises InvalidZipError: for a truncated or corrupt archive.
    :raises UnsafeEntryError: for an unsafe entry name.
    :raises DuplicateEntryError: for a repeated entry name.
    :raises CaseCollisionError: for names differing only in case.
    :raises SymlinkEntryError: for a symbolic-link entry.
    :raises EncryptedEntryError: for an encrypted entry.
    :raises LimitExceededError: when a declared figure crosses a limit.
    :raises BundleError: for an unsupported compression method.
    """
    limits = limits if limits is not None else Limits()
    if isinstance(source, str):
        stream = _Source(path=source)
    elif isinstance(source, (bytes, bytearray, memoryview)):
        stream = _Source(data=bytes(source))
    else:
        stream = _Source(file=source)
    try:
        return _read_directory(stream, limits)
    except BaseException:
        stream.close()
        raise
