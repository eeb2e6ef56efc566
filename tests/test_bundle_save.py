"""Bundle.save and atomic_write (ports of the reference's B11, B12 and B23)."""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from pathlib import Path

import fsspec
import hostile_archives as corpus
import pytest

from lmml_mdit import Bundle
from lmml_mdit import open as open_bundle
from lmml_mdit.atomic import atomic_write, atomic_write_bytes
from lmml_mdit.bundle import _saving as saving  # patched on purpose: _write_entry
from lmml_mdit.errors import BundleError, DuplicateEntryError


def test_b11_text_bundle_is_written_verbatim(tmp_path: Path) -> None:
    path = tmp_path / "foo.lmml"
    Bundle.from_text("foo", "Hello @a.png.\r\nline two").save(path)
    assert path.read_bytes() == b"Hello @a.png.\r\nline two"


def test_b12_zip_entry_is_renamed_after_the_target(tmp_path: Path) -> None:
    path = tmp_path / "renamed.lmmlz"
    Bundle.from_zip("original-name", "See @a.png.", {"a.png": b"bytes"}).save(path)
    with zipfile.ZipFile(path) as archive:
        assert archive.namelist() == ["renamed.lmml", "a.png"]
        assert archive.getinfo("a.png").compress_type == zipfile.ZIP_STORED
    with open_bundle(path) as reopened:
        assert (reopened.name, reopened.narrative_name) == ("renamed", "renamed.lmml")
        assert reopened.embed("a.png") == b"bytes"


def test_saving_over_the_open_archive_itself(tmp_path: Path) -> None:
    path = tmp_path / "self.lmmlz"
    path.write_bytes(corpus.normal_zip({"self.lmml": b"@a.txt", "a.txt": b"A" * 1000}))
    with open_bundle(path) as bundle:
        bundle.save(path)
        assert bundle.read("a.txt") == b"A" * 1000  # still reads the file it opened
    with open_bundle(path) as again:
        assert again.read("a.txt") == b"A" * 1000


def test_asset_named_like_the_narrative_entry_is_refused(tmp_path: Path) -> None:
    bundle = Bundle.from_zip("a", "@out.lmml", {"out.lmml": b"clash"})
    with pytest.raises(DuplicateEntryError):
        bundle.save(tmp_path / "out.lmmlz")
    assert list(tmp_path.iterdir()) == []


def test_b23_write_reopen_pack_inline_reopen(tmp_path: Path) -> None:
    bundle = Bundle.from_zip(
        "story",
        "An illustration: @doc.txt\n\n@@@config.yaml\ntheme: dark\n@@@",
        {"doc.txt": b"Document content\n"},
    )
    bundle.save(tmp_path / "story.lmmlz")
    with open_bundle(tmp_path / "story.lmmlz") as opened:
        packed = opened.pack()
        assert packed.kind == "zip"
        assert "config.yaml" in packed.entries
        inlined = packed.inline()
    assert inlined.kind == "text"
    assert inlined.embed("doc.txt") == b"Document content\n"
    assert inlined.embed("config.yaml") == b"theme: dark\n"
    inlined.save(tmp_path / "story_inlined.lmml")
    again = open_bundle(tmp_path / "story_inlined.lmml")
    assert [issue.kind for issue in again.validate()] == ["no_turns"]  # no delimiter
    assert again.embed("doc.txt") == b"Document content\n"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_save_keeps_recorded_digests_current_in_an_entry(tmp_path: Path) -> None:
    manifest = {"schema": 1, "assets": {"a.txt": {"sha256": _digest(b"old"), "note": "kept"}}}
    bundle = Bundle.from_zip(
        "c", "@a.txt", {"manifest.json": json.dumps(manifest).encode(), "a.txt": b"new"}
    )
    assert [issue.kind for issue in bundle.validate()] == ["integrity_mismatch", "no_turns"]
    bundle.save(tmp_path / "c.lmmlz")
    with open_bundle(tmp_path / "c.lmmlz") as saved:
        assert saved.manifest == {
            "schema": 1,
            "assets": {"a.txt": {"sha256": _digest(b"new"), "note": "kept"}},
        }
        assert [issue.kind for issue in saved.validate()] == ["no_turns"]


def test_save_keeps_recorded_digests_current_in_an_inline_manifest(tmp_path: Path) -> None:
    manifest = json.dumps({"assets": {"a.txt": {"sha256": _digest(b"old")}}})
    text = f"Intro\n\n@@@manifest.json\n{manifest}\n@@@\n\n@@@a.txt\nnew\n@@@\n"
    Bundle.from_text("t", text).save(tmp_path / "t.lmml")
    saved = open_bundle(tmp_path / "t.lmml")
    assert saved.manifest == {"assets": {"a.txt": {"sha256": _digest(b"new\n")}}}
    assert [issue.kind for issue in saved.validate()] == ["no_turns"]
    assert saved.narrative.text.startswith("Intro\n\n@@@manifest.json\n{\n")


def test_save_updating_an_inline_manifest_keeps_crlf_line_endings(tmp_path: Path) -> None:
    manifest = json.dumps({"assets": {"a.txt": {"sha256": _digest(b"old")}}})
    text = f"## user\r\n\r\n@@@manifest.json\r\n{manifest}\r\n@@@\r\n\r\n@@@a.txt\r\nnew\r\n@@@\r\n"
    Bundle.from_text("t", text).save(tmp_path / "t.lmml")
    written = (tmp_path / "t.lmml").read_bytes()
    assert b"\n" not in written.replace(b"\r\n", b"")  # every line still ends in CRLF
    assert open_bundle(tmp_path / "t.lmml").manifest == {
        "assets": {"a.txt": {"sha256": _digest(b"new\n")}}
    }


def test_save_leaves_an_unchanged_manifest_byte_for_byte(tmp_path: Path) -> None:
    raw = b'{"assets":{"a.txt":{"sha256":"%s"}}}' % _digest(b"A").encode()
    Bundle.from_zip("c", "@a.txt", {"manifest.json": raw, "a.txt": b"A"}).save(tmp_path / "c.lmmlz")
    with zipfile.ZipFile(tmp_path / "c.lmmlz") as archive:
        assert archive.read("manifest.json") == raw


def test_atomic_write_replaces_or_leaves_the_target(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    atomic_write_bytes(target, b"first")
    os.chmod(target, 0o640)
    with pytest.raises(RuntimeError), atomic_write(target) as stream:
        stream.write(b"partial")
        raise RuntimeError("interrupted")
    assert target.read_bytes() == b"first"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out.bin"]
    atomic_write_bytes(target, b"second")
    assert target.read_bytes() == b"second"
    assert os.stat(target).st_mode & 0o777 == 0o640


def test_failed_save_leaves_no_temporary_file(tmp_path: Path) -> None:
    bundle = open_bundle(corpus.damaged_data(), name="evil.lmmlz")
    with pytest.raises(Exception, match="CRC"):
        bundle.save(tmp_path / "evil.lmmlz")
    assert list(tmp_path.iterdir()) == []


def _existing_archive(path: Path) -> bytes:
    Bundle.from_zip("old", "Old @a.txt", {"a.txt": b"old asset"}).save(path)
    return path.read_bytes()


def test_save_failing_at_the_rename_leaves_the_old_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "s.lmmlz"
    before = _existing_archive(target)

    def failing_replace(source: object, destination: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    bundle = Bundle.from_zip("new", "New @a.txt", {"a.txt": b"new asset"})
    with pytest.raises(BundleError, match="No space left") as raised:
        bundle.save(target)
    assert raised.value.name == str(target)
    assert target.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["s.lmmlz"]


def test_save_failing_midway_through_the_entries_leaves_the_old_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "s.lmmlz"
    before = _existing_archive(target)
    real_write_entry = saving._write_entry

    def write_then_fail(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
        if name == "b.txt":
            raise OSError(5, "Input/output error")
        real_write_entry(archive, name, data)

    monkeypatch.setattr(saving, "_write_entry", write_then_fail)
    bundle = Bundle.from_zip("new", "@a.txt @b.txt", {"a.txt": b"A" * 5000, "b.txt": b"B"})
    with pytest.raises(BundleError, match="Input/output"):
        bundle.save(target)
    assert target.read_bytes() == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["s.lmmlz"]
    with open_bundle(target) as reopened:
        assert reopened.narrative.text == "Old @a.txt"


def test_save_of_a_text_bundle_failing_leaves_the_old_file_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "t.lmml"
    target.write_bytes(b"old text")

    def failing_fsync(descriptor: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(BundleError):
        Bundle.from_text("t", "new text").save(target)
    assert target.read_bytes() == b"old text"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["t.lmml"]


def test_save_into_a_missing_folder_is_a_bundle_error(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "x.lmmlz"
    with pytest.raises(BundleError, match="cannot write") as raised:
        Bundle.from_zip("x", "hi", {}).save(target)
    assert raised.value.hint
    assert not (tmp_path / "no").exists()


def test_save_without_the_lmmlz_extension_still_reopens(tmp_path: Path) -> None:
    target = tmp_path / "archive"
    Bundle.from_zip("x", "See @a.txt", {"a.txt": b"A"}).save(target)
    with zipfile.ZipFile(target) as archive:
        assert archive.namelist()[0] == "archive.lmml"
    with open_bundle(target) as reopened:
        assert (reopened.kind, reopened.narrative.text) == ("zip", "See @a.txt")


def test_a_highly_compressible_asset_is_stored_so_the_bundle_reopens(tmp_path: Path) -> None:
    # Deflated, 3.2 MB of one repeated line would cross the default 200:1 ratio limit that
    # open() enforces; save() stores such an entry instead, so what it writes always opens.
    log = b"same line again\n" * 200_000
    target = tmp_path / "big.lmmlz"
    Bundle.from_zip("big", "## user\nSee @log.txt\n", {"log.txt": log}).save(target)
    with zipfile.ZipFile(target) as archive:
        assert archive.getinfo("log.txt").compress_type == zipfile.ZIP_STORED
        assert archive.getinfo("big.lmml").compress_type == zipfile.ZIP_DEFLATED
    assert open_bundle(target).read("log.txt") == log


@pytest.mark.parametrize("target", ["chat.lmml", "CHAT.LMML", "memory://kinds/chat.lmml"])
def test_a_zip_bundle_is_never_saved_under_a_narrative_name(tmp_path: Path, target: str) -> None:
    bundle = Bundle.from_zip("chat", "## user\n\n@n.txt\n", {"n.txt": b"hi\n"})
    path = target if "://" in target else str(tmp_path / target)
    with pytest.raises(BundleError, match=r"a \.lmml file would not hold") as refused:
        bundle.save(path)
    assert "inline() it first" in str(refused.value)
    assert not os.path.exists(path) and not fsspec.filesystem("memory").exists("/kinds/chat.lmml")
    with pytest.raises(BundleError, match=r"a \.lmmlz file would not hold"):
        Bundle.from_text("chat", "## user\nhi\n").save(str(tmp_path / "chat.lmmlz"))
    bundle.inline().save(path)  # the advice works
    assert open_bundle(path).kind == "text"


def test_a_bare_narrative_saved_away_from_its_folder_names_what_it_leaves_behind(
    tmp_path: Path,
) -> None:
    import warnings

    import lmml_mdit
    from lmml_mdit import FolderReferenceWarning

    source = tmp_path / "src"
    source.mkdir()
    (source / "data.csv").write_text("a,b\n")
    (source / "settings.yaml").write_text("temperature: 0.2\n")
    (source / "unused.txt").write_text("never named\n")
    (source / "chat.lmml").write_text(
        "<!-- user -->\nsee @data.csv and @notes.txt\n\n@@@notes.txt\nn\n@@@\n\n"
        "@gone.png\n\n@settings.yaml\n"
    )
    (source / "notes.txt").write_text("shadowed by the fence\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    bundle = lmml_mdit.open(source / "chat.lmml")
    with pytest.warns(FolderReferenceWarning) as caught:
        bundle.save(elsewhere / "chat.lmml")
    [warning] = caught
    message = str(warning.message)
    assert "data.csv" in message and "settings.yaml" in message
    assert "notes.txt" not in message and "gone.png" not in message  # a fence; resolved by nothing
    assert "unused.txt" not in message  # a file the narrative never names is no loss
    assert "pack" in message
    assert (elsewhere / "chat.lmml").read_bytes() == (source / "chat.lmml").read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bundle.save(source / "copy.lmml")  # the same folder: the files are still beside it
        lmml_mdit.open(source / "chat.lmml", base_dir=False).save(elsewhere / "b.lmml")
