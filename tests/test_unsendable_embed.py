"""What every send refuses, ``validate`` reports: an asset whose bytes the built-in
handlers refuse is an ``unsendable_embed`` error, unless a handler is registered for it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import hostile_archives as corpus
import pytest

import lmml_mdit
from lmml_mdit.cli import main

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


def _bundle(folder: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (folder / name).write_bytes(data)
    path = folder / "chat.lmml"
    names = " and ".join(f"@{name}" for name in files)
    path.write_text(f"## user\n\nLook at {names} please\n\nAgain @{next(iter(files))}\n")
    return path


@pytest.mark.parametrize(
    ("name", "data", "said"),
    [
        ("chart.png", b"", "holds no bytes (an empty file)"),
        ("notes.txt", "caf\u00e9".encode("utf-16"), "its bytes are not UTF-8 text"),
        ("scan.tiff", b"II*\x00" + bytes(16), "accept no image/tiff images"),
    ],
)
def test_validate_reports_what_every_send_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, data: bytes, said: str
) -> None:
    path = _bundle(tmp_path, {name: data, "ok.png": PNG})
    with lmml_mdit.open(path) as bundle:
        [issue] = bundle.validate()
        with pytest.raises(lmml_mdit.UnsupportedContentError) as refused:
            bundle.messages("anthropic")
    assert (issue.kind, issue.severity, issue.name) == ("unsendable_embed", "error", name)
    # At the first place it is named, where the send's refusal points too.
    assert (issue.line, issue.column) == (3, 9) == (refused.value.line, refused.value.column)
    assert said in issue.message and said in refused.value.message
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{path}:3:9: unsendable_embed: no provider can take {name}: ")
    assert main(["validate", "--json", str(path)]) == 1
    [report] = json.loads(capsys.readouterr().out)
    assert [i["kind"] for i in report["issues"]] == ["unsendable_embed"]
    # The commands that show a bundle say it too (what one command refuses ...).
    assert main(["turns", str(path)]) == 0
    assert f"lmml: warning: {path}:3:9: unsendable_embed: " in capsys.readouterr().err


def test_a_registered_handler_makes_it_sendable(tmp_path: Path) -> None:
    path = _bundle(tmp_path, {"scan.tiff": b"II*\x00" + bytes(16)})

    def described(asset: lmml_mdit.Asset) -> lmml_mdit.TextPart:
        return lmml_mdit.TextPart(f"{asset.name}: a scan of {len(asset.data)} bytes")

    lmml_mdit.register_handler(".tiff", described)
    try:
        with lmml_mdit.open(path) as bundle:
            assert bundle.validate() == []
            [message] = bundle.messages("openai")
        assert {"type": "text", "text": "scan.tiff: a scan of 20 bytes"} in message["content"]
    finally:
        lmml_mdit.unregister_handler(".tiff")
    with lmml_mdit.open(path) as bundle:
        assert [issue.kind for issue in bundle.validate()] == ["unsendable_embed"]
        # A per-call handler is the sending call's own: the send takes it.
        [message] = bundle.messages("openai", handlers={"image/tiff": described})
    assert {"type": "text", "text": "scan.tiff: a scan of 20 bytes"} in message["content"]


def test_sendable_assets_and_the_bundles_own_embeds_are_not_reported(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "chart.png").write_bytes(PNG)
    path = tmp_path / "chat.lmml"
    path.write_text(
        "## user\n\nSee @empty.txt and @chart.png and @@@note.md\nhello\n@@@\n\n"
        "@@@settings.yaml\ntemperature: 0.2\n@@@\n"
    )
    with lmml_mdit.open(path) as bundle:
        assert bundle.validate() == []
    for example in sorted((Path(__file__).parent.parent / "examples").glob("*.lmml*")):
        with lmml_mdit.open(example) as bundle:
            assert "unsendable_embed" not in {issue.kind for issue in bundle.validate()}


def test_a_large_binary_asset_is_told_by_its_head(tmp_path: Path) -> None:
    # A video or an image is told by its first bytes: validating reads no more of it, so a
    # language server checking after each edit does not read a large file again and again.
    (tmp_path / "clip.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(100_000))
    (tmp_path / "scan.tiff").write_bytes(b"II*\x00" + bytes(100_000))
    path = tmp_path / "chat.lmml"
    path.write_text("## user\n\nSee @clip.mp4 and @scan.tiff\n")
    small = lmml_mdit.Limits(max_entry_size=50_000)  # a whole read would be refused
    with lmml_mdit.open(path, limits=small) as bundle:
        assert bundle.embed_head("clip.mp4", 12) == b"\x00\x00\x00\x18ftypmp42"
        with pytest.raises(lmml_mdit.LmmlError):
            bundle.embed("clip.mp4")
        with pytest.raises(lmml_mdit.MissingEntryError):
            bundle.embed_head("gone.png", 12)
        assert [(i.kind, i.name) for i in bundle.validate()] == [("unsendable_embed", "scan.tiff")]


def test_a_folder_files_verdict_is_kept_while_the_file_stays_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The language server validates after every edit: a large text file was read whole
    # each time (its bytes must all be UTF-8). The verdict is now kept by the file's size and
    # modification time, and a changed file is read again.
    log = tmp_path / "app.log"
    log.write_bytes(b"2026-12-07 started\n" * 20_000)
    path = tmp_path / "chat.lmml"
    path.write_text("## user\n\nSee @app.log\n")
    assert lmml_mdit.open(path).validate() == []
    opened: list[str] = []
    real_open = open

    def counting_open(file: object, *args: object, **kwargs: object) -> object:
        opened.append(str(file))
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    with monkeypatch.context() as patched:
        patched.setattr("builtins.open", counting_open)
        assert lmml_mdit.open(path).validate() == []
    assert str(log) not in opened
    log.write_bytes("caf\u00e9\n".encode("utf-16") * 20_000)  # another size
    issues = lmml_mdit.open(path).validate()
    assert [(issue.kind, issue.name) for issue in issues] == [("unsendable_embed", "app.log")]
    same_size = b"2026-12-07 started\n" * 20_000
    same_size = same_size[: log.stat().st_size]
    stamp = log.stat().st_mtime_ns
    log.write_bytes(same_size)
    os.utime(log, ns=(stamp + 1_000_000_000, stamp + 1_000_000_000))
    assert lmml_mdit.open(path).validate() == []


def test_verdicts_are_kept_for_a_bounded_number_of_files_across_threads(tmp_path: Path) -> None:
    # Each folder file's verdict is kept (at most 256 of them, the oldest going first),
    # also while several threads validate at once; every verdict stays right.
    from concurrent.futures import ThreadPoolExecutor

    for number in range(320):
        (tmp_path / f"note{number}.txt").write_bytes(b"fine\n" if number % 2 else b"\xff\xfe")
    paths = []
    for first in range(0, 320, 40):
        path = tmp_path / f"chat{first}.lmml"
        names = " ".join(f"@note{number}.txt" for number in range(first, first + 40))
        path.write_text(f"## user\n\n{names}\n")
        paths.append(path)

    def refused(path: Path) -> set[str]:
        return {issue.name for issue in lmml_mdit.open(path).validate()}

    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            found = set().union(*pool.map(refused, paths))
            assert found == {f"note{number}.txt" for number in range(0, 320, 2)}


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (corpus.damaged_data(), "the entry's data fails its CRC check"),
        (corpus.bomb_lying_size(size=1024 * 1024), "the entry inflates past its declared size"),
    ],
)
def test_validate_reports_an_asset_whose_bytes_cannot_be_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, said: str
) -> None:
    """A damaged entry, or one whose headers lie: every send refuses its bytes; validate
    said OK."""
    path = tmp_path / "evil.lmmlz"
    path.write_bytes(data)
    with lmml_mdit.open(path) as bundle:
        [issue] = [issue for issue in bundle.validate() if issue.severity == "error"]
        with pytest.raises(lmml_mdit.BundleError, match=said):
            bundle.messages("openai")
    assert (issue.kind, issue.severity, issue.name) == ("unsendable_embed", "error", "a.txt")
    assert f"no provider can take a.txt: its bytes cannot be read: {said}" in issue.message
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"unsendable_embed: no provider can take a.txt: its bytes cannot be read: {said}" in out
    assert "lmml_mdit.Limits" not in out  # the command line's words, not Python's
