"""Opening bundles and resolving embeds (ports of the reference's B1-B12, plus base_dir)."""

from __future__ import annotations

import contextlib
import io
import os
import threading
from collections.abc import Callable
from pathlib import Path

import hostile_archives as corpus
import pytest

import lmml_mdit.chat
import lmml_mdit.cli
import lmml_mdit.preview
from lmml_mdit import Bundle, Limits
from lmml_mdit import open as open_bundle
from lmml_mdit.bundle import bundle_name, narrative_entry_name
from lmml_mdit.errors import (
    LimitExceededError,
    MissingEntryError,
    UnresolvableReferenceError,
    UnsafeEntryError,
)


def test_b1_text_bundle_parses_the_narrative_and_has_no_entries(tmp_path: Path) -> None:
    path = tmp_path / "foo.lmml"
    path.write_text("Hello @image.png here.", encoding="utf-8")
    bundle = open_bundle(path)
    assert bundle.kind == "text"
    assert bundle.name == "foo"
    assert bundle.narrative_name == "foo.lmml"
    assert bundle.narrative.text == "Hello @image.png here."
    assert bundle.entries == ()
    assert [embed.name for embed in bundle.narrative.embeds] == ["image.png"]


def test_b2_external_reference_is_unresolvable_in_a_text_bundle(tmp_path: Path) -> None:
    path = tmp_path / "foo.lmml"
    path.write_text("Hello @image.png here.", encoding="utf-8")
    with pytest.raises(UnresolvableReferenceError) as raised:
        open_bundle(path, base_dir=False).embed("image.png")
    assert raised.value.name == "image.png"
    assert (raised.value.line, raised.value.column) == (1, 7)
    assert "base_dir" in (raised.value.hint or "")


def test_b3_inline_embed_resolves_in_any_kind() -> None:
    text = "@@@settings.yaml\nkey: value\n@@@"
    assert Bundle.from_text("foo", text).embed("settings.yaml") == b"key: value\n"
    assert Bundle.from_zip("foo", text, {}).embed("settings.yaml") == b"key: value\n"


def test_b4_narrative_entry_is_the_basename_minus_z(tmp_path: Path) -> None:
    path = tmp_path / "convo.lmmlz"
    path.write_bytes(
        corpus.normal_zip({"convo.lmml": b"See @image.png.", "image.png": b"binarydata"})
    )
    with open_bundle(path) as bundle:
        assert bundle.kind == "zip"
        assert bundle.narrative.text == "See @image.png."
        assert bundle.entries == ("image.png",)
        assert bundle.embed("image.png") == b"binarydata"
        assert bundle.entry_size("image.png") == len(b"binarydata")


def test_b5_detection_by_content_a_zip_named_lmml_opens_as_zip(tmp_path: Path) -> None:
    path = tmp_path / "weird.lmml"
    path.write_bytes(corpus.normal_zip({"weird.lmml": b"See @a.png.", "a.png": b"data"}))
    with open_bundle(path) as bundle:
        assert bundle.kind == "zip"
        assert bundle.embed("a.png") == b"data"


def test_b6_differs_renamed_archive_falls_back_to_its_single_lmml_entry(tmp_path: Path) -> None:
    """Deliberate difference: the reference fails with missing_narrative_entry here."""
    path = tmp_path / "broken.lmmlz"
    path.write_bytes(
        corpus.normal_zip({"not_the_expected_name.lmml": b"text @a.png", "a.png": b"x"})
    )
    with open_bundle(path) as bundle:
        assert bundle.name == "broken"
        assert bundle.narrative_name == "not_the_expected_name.lmml"
        assert bundle.narrative.text == "text @a.png"
        assert bundle.entries == ("a.png",)


def test_bytes_archive_without_a_name_finds_its_narrative() -> None:
    data = corpus.normal_zip({"session.lmml": b"hi @a.txt", "a.txt": b"A"})
    bundle = open_bundle(data)
    assert (bundle.name, bundle.narrative_name) == ("session", "session.lmml")
    assert open_bundle(io.BytesIO(data)).embed("a.txt") == b"A"


def test_derived_entry_wins_over_other_lmml_entries() -> None:
    data = corpus.normal_zip({"other.lmml": b"other", "convo.lmml": b"main"})
    bundle = open_bundle(data, name="convo.lmmlz")
    assert bundle.narrative.text == "main"
    assert bundle.entries == ("other.lmml",)


def test_nested_lmml_is_not_a_fallback_candidate() -> None:
    data = corpus.normal_zip({"sub/x.lmml": b"nested", "y.lmml": b"root"})
    assert open_bundle(data, name="z.lmmlz").narrative.text == "root"


def test_b8_b9_constructors_normalise_names() -> None:
    assert Bundle.from_text("foo", "hello").name == "foo"
    assert Bundle.from_text("foo.lmml", "hello").narrative_name == "foo.lmml"
    zipped = Bundle.from_zip("convo.lmmlz", "See @a.png.", {"a.png": b"bytes"})
    assert (zipped.kind, zipped.name) == ("zip", "convo")
    assert zipped.embed("a.png") == b"bytes"


@pytest.mark.parametrize(
    ("given", "stem", "entry"),
    [
        ("session.lmmlz", "session", "session.lmml"),
        ("dir/session.lmml", "session", "session.lmml"),
        ("S.LMMLZ", "S", "S.LMML"),
        ("foo", "foo", "foo.lmml"),
    ],
)
def test_name_derivation(given: str, stem: str, entry: str) -> None:
    assert bundle_name(given) == stem
    assert narrative_entry_name(given) == entry


def test_missing_zip_entry_and_unsafe_names() -> None:
    bundle = Bundle.from_zip("convo", "See @missing.png and @../x.txt.", {})
    with pytest.raises(MissingEntryError) as missing:
        bundle.embed("missing.png")
    assert missing.value.line == 1
    with pytest.raises(UnsafeEntryError):
        bundle.embed("../x.txt")
    with pytest.raises(MissingEntryError):
        bundle.read("nothing")


def test_inline_fence_wins_over_a_reference_of_the_same_name() -> None:
    """Deliberate difference from the reference (which uses the first occurrence's kind):
    a reference resolves to the narrative's own fence when there is one."""
    bundle = Bundle.from_text("foo", "@a.txt ...\n\n@@@a.txt\nx\n@@@\n")
    assert bundle.embed("a.txt") == b"x\n"


def test_base_dir_resolves_inside_the_folder_only(tmp_path: Path) -> None:
    folder = tmp_path / "assets"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_bytes(b"A")
    (folder / "sub" / "b.txt").write_bytes(b"B")
    (tmp_path / "secret.txt").write_bytes(b"secret")
    os.symlink(tmp_path / "secret.txt", folder / "link.txt")
    os.symlink(folder / "a.txt", folder / "inside-link.txt")
    text = "@a.txt @sub/b.txt @link.txt @inside-link.txt @nope.txt @../secret.txt"
    bundle = open_bundle(text.encode(), name="x.lmml", base_dir=folder)
    assert bundle.embed("a.txt") == b"A"
    assert bundle.embed("sub/b.txt") == b"B"
    assert bundle.embed("inside-link.txt") == b"A"
    assert bundle.entry_size("sub/b.txt") == 1
    with pytest.raises(UnsafeEntryError, match="outside base_dir"):
        bundle.embed("link.txt")
    with pytest.raises(UnsafeEntryError):
        bundle.embed("../secret.txt")
    with pytest.raises(MissingEntryError):
        bundle.embed("nope.txt")
    kinds = {(issue.kind, issue.name) for issue in bundle.validate()}
    assert ("missing_reference", "nope.txt") in kinds
    assert ("missing_reference", "link.txt") in kinds
    messages = {issue.name: issue.message for issue in bundle.validate()}
    assert "symbolic link" in messages["link.txt"]
    assert "no file" in messages["nope.txt"]
    assert not any(name == "../secret.txt" for _, name in kinds), "not a reference at all"
    assert ("missing_reference", "a.txt") not in kinds


def test_base_dir_file_is_held_to_max_entry_size(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_bytes(b"x" * 100)
    bundle = open_bundle(b"@big.txt", base_dir=tmp_path, limits=Limits(max_entry_size=10))
    with pytest.raises(LimitExceededError):
        bundle.embed("big.txt")


def test_text_narrative_is_held_to_max_entry_size(tmp_path: Path) -> None:
    path = tmp_path / "big.lmml"
    path.write_bytes(b"x" * 100)
    with pytest.raises(LimitExceededError):
        open_bundle(path, limits=Limits(max_entry_size=10))


def test_entries_are_read_lazily(tmp_path: Path) -> None:
    """An entry that is never read may be damaged without harm: nothing is inflated up
    front."""
    path = tmp_path / "evil.lmmlz"
    path.write_bytes(corpus.damaged_data())
    with open_bundle(path) as bundle:
        assert bundle.entries == ("a.txt",)
        assert bundle.entry_size("a.txt") == 6


def test_bom_is_skipped_and_crlf_kept_in_text(tmp_path: Path) -> None:
    path = tmp_path / "x.lmml"
    path.write_bytes(b"\xef\xbb\xbfHello\r\n@@@a.txt\r\nx\r\n@@@\r\n")
    bundle = open_bundle(path)
    assert bundle.narrative.text.startswith("Hello\r\n")
    assert bundle.embed("a.txt") == b"x\n"


def test_delegating_methods_call_the_higher_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, object, tuple[object, ...], dict[str, object]]] = []

    def recorder(label: str, result: object) -> object:
        def record(bundle: object, *args: object, **kwargs: object) -> object:
            calls.append((label, bundle, args, kwargs))
            return result

        return record

    monkeypatch.setattr(lmml_mdit.chat, "messages", recorder("messages", [{"role": "user"}]))
    monkeypatch.setattr(lmml_mdit.chat, "to_request", recorder("to_request", {"model": "m"}))
    monkeypatch.setattr(lmml_mdit.preview, "render_html", recorder("render_html", "<div/>"))
    bundle = Bundle.from_text("foo", "hi")
    assert bundle.messages("anthropic", images="skip") == [{"role": "user"}]
    assert bundle.to_request("gemini", model="m", temperature=0) == {"model": "m"}
    assert bundle._repr_html_() == "<div/>"
    assert calls == [
        ("messages", bundle, ("anthropic",), {"images": "skip"}),
        ("to_request", bundle, ("gemini",), {"model": "m", "temperature": 0}),
        ("render_html", bundle, (), {"fragment": True}),
    ]


def test_directory_entries_are_not_assets() -> None:
    data = corpus.normal_zip({"x.lmml": b"@d/a.txt", "d/": b"", "d/a.txt": b"A"})
    bundle = open_bundle(data)
    assert bundle.entries == ("d/a.txt",)
    assert [issue.kind for issue in bundle.validate()] == ["no_turns"]  # no delimiter


def test_a_file_object_from_a_path_names_its_narrative_entry(tmp_path: Path) -> None:
    """Two root .lmml entries: only the file's own name can pick the narrative."""
    path = tmp_path / "a.lmmlz"
    path.write_bytes(corpus.normal_zip({"a.lmml": b"A @x.txt", "b.lmml": b"B", "x.txt": b"X"}))
    with path.open("rb") as stream, open_bundle(stream) as bundle:
        assert (bundle.kind, bundle.name, bundle.narrative_name) == ("zip", "a", "a.lmml")
        assert bundle.entries == ("b.lmml", "x.txt")
        assert bundle.embed("x.txt") == b"X"
    with path.open("rb") as stream:
        assert open_bundle(stream, name="b.lmmlz").narrative.text == "B"


def test_a_text_file_object_gets_its_name_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.lmml"
    path.write_bytes(b"hello")
    with path.open("rb") as stream:
        bundle = open_bundle(stream)
    assert (bundle.kind, bundle.name, bundle.narrative.text) == ("text", "notes", "hello")
    assert open_bundle(io.BytesIO(b"hello")).name == "untitled"


class _Trickle(io.RawIOBase):
    """A raw stream that returns at most a few bytes per read, like a pipe."""

    def __init__(self, data: bytes) -> None:
        self._data = data

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        chunk, self._data = self._data[:7], self._data[7:]
        buffer[: len(chunk)] = chunk
        return len(chunk)


def test_a_stream_giving_short_reads_is_read_to_its_end() -> None:
    data = corpus.normal_zip({"s.lmml": b"hi @a.txt", "a.txt": b"A" * 300})
    bundle = open_bundle(_Trickle(data))  # type: ignore[arg-type]
    assert bundle.read("a.txt") == b"A" * 300


def test_a_stream_larger_than_the_limits_is_refused() -> None:
    limits = Limits(max_total_size=10)
    with pytest.raises(LimitExceededError, match="max_total_size"):
        # An archive's bytes: a narrative's stream stops earlier, at max_narrative_bytes.
        open_bundle(io.BytesIO(b"PK\x03\x04" + b"x" * (65 * 1024 * 1024)), limits=limits)


def _fed_fifo(tmp_path: Path, data: bytes) -> tuple[Path, Callable[[], None]]:
    """A named pipe fed *data* once, by a thread, and the function that stops the thread.

    After feeding, the thread gives every later reader an empty pipe (end of file), so code
    opening the path a second time fails instead of waiting forever for a writer.
    """
    fifo = tmp_path / "piped.lmmlz"
    os.mkfifo(fifo)
    done = threading.Event()

    def feed() -> None:
        with fifo.open("wb") as stream:
            stream.write(data)
        while not done.wait(0.01):
            with contextlib.suppress(OSError):  # OSError: no reader waiting
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()

    def stop() -> None:
        done.set()
        writer.join()

    return fifo, stop


def test_an_archive_path_that_is_a_pipe_is_read_as_a_stream(tmp_path: Path) -> None:
    """A path naming a pipe (``<(cat x.lmmlz)``, a FIFO) cannot be seeked: the archive is
    read once, under the limits, as a file object is (it raised io.UnsupportedOperation)."""
    data = corpus.normal_zip({"s.lmml": b"<!-- user -->\nhi @a.txt\n", "a.txt": b"A" * 300})
    fifo, stop = _fed_fifo(tmp_path, data)
    try:
        with open_bundle(fifo) as bundle:
            assert bundle.kind == "zip"
            assert bundle.narrative_name == "s.lmml"  # piped.lmml is absent: the fallback
            assert bundle.read("a.txt") == b"A" * 300
            assert bundle.validate() == []
    finally:
        stop()


def test_the_command_line_reads_an_archive_through_a_pipe_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = corpus.normal_zip({"s.lmml": b"<!-- user -->\nhi @a.txt\n", "a.txt": b"A\n"})
    fifo, stop = _fed_fifo(tmp_path, data)
    try:
        assert lmml_mdit.cli.main(["ls", str(fifo)]) == 0  # a look at its head took the
    finally:  # pipe's first bytes, and the second open waited for another writer
        stop()
    assert "a.txt" in capsys.readouterr().out


def test_wrong_source_types_are_refused_clearly(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="path, bytes or a binary file object"):
        open_bundle(42)  # type: ignore[arg-type]
    path = tmp_path / "t.lmml"
    path.write_text("text", encoding="utf-8")
    with path.open(encoding="utf-8") as text_stream, pytest.raises(TypeError, match="binary"):
        open_bundle(text_stream)  # type: ignore[arg-type]


def test_an_empty_name_falls_back_to_untitled() -> None:
    assert Bundle.from_text("", "x").narrative_name == "untitled.lmml"
    assert Bundle.from_zip("", "x", {}).name == "untitled"


@pytest.mark.parametrize("field", ["max_entries", "max_entry_size", "max_total_size", "max_ratio"])
def test_limits_must_be_positive(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Limits(**{field: 0})  # type: ignore[arg-type]


def test_limit_defaults_are_the_documented_ones() -> None:
    limits = Limits()
    assert limits.max_entries == 10_000
    assert limits.max_entry_size == 512 * 1024 * 1024
    assert limits.max_total_size == 1024**3
    assert limits.max_ratio == 200
