"""A narrative that opens with a UTF-8 byte order mark keeps it when saved again: by
``Bundle.save`` and by ``Transcript.save`` ("no edit, same bytes")."""

from __future__ import annotations

import codecs
import zipfile
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit import Transcript

TEXT = "# Notes\r\n\r\nIntro.\r\n\r\n## user\r\n\r\nhi\r\n"
DATA = codecs.BOM_UTF8 + TEXT.encode()


def test_the_narrative_text_has_no_bom_but_remembers_it() -> None:
    assert lmml_mdit.parse(DATA).bom and lmml_mdit.parse("\ufeff" + TEXT).bom
    assert lmml_mdit.parse(DATA).text == TEXT and not lmml_mdit.parse(TEXT).bom


def test_bundle_save_keeps_the_bom(tmp_path: Path) -> None:
    path = tmp_path / "c.lmml"
    path.write_bytes(DATA)
    with lmml_mdit.open(path) as bundle:
        bundle.save(path)
    assert path.read_bytes() == DATA
    archive = tmp_path / "c.lmmlz"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("c.lmml", DATA)
        zipped.writestr("a.txt", b"A")
    with lmml_mdit.open(archive) as bundle:
        bundle.save(tmp_path / "d.lmmlz")
    with zipfile.ZipFile(tmp_path / "d.lmmlz") as zipped:
        assert zipped.read("d.lmml") == DATA


@pytest.mark.parametrize("suffix", [".lmml", ".lmmlz"])
def test_transcript_load_save_keeps_the_bom(suffix: str, tmp_path: Path) -> None:
    path = tmp_path / "c.lmml"
    path.write_bytes(DATA)
    Transcript.load(path).save(path)
    assert path.read_bytes() == DATA
    transcript = Transcript.load(path)
    transcript.edit(-1, "hello")
    target = tmp_path / f"e{suffix}"
    transcript.save(target)
    if suffix == ".lmmlz":
        with zipfile.ZipFile(target) as zipped:
            written = zipped.read("e.lmml")
    else:
        written = target.read_bytes()
    assert written.startswith(codecs.BOM_UTF8 + b"# Notes\r\n")
    assert Transcript.load(target) == transcript


def test_no_bom_is_added(tmp_path: Path) -> None:
    path = tmp_path / "c.lmml"
    path.write_bytes(TEXT.encode())
    Transcript.load(path).save(path)
    assert path.read_bytes() == TEXT.encode()


def test_pack_then_inline_keeps_the_bom(tmp_path: Path) -> None:
    """``lmml pack`` then ``lmml inline`` gives the file back, its mark included."""
    from lmml_mdit.cli import main

    data = codecs.BOM_UTF8 + b"## user\r\n\r\nsee:\r\n\r\n@@@n.txt\r\nnote\r\n@@@\r\n"
    (tmp_path / "c.lmml").write_bytes(data)
    assert main(["pack", str(tmp_path / "c.lmml"), str(tmp_path / "c.lmmlz")]) == 0
    with zipfile.ZipFile(tmp_path / "c.lmmlz") as zipped:
        assert zipped.read("c.lmml").startswith(codecs.BOM_UTF8)
    (tmp_path / "out").mkdir()
    back = tmp_path / "out" / "c.lmml"
    assert main(["inline", str(tmp_path / "c.lmmlz"), str(back)]) == 0
    assert back.read_bytes() == data
