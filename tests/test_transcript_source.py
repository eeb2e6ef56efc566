"""A transcript read from a hand-written file writes it back as it was: unedited turns byte
for byte, edited turns rewritten in place, new turns in the file's own delimiter style."""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lmml_mdit
import lmml_mdit.bundle._bundle  # patched on purpose
import lmml_mdit.transcript._readback  # patched on purpose
from lmml_mdit import Bundle, Message, Transcript, parse

ENTRIES = {"chart.png": b"\x89PNG fake", "data.csv": b"a,b\n1,2\n"}

HAND_WRITTEN = (
    "Notes before the first turn.\n"
    "\n"
    "## Turn 1 -- user\n"
    "\n"
    "Look at @chart.png and @data.csv   \n"  # trailing spaces kept
    "\n"
    "```python\n"
    'print("## not a heading")\n'
    "```\n"
    "\n"
    "## Turn 2 -- assistant\n"
    "It rises.\n"
    "\n"
    "\n"
    "<!-- user -->\n"
    "Thanks!\n"
)


def read(text: str, kind: str = "zip", entries: dict[str, bytes] | None = None) -> Transcript:
    if kind == "zip":
        return Transcript.from_bundle(Bundle.from_zip("chat", text, entries or ENTRIES))
    return Transcript.from_bundle(Bundle.from_text("chat", text))


def written(transcript: Transcript) -> str:
    return transcript.to_bundle().narrative.text


# --- no edit: the same bytes ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        HAND_WRITTEN,
        HAND_WRITTEN.replace("\n", "\r\n"),
        HAND_WRITTEN.rstrip("\n"),  # no final newline
        "# User\nhi\n# Assistant\nhello\n",
        "<!-- system -->\nBe brief.\n<!-- user -->\n\n\nhi   \n",
        "## alice -- user\n\nhi\n\n## bob -- assistant\n\nhey\n",
        "Only a preamble, no turn.\n",
        "",
        "\n\n## user\n\n\n",
        "User\n====\nsetext turn\n\nAssistant\n---------\nreply\n",
    ],
)
def test_no_edit_writes_the_same_narrative(text: str) -> None:
    for kind in ("zip", "text"):
        transcript = read(text, kind)
        bundle = transcript.to_bundle()
        assert bundle.kind == kind
        assert bundle.narrative.text == text
        if kind == "zip":
            assert {name: bundle.read(name) for name in bundle.entries} == ENTRIES


def test_save_with_no_edit_keeps_the_files_bytes(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmmlz"
    settings_yaml = b"# keep this comment\nmax_tokens: 10\n"
    manifest = json.dumps({"title": "kept", "assets": {}}, indent=4).encode() + b"\n"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("chat.lmml", HAND_WRITTEN)
        archive.writestr("settings.yaml", settings_yaml)
        archive.writestr("manifest.json", manifest)
        for name, data in ENTRIES.items():
            archive.writestr(name, data)
    transcript = Transcript.load(path)
    transcript.save(path)
    with zipfile.ZipFile(path) as archive:
        assert archive.read("chat.lmml") == HAND_WRITTEN.encode()
        assert archive.read("settings.yaml") == settings_yaml
        assert archive.read("manifest.json") == manifest
        assert archive.namelist() == ["chat.lmml", "settings.yaml", "manifest.json", *ENTRIES]


def test_a_text_file_with_fences_is_kept_and_its_folder_stays_a_folder(tmp_path: Path) -> None:
    text = "## user\n\nsee @notes.txt\n\n@@@inline.txt\nkept inline\n@@@\n\n## assistant\n\nok\n"
    (tmp_path / "notes.txt").write_bytes(b"beside the file\n")
    path = tmp_path / "chat.lmml"
    path.write_text(text)
    transcript = Transcript.load(path)  # the file's own folder by default
    assert dict(transcript.assets) == {
        "inline.txt": b"kept inline\n",
        "notes.txt": b"beside the file\n",
    }
    transcript.save(path)
    assert path.read_text() == text  # notes.txt is not copied into the file
    transcript.append("user", "and @notes.txt again")
    transcript.save(path)
    assert path.read_text() == text + "\n## user\n\nand @notes.txt again\n"
    assert Transcript.load(path) == transcript


def test_load_takes_base_dir(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_bytes(b"N")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_bytes(b"O")
    path = tmp_path / "chat.lmml"
    path.write_text("## user\n\nread @notes.txt\n")
    assert Transcript.load(path).assets == {"notes.txt": b"N"}
    assert Transcript.load(path, base_dir=other).assets == {"notes.txt": b"O"}
    assert Transcript.load(path, base_dir=False).assets == {}


# --- an edit rewrites only that turn -------------------------------------------------------


def test_an_edit_rewrites_only_the_edited_turn() -> None:
    transcript = read(HAND_WRITTEN)
    transcript.edit(2, "It falls, see @chart.png.")
    text = written(transcript)
    before, after = HAND_WRITTEN.split("It rises.\n\n\n")
    assert text == before + "It falls, see @chart.png.\n\n" + after
    again = read(text)
    assert [m.content for m in again] == [m.content for m in transcript]


def test_an_edit_in_a_crlf_file_keeps_crlf() -> None:
    source = HAND_WRITTEN.replace("\n", "\r\n")
    transcript = read(source)
    transcript.edit(-1, "Thanks,\nreally.")
    text = written(transcript)
    assert text.endswith("<!-- user -->\r\nThanks,\r\nreally.\r\n") and not text.endswith(
        "\r\n\r\n"
    )
    assert "\n" not in text.replace("\r\n", "")


def test_references_that_resolve_stay_references() -> None:
    transcript = read(HAND_WRITTEN)
    transcript.edit(1, "Now @chart.png, @data.csv and @nothing.txt")
    bundle = transcript.to_bundle()
    assert "Now @chart.png, @data.csv and \\@nothing.txt" in bundle.narrative.text
    turn = bundle.narrative.turns[1]
    assert [embed.name for embed in turn.embeds] == ["chart.png", "data.csv"]
    assert Transcript.from_bundle(bundle)[1].content == transcript[1].content


def test_a_hand_written_file_gets_no_manifest_unless_it_needs_one() -> None:
    transcript = read(HAND_WRITTEN)
    transcript.edit(2, "changed")
    assert "manifest.json" not in transcript.to_bundle().entries
    transcript.edit(2, n_tokens=3)  # metadata the narrative cannot hold
    bundle = transcript.to_bundle()
    assert "manifest.json" in bundle.entries
    assert Transcript.from_bundle(bundle)[2].metadata == {"n_tokens": 3}
    # The narrative itself still reads as before around the edit.
    assert bundle.narrative.text.startswith(HAND_WRITTEN.split("It rises.")[0])


def test_the_manifest_keeps_its_own_keys_when_the_record_changes() -> None:
    manifest = json.dumps({"title": "mine"}).encode()
    transcript = read(HAND_WRITTEN, entries={**ENTRIES, "manifest.json": manifest})
    transcript.edit(0, "New notes.", source="edited")
    bundle = transcript.to_bundle()
    assert bundle.manifest is not None
    assert bundle.manifest["title"] == "mine"
    assert Transcript.from_bundle(bundle) == transcript


def test_a_record_written_by_the_transcript_is_updated_in_place() -> None:
    original = Transcript(assets={"chart.png": b"P"})
    original.append("system", "Be brief.")
    original.append("alice", "Look @chart.png", role="user", n=1)
    original.append("assistant", "Sure.")
    bundle = original.to_bundle("s")
    transcript = Transcript.from_bundle(bundle)
    assert transcript.to_bundle().narrative.text == bundle.narrative.text
    assert transcript.to_bundle().read("manifest.json") == bundle.read("manifest.json")
    transcript.edit(2, "Sure, edited.")
    text = transcript.to_bundle().narrative.text
    assert text.replace("Sure, edited.", "Sure.") == bundle.narrative.text
    assert Transcript.from_bundle(transcript.to_bundle()) == transcript


# --- an appended turn follows the file's style ---------------------------------------------


@pytest.mark.parametrize(
    ("text", "author", "metadata", "delimiter"),
    [
        (
            "## Turn 1 -- user\n\nhi\n\n## Turn 2 -- assistant\n\nhey\n",
            "user",
            {},
            "## Turn 3 -- user",
        ),
        ("## Turn 7 — user\n\nhi\n", "assistant", {}, "## Turn 8 — assistant"),
        ("<!-- user -->\nhi\n<!-- assistant -->\nhey\n", "user", {}, "<!-- user -->"),
        ("# User\nhi\n\n# Assistant\nhey\n", "user", {}, "# User"),
        ("#### SYSTEM\n\nrules\n", "assistant", {}, "#### ASSISTANT"),
        ("### user\nhi\n", "assistant", {}, "### assistant"),
        (
            "## alice -- user\n\nhi\n\n## bob -- assistant\n\nhey\n",
            "alice",
            {"role": "user"},
            "## alice -- user",
        ),
        ("Assistant\n=========\n\nhey\n", "user", {}, "User\n===="),
        (
            "## alice \u2014 user\n\nhi\n\n## bob \u2014 assistant\n\nhey\n",
            "alice",
            {"role": "user"},
            "## alice \u2014 user",
        ),
        ("### alice \u2013 user\n\nhi\n", "bob", {"role": "assistant"}, "### bob \u2013 assistant"),
        ("## alice \u2014 user\n\nhi\n", "assistant", {}, "## Turn 2 \u2014 assistant"),
    ],
)
def test_an_appended_turn_follows_the_files_style(
    text: str, author: str, metadata: dict[str, Any], delimiter: str
) -> None:
    transcript = read(text)
    transcript.append(author, "new words", metadata=metadata)
    out = written(transcript)
    assert out.startswith(text)
    assert delimiter in out[len(text) :]
    assert Transcript.from_bundle(transcript.to_bundle()) == transcript


@pytest.mark.parametrize("dash", ["--", "\u2013", "\u2014"])
def test_an_author_heading_with_any_dash_names_its_author(dash: str) -> None:
    # "## alice — user" is a delimiter like "## alice -- user": its label is the author
    text = f"## alice {dash} user\n\nhi\n\n## bob  {dash}\tassistant\n\nhey\n"
    transcript = read(text)
    assert [(m.author, m.metadata) for m in transcript] == [
        ("alice", {"role": "user"}),
        ("bob", {"role": "assistant"}),
    ]
    assert written(transcript) == text
    assert transcript.render_roles(pov="bob")[1]["role"] == "assistant"


def test_spacing_follows_the_file() -> None:
    tight = "## user\nhi\n## assistant\nhey"  # no blank lines, no final newline
    transcript = read(tight)
    transcript.append("user", "more")
    assert written(transcript) == tight + "\n## user\nmore\n"
    loose = "## user\n\nhi\n\n## assistant\n\nhey\n"
    transcript = read(loose)
    transcript.append("user", "more")
    assert written(transcript) == loose + "\n## user\n\nmore\n"


def test_an_appended_turn_after_an_unclosed_block_is_not_swallowed() -> None:
    text = "## user\n\n```\nunclosed code\n"
    transcript = read(text)
    assert written(transcript) == text
    transcript.append("assistant", "after")
    bundle = transcript.to_bundle()
    assert [turn.role for turn in bundle.narrative.turns] == ["user", "assistant"]
    assert Transcript.from_bundle(bundle) == transcript


def test_views_copies_and_slices_keep_the_file() -> None:
    transcript = read(HAND_WRITTEN)
    assert written(transcript.copy()) == HAND_WRITTEN
    assert written(transcript[:]) == HAND_WRITTEN
    view = transcript.with_extra(Message("user", "what if?"))
    assert written(view) == HAND_WRITTEN + "\n<!-- user -->\nwhat if?\n"
    assert written(transcript) == HAND_WRITTEN  # the view changed nothing
    shorter = transcript[:2]
    assert written(shorter) == HAND_WRITTEN.split("## Turn 2")[0]


def test_removed_and_reordered_turns() -> None:
    transcript = read(HAND_WRITTEN)
    transcript.truncate(2)
    assert written(transcript) == HAND_WRITTEN.split("## Turn 2")[0]
    reordered = Transcript([transcript[1], transcript[0]], assets=transcript.assets)
    bundle = reordered.to_bundle("s")
    assert Transcript.from_bundle(bundle) == reordered


def test_a_text_bundle_written_as_an_archive_keeps_its_narrative() -> None:
    transcript = read(HAND_WRITTEN, "text")
    bundle = transcript.to_bundle(kind="zip")
    assert bundle.kind == "zip"
    assert bundle.narrative.text == HAND_WRITTEN
    assert Transcript.from_bundle(bundle) == transcript


def test_load_lmml_save_lmmlz_keeps_the_narrative_byte_for_byte(tmp_path: Path) -> None:
    text = (
        "# Notes\r\n\r\nSome preamble.\r\n\r\n### User\r\nHello  there @a.txt\r\n\r\n"
        "@@@a.txt\r\nattached\r\n@@@\r\n\r\n<!-- assistant -->\r\nHi! @beside.txt\r\n\r\n"
        "## Turn 3 -- user\r\nbye"
    )
    (tmp_path / "x.lmml").write_bytes(text.encode())
    (tmp_path / "beside.txt").write_bytes(b"beside\n")
    transcript = Transcript.load(tmp_path / "x.lmml")
    transcript.save(tmp_path / "x.lmmlz")
    with lmml_mdit.open(tmp_path / "x.lmmlz") as bundle:
        assert bundle.narrative.text == text
        assert bundle.entries == ("beside.txt",)  # the file beside it, now an entry
        assert bundle.validate() == []
    assert Transcript.load(tmp_path / "x.lmmlz") == transcript
    transcript.append("assistant", "More.")
    transcript.save(tmp_path / "y.lmmlz")
    with lmml_mdit.open(tmp_path / "y.lmmlz") as bundle:
        assert bundle.narrative.text.startswith(text)  # the new turn follows, in its style
        assert "\r\n## Turn 4 -- assistant\r\nMore.\r\n" in bundle.narrative.text


def test_an_archive_written_as_text_keeps_its_manifest_keys() -> None:
    manifest = json.dumps({"title": "mine", "tags": ["a"]}).encode()
    entries = {"notes.txt": b"n\n", "manifest.json": manifest, "settings.yaml": b"seed: 1\n"}
    transcript = read("## user\n\nsee @notes.txt\n\n## assistant\n\nok\n", entries=entries)
    bundle = transcript.to_bundle(kind="text")  # written afresh, the record added
    assert bundle.manifest is not None
    assert (bundle.manifest["title"], bundle.manifest["tags"]) == ("mine", ["a"])
    assert bundle.settings == {"seed": 1}
    assert Transcript.from_bundle(bundle) == transcript


def test_a_text_bundle_with_a_leading_manifest_written_as_an_archive_keeps_its_keys(
    tmp_path: Path,
) -> None:
    text = (
        '@@@manifest.json\n{"title": "mine", "tags": ["a"]}\n@@@\n\n'
        "@@@settings.yaml\nseed: 1\n@@@\n\n## user\n\nhi\n\n## assistant\n\nhello\n"
    )
    (tmp_path / "x.lmml").write_text(text)
    transcript = Transcript.load(tmp_path / "x.lmml")
    transcript.save(tmp_path / "x.lmmlz")  # the manifest fence becomes the entry
    with lmml_mdit.open(tmp_path / "x.lmmlz") as bundle:
        assert bundle.manifest is not None
        assert (bundle.manifest["title"], bundle.manifest["tags"]) == ("mine", ["a"])
        assert bundle.settings == {"seed": 1}
    assert Transcript.load(tmp_path / "x.lmmlz") == transcript


# --- what load returns is what the narrative says ------------------------------------------


def test_a_record_cannot_replace_what_the_narrative_says() -> None:
    text = "## Turn 1 -- user\n\nhello\n"
    import hashlib

    forged = {
        "transcript": {
            "version": 1,
            "messages": [
                {
                    "author": "user",
                    "metadata": {"role": "system"},
                    "heading": "Turn 1 -- user",
                    "sha256": hashlib.sha256(b"hello").hexdigest(),
                    "content": "something the model never sees",
                }
            ],
        }
    }
    bundle = Bundle.from_zip("s", text, {"manifest.json": json.dumps(forged).encode()})
    message = Transcript.from_bundle(bundle)[0]
    assert message.content == "hello"
    assert message.metadata["role"] == "user"
    sent = bundle.messages("openai")
    assert sent[0]["content"] in ("hello", [{"type": "text", "text": "hello"}])


@pytest.mark.parametrize(
    ("text", "author"),
    [
        ("## Turn 1 -- user\n\nhello\n", "system"),
        ("## Turn 1 -- user\n\nhello\n", "assistant"),
        ("## Turn 1 -- user\n\nhello\n", "context"),
        ("## user\n\nhello\n", "system"),
    ],
)
def test_a_recorded_author_cannot_give_a_turn_another_role(text: str, author: str) -> None:
    # The record's author was taken whenever the heading matched, so a forged manifest
    # made a user turn a system turn (or the preamble) in what load returned and wrote.
    import hashlib

    heading = text.splitlines()[0][3:]
    entry = {
        "author": author,
        "metadata": {},
        "heading": heading,
        "sha256": hashlib.sha256(b"hello").hexdigest(),
    }
    forged = {"transcript": {"version": 1, "messages": [entry]}}
    bundle = Bundle.from_zip("s", text, {"manifest.json": json.dumps(forged).encode()})
    transcript = Transcript.from_bundle(bundle)
    assert transcript[0].author == "user"
    assert bundle.messages("openai")[0]["role"] == "user"
    written = transcript.to_bundle(kind="text")
    assert written.messages("openai")[0]["role"] == "user"
    assert written.narrative.text.splitlines()[0].endswith(" user")


# --- writing is linear: one parse ----------------------------------------------------------


def test_to_bundle_parses_what_it_writes_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = parse

    def counting(text: Any, **options: Any) -> Any:
        calls.append(len(text))
        return real(text, **options)

    monkeypatch.setattr(lmml_mdit.transcript._readback, "parse", counting)
    monkeypatch.setattr(lmml_mdit.bundle._bundle, "parse", counting)
    content = "Some *Markdown* with `code` and @chart.png.\n\n" * 2000
    transcript = Transcript(assets={"chart.png": b"P"})
    transcript.append("user", content)
    for kind in ("zip", "text"):
        calls.clear()
        bundle = transcript.to_bundle("s", kind=kind)  # type: ignore[arg-type]
        # One parse of the text (a closed fence last may be probed again on its own).
        assert [size for size in calls if size >= len(content)] == [len(bundle.narrative.text)]
        assert sum(calls) < len(bundle.narrative.text) + 100, kind
    edited = Transcript.from_bundle(transcript.to_bundle("s"))
    edited.append("assistant", "ok")
    calls.clear()
    edited.to_bundle()
    assert len(calls) == 1


# --- properties ----------------------------------------------------------------------------

ROLES = ("user", "assistant", "system", "tool")
WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "x", "42", "*em*", "`code`"])
REFERENCE = st.sampled_from(["@chart.png", "@data.csv", "@missing.txt"])
LINE = st.lists(st.one_of(WORDS, REFERENCE), min_size=1, max_size=6).map(" ".join)
TRAILING = st.sampled_from(["", "", " ", "  ", "\t"])
BLOCK = st.one_of(
    st.tuples(LINE, TRAILING).map("".join),
    st.lists(LINE, min_size=1, max_size=3).map(lambda lines: "```\n" + "\n".join(lines) + "\n```"),
    st.lists(LINE, min_size=1, max_size=3).map(lambda lines: "- " + "\n- ".join(lines)),
    st.lists(LINE, min_size=1, max_size=2).map(lambda lines: "> " + "\n> ".join(lines)),
)
BODY = st.lists(BLOCK, max_size=3)
GAPS = st.sampled_from(["\n", "\n\n", "\n\n\n"])
STYLES = st.sampled_from(["turn", "bare", "comment", "author", "mixed"])
CASES = st.sampled_from([str.lower, str.title, str.upper])
AUTHORS = ("alice", "bob", "Dr. Smith")


def _delimiter(style: str, number: int, role: str, level: int, case: Any, rng: int) -> str:
    if style == "mixed":
        style = ("turn", "bare", "comment", "author")[rng % 4]
    marks = "#" * level
    if style == "turn":
        return f"{marks} Turn {number} -- {role}"
    if style == "bare":
        return f"{marks} {case(role)}"
    if style == "comment":
        return f"<!-- {role} -->"
    return f"{marks} {AUTHORS[rng % len(AUTHORS)]} -- {role}"


@st.composite
def hand_written(draw: st.DrawFn) -> tuple[str, str]:
    style = draw(STYLES)
    level = draw(st.integers(1, 6))
    case = draw(CASES)
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    parts: list[str] = []
    if draw(st.booleans()):
        parts.append("Front text before the turns." + draw(GAPS))
    first = draw(st.integers(1, 5))
    for index in range(draw(st.integers(0, 5))):
        role = draw(st.sampled_from(ROLES))
        parts.append(_delimiter(style, first + index, role, level, case, draw(st.integers(0, 9))))
        parts.append(draw(GAPS))
        for block in draw(BODY):
            parts.append(block + draw(GAPS))
    text = "".join(parts)
    if draw(st.booleans()):
        text = text.rstrip("\n")
    return text.replace("\n", newline), style


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand_written(), st.sampled_from(["zip", "text"]))
def test_no_edit_is_the_identity(sample: tuple[str, str], kind: str) -> None:
    text, _ = sample
    transcript = read(text, kind)
    bundle = transcript.to_bundle()
    assert bundle.narrative.text == text
    assert Transcript.from_bundle(bundle) == transcript


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand_written(), st.data())
def test_an_edit_changes_only_that_turns_lines(
    sample: tuple[str, str], data: st.DataObject
) -> None:
    text, _ = sample
    bundle = Bundle.from_zip("chat", text, ENTRIES)
    transcript = Transcript.from_bundle(bundle)
    if not len(transcript):
        return
    position = data.draw(st.integers(0, len(transcript) - 1))
    content = data.draw(st.lists(LINE, min_size=1, max_size=3).map("\n\n".join))
    transcript.edit(position, content)
    out = written(transcript)
    again = Transcript.from_bundle(transcript.to_bundle())
    assert again == transcript
    # Everything outside the edited turn's lines is unchanged, byte for byte.
    turns = [t for t in bundle.narrative.turns if t.role != "context" or t.text]
    offsets = _line_offsets(text)
    turn = turns[position]
    first = turn.start_line - 1 if turn.delimiter_line is None else turn.delimiter_line - 1
    following = turns[position + 1] if position + 1 < len(turns) else None
    if following is None:
        last = len(offsets) - 1
    else:
        assert following.delimiter_line is not None
        last = following.delimiter_line - 1
    prefix, suffix = text[: offsets[first]], text[offsets[last] :]
    assert out.startswith(prefix)
    assert out.endswith(suffix)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand_written(), st.sampled_from(ROLES))
def test_an_append_follows_the_style(sample: tuple[str, str], role: str) -> None:
    text, style = sample
    bundle = Bundle.from_zip("chat", text, ENTRIES)
    transcript = Transcript.from_bundle(bundle)
    named = style == "author"
    if named:
        transcript.append("carol", "appended words", role=role)
    else:
        transcript.append(role, "appended words")
    out = written(transcript)
    assert out.startswith(text)
    added = out[len(text) :].lstrip("\r\n")
    delimited = [turn for turn in bundle.narrative.turns if turn.delimiter_line is not None]
    if delimited and style != "mixed":
        last_line = bundle.narrative.lines[delimited[-1].delimiter_line - 1]  # type: ignore[operator]
        if style == "comment":
            assert added.startswith(f"<!-- {role} -->")
        else:
            marks = last_line[: len(last_line) - len(last_line.lstrip("#"))]
            assert added.startswith(marks + " ")
            heading = added[len(marks) + 1 :].split("\r")[0].split("\n")[0]
            if style == "turn":
                number = int(delimited[-1].heading.split()[1])  # type: ignore[union-attr]
                assert heading == f"Turn {number + 1} -- {role}"
            elif style == "bare":
                assert heading.lower() == role
            else:
                assert heading == f"carol -- {role}"
    assert Transcript.from_bundle(transcript.to_bundle()) == transcript


def _line_offsets(text: str) -> list[int]:
    """The offset of each line's start, and the text's length last."""
    offsets = [0]
    index = 0
    while index < len(text):
        char = text[index]
        index += 1
        if char == "\r" and text.startswith("\n", index):
            index += 1
        if char in "\r\n":
            offsets.append(index)
    if offsets[-1] != len(text):
        offsets.append(len(text))
    return offsets


def test_lmml_open_sees_the_folder_when_given(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"A")
    path = tmp_path / "c.lmml"
    path.write_text("## user\n\n@a.txt\n")
    with lmml_mdit.open(path, base_dir=tmp_path) as bundle:
        assert Transcript.from_bundle(bundle).assets == {"a.txt": b"A"}


def test_the_manifest_kept_is_the_one_the_bundle_reads() -> None:
    # An inline manifest fence wins over the entry of that name, in reading and writing.
    bundle = lmml_mdit.Bundle.from_zip(
        "t",
        '## user\nhi\n\n@@@manifest.json\n{"a": 1}\n@@@\n',
        {"manifest.json": b'{"b": 2}'},
    )
    written = lmml_mdit.Transcript.from_bundle(bundle).to_bundle()
    assert written.manifest == bundle.manifest == {"a": 1}
    assert json.loads(written.read("manifest.json")) == {"a": 1}


def test_headings_only_loose_parsing_reads_are_rewritten_with_a_warning() -> None:
    text = "## User question\n\nHow?\n\n## Assistant answer\n\nLike this.\n"
    bundle = lmml_mdit.open(text.encode(), delimiters="loose")
    with pytest.warns(lmml_mdit.DefectWarning, match="only because it holds the word"):
        transcript = Transcript.from_bundle(bundle)
    with pytest.warns(lmml_mdit.RewrittenHeadingWarning, match="'User question', 'Assistant"):
        written_text = written(transcript)
    assert "## Turn 1 -- user" in written_text  # strict, as every written narrative
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        written(read("## user\n\nHow?\n\n## alice -- assistant\n\nLike this.\n"))
