"""The preamble's reserved blocks (its ``manifest.json`` and settings, as fences or reference
lines after its text) are the bundle's settings and manifest, never context text: a
transcript reads them as ``Bundle.messages`` does, writes its record into the manifest fence
where it stands, and keeps them as they are when the preamble's text is edited."""

from __future__ import annotations

from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit import Transcript
from lmml_mdit.jsontypes import JSONObject

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.lmml*"))
INPUTS: dict[str, dict[str, object]] = {"capitals.lmml": {"country": "France"}}

SETTINGS_FENCE = "@@@settings.yaml\ntemperature: 0.2\n@@@\n"
MANIFEST_FENCE = '@@@manifest.json\n{\n  "title": "t"\n}\n@@@\n'
INTERLEAVED = (
    "# Notes\n\nIntro.\n\n" + SETTINGS_FENCE + "\nMore intro.\n\n" + MANIFEST_FENCE + "\n"
    "## user\n\nhi\n"
)


def sent(path: Path, inputs: dict[str, object] | None = None) -> list[JSONObject]:
    with lmml_mdit.open(path) as bundle:
        return bundle.messages(inputs=inputs) if inputs else bundle.messages()


def bundle_metadata(path: Path) -> tuple[object, object]:
    """The bundle's settings and its manifest without the transcript record."""
    with lmml_mdit.open(path) as bundle:
        manifest = dict(bundle.manifest or {})
    manifest.pop("transcript", None)
    with lmml_mdit.open(path) as bundle:
        return bundle.settings, manifest


def first_text(messages: list[JSONObject]) -> str:
    content = messages[0]["content"]
    assert isinstance(content, list)
    part = content[0]
    assert isinstance(part, dict)
    text = part["text"]
    assert isinstance(text, str)
    return text


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_each_example_saves_after_a_metadata_change(example: Path, tmp_path: Path) -> None:
    inputs = INPUTS.get(example.name)
    transcript = Transcript.load(example)
    transcript.append("alice", "hi", n=3)
    target = tmp_path / f"out{example.suffix}"
    transcript.save(target)
    assert Transcript.load(target) == transcript
    before = sent(example, inputs)
    assert sent(target, inputs)[: len(before)] == before
    assert bundle_metadata(target) == bundle_metadata(example)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_an_edit_of_each_message_sends_only_that_change(example: Path, tmp_path: Path) -> None:
    inputs = INPUTS.get(example.name)
    before = sent(example, inputs)
    for position in range(len(Transcript.load(example))):
        transcript = Transcript.load(example)
        transcript.edit(position, transcript[position].content + "\n\nAdded.", n=position)
        target = tmp_path / f"e{position}{example.suffix}"
        transcript.save(target)
        assert Transcript.load(target) == transcript
        assert bundle_metadata(target) == bundle_metadata(example)
        after = sent(target, inputs)
        assert len(after) == len(before)
        changed = [index for index, (a, b) in enumerate(zip(after, before, strict=True)) if a != b]
        assert len(changed) <= 1, (position, changed)


def test_the_example_preamble_holds_no_settings_or_manifest() -> None:
    for name in ("sales-review.lmml", "sales-review.lmmlz"):
        preamble = Transcript.load(ROOT / "examples" / name)[0]
        assert preamble.author == "context"
        assert preamble.content == first_text(sent(ROOT / "examples" / name))
        assert "@@@" not in preamble.content and "manifest" not in preamble.content


def test_the_record_goes_into_the_manifest_fence_where_it_stands(tmp_path: Path) -> None:
    example = ROOT / "examples" / "sales-review.lmml"
    source = example.read_text(encoding="utf-8")
    transcript = Transcript.load(example)
    transcript.append("alice", "hi", n=3)
    target = tmp_path / "out.lmml"
    transcript.save(target)
    text = target.read_text(encoding="utf-8")
    assert text.count("@@@manifest.json") == 1
    assert text.startswith(source[: source.index("@@@manifest.json")])
    with lmml_mdit.open(target) as bundle:
        assert bundle.manifest is not None and "transcript" in bundle.manifest


@pytest.mark.parametrize("name", ["sales-review.lmml", "sales-review.lmmlz"])
def test_an_edited_preamble_keeps_its_reserved_blocks(name: str, tmp_path: Path) -> None:
    example = ROOT / "examples" / name
    original = first_text(sent(example))
    transcript = Transcript.load(example)
    transcript.edit(0, "X\n\n" + transcript[0].content)
    target = tmp_path / f"out{example.suffix}"
    transcript.save(target)
    assert first_text(sent(target)) == "X\n\n" + original
    assert bundle_metadata(target) == bundle_metadata(example)
    with lmml_mdit.open(target) as written, lmml_mdit.open(example) as read:
        text = written.narrative.text
        blocks = read.narrative.text.split("metadata:\n\n", 1)[1].split("## Turn 1")[0]
    assert blocks.strip() and blocks in text and "\\@" not in text


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_reserved_fences_between_preamble_paragraphs(newline: str, tmp_path: Path) -> None:
    path = tmp_path / "in.lmml"
    path.write_bytes(INTERLEAVED.replace("\n", newline).encode())
    transcript = Transcript.load(path)
    assert transcript[0].content == "# Notes\n\nIntro.\n\nMore intro."
    assert transcript[0].content == first_text(sent(path)).replace("\n\n\n", "\n\n")
    transcript.save(path)
    assert path.read_bytes() == INTERLEAVED.replace("\n", newline).encode()  # no edit
    transcript.append("assistant", "ok", n=1)
    transcript.save(path)
    assert Transcript.load(path) == transcript
    transcript.edit(0, "New intro.")
    transcript.save(path)
    text = path.read_bytes().decode()
    assert text.startswith(f"New intro.{newline}{newline}@@@settings.yaml{newline}")
    assert text.count("@@@manifest.json") == 1
    assert Transcript.load(path) == transcript
    assert first_text(sent(path)) == "New intro."
    with lmml_mdit.open(path) as bundle:
        assert bundle.settings == {"temperature": 0.2}
        assert bundle.manifest is not None and bundle.manifest["title"] == "t"


def test_reserved_fences_outlive_the_preamble(tmp_path: Path) -> None:
    path = tmp_path / "in.lmml"
    path.write_text(INTERLEAVED, encoding="utf-8")
    transcript = Transcript.load(path)[1:]
    transcript.save(path)
    assert Transcript.load(path) == transcript
    with lmml_mdit.open(path) as bundle:
        assert bundle.settings == {"temperature": 0.2}
        assert bundle.manifest is not None and bundle.manifest["title"] == "t"
        assert [message["role"] for message in bundle.messages()] == ["user"]


LATER = (
    "## user\n\nHello\n\n## assistant\n\nHi\n\n## user\n\nMore\n\n" + SETTINGS_FENCE + "\n"
    "@settings.yaml\n"
)
"""A settings fence (and a line referencing it) after the last turn's text, as a user
puts it at the end of a file: part of that turn's region, never of its text."""


def test_a_later_turn_s_reserved_blocks_are_no_part_of_its_content(tmp_path: Path) -> None:
    path = tmp_path / "in.lmml"
    path.write_text(LATER, encoding="utf-8")
    transcript = Transcript.load(path)
    contents = [message.content for message in transcript]
    assert contents == ["Hello", "Hi", "More"]
    assert contents == [first_text([message]) for message in sent(path)]
    transcript.save(path)
    assert path.read_text(encoding="utf-8") == LATER  # no edit: every byte as it was
    transcript.append("assistant", "Sure")
    transcript.save(path)
    assert Transcript.load(path) == transcript
    # The turn holding the settings edited: they stay the bundle's, and are never text.
    transcript.edit(2, "More!")
    transcript.save(path)
    assert Transcript.load(path) == transcript
    with lmml_mdit.open(path) as bundle:
        assert bundle.settings == {"temperature": 0.2}
        assert [first_text([message]) for message in bundle.messages()] == [
            "Hello",
            "Hi",
            "More!",
            "Sure",
        ]
