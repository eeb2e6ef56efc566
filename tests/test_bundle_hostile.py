"""Hostile and broken archives: each gives its own error, reads nothing past a limit and
writes nothing anywhere."""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import hostile_archives as corpus
import pytest

from lmml_mdit import Bundle, Limits
from lmml_mdit import open as open_bundle
from lmml_mdit.bundle import unsafe_reason
from lmml_mdit.errors import (
    BundleError,
    CaseCollisionError,
    DuplicateEntryError,
    EncryptedEntryError,
    InvalidZipError,
    LimitExceededError,
    LmmlError,
    LmmlSyntaxError,
    MissingNarrativeError,
    SymlinkEntryError,
    UnsafeEntryError,
)

MiB = 1024 * 1024

OPEN_ERRORS: list[tuple[str, Callable[[], bytes], type[LmmlError], str | None]] = [
    ("traversal", corpus.traversal, UnsafeEntryError, "../../evil.txt"),
    ("absolute", corpus.absolute_name, UnsafeEntryError, "/etc/passwd"),
    ("backslash", corpus.backslash_name, UnsafeEntryError, "..\\evil.txt"),
    ("drive letter", corpus.drive_letter_name, UnsafeEntryError, "C:/evil.txt"),
    ("NUL", corpus.nul_name, UnsafeEntryError, "a.txt\x00.png"),
    ("empty name", corpus.empty_name, UnsafeEntryError, ""),
    ("symlink", corpus.symlink, SymlinkEntryError, "a.txt"),
    ("duplicates", corpus.duplicates, DuplicateEntryError, "a.txt"),
    ("case collision", corpus.case_collision, CaseCollisionError, "A.TXT"),
    ("encrypted", corpus.encrypted, EncryptedEntryError, "a.txt"),
    ("truncated", corpus.truncated, InvalidZipError, None),
    ("high ratio bomb", corpus.bomb_high_ratio, LimitExceededError, "a.txt"),
    ("overlapping entries", corpus.overlapping_entries, InvalidZipError, None),
    ("no narrative", corpus.no_narrative, MissingNarrativeError, None),
    ("two narratives", corpus.two_narratives, MissingNarrativeError, None),
    ("empty archive", corpus.empty_archive, MissingNarrativeError, None),
    ("invalid UTF-8 narrative", corpus.invalid_utf8_narrative, LmmlSyntaxError, "evil.lmml"),
]


def _snapshot(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


@pytest.mark.parametrize(
    ("build", "error", "name"),
    [case[1:] for case in OPEN_ERRORS],
    ids=[case[0] for case in OPEN_ERRORS],
)
def test_each_hostile_archive_gives_its_own_error_and_writes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    build: Callable[[], bytes],
    error: type[LmmlError],
    name: str | None,
) -> None:
    work = tmp_path / "work" / "deeper"
    work.mkdir(parents=True)
    archive = work / "evil.lmmlz"
    archive.write_bytes(build())
    monkeypatch.chdir(work)
    before = _snapshot(tmp_path)
    with pytest.raises(error) as raised:
        open_bundle(archive)
    assert type(raised.value) is error, "each case has its own error class, not a parent"
    if name is not None:
        assert raised.value.name == name
    assert _snapshot(tmp_path) == before
    assert not (tmp_path / "evil.txt").exists()


@pytest.mark.parametrize(
    ("build", "error"),
    [case[1:3] for case in OPEN_ERRORS],
    ids=[case[0] for case in OPEN_ERRORS],
)
def test_hostile_bytes_fail_the_same_way_as_files(
    build: Callable[[], bytes], error: type[Exception]
) -> None:
    with pytest.raises(error):
        open_bundle(build(), name="evil.lmmlz")


def test_unsafe_name_errors_say_what_to_do() -> None:
    with pytest.raises(UnsafeEntryError) as raised:
        open_bundle(corpus.traversal(), name="evil.lmmlz")
    assert raised.value.hint
    assert "'..'" in str(raised.value)


def test_lying_size_bomb_stops_at_the_declared_size_without_inflating_it() -> None:
    data = corpus.bomb_lying_size(size=64 * MiB, declared=1000)
    bundle = open_bundle(data, name="evil.lmmlz")
    assert bundle.entry_size("a.txt") == 1000
    tracemalloc.start()
    try:
        with pytest.raises(LimitExceededError) as raised:
            bundle.read("a.txt")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert raised.value.name == "a.txt"
    assert "declared size" in str(raised.value)
    assert peak < 2 * MiB, f"read past the limit: peak {peak} bytes"


def test_lying_size_bomb_within_a_generous_declared_size_still_stops_at_max_entry_size() -> None:
    data = corpus.bomb_lying_size(size=32 * MiB, declared=3 * MiB)
    limits = Limits(max_entry_size=4 * MiB, max_ratio=10_000)
    bundle = open_bundle(data, name="evil.lmmlz", limits=limits)
    tracemalloc.start()
    try:
        with pytest.raises(LimitExceededError):
            bundle.read("a.txt")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * MiB


def test_high_ratio_is_refused_before_decompressing_and_names_the_limit() -> None:
    with pytest.raises(LimitExceededError) as raised:
        open_bundle(corpus.bomb_high_ratio(), name="evil.lmmlz")
    assert "max_ratio" in str(raised.value)
    assert "Limits(max_ratio" in (raised.value.hint or "")


def test_high_ratio_opens_when_the_limit_is_raised() -> None:
    bundle = open_bundle(
        corpus.bomb_high_ratio(size=4 * MiB), name="evil.lmmlz", limits=Limits(max_ratio=5000)
    )
    assert bundle.read("a.txt") == bytes(4 * MiB)


def test_entry_count_limit() -> None:
    with pytest.raises(LimitExceededError) as raised:
        open_bundle(corpus.too_many_entries(50), name="evil.lmmlz", limits=Limits(max_entries=20))
    assert "max_entries" in str(raised.value)
    assert raised.value.name == "f19.txt", "the 21st entry (after the narrative) crosses it"
    assert open_bundle(corpus.too_many_entries(10), name="evil.lmmlz").entries[:2] == (
        "f0.txt",
        "f1.txt",
    )


def test_entry_size_and_total_size_limits() -> None:
    data = corpus.normal_zip({"x.lmml": b"@a.bin @b.bin", "a.bin": b"a" * 600, "b.bin": b"b" * 600})
    with pytest.raises(LimitExceededError, match="max_entry_size"):
        open_bundle(data, limits=Limits(max_entry_size=500))
    with pytest.raises(LimitExceededError, match="max_total_size"):
        open_bundle(data, limits=Limits(max_total_size=1000))
    assert open_bundle(data, limits=Limits(max_total_size=2000)).read("b.bin") == b"b" * 600


def test_damaged_entry_data_fails_its_crc_on_read() -> None:
    bundle = open_bundle(corpus.damaged_data(), name="evil.lmmlz")
    with pytest.raises(InvalidZipError, match="CRC"):
        bundle.read("a.txt")


def test_local_header_name_differing_from_the_directory_is_refused_on_read() -> None:
    bundle = open_bundle(corpus.local_name_mismatch(), name="evil.lmmlz")
    with pytest.raises(InvalidZipError, match="local header"):
        bundle.read("a.txt")


def test_text_file_named_lmmlz_opens_as_text(tmp_path: Path) -> None:
    path = tmp_path / "notes.lmmlz"
    path.write_text("Just text, @a.txt\n", encoding="utf-8")
    bundle = open_bundle(path)
    assert bundle.kind == "text"
    assert bundle.name == "notes"


def test_truncated_file_named_lmmlz_is_invalid_zip(tmp_path: Path) -> None:
    path = tmp_path / "cut.lmmlz"
    path.write_bytes(corpus.truncated())
    with pytest.raises(InvalidZipError):
        open_bundle(path)


def test_missing_narrative_lists_candidates() -> None:
    with pytest.raises(MissingNarrativeError) as raised:
        open_bundle(corpus.two_narratives(), name="session.lmmlz")
    message = str(raised.value)
    assert "one.lmml" in message and "two.lmml" in message
    assert raised.value.name == "session.lmml"


def test_invalid_utf8_narrative_names_its_line() -> None:
    with pytest.raises(LmmlSyntaxError) as raised:
        open_bundle(corpus.invalid_utf8_narrative(), name="evil.lmmlz")
    assert raised.value.line == 2


@pytest.mark.parametrize(
    "name",
    ["", "/abs", "a\\b", "../x", "a/../b", "..", "C:/x", "c:x", "a\x00b", "a//b", "./a", "a\nb"],
)
def test_unsafe_names(name: str) -> None:
    assert unsafe_reason(name) is not None


@pytest.mark.parametrize("name", ["a.png", "data/table.csv", "...", "a..b", "~x", "é/ü.txt"])
def test_safe_names(name: str) -> None:
    assert unsafe_reason(name) is None


def test_from_zip_checks_names_up_front() -> None:
    """Reference B10."""
    with pytest.raises(UnsafeEntryError) as raised:
        Bundle.from_zip("convo", "text", {"/etc/passwd": b"nope"})
    assert raised.value.name == "/etc/passwd"
    with pytest.raises(CaseCollisionError):
        Bundle.from_zip("convo", "text", {"a.txt": b"1", "A.txt": b"2"})
    with pytest.raises(DuplicateEntryError, match="narrative entry") as clash:
        Bundle.from_zip("convo", "text", {"convo.lmml": b"clash"})
    assert clash.value.name == "convo.lmml"
    assert "archive" not in str(clash.value)  # no archive was read: the names were given


def test_closed_bundle_refuses_reads(tmp_path: Path) -> None:
    path = tmp_path / "x.lmmlz"
    path.write_bytes(corpus.normal_zip({"x.lmml": b"@a.txt", "a.txt": b"A"}))
    with open_bundle(path) as bundle:
        assert bundle.read("a.txt") == b"A"
    with pytest.raises(BundleError, match="closed"):
        bundle.read("a.txt")


def test_missing_file_is_a_bundle_error(tmp_path: Path) -> None:
    with pytest.raises(BundleError, match="cannot read"):
        open_bundle(tmp_path / "nope.lmmlz")
    assert not os.path.exists(tmp_path / "nope.lmmlz")


# Every case but those found only by reading the narrative entry.
DIRECTORY_CASES = [
    case for case in OPEN_ERRORS if case[2] not in (MissingNarrativeError, LmmlSyntaxError)
]


@pytest.mark.parametrize(
    ("build", "error"),
    [case[1:3] for case in DIRECTORY_CASES],
    ids=[case[0] for case in DIRECTORY_CASES],
)
def test_hostile_directories_are_refused_before_any_entry_is_read(
    monkeypatch: pytest.MonkeyPatch, build: Callable[[], bytes], error: type[Exception]
) -> None:
    """RFC 9: the central directory is checked before a single entry (not even the
    narrative) is read or decompressed."""
    reads = corpus.record_entry_reads(monkeypatch)
    with pytest.raises(error):
        open_bundle(build(), name="evil.lmmlz")
    assert reads == []


def test_a_modest_bomb_is_refused_by_its_ratio_with_default_limits() -> None:
    """A megabyte of zeros deflates about 1000:1: far past 200:1, and past ratio_floor."""
    data = corpus.raw_zip([corpus.NARRATIVE, corpus.deflated("a.txt", bytes(1_000_000))])
    with pytest.raises(LimitExceededError, match="max_ratio") as raised:
        open_bundle(data, name="evil.lmmlz")
    assert raised.value.name == "a.txt"


def test_small_repetitive_files_are_exempt_from_the_ratio() -> None:
    data = corpus.raw_zip([corpus.NARRATIVE, corpus.deflated("a.txt", b"\n" * 20_000)])
    assert open_bundle(data, name="evil.lmmlz").read("a.txt") == b"\n" * 20_000


def test_every_limit_error_names_its_limit_and_says_how_to_raise_it() -> None:
    data = corpus.normal_zip({"x.lmml": b"@a.bin", "a.bin": b"a" * 600, "b.bin": b"b" * 600})
    cases = {
        "max_entries": Limits(max_entries=2),
        "max_entry_size": Limits(max_entry_size=500),
        "max_total_size": Limits(max_total_size=1000),
    }
    for limit, limits in cases.items():
        with pytest.raises(LimitExceededError) as raised:
            open_bundle(data, limits=limits)
        assert limit in str(raised.value)
        assert f"Limits({limit}=" in (raised.value.hint or "")
