"""A storage URL whose server cannot be reached is a ``BundleError`` naming the URL, from
the API and the command line, never a raw client exception or an ``internal error``.

The filesystem is the real ``huggingface_hub`` one, pointed at a 127.0.0.1 port nothing
listens on, so every request it makes fails as a network failure does.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit.cli import main
from lmml_mdit.dataset import hf_fingerprint, to_arrow
from lmml_mdit.errors import BundleError

hf_constants = pytest.importorskip("huggingface_hub.constants")
hf_filesystem = pytest.importorskip("huggingface_hub.hf_file_system")

FOLDER = "hf://datasets/team/evals"
ARCHIVE = FOLDER + "/case-17.lmmlz"


@pytest.fixture(autouse=True)
def unreachable_hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(hf_constants, "ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)  # other tests may set it
    hf_filesystem.HfFileSystem.clear_instance_cache()
    yield
    hf_filesystem.HfFileSystem.clear_instance_cache()


@pytest.mark.parametrize(
    ("call", "url"),
    [
        (lambda: lmml_mdit.open(ARCHIVE), ARCHIVE),
        (lambda: to_arrow(FOLDER).read_all(), FOLDER),
        (lambda: hf_fingerprint(FOLDER), FOLDER),
    ],
    ids=["open", "to_arrow", "hf_fingerprint"],
)
def test_an_unreachable_url_is_a_bundle_error_naming_it(
    call: Callable[[], object], url: str
) -> None:
    with pytest.raises(BundleError) as raised:
        call()
    assert raised.value.name == url
    assert "cannot reach" in str(raised.value)
    assert raised.value.hint


@pytest.mark.parametrize(
    "argv",
    [["validate", ARCHIVE], ["export", FOLDER, "--parquet", "{out}"]],
    ids=["validate", "export"],
)
def test_the_command_line_names_the_unreachable_url(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rows.parquet"
    code = main([arg.format(out=out) for arg in argv])
    err = capsys.readouterr().err
    assert code != 0
    assert "internal error" not in err
    assert f"lmml: error: {argv[1]}: cannot reach" in err
    assert not out.exists()
