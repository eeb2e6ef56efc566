"""``import_path`` of a path that cannot be read raises the library's error, as ``open``
does: a missing file is both a ``BundleNotFoundError`` and a ``FileNotFoundError``, and the
command line words it as every command that opens a file does."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmml_mdit import BundleError, BundleNotFoundError, LmmlError, import_path
from lmml_mdit import open as open_bundle
from lmml_mdit.cli import main


@pytest.mark.parametrize("name", ["nope.json", "nope.jsonl"])
def test_a_missing_file_is_the_library_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(BundleNotFoundError) as caught:
        import_path(tmp_path / name, tmp_path / "out")
    assert isinstance(caught.value, FileNotFoundError)
    assert isinstance(caught.value, LmmlError)
    assert "cannot read the file: no such file" in str(caught.value)
    assert not (tmp_path / "out").exists()


def test_a_folder_is_the_library_error(tmp_path: Path) -> None:
    folder = tmp_path / "chat.json"
    folder.mkdir()
    with pytest.raises(BundleError, match="cannot read the file"):
        import_path(folder, tmp_path / "x.lmmlz")
    with pytest.raises(BundleError, match="cannot read the file"):
        open_bundle(folder)


def test_the_cli_words_it_as_open_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["import", "nope.json", "-o", "x.lmmlz"]) == 2
    assert main(["validate", "nope.lmml"]) == 2
    imported, opened = capsys.readouterr().err.splitlines()
    assert imported == opened.replace("nope.lmml", "nope.json")
