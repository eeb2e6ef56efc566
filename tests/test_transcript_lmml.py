"""Transcripts to and from LMML: headings, escaping, manifest, assets, files."""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lmml_mdit import Bundle, DefectWarning, Message, Transcript, parse
from lmml_mdit import open as open_bundle
from lmml_mdit.errors import (
    NotInlinableError,
    TranscriptError,
    TranscriptFormatError,
    TranscriptTypeError,
)
from lmml_mdit.syntax import role_word
from lmml_mdit.text import as_turn_text
from lmml_mdit.transcript import (
    CONTENT_FENCE_INFO,
    decode_author,
    digest,
    encode_author,
    narrative_text,
    read_bundle,
    write_bundle,
)

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
    b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)


def round_trip(transcript: Transcript, kind: Any = "zip") -> Transcript:
    return Transcript.from_bundle(transcript.to_bundle("session", kind=kind))


# --- the heading convention ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("author", "label"),
    [
        ("alice", "alice"),
        ("Dr. Smith", "Dr. Smith"),
        ("user", "u\\ser"),
        ("The Assistant", "The A\\ssistant"),
        ("tool_x", "t\\ool_x"),
        ("SYSTEM-2", "S\\YSTEM-2"),
        ("users", "users"),
        ("@bob", "\\@bob"),
        ("a\\b", "a\\\\b"),
        ("Turn 5", "T\\urn 5"),
        ("turn 12", "t\\urn 12"),
        ("alice -- bob", "alice -- bob"),
        ("# hash", "# hash"),
    ],
)
def test_encode_author(author: str, label: str) -> None:
    assert encode_author(author) == label
    heading = f"{label} -- assistant"
    assert role_word(heading) == "assistant"
    assert decode_author(heading, "assistant") == author


@pytest.mark.parametrize("author", ["", " alice", "alice ", "a\nb", "tab\there", "nul\x00"])
def test_authors_a_heading_cannot_hold(author: str) -> None:
    assert encode_author(author) is None


@pytest.mark.parametrize(
    ("heading", "role", "author"),
    [
        ("Turn 1 -- user", "user", None),
        ("user", "user", None),
        ("alice -- assistant", "assistant", "alice"),
        ("Alice (the user) -- assistant", "user", None),
        ("alice - assistant", "assistant", None),
        (None, "user", None),
    ],
)
def test_decode_author(heading: str | None, role: str, author: str | None) -> None:
    assert decode_author(heading, role) == author


@given(st.text(min_size=1, max_size=30))
def test_every_printable_author_survives_a_heading(author: str) -> None:
    label = encode_author(author)
    if label is None:
        assert author != author.strip() or not author.isprintable()
        return
    heading = f"{label} -- tool"
    narrative = parse(f"## {heading}\n\nbody\n")
    assert len(narrative.turns) == 1
    turn = narrative.turns[0]
    assert turn.role == "tool"
    assert not narrative.embeds
    assert decode_author(turn.heading, turn.role) == author


# --- reading hand-written LMML ------------------------------------------------------------

HAND_WRITTEN = """\
Preamble about the session.

## Turn 1 -- user

Look at @chart.png please.

## alice -- assistant

It rises.

<!-- tool -->
42

# system
Be brief.

### u\\ser -- assistant
I am named user.
"""


def test_from_bundle_reads_authors_roles_context_and_assets() -> None:
    bundle = Bundle.from_zip("s", HAND_WRITTEN, {"chart.png": PNG})
    transcript = Transcript.from_bundle(bundle)
    assert list(transcript) == [
        Message("context", "Preamble about the session."),
        Message("user", "Look at @chart.png please."),
        Message("alice", "It rises.", {"role": "assistant"}),
        Message("tool", "42"),
        Message("system", "Be brief."),
        Message("user", "I am named user.", {"role": "assistant"}),
    ]
    assert transcript.assets == {"chart.png": PNG}
    roles = [m["role"] for m in transcript.render_roles(pov="assistant")]
    assert roles == ["system", "user", "user", "tool", "system", "user"]


def test_from_bundle_of_a_text_bundle_keeps_inline_fences_in_content_and_assets() -> None:
    text = "## Turn 1 -- user\n\nHere:\n\n@@@notes.txt\nhello\n@@@\n"
    transcript = Transcript.from_bundle(Bundle.from_text("s", text))
    assert transcript[0].content == "Here:\n\n@@@notes.txt\nhello\n@@@"
    assert transcript.assets == {"notes.txt": b"hello\n"}
    # Written back, the fence stays in the content and is not duplicated as an entry.
    bundle = transcript.to_bundle("s")
    assert "notes.txt" not in bundle.entries
    assert "@@@notes.txt\nhello\n@@@" in bundle.narrative.text
    assert Transcript.from_bundle(bundle) == transcript


def test_a_preamble_of_only_fences_is_attachments_not_context() -> None:
    text = "@@@data.csv\na,b\n@@@\n\n## Turn 1 -- user\nhi\n"
    transcript = Transcript.from_bundle(Bundle.from_text("s", text))
    assert list(transcript) == [Message("user", "hi")]
    assert transcript.assets == {"data.csv": b"a,b\n"}


def test_tool_call_fences_round_trip_verbatim() -> None:
    text = (
        "## Turn 1 -- assistant\n\nLet me check.\n\n@@@call_1.tool_call.json\n"
        '{"id": "call_1", "name": "get_weather", "arguments": {"city": "Paris"}}\n@@@\n\n'
        "## Turn 2 -- tool\n\n@call_1.tool_call.json\n\nSunny.\n"
    )
    transcript = Transcript.from_bundle(Bundle.from_text("s", text))
    # Written as a zip, the narrative read from the text bundle is kept as it was.
    bundle = transcript.to_bundle("s", kind="zip")
    assert bundle.narrative.text == text
    assert Transcript.from_bundle(bundle) == transcript
    # Written as the text bundle it was read from, nothing changes.
    assert transcript.to_bundle("s").narrative.text == text


# --- writing ------------------------------------------------------------------------------


def sample() -> Transcript:
    transcript = Transcript(assets={"chart.png": PNG})
    transcript.append("context", "Set the scene.")
    transcript.append("system", "Be brief.")
    transcript.append("user", "Plot it. @chart.png")
    transcript.append("assistant", "Done.", n_tokens=2, reasoning={"steps": [1, 2.5, None]})
    transcript.append("alice", "Named.", role="assistant")
    return transcript


def test_to_bundle_writes_headings_the_segmenter_reads() -> None:
    bundle = sample().to_bundle("session.lmmlz")
    assert bundle.kind == "zip" and bundle.name == "session"
    assert bundle.narrative.text == (
        "Set the scene.\n\n"
        "## Turn 2 -- system\n\nBe brief.\n\n"
        "## Turn 3 -- user\n\nPlot it. @chart.png\n\n"
        "## Turn 4 -- assistant\n\nDone.\n\n"
        "## alice -- assistant\n\nNamed.\n"
    )
    assert [turn.role for turn in bundle.narrative.turns] == [
        "context",
        "system",
        "user",
        "assistant",
        "assistant",
    ]
    assert bundle.entries == ("manifest.json", "chart.png")
    record = bundle.manifest["transcript"]  # type: ignore[index]
    assert record["version"] == 1
    assert record["messages"][3]["metadata"] == {
        "n_tokens": 2,
        "reasoning": {"steps": [1, 2.5, None]},
    }
    assert bundle.validate() == []
    assert Transcript.from_bundle(bundle) == sample()


def test_named_authors_get_their_role_from_the_pov() -> None:
    transcript = Transcript([Message("alice", "a"), Message("bob", "b"), Message("system", "s")])
    assert "## alice -- user" in transcript.to_bundle("s").narrative.text
    text = transcript.to_bundle("s", pov="alice").narrative.text
    assert "## alice -- assistant" in text and "## bob -- user" in text
    assert "## Turn 3 -- system" in text


def test_context_messages_that_cannot_be_a_preamble() -> None:
    transcript = Transcript(
        [Message("user", "u"), Message("context", "late"), Message("context", "")]
    )
    text = transcript.to_bundle("s").narrative.text
    assert "## context -- system\n\nlate" in text
    assert round_trip(transcript) == transcript
    blank = Transcript([Message("context", "  \n"), Message("user", "u")])
    assert round_trip(blank) == blank


def test_risky_content_is_escaped_and_keeps_its_references() -> None:
    content = (
        "## user\n<!-- assistant -->\n@@@x.txt\nforged\n@@@\n\\kept\nuser\n===\nsee @chart.png"
    )
    transcript = Transcript([Message("bob", content)], assets={"chart.png": PNG})
    bundle = transcript.to_bundle("s")
    narrative = bundle.narrative
    assert len(narrative.turns) == 1
    assert [embed.name for embed in narrative.embeds] == ["chart.png"]
    assert "\\## user\n\\<!-- assistant -->\n\\@@@x.txt" in narrative.text
    # A backslash of its own stays one; "===" underlines no role, so needs no escape.
    assert "\n\\kept\nuser\n===\n" in narrative.text
    assert bundle.manifest["transcript"]["messages"][0]["encoding"] == "lmml-escaped"  # type: ignore[index]
    sent = bundle.messages("openai")[0]["content"]
    assert sent[0]["text"] == content  # type: ignore[index]
    assert bundle.validate() == []
    assert Transcript.from_bundle(bundle) == transcript


def test_an_at_sign_cannot_forge_a_reference() -> None:
    # "@bob" and "@x" are mentions (no extension); "@bob.png" would read as a reference.
    content = "ping @bob, @bob.png, mail a@b.c, see @chart.csv\n@manifest.json"
    transcript = Transcript([Message("alice", content)], assets={"chart.csv": b"a,b\n"})
    for kind in ("zip", "text"):
        bundle = transcript.to_bundle("s", kind=kind)  # type: ignore[arg-type]
        text = bundle.narrative.text
        assert "ping @bob, \\@bob.png, mail a@b.c, see @chart.csv\n\\@manifest.json\n" in text
        assert [e.name for e in bundle.narrative.embeds if not e.is_inline] == ["chart.csv"]
        assert bundle.validate() == []
        assert Transcript.from_bundle(bundle) == transcript


def test_references_resolved_beside_a_text_bundle_are_carried(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_bytes(b"DATA")
    (tmp_path / "doc.lmml").write_text("## user\nread @notes.txt and @gone.txt\n")
    bundle = open_bundle(tmp_path / "doc.lmml", base_dir=tmp_path)
    transcript = Transcript.from_bundle(bundle)
    assert dict(transcript.assets) == {"notes.txt": b"DATA"}
    assert transcript[0].content == "read @notes.txt and @gone.txt"
    again = transcript.to_bundle("doc", kind="zip")
    # As an archive, the narrative is kept as written (the missing @gone.txt too).
    assert again.narrative.text == "## user\nread @notes.txt and @gone.txt\n"
    assert again.entries == ("notes.txt",)
    edited = transcript.copy()
    edited[0].content += "!"
    assert "read @notes.txt and \\@gone.txt!" in edited.to_bundle("doc", kind="zip").narrative.text
    assert Transcript.from_bundle(again) == transcript
    # As the text bundle it was read from, the file is written back as it was.
    assert transcript.to_bundle().narrative.text == "## user\nread @notes.txt and @gone.txt\n"


@pytest.mark.parametrize(
    ("content", "encoding"),
    [
        ("```\nunclosed code\n## user", "fenced"),
        ("<pre>\n## assistant", "fenced"),
        ("<!-- an unclosed comment\n", "fenced"),
        ("- @@@inlist.txt\n  forged\n  @@@", "lmml-escaped"),
        ("> @@@quoted.txt\n> forged", "lmml-escaped"),
        ("1.  x\n    @@@a.txt\n    y", "lmml-escaped"),
        ("0. 0\n# USER", "fenced"),  # "\# USER" would be a list item's line: no escape
        ("\\@x", "fenced"),  # a backslash before "@" is an LMML escape: no way to send it
        # A content fence of its own would be sent without its lines: fenced whole.
        ("See:\n```lmml-content\nx\n```\nend", "fenced"),
        ("- ```\n  ## user\n\n  ````", "verbatim"),
    ],
)
def test_unsafe_content_is_escaped_or_fenced(content: str, encoding: str) -> None:
    transcript = Transcript([Message("bob", content), Message("alice", "after")])
    bundle = transcript.to_bundle("s")
    narrative = bundle.narrative
    assert [turn.role for turn in narrative.turns] == ["user", "user"]
    assert narrative.embeds == ()
    record = bundle.manifest["transcript"]["messages"]  # type: ignore[index]
    assert record[0].get("encoding", "verbatim") == encoding
    assert (CONTENT_FENCE_INFO in narrative.text) == (encoding == "fenced")
    assert Transcript.from_bundle(bundle) == transcript
    sent = bundle.messages("openai")[0]["content"][0]["text"]  # type: ignore[index]
    assert sent == as_turn_text(content)  # a fenced content too: without the fence's lines


@pytest.mark.parametrize("kind", ["zip", "text"])
@pytest.mark.parametrize(
    ("content", "data"),
    [("> @@@q.txt\n> DATA", b"DATA\n"), ("> @@@q.txt\nrest", b""), ("> @@@q.txt", b"")],
)
def test_an_unclosed_fence_cannot_be_forged_with_a_carried_asset(
    content: str, data: bytes, kind: Any
) -> None:
    # The quoted fence holds the asset's very bytes, but it is never closed: left as it
    # is, the bundle has an unclosed_embed defect and messages() refuses it.
    transcript = Transcript([Message("user", content), Message("assistant", "ok")])
    transcript.add_asset("q.txt", data)
    bundle = transcript.to_bundle("s", kind=kind)
    assert "> \\@@@q.txt" in bundle.narrative.text
    assert [issue.kind for issue in bundle.validate() if issue.kind != "orphaned_entry"] == []
    assert Transcript.from_bundle(bundle) == transcript
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DefectWarning)  # the orphaned entry of a zip
        messages = bundle.messages("openai")
    user = next(message for message in messages if message["role"] == "user")
    assert user["content"][0]["text"] == content  # type: ignore[index]


@pytest.mark.parametrize(
    "content",
    ["", "\n\nblank edges\n\n", "trailing  ", "crlf\r\nline\rcr", "\x00nul", "   \n  "],
)
def test_exact_content_is_restored_from_the_manifest(content: str) -> None:
    transcript = Transcript([Message("user", content), Message("assistant", "ok")])
    bundle = transcript.to_bundle("s")
    assert len(bundle.narrative.turns) == 2
    assert Transcript.from_bundle(bundle) == transcript


def test_an_edited_turn_is_read_from_the_narrative() -> None:
    bundle = sample().to_bundle("s")
    entries = {name: bundle.read(name) for name in bundle.entries}
    edited = bundle.narrative.text.replace("Done.", "Done, edited.")
    transcript = Transcript.from_bundle(Bundle.from_zip("s", edited, entries))
    assert transcript[3] == Message(
        "assistant", "Done, edited.", {"n_tokens": 2, "reasoning": {"steps": [1, 2.5, None]}}
    )
    renamed = bundle.narrative.text.replace("## alice -- assistant", "## carol -- assistant")
    transcript = Transcript.from_bundle(Bundle.from_zip("s", renamed, entries))
    assert transcript[4].author == "carol"


def test_turns_appended_keep_the_record_of_the_turns_before() -> None:
    bundle = sample().to_bundle("s")
    entries = {name: bundle.read(name) for name in bundle.entries}
    longer = bundle.narrative.text + "## Turn 6 -- user\n\nmore\n"
    transcript = Transcript.from_bundle(Bundle.from_zip("s", longer, entries))
    assert len(transcript) == 6
    assert transcript[3].metadata == {"n_tokens": 2, "reasoning": {"steps": [1, 2.5, None]}}
    assert transcript[4] == Message("alice", "Named.", {"role": "assistant"})
    assert transcript[5] == Message("user", "more", {})


def test_turns_inserted_or_removed_make_the_manifest_record_ignored() -> None:
    bundle = sample().to_bundle("s")
    entries = {name: bundle.read(name) for name in bundle.entries}
    text = bundle.narrative.text
    inserted = text.replace(
        "## Turn 4 -- assistant", "## Turn 4 -- user\n\nmore\n\n## Turn 5 -- assistant"
    )
    transcript = Transcript.from_bundle(Bundle.from_zip("s", inserted, entries))
    assert len(transcript) == 6
    assert transcript[4].metadata == {}
    edited = text.replace("Done.", "Done, edited.") + "## Turn 6 -- user\n\nmore\n"
    transcript = Transcript.from_bundle(Bundle.from_zip("s", edited, entries))
    assert transcript[3].metadata == {}
    shorter = text[: text.index("## alice")]
    transcript = Transcript.from_bundle(Bundle.from_zip("s", shorter, entries))
    assert len(transcript) == 4 and transcript[3].metadata == {}


@pytest.mark.parametrize(
    ("record", "pattern"),
    [
        ([], "is not an object"),
        ({"version": 2, "messages": []}, "version 2 is not supported"),
        ({"version": 1}, "has no messages list"),
        ({"version": 1, "messages": [{"author": "a"}]}, "message 0 is malformed"),
    ],
)
def test_a_malformed_record_is_an_error(record: Any, pattern: str) -> None:
    manifest = json.dumps({"transcript": record}).encode()
    bundle = Bundle.from_zip("s", "## Turn 1 -- user\n\nx\n", {"manifest.json": manifest})
    with pytest.raises(TranscriptFormatError, match=pattern) as caught:
        Transcript.from_bundle(bundle)
    assert caught.value.name == "manifest.json"


def test_a_malformed_record_names_the_file_it_is_in(tmp_path: Path) -> None:
    # Loading many files, the error says which one (and, in a .lmml, the record's line).
    transcript = Transcript([Message("alice", "hi", {"k": 1})])
    transcript.save(tmp_path / "chat.lmmlz")
    transcript.save(tmp_path / "chat.lmml")
    text = (tmp_path / "chat.lmml").read_text("utf-8")
    (tmp_path / "chat.lmml").write_text(text.replace('"version":1', '"version":9'), "utf-8")
    with pytest.raises(TranscriptFormatError) as caught:
        Transcript.load(tmp_path / "chat.lmml")
    fence = text.splitlines().index("@@@manifest.json") + 1
    # The file as the library names every file it opens (the CLI prints the path given).
    assert caught.value.file == "chat.lmml" and caught.value.line == fence
    assert str(caught.value).startswith(f"chat.lmml:{fence}: manifest.json 'transcript': ")
    manifest = json.dumps({"transcript": {"version": 9, "messages": []}}).encode()
    with zipfile.ZipFile(tmp_path / "chat.lmmlz") as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    entries["manifest.json"] = manifest
    with zipfile.ZipFile(tmp_path / "chat.lmmlz", "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    with pytest.raises(TranscriptFormatError, match="version 9 is not supported") as caught:
        Transcript.load(tmp_path / "chat.lmmlz")
    assert str(caught.value).startswith("chat.lmmlz!manifest.json: manifest.json 'transcript'")


def test_a_manifest_without_a_record_is_fine() -> None:
    manifest = json.dumps({"model": "x"}).encode()
    bundle = Bundle.from_zip("s", "## Turn 1 -- user\n\nx\n", {"manifest.json": manifest})
    assert list(Transcript.from_bundle(bundle)) == [Message("user", "x")]


def test_lossy_metadata_is_refused() -> None:
    transcript = Transcript([Message("a", "b", {"t": (1, 2)})])
    with pytest.raises(TranscriptFormatError, match="tuple"):
        transcript.to_bundle("s")


# --- .lmml text form ----------------------------------------------------------------------


def test_text_form_layout() -> None:
    transcript = sample()
    transcript.remove_asset("chart.png")
    transcript.add_asset("chart.png", b"not really an image\n")
    transcript.add_asset("notes.txt", b"no final newline")
    transcript.add_asset("empty.txt", b"")
    transcript.add_asset("odd.txt", b"ends in @@@ and spaces  ")
    bundle = transcript.to_bundle("s", kind="text")
    assert bundle.kind == "text"
    text = bundle.narrative.text
    # The unreferenced assets open the document (they are sent as context there)...
    assert text.startswith("@@@notes.txt\nno final newline@@@\n")
    assert "@@@empty.txt\n@@@\n" in text
    assert "@@@odd.txt\nends in @@@ and spaces  @@@\n\nSet the scene.\n\n## Turn 2" in text
    # ...and a referenced asset closes the turn that first references it.
    assert (
        "## Turn 3 -- user\n\nPlot it. @chart.png\n\n@@@chart.png\nnot really an image\n@@@\n\n"
        "## Turn 4"
    ) in text
    # ...and the record closes it, in one compact fence after the last turn.
    last = text.rindex("## Turn")
    assert "\n\n@@@manifest.json\n{" in text[last:]
    assert (
        text.endswith("}\n@@@\n")
        and not text.endswith("\n\n")
        and "@@@manifest.json" not in text[:last]
    )
    record = bundle.manifest["transcript"]["messages"]  # type: ignore[index]
    assert record[2]["attachments"] == ["chart.png"]
    assert record[-1]["attachments"][-1] == "manifest.json"
    assert [embed.name for embed in bundle.narrative.turns[2].embeds] == ["chart.png"]
    assert Transcript.from_bundle(bundle) == transcript


def test_text_form_sends_assets_with_the_turn_that_references_them() -> None:
    transcript = Transcript(assets={"notes.txt": b"hello\n"})
    transcript.append("user", "Read @notes.txt")
    transcript.append("assistant", "ok")
    text_messages = transcript.to_bundle("s", kind="text").messages("openai")
    zip_messages = transcript.to_bundle("s").messages("openai")
    assert [m["role"] for m in text_messages] == ["user", "assistant"]
    # The asset part sits where the .lmmlz puts it: right after the referencing text.
    assert text_messages[0]["content"][:2] == zip_messages[0]["content"][:2]
    assert "hello" in text_messages[0]["content"][1]["text"]
    assert text_messages[1:] == zip_messages[1:]


def test_text_form_without_the_manifest_keeps_closing_fences_in_content() -> None:
    transcript = Transcript([Message("user", "Read @n.txt")], assets={"n.txt": b"hi\n"})
    text = transcript.to_bundle("s", kind="text").narrative.text
    body = text[text.index("## Turn 1") : text.index("@@@manifest.json")]
    read = Transcript.from_bundle(Bundle.from_text("s", body))
    assert read[0].content == "Read @n.txt\n\n@@@n.txt\nhi\n@@@"
    assert read.assets == {"n.txt": b"hi\n"}


def test_text_form_refuses_assets_a_fence_cannot_hold() -> None:
    with pytest.raises(NotInlinableError, match="not UTF-8") as caught:
        Transcript([Message("a", "@chart.png")], assets={"chart.png": PNG}).to_bundle(
            "s", kind="text"
        )
    assert caught.value.name == "chart.png"
    for data in (b"a\r\nb", b"x\n@@@\ny", b"early @@@\nclose"):
        with pytest.raises(NotInlinableError, match="cannot hold this asset exactly"):
            Transcript(assets={"t.txt": data}).to_bundle("s", kind="text")


def test_unknown_kind() -> None:
    with pytest.raises(TranscriptError, match="kind must be"):
        sample().to_bundle("s", kind="tar")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", [5, b"s", ["s"]])
def test_a_bundle_name_that_is_no_string_is_refused(name: Any) -> None:
    with pytest.raises(TranscriptTypeError, match="bundle name must be a string"):
        sample().to_bundle(name)


@pytest.mark.parametrize("bundle", [5, "chat.lmml", sample()])
def test_from_bundle_refuses_what_is_no_bundle(bundle: Any) -> None:
    with pytest.raises(TranscriptTypeError, match="from_bundle needs a Bundle"):
        Transcript.from_bundle(bundle)


# --- below the Transcript class -----------------------------------------------------------


@pytest.mark.parametrize("kind", ["zip", "text"])
def test_reading_and_writing_work_on_messages_and_assets(kind: Any) -> None:
    messages = [
        Message("alice", "Look at @chart.png", {"n_tokens": 3}),
        Message("bob", "## not a turn\n\nping @carol"),
    ]
    assets = {"chart.png": b"a,b\n1,2\n"}
    bundle = write_bundle(messages, assets, "session", kind=kind)
    contents = read_bundle(bundle)
    assert contents.messages == messages
    assert contents.assets == assets
    assert contents.source is not None and contents.source.kind == kind
    again = write_bundle(contents.messages, contents.assets, source=contents.source)
    assert again.narrative.text == bundle.narrative.text
    assert narrative_text(messages, assets) == Transcript(messages, assets=assets).to_lmml()


# --- files --------------------------------------------------------------------------------


def test_save_and_load_lmmlz(tmp_path: Path) -> None:
    path = tmp_path / "run.lmmlz"
    sample().save(path)
    with open_bundle(path) as bundle:
        assert bundle.kind == "zip"
        assert bundle.narrative_name == "run.lmml"
        assert bundle.validate() == []
    assert Transcript.load(path) == sample()


def test_save_and_load_lmml(tmp_path: Path) -> None:
    transcript = sample()
    transcript.remove_asset("chart.png")
    transcript.add_asset("chart.png", b"text stand-in\n")
    path = tmp_path / "run.lmml"
    transcript.save_lmml(path)
    # A reader sees the conversation first; the record closes the file.
    written = path.read_text(encoding="utf-8")
    assert written.startswith("Set the scene.\n\n## Turn 2 -- system\n")
    assert written.count("@@@manifest.json") == 1
    assert written.rindex("@@@manifest.json") > written.rindex("## Turn")
    assert Transcript.load(path) == transcript
    transcript.save_lmml(tmp_path / "again.lmml")
    Transcript.load(path).save_lmml(path)
    assert path.read_bytes() == (tmp_path / "again.lmml").read_bytes()  # no edit, same bytes


FILE_02 = """\
@@@manifest.json
{
  "transcript": {
    "version": 1,
    "messages": [
      {
        "author": "user",
        "metadata": {"k": 1},
        "heading": "Turn 1 -- user",
        "sha256": "185f8db32271fe25f561a6fc938b2e264306ec304eda518007d1764826381969"
      },
      {
        "author": "assistant",
        "metadata": {},
        "heading": "Turn 2 -- assistant",
        "sha256": "3639efcd08abb273b1619e82e78c29a7df02c1051b1820e99fc395dcaa3326b8"
      }
    ]
  }
}
@@@
@@@orphan.txt
orph
@@@

## Turn 1 -- user

Hello

## Turn 2 -- assistant

Hi
"""
"""A ``.lmml`` as lmml_mdit 0.2 wrote it: the record before the first turn."""


def test_a_file_written_by_0_2_keeps_loading(tmp_path: Path) -> None:
    path = tmp_path / "old.lmml"
    path.write_text(FILE_02, encoding="utf-8")
    transcript = Transcript.load(path)
    assert list(transcript) == [Message("user", "Hello", {"k": 1}), Message("assistant", "Hi")]
    assert transcript.assets == {"orphan.txt": b"orph\n"}
    transcript.save(path)
    assert path.read_text(encoding="utf-8") == FILE_02  # no edit, same bytes
    transcript[1].content = "Hi there"
    transcript.save(path)
    again = Transcript.load(path)
    assert again == transcript
    assert path.read_text(encoding="utf-8").startswith("@@@manifest.json\n")  # kept in place


def test_save_lmml_needs_an_lmml_extension(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match=r"ends in \.lmml or \.lmmlz"):
        sample().save_lmml(tmp_path / "run.txt")


# --- the property -------------------------------------------------------------------------

RISKY_LINES = st.sampled_from(
    [
        "## user",
        "# Assistant",
        "### Turn 3 -- tool",
        "<!-- user -->",
        "<!--",
        "-->",
        "@@@x.txt",
        "@@@",
        "tail@@@",
        "@@@manifest.json",
        "```",
        "~~~",
        "<pre>",
        "<div>",
        "@chart.png",
        "@missing.txt",
        "ping @bob and @chart.png",
        "\\@x.txt",
        "mail a@b.c",
        "a@b.c",
        "\\",
        "\\## user",
        "   ",
        "",
        "user",
        "===",
        "---",
        "> @@@q",
        "- @@@q",
        "  @@@q",
        "    ## user",
        "trailing  ",
        "\t",
        "\r",
        "x\r\ny",
        "[a]: /url",
        "* * *",
        "1. item",
        "<script>",
        "]]>",
        "<?php",
        "\x00",
        "\u2028",
    ]
)
CONTENT = st.one_of(
    st.text(max_size=40),
    st.lists(st.one_of(RISKY_LINES, st.text(max_size=12)), max_size=8).map("\n".join),
)
AUTHOR = st.one_of(
    st.sampled_from(
        [
            "user",
            "assistant",
            "system",
            "tool",
            "context",
            "alice",
            "Turn 1",
            "@x",
            " sp",
            "",
            "the user",
            "a -- b",
            "bob\\",
        ]
    ),
    st.text(max_size=12),
)
JSON = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)
METADATA = st.dictionaries(st.text(max_size=8), JSON, max_size=3)
ASSET_NAMES = st.sampled_from(["chart.png", "x.txt", "data/table.csv", "q"])


def transcripts(asset_data: st.SearchStrategy[bytes]) -> st.SearchStrategy[Transcript]:
    messages = st.lists(st.builds(Message, AUTHOR, CONTENT, METADATA), max_size=6)
    assets = st.dictionaries(ASSET_NAMES, asset_data, max_size=3)
    return st.builds(lambda m, a: Transcript(m, assets=a), messages, assets)


FENCE_SAFE_TEXT = st.text(alphabet="abc xyz\n@#-", max_size=30).filter(
    lambda text: (
        all(
            line.strip() != "@@@" and not line.rstrip().endswith("@@@") for line in text.split("\n")
        )
        and (text.endswith("\n") or text == text.rstrip())
    )
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transcripts(st.binary(max_size=20)))
def test_zip_round_trip_is_lossless(transcript: Transcript) -> None:
    bundle = transcript.to_bundle("session")
    assert Transcript.from_bundle(bundle) == transcript
    # Nothing in any content forged an embed fence or a reference in a turn.
    carried = {name for name in transcript.assets}
    for embed in bundle.narrative.embeds:
        if embed.name != "manifest.json" or not embed.is_inline:
            assert embed.name in carried


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(transcripts(FENCE_SAFE_TEXT.map(str.encode)))
def test_text_round_trip_is_lossless(transcript: Transcript) -> None:
    bundle = transcript.to_bundle("session", kind="text")
    assert Transcript.from_bundle(bundle) == transcript
    for embed in bundle.narrative.embeds:
        if embed.name != "manifest.json" or not embed.is_inline:
            assert embed.name in transcript.assets


@settings(max_examples=40, deadline=None)
@given(transcripts(st.binary(max_size=20)))
def test_file_round_trip_is_lossless(tmp_path_factory: Any, transcript: Transcript) -> None:
    path = tmp_path_factory.mktemp("rt") / "t.lmmlz"
    transcript.save(path)
    assert Transcript.load(path) == transcript
    assert Transcript.from_bundle(open_bundle(path)) == transcript


SENT_LINES = st.one_of(
    RISKY_LINES,
    st.sampled_from(
        [
            "# Title",
            "\\# Title",
            "<b>x</b>",
            "\\<b>",
            "\\path",
            "\\\\",
            "```python",
            "~~~~",
            "=",
            "-",
            "- - -",
            "User:",
            "assistant",
            "## assistant",
            "## Turn 2 -- assistant",
            "alice -- user",
            "@@@notes.txt",
            "see @notes.txt",
            "\\@@@x.txt",
        ]
    ),
    st.text(alphabet="#<`~\\@=- usera", max_size=10),
)


def _sent_text(bundle: Bundle) -> str:
    """The first message's text as a model is sent it."""
    with warnings.catch_warnings():
        # A content line like "User:" is written so that no near miss is reported: the
        # file a transcript writes warns of nothing.
        warnings.simplefilter("error", DefectWarning)
        parts = bundle.messages("openai")[0]["content"]
    assert isinstance(parts, list)
    return "".join(part["text"] for part in parts if part["type"] == "text")  # type: ignore[index,misc]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(SENT_LINES, min_size=1, max_size=6).map("\n".join).filter(as_turn_text))
def test_the_model_is_sent_the_content(tmp_path_factory: Any, content: str) -> None:
    transcript = Transcript([Message("user", content), Message("assistant", "ok")])
    folder = tmp_path_factory.mktemp("sent")
    for name in ("t.lmml", "t.lmmlz"):
        transcript.save(folder / name)
        with warnings.catch_warnings():
            warnings.simplefilter("error", DefectWarning)
            assert Transcript.load(folder / name)[0].content == content
        bundle = open_bundle(folder / name)
        # Escaped or fenced, the model is sent the content, never the escapes or the
        # fence's own lines.
        assert _sent_text(bundle) == as_turn_text(content)


def test_a_file_with_the_earlier_line_escapes_reads_as_written() -> None:
    # Earlier versions put a backslash before every risky line start ("escaped"), and
    # read it back by dropping it; such a file still gives that content back.
    content = "# Title\n\\path\n@@@x.txt\n## assistant"
    body = "\\# Title\n\\\\path\n\\@@@x.txt\n\\## assistant"
    entry = {
        "author": "user",
        "metadata": {},
        "heading": "Turn 1 -- user",
        "sha256": digest(body),
        "encoding": "escaped",
    }
    manifest = json.dumps({"transcript": {"version": 1, "messages": [entry]}}).encode()
    text = f"## Turn 1 -- user\n\n{body}\n"
    bundle = Bundle.from_zip("s", text, {"manifest.json": manifest})
    transcript = Transcript.from_bundle(bundle)
    assert transcript[0].content == content
    assert transcript.to_bundle().narrative.text == text  # unedited: kept as written


def test_lmml_ls_lists_the_fences_a_saved_lmml_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The transcript writes an asset's fence after the turn that references it: `lmml ls`
    # lists it as the inline fence it is, not as a file beside the .lmml.
    from lmml_mdit.cli import main

    transcript = Transcript([Message("user", "Read @notes.txt"), Message("assistant", "ok")])
    transcript.add_asset("notes.txt", b"DATA\n")
    path = tmp_path / "chat.lmml"
    transcript.save(path)
    assert not (tmp_path / "notes.txt").exists()
    assert main(["ls", str(path), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(row["kind"], row["name"]) for row in rows] == [
        ("inline", "notes.txt"),
        ("inline", "manifest.json"),  # the transcript's record, closing the file
    ]
    assert rows[0]["size"] == 5


@pytest.mark.parametrize("kind", ["text", "zip"])
def test_a_content_holding_a_near_miss_is_fenced_so_the_file_warns_of_nothing(
    tmp_path: Path, kind: str
) -> None:
    """A content quoting a chat (``User:``, ``**Assistant:**``, ``Assistant: hi``) read back
    the same, but every command that sends or shows the file warned that a turn may be
    missing."""
    quoted = "Transcript below\n\nUser:\nhi\n\n**Assistant (GPT-4):**\nhello"
    transcript = Transcript(
        [
            Message("system", "Rules\n\nUser: is you"),
            Message("user", quoted),
            Message("assistant", "ok"),
        ]
    )
    path = tmp_path / ("t.lmml" if kind == "text" else "t.lmmlz")
    transcript.save(path)
    bundle = open_bundle(path)
    assert bundle.validate() == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", DefectWarning)
        assert [m.content for m in Transcript.load(path)] == [m.content for m in transcript]
        sent = bundle.messages("openai")
    assert sent[1]["content"] == [{"type": "text", "text": quoted}]
    # A message with no such line is still written as it is.
    assert "\n\nok\n" in bundle.narrative.text


def test_reading_a_file_with_a_near_miss_warns_as_a_send_does(tmp_path: Path) -> None:
    path = tmp_path / "pasted.lmml"
    path.write_text("## user\nhi\n\n**Assistant:**\nhello\n")
    with pytest.warns(DefectWarning, match=r"pasted.lmml:4:3: suspicious_delimiter: the line"):
        loaded = Transcript.load(path)
    assert [m.content for m in loaded] == ["hi\n\n**Assistant:**\nhello"]
    with pytest.warns(DefectWarning, match="suspicious_delimiter"):
        Transcript.from_bundle(open_bundle(path))


@pytest.mark.parametrize("name", ["t.lmml", "t.lmmlz"])
def test_a_written_transcript_is_already_formatted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Every file a transcript wrote ended in a blank line, which `lmml fmt --check`
    reported as a file to reformat."""
    from lmml_mdit.cli import main

    path = tmp_path / name
    Transcript([Message("user", "hi"), Message("assistant", "ok")]).save(path)
    hand = tmp_path / "hand.lmml"
    hand.write_text("## user\n\nhi\n")
    appended = Transcript.load(hand)
    appended.append("assistant", "ok")
    appended.save(hand)
    assert hand.read_text() == "## user\n\nhi\n\n## assistant\n\nok\n"
    assert main(["fmt", "--check", str(path), str(hand)]) == 0, capsys.readouterr().err
