"""A path ending in a separator names a folder, never a file to write.

Every atomic write resolved its destination with ``os.path.realpath``, which drops a
trailing separator: ``Transcript.save("chat.lmml/")`` wrote a file ``chat.lmml`` holding
JSON (the name it was given does not end in ``.lmml``, so JSON was the format picked), and
``Bundle.save("out.lmmlz/")`` and ``atomic_write_bytes("x.txt/", ...)`` wrote ``out.lmmlz``
and ``x.txt``. The command line already refused such an output before any work.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit import LmmlError, Message, Transcript
from lmml_mdit.atomic import atomic_write_bytes
from lmml_mdit.errors import WriteError

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "sales-review.lmmlz"


def _transcript(path: str) -> None:
    Transcript([Message("alice", "hi")]).save(path)


def _bundle(path: str) -> None:
    with lmml_mdit.open(EXAMPLE) as bundle:
        bundle.save(path)


def _bytes(path: str) -> None:
    atomic_write_bytes(path, b"x")


@pytest.mark.parametrize("write", [_transcript, _bundle, _bytes])
@pytest.mark.parametrize("name", ["chat.lmml", "out.lmmlz", "run.json", "x.txt"])
def test_a_trailing_separator_is_refused_and_nothing_written(
    tmp_path: Path, write: Callable[[str], None], name: str
) -> None:
    given = str(tmp_path / name) + os.sep
    with pytest.raises(WriteError) as raised:
        write(given)
    assert isinstance(raised.value, LmmlError)
    assert str(raised.value).startswith(f"{given}: names a folder (it ends in a separator)")
    assert os.listdir(tmp_path) == []


def test_an_existing_file_named_without_the_separator_is_kept(tmp_path: Path) -> None:
    (tmp_path / "chat.lmml").write_bytes(b"## Turn 1 -- user\n\nkept\n")
    with pytest.raises(WriteError):
        _transcript(str(tmp_path / "chat.lmml") + "/")
    assert (tmp_path / "chat.lmml").read_bytes() == b"## Turn 1 -- user\n\nkept\n"
