"""Files people read (issue 26): a bare ``.lmml`` written by the Transcript or by import
opens with its first turn; what must be recorded goes at the end in one compact fence, or
into the archive of a ``.lmmlz``."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import lmml_mdit
from lmml_mdit import Transcript
from lmml_mdit.cli import main

SHAREGPT = {
    "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}],
    "id": "x1",
    "source": "web",
}


def _closing_record(text: str) -> dict[str, object]:
    """The one ``manifest.json`` fence of *text*, which must come after the last turn and
    hold one line of JSON."""
    assert text.count("@@@manifest.json") == 1
    start = text.index("@@@manifest.json\n")
    assert start > text.rindex("## Turn")
    body = text[start:].split("\n")
    assert body[2] == "@@@" and not "".join(body[3:]).strip()  # one line, nothing after
    value = json.loads(body[1])
    assert isinstance(value, dict)
    return value


def test_a_transcript_lmml_opens_with_its_first_turn(tmp_path: Path) -> None:
    transcript = Transcript()
    transcript.append("alice", "Hello @notes.txt", tokens=3)
    transcript.append("assistant", "Hi", reasoning={"steps": [1, 2]})
    transcript.add_asset("notes.txt", b"some notes\n")
    path = tmp_path / "run.lmml"
    transcript.save(path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("## alice -- user\n\nHello @notes.txt\n")
    record = _closing_record(text)
    assert [m["metadata"] for m in record["transcript"]["messages"]] == [  # type: ignore[index]
        {"tokens": 3},
        {"reasoning": {"steps": [1, 2]}},
    ]
    assert Transcript.load(path) == transcript
    # What is sent is the conversation: the record is no part of the last message.
    with lmml_mdit.open(path) as bundle:
        sent = json.dumps(bundle.messages())
    assert "transcript" not in sent and "sha256" not in sent
    # In a .lmmlz the narrative holds no record: it is an archive entry.
    transcript.save(tmp_path / "run.lmmlz")
    with zipfile.ZipFile(tmp_path / "run.lmmlz") as archive:
        narrative = archive.read("run.lmml").decode()
        assert "manifest.json" not in narrative and "manifest.json" in archive.namelist()
    assert Transcript.load(tmp_path / "run.lmmlz") == transcript


def test_an_imported_lmml_opens_with_its_first_turn(tmp_path: Path) -> None:
    source = tmp_path / "chat.json"
    source.write_text(json.dumps(SHAREGPT), encoding="utf-8")
    out = tmp_path / "chat.lmml"
    assert main(["import", "-q", str(source), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("## Turn 1 -- user\n\nhi\n")
    assert _closing_record(text) == {"sharegpt": {"id": "x1", "source": "web"}}
    with lmml_mdit.open(out) as bundle:
        assert bundle.validate() == []
        assert lmml_mdit.export_sharegpt(bundle) == SHAREGPT


def test_a_written_lmml_saved_as_lmmlz_moves_its_record_into_the_archive(tmp_path: Path) -> None:
    transcript = Transcript()
    transcript.append("user", "Hello @notes.txt", x=1)
    transcript.append("assistant", "Hi")
    transcript.add_asset("notes.txt", b"some notes\n")
    transcript.save(tmp_path / "c.lmml")
    text = (tmp_path / "c.lmml").read_text(encoding="utf-8")
    Transcript.load(tmp_path / "c.lmml").save(tmp_path / "c.lmmlz")
    with lmml_mdit.open(tmp_path / "c.lmmlz") as bundle:
        # The same lines, byte for byte, up to the record, which is now an entry.
        assert text.startswith(bundle.narrative.text)
        assert text[len(bundle.narrative.text) :].startswith("@@@manifest.json\n")
        assert bundle.entries == ("manifest.json",)
        assert bundle.validate() == []
    assert Transcript.load(tmp_path / "c.lmmlz") == transcript
