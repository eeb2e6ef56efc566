"""Transcript and Message: the record, editing, views, rendering and the JSON file."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lmml_mdit import Message, Transcript
from lmml_mdit.chat import OPENING_USER_PLACEHOLDER
from lmml_mdit.errors import (
    LmmlError,
    MessageNotFoundError,
    ReadOnlyTranscriptError,
    TranscriptError,
    TranscriptFormatError,
    TranscriptIndexError,
    TranscriptTypeError,
)
from lmml_mdit.transcript import SCHEMA_VERSION

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00"
    b"\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)


def make() -> Transcript:
    transcript = Transcript()
    transcript.append("moderator", "topic?")
    transcript.append("alice", "answer", parsed_think="hidden", n_tokens=3)
    transcript.append("bob", "reply")
    return transcript


# --- Message ---------------------------------------------------------------------------


def test_message_fields_equality_and_mutability() -> None:
    message = Message("alice", "hi")
    assert message.metadata == {}
    assert message == Message("alice", "hi", {})
    assert message != Message("alice", "hi", {"x": 1})
    message.content = "changed"
    assert message.content == "changed"
    assert Message("a", "b").metadata is not Message("a", "b").metadata


# --- append / len / iteration / indexing / slicing ----------------------------------------


def test_append_returns_the_held_message() -> None:
    transcript = Transcript()
    message = transcript.append("alice", "hello", score=1)
    assert message == Message("alice", "hello", {"score": 1})
    assert transcript[0] is message
    transcript[0].content = "edited through the reference"
    assert transcript[0].content == "edited through the reference"


def test_append_accepts_metadata_named_author_or_content() -> None:
    transcript = Transcript()
    message = transcript.append("alice", "text", author="meta-author", content="meta-content")
    assert message.author == "alice"
    assert message.metadata == {"author": "meta-author", "content": "meta-content"}


def test_append_takes_author_and_content_by_keyword() -> None:
    transcript = Transcript()
    message = transcript.append(author="alice", content="hi", score=2)
    assert message == Message("alice", "hi", {"score": 2})
    assert transcript.append("bob", content="yo") == Message("bob", "yo", {})


def test_append_merges_a_metadata_mapping_for_any_key() -> None:
    message = Transcript().append("alice", "hi", metadata={"author": "x", "metadata": 1}, n=2)
    assert message.metadata == {"author": "x", "metadata": 1, "n": 2}
    with pytest.raises(TranscriptTypeError, match="metadata= must be a mapping"):
        Transcript().append("alice", "hi", metadata=[1])


def test_append_checks_types() -> None:
    with pytest.raises(TranscriptTypeError, match="author and content must be strings"):
        Transcript().append("alice")  # type: ignore[call-arg]
    with pytest.raises(TranscriptTypeError, match="author and content must be strings"):
        Transcript().append("alice", 3)  # type: ignore[arg-type]


def test_metadata_is_copied_on_append() -> None:
    metadata = {"a": 1}
    message = Transcript().append("x", "y", **metadata)
    metadata["a"] = 2
    assert message.metadata == {"a": 1}


def test_len_iteration_indexing_and_slicing() -> None:
    transcript = make()
    assert len(transcript) == 3
    assert [message.author for message in transcript] == ["moderator", "alice", "bob"]
    assert transcript[-1].author == "bob"
    part = transcript[1:]
    assert isinstance(part, Transcript)
    assert [m.author for m in part] == ["alice", "bob"]
    assert part[0] is transcript[1]
    assert transcript[:] == transcript
    assert transcript[::-1][0] is transcript[2]
    with pytest.raises(IndexError, match="message index 3 out of range for transcript of length 3"):
        transcript[3]


def test_slices_copy_the_assets_mapping() -> None:
    transcript = Transcript([Message("a", "@x.png")], assets={"x.png": PNG})
    part = transcript[:1]
    part.add_asset("y.txt", b"y")
    assert "y.txt" not in transcript.assets


def test_constructor_checks_messages_and_assets() -> None:
    with pytest.raises(TranscriptTypeError, match="not dict"):
        Transcript([{"author": "a", "content": "b"}])  # type: ignore[list-item]
    with pytest.raises(TranscriptError, match="unsafe asset name"):
        Transcript(assets={"../x": b""})
    with pytest.raises(TranscriptError, match="reserved"):
        Transcript(assets={"manifest.json": b"{}"})
    with pytest.raises(TranscriptTypeError, match="asset data must be bytes"):
        Transcript(assets={"x": "text"})  # type: ignore[dict-item]


def test_constructor_checks_message_fields() -> None:
    with pytest.raises(TranscriptTypeError, match="metadata must be a dict, not NoneType"):
        Transcript([Message("a", "b", None)])  # type: ignore[arg-type]
    with pytest.raises(TranscriptTypeError, match="must be strings, not int and str"):
        Transcript([Message(1, "b")])  # type: ignore[arg-type]
    with pytest.raises(TranscriptTypeError, match="must be strings"):
        Transcript().with_extra(Message("a", b"x"))  # type: ignore[arg-type]


def test_fields_broken_in_place_are_refused_when_written_or_rendered() -> None:
    transcript = Transcript([Message("a", "b")])
    transcript[0].metadata = None  # type: ignore[assignment]
    for write in (transcript.to_dict, lambda: transcript.to_bundle("x"), transcript.to_lmml):
        with pytest.raises(TranscriptFormatError, match="message 0 metadata is a NoneType"):
            write()
    transcript[0].metadata = {}
    transcript[0].content = 5  # type: ignore[assignment]
    with pytest.raises(TranscriptFormatError, match="message 0 content is a int"):
        transcript.to_bundle("x")
    with pytest.raises(TranscriptTypeError, match="must be strings"):
        transcript.render_roles(pov="a")
    with pytest.raises(TranscriptTypeError, match="must be strings"):
        transcript.pretty()


def test_messages_property_is_a_snapshot() -> None:
    transcript = make()
    snapshot = transcript.messages
    assert isinstance(snapshot, tuple)
    transcript.append("carol", "later")
    assert len(snapshot) == 3


def test_equality_and_hash() -> None:
    assert make() == make()
    other = make()
    other[0].metadata["x"] = 1
    assert make() != other
    assert make() != Transcript([*make(), Message("x", "y")])
    assert Transcript(assets={"a": b"1"}) != Transcript(assets={"a": b"2"})
    assert make() != "not a transcript"
    with pytest.raises(TypeError):
        hash(make())


def test_repr_and_str() -> None:
    transcript = Transcript([Message("alice", "hi")], assets={"x.png": PNG})
    assert repr(transcript) == (
        "Transcript([Message(author='alice', content='hi', metadata={})], assets=['x.png'])"
    )
    # str() is the LMML text, not pretty().
    assert str(transcript) == "## alice -- user\n\nhi\n"


# --- resolve_index ------------------------------------------------------------------------


def test_resolve_index_ints_and_negatives() -> None:
    transcript = make()
    assert transcript.resolve_index(0) == 0
    assert transcript.resolve_index(-1) == 2
    assert transcript.resolve_index(-3) == 0


@pytest.mark.parametrize("ref", [3, -4, 100])
def test_resolve_index_out_of_range(ref: int) -> None:
    transcript = make()
    with pytest.raises(TranscriptIndexError) as caught:
        transcript.resolve_index(ref)
    assert isinstance(caught.value, IndexError) and isinstance(caught.value, LmmlError)
    assert caught.value.message == f"message index {ref} out of range for transcript of length 3"


def test_resolve_index_on_empty() -> None:
    with pytest.raises(IndexError, match="length 0"):
        Transcript().resolve_index(0)


def test_resolve_index_by_identity() -> None:
    transcript = Transcript()
    first = transcript.append("a", "same")
    second = transcript.append("a", "same")
    assert first == second
    assert transcript.resolve_index(second) == 1
    assert transcript.resolve_index(first) == 0
    with pytest.raises(MessageNotFoundError, match="message is not in this transcript") as caught:
        transcript.resolve_index(Message("a", "same"))
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("ref", [True, False, 1.0, "1", None, [0]])
def test_resolve_index_rejects_other_types(ref: Any) -> None:
    with pytest.raises(TranscriptTypeError, match="must be an int or a Message") as caught:
        make().resolve_index(ref)
    assert isinstance(caught.value, TypeError)


# --- truncate / rewind / clear ------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "left"), [(0, 0), (1, 1), (3, 3), (10, 3), (-1, 2), (-3, 0), (-100, 0)]
)
def test_truncate(length: int, left: int) -> None:
    transcript = make()
    assert transcript.truncate(length) is transcript
    assert len(transcript) == left


def test_truncate_rejects_non_ints() -> None:
    with pytest.raises(TranscriptTypeError, match="length must be an int"):
        make().truncate(1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        make().truncate(True)


def test_rewind() -> None:
    transcript = make()
    keep = transcript[1]
    assert transcript.rewind(to=keep) is transcript
    assert transcript[-1] is keep and len(transcript) == 2
    transcript = make()
    transcript.rewind(to=-2)
    assert len(transcript) == 2
    transcript.rewind(to=0)
    assert len(transcript) == 1
    with pytest.raises(IndexError):
        transcript.rewind(to=5)
    with pytest.raises(ValueError, match="not in this transcript"):
        transcript.rewind(to=Message("moderator", "topic?"))
    with pytest.raises(TypeError):
        transcript.rewind(0)  # type: ignore[misc]


def test_clear_keeps_assets() -> None:
    transcript = Transcript([Message("a", "b")], assets={"x.txt": b"x"})
    assert transcript.clear() is transcript
    assert len(transcript) == 0
    assert transcript.assets == {"x.txt": b"x"}


# --- edit ---------------------------------------------------------------------------------


def test_edit_changes_only_what_is_given() -> None:
    transcript = make()
    message = transcript.edit(1, "new answer")
    assert message is transcript[1]
    assert message == Message("alice", "new answer", {"parsed_think": "hidden", "n_tokens": 3})
    transcript.edit(message, author="alicia", n_tokens=4, extra=True)
    assert message == Message(
        "alicia", "new answer", {"parsed_think": "hidden", "n_tokens": 4, "extra": True}
    )
    transcript.edit(-1, content="")
    assert transcript[-1].content == ""
    before = Message(message.author, message.content, dict(message.metadata))
    transcript.edit(1)
    assert transcript[1] == before


def test_edit_drops_keys_and_allows_a_ref_key() -> None:
    transcript = make()
    transcript.edit(1, drop=["parsed_think", "absent"], ref="r")
    assert transcript[1].metadata == {"n_tokens": 3, "ref": "r"}


def test_edit_takes_ref_by_keyword_and_a_metadata_mapping() -> None:
    transcript = make()
    message = transcript.edit(ref=1, content="c", metadata={"content": "m", "drop": 1})
    assert message.content == "c"
    assert message.metadata == {"parsed_think": "hidden", "n_tokens": 3, "content": "m", "drop": 1}
    assert "metadata" not in message.metadata
    transcript.edit(1, drop="drop")
    assert "drop" not in transcript[1].metadata


def test_edit_errors() -> None:
    transcript = make()
    with pytest.raises(TranscriptTypeError, match="content must be a string"):
        transcript.edit(0, 3)  # type: ignore[arg-type]
    with pytest.raises(TranscriptTypeError, match="author must be a string"):
        transcript.edit(0, author=["x"])  # type: ignore[arg-type]
    with pytest.raises(TranscriptTypeError, match="edit needs the message"):
        transcript.edit()
    with pytest.raises(TranscriptTypeError, match="metadata= must be a mapping"):
        transcript.edit(0, metadata="x")
    assert transcript[0] == Message("moderator", "topic?", {})
    with pytest.raises(IndexError):
        transcript.edit(7, "x")
    with pytest.raises(TypeError):
        transcript.edit("0", "x")  # type: ignore[arg-type]


# --- copy ---------------------------------------------------------------------------------


def test_copy_is_deep_for_metadata() -> None:
    transcript = Transcript([Message("a", "b", {"nested": {"list": [1]}})], assets={"x": b"1"})
    clone = transcript.copy()
    assert clone == transcript
    assert clone[0] is not transcript[0]
    clone[0].metadata["nested"]["list"].append(2)
    assert transcript[0].metadata == {"nested": {"list": [1]}}
    clone.add_asset("y", b"2")
    assert "y" not in transcript.assets


# --- assets -------------------------------------------------------------------------------


def test_assets_are_read_only_and_changed_through_methods() -> None:
    transcript = Transcript()
    transcript.add_asset("chart.png", PNG)
    assert transcript.assets == {"chart.png": PNG}
    with pytest.raises(TypeError):
        transcript.assets["x"] = b""  # type: ignore[index]
    transcript.remove_asset("chart.png")
    assert transcript.assets == {}
    with pytest.raises(KeyError):
        transcript.remove_asset("chart.png")


# --- with_extra ---------------------------------------------------------------------------


def test_with_extra_shares_messages_and_does_not_mutate() -> None:
    transcript = make()
    extended = transcript.with_extra(Message("bob", "ephemeral"))
    assert len(extended) == 4 and len(transcript) == 3
    assert extended[0] is transcript[0]
    assert extended[-1].content == "ephemeral"
    assert extended.render_roles(pov="alice")[-1]["content"] == "ephemeral"
    assert extended.is_read_only and not transcript.is_read_only


def test_with_extra_costs_only_the_extras() -> None:
    transcript = Transcript(Message("a", str(index)) for index in range(10_000))
    extended = transcript.with_extra(Message("b", "x"))
    assert extended._messages == []  # nothing copied
    assert len(extended) == 10_001


MUTATIONS = [
    ("append", lambda t: t.append("x", "y")),
    ("extend", lambda t: t.extend([Message("x", "y")])),
    ("edit", lambda t: t.edit(0, "changed")),
    ("truncate", lambda t: t.truncate(0)),
    ("rewind", lambda t: t.rewind(to=0)),
    ("clear", lambda t: t.clear()),
    ("add_asset", lambda t: t.add_asset("x", b"")),
    ("remove_asset", lambda t: t.remove_asset("x")),
]


@pytest.mark.parametrize(("operation", "mutate"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_with_extra_view_refuses_every_mutator(operation: str, mutate: Any) -> None:
    transcript = make()
    view = transcript.with_extra(Message("bob", "ephemeral"))
    with pytest.raises(ReadOnlyTranscriptError) as caught:
        mutate(view)
    assert caught.value.message == f"cannot {operation}: this is a read-only with_extra() view"
    assert caught.value.hint == "call .copy() for a mutable transcript"
    assert isinstance(caught.value, TypeError)
    assert transcript == make()  # the shared base was not touched


def test_with_extra_is_not_live() -> None:
    transcript = make()
    view = transcript.with_extra(Message("bob", "ephemeral"))
    transcript.append("carol", "after the view")
    assert len(view) == 4
    assert view[3].content == "ephemeral"
    assert [m.content for m in view][-1] == "ephemeral"


def test_with_extra_refuses_to_read_after_the_base_lost_turns() -> None:
    transcript = make()
    view = transcript.with_extra()
    transcript.truncate(1)
    with pytest.raises(TranscriptError, match="lost turns after the view was made"):
        len(view)
    view2 = transcript.with_extra()
    transcript.clear()
    with pytest.raises(TranscriptError, match="lost turns"):
        list(view2)


def test_with_extra_equality_repr_copy_and_nesting() -> None:
    transcript = make()
    assert transcript.with_extra() == transcript
    assert transcript.with_extra() == transcript.with_extra()
    extra = Message("bob", "x")
    assert transcript.with_extra(extra) == Transcript([*transcript, extra])
    assert repr(transcript.with_extra()).startswith("_ExtendedView([Message(author='moderator'")
    mutable = transcript.with_extra(extra).copy()
    assert type(mutable) is Transcript
    mutable.append("c", "d")
    nested = transcript.with_extra(extra).with_extra(Message("c", "z"))
    assert [m.content for m in nested][-2:] == ["x", "z"]
    assert isinstance(transcript.with_extra(extra)[1:], Transcript)
    assert transcript.with_extra(extra)[-1] is extra
    with pytest.raises(IndexError):
        transcript.with_extra(extra)[4]


def test_with_extra_checks_its_arguments() -> None:
    with pytest.raises(TranscriptTypeError):
        make().with_extra("text")  # type: ignore[arg-type]


# --- pretty -------------------------------------------------------------------------------


def test_pretty() -> None:
    transcript = make()
    assert transcript.pretty() == "[0] moderator: topic?\n[1] alice: answer\n[2] bob: reply"
    assert transcript.pretty(metadata=True) == (
        "[0] moderator: topic?\n[1] alice: answer\n      · parsed_think: hidden\n"
        "      · n_tokens: 3\n[2] bob: reply"
    )
    assert Transcript().pretty() == ""
    multi = Transcript([Message("a", "one\ntwo")])
    assert multi.pretty() == "[0] a: one\n    two"


# --- render_roles -------------------------------------------------------------------------


@dataclass
class Participant:
    name: str
    self_role: str = "assistant"
    others_role: str = "user"


def test_render_roles_swaps_by_pov() -> None:
    transcript = Transcript()
    for index in range(4):
        transcript.append("alice" if index % 2 == 0 else "bob", f"t{index}")
    alice = transcript.render_roles(pov="alice")
    bob = transcript.render_roles(pov=Participant("bob"))
    assert [m["role"] for m in alice] == ["assistant", "user", "assistant", "user"]
    assert [m["role"] for m in bob] == ["user", "assistant", "user", "assistant"]
    assert [m["content"] for m in alice] == [m["content"] for m in bob]
    assert all(set(m) == {"role", "content"} for m in alice)


def test_render_roles_pins_system_tool_and_context() -> None:
    transcript = Transcript()
    transcript.append("context", "preamble")
    transcript.append("system", "rules")
    transcript.append("judge", "Be fair.", role="system")
    transcript.append("tool", "42")
    transcript.append("user", "q")
    transcript.append("assistant", "a")
    assert [m["role"] for m in transcript.render_roles(pov="assistant")] == [
        "system",
        "system",
        "system",
        "tool",
        "user",
        "assistant",
    ]
    assert [m["role"] for m in transcript.render_roles(pov="user")] == [
        "system",
        "system",
        "system",
        "tool",
        "assistant",
        "user",
    ]


def test_render_roles_custom_roles_and_bad_pov() -> None:
    transcript = make()
    out = transcript.render_roles(pov=Participant("alice", "model", "human"))
    assert [m["role"] for m in out] == ["human", "model", "human"]
    with pytest.raises(TranscriptTypeError, match="pov must be a name or an object"):
        transcript.render_roles(pov=3)  # type: ignore[arg-type]
    with pytest.raises(TranscriptTypeError, match="must be strings"):
        transcript.render_roles(pov=Participant("alice", 1))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        transcript.render_roles("alice")  # type: ignore[misc]


@pytest.mark.parametrize(
    ("second_author", "merged"),
    [
        ("bob", "vote left\n\nvote right"),
        ("carol", "bob: vote left\n\ncarol: vote right"),
    ],
    ids=["two-party-is-unlabelled", "several-authors-labelled-once"],
)
def test_render_roles_merged_run(second_author: str, merged: str) -> None:
    transcript = Transcript()
    transcript.append("bob", "vote left")
    transcript.append(second_author, "vote right")
    assert transcript.render_roles(pov="alice") == [
        {"role": "user", "content": "vote left"},
        {"role": "user", "content": "vote right"},
    ]
    assert transcript.render_roles(pov="alice", merge=True) == [{"role": "user", "content": merged}]


def test_render_roles_label_authors_labels_each_message() -> None:
    transcript = Transcript()
    transcript.append("bob", "vote left")
    transcript.append("carol", "vote right")
    assert transcript.render_roles(pov="alice", label_authors=True) == [
        {"role": "user", "content": "bob: vote left"},
        {"role": "user", "content": "carol: vote right"},
    ]
    assert transcript.render_roles(pov="alice", merge=True, label_authors=True) == [
        {"role": "user", "content": "bob: vote left\n\ncarol: vote right"}
    ]
    assert transcript.render_roles(pov="alice", merge=True, label_authors=False) == [
        {"role": "user", "content": "vote left\n\nvote right"}
    ]


def test_render_roles_flattening_flags() -> None:
    transcript = Transcript()
    transcript.append("system", "SYS")
    transcript.append("alice", "A1")
    transcript.append("bob", "B1")
    out = transcript.render_roles(pov="alice", fold_system=True, merge=True, user_first=True)
    assert out == [
        {"role": "user", "content": "SYS"},
        {"role": "assistant", "content": "A1"},
        {"role": "user", "content": "B1"},
    ]
    out = transcript.render_roles(pov="alice", merge=True, user_first=True)
    assert out == [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": OPENING_USER_PLACEHOLDER},
        {"role": "assistant", "content": "A1"},
        {"role": "user", "content": "B1"},
    ]


def test_render_roles_parts_through_the_handlers() -> None:
    transcript = Transcript(assets={"chart.png": PNG, "notes.txt": b"remember"})
    transcript.append("bob", "See @chart.png and @notes.txt, not @missing.png.")
    transcript.append("alice", "plain")
    out = transcript.render_roles(pov="alice", parts=True)
    first = out[0]["content"]
    assert first[0] == {"type": "text", "text": "See @chart.png"}
    assert first[1]["type"] == "image_url"
    assert first[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert first[2] == {"type": "text", "text": " and @notes.txt"}
    assert first[3]["type"] == "text" and "remember" in first[3]["text"]
    assert first[4] == {"type": "text", "text": ", not @missing.png."}
    assert out[1]["content"] == [{"type": "text", "text": "plain"}]


def test_render_roles_parts_with_a_custom_handler() -> None:
    from lmml_mdit import TextPart

    transcript = Transcript(assets={"data.bin": b"\x00\x01"})
    transcript.append("bob", "@data.bin")
    out = transcript.render_roles(
        pov="alice", parts=True, handlers={".bin": lambda asset: TextPart("binary!")}
    )
    assert out[0]["content"] == [
        {"type": "text", "text": "@data.bin"},
        {"type": "text", "text": "binary!"},
    ]


# --- save / load (JSON) -------------------------------------------------------------------


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    transcript = make()
    transcript.append("zoë", "naïve — ✓", nested={"a": [1, 2.5, None, True]})
    transcript.add_asset("chart.png", PNG)
    path = tmp_path / "t.json"
    transcript.save(path)
    raw = path.read_bytes()
    assert raw.endswith(b"}\n")
    assert "naïve — ✓".encode() in raw  # UTF-8, not \\u escapes
    data = json.loads(raw)
    assert data["schema_version"] == SCHEMA_VERSION == 1
    assert data["format"] == "lmml_mdit.transcript"
    loaded = Transcript.load(path)
    assert loaded == transcript
    assert [m.author for m in loaded][:2] == ["moderator", "alice"]
    assert loaded[1].metadata["parsed_think"] == "hidden"
    assert Transcript.load(str(path)) == transcript


def test_save_is_atomic_and_refuses_lossy_metadata(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    make().save(path)
    before = path.read_bytes()
    bad = make()
    bad.append("x", "y", value=(1, 2))
    with pytest.raises(TranscriptFormatError, match=r"message 3 metadata\['value'\] is a tuple"):
        bad.save(path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["t.json"]


@pytest.mark.parametrize(
    ("value", "pattern"),
    [
        (float("nan"), "JSON cannot hold"),
        ({1: "x"}, "int key"),
        ({"s": {1, 2}}, "is a set"),
        ([object()], "is a object"),
    ],
)
def test_metadata_checks(value: Any, pattern: str) -> None:
    transcript = Transcript()
    transcript.append("a", "b", value=value)
    with pytest.raises(TranscriptFormatError, match=pattern):
        transcript.to_dict()


def test_to_dict_copies_metadata() -> None:
    transcript = Transcript([Message("a", "b", {"list": [1]})])
    data = transcript.to_dict()
    data["messages"][0]["metadata"]["list"].append(2)
    assert transcript[0].metadata == {"list": [1]}
    source = {
        "schema_version": 1,
        "messages": [{"author": "a", "content": "b", "metadata": {"l": [1]}}],
    }
    loaded = Transcript.from_dict(source)
    loaded[0].metadata["l"].append(2)
    assert source["messages"][0]["metadata"] == {"l": [1]}


def write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


GOOD_MESSAGE = {"author": "a", "content": "b", "metadata": {}}


@pytest.mark.parametrize(
    ("data", "pattern"),
    [
        ([], "holds a JSON object, not list"),
        ({"messages": []}, "has no schema_version"),
        ({"schema_version": "1", "messages": []}, "schema_version must be an integer"),
        ({"schema_version": True, "messages": []}, "schema_version must be an integer"),
        ({"schema_version": 99, "messages": []}, "schema_version 99 is not supported"),
        ({"schema_version": 0, "messages": []}, "schema_version 0 is not supported"),
        ({"schema_version": 1}, "has no messages list"),
        ({"schema_version": 1, "messages": [], "extra": 1}, "unknown top-level keys: extra"),
        ({"schema_version": 1, "format": "other", "messages": []}, "format is 'other'"),
        ({"schema_version": 1, "messages": ["x"]}, "message 0 is not an object"),
        ({"schema_version": 1, "messages": [{"author": "a"}]}, "message 0 lacks content, metadata"),
        (
            {"schema_version": 1, "messages": [{**GOOD_MESSAGE, "role": "user"}]},
            "message 0 has unknown keys: role",
        ),
        (
            {"schema_version": 1, "messages": [{**GOOD_MESSAGE, "metadata": None}]},
            "metadata must be an object",
        ),
        (
            {"schema_version": 1, "messages": [{**GOOD_MESSAGE, "author": 3}]},
            "author and content must be strings",
        ),
        (
            {"schema_version": 1, "messages": [{**GOOD_MESSAGE, "metadata": {"x": float("nan")}}]},
            "NaN is not a JSON number",
        ),
        ({"schema_version": 1, "messages": [], "assets": []}, "assets must be an object"),
        ({"schema_version": 1, "messages": [], "assets": {"x": 1}}, "not a base64 string"),
        ({"schema_version": 1, "messages": [], "assets": {"x": "!!"}}, "not valid base64"),
        ({"schema_version": 1, "messages": [], "assets": {"../x": ""}}, "unsafe asset name"),
    ],
)
def test_load_checks_version_and_shape(tmp_path: Path, data: Any, pattern: str) -> None:
    path = write(tmp_path, data)
    with pytest.raises(TranscriptFormatError, match=pattern) as caught:
        Transcript.load(path)
    assert caught.value.name == str(path)
    assert isinstance(caught.value, ValueError)


def test_load_errors_for_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(TranscriptError, match="cannot read the transcript") as missing:
        Transcript.load(tmp_path / "absent.json")
    assert not isinstance(missing.value, TranscriptFormatError)
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"schema_version": 1,\n "messages": [\xff]}')
    with pytest.raises(TranscriptFormatError, match="invalid UTF-8 at byte offset") as caught:
        Transcript.load(path)
    assert caught.value.line == 2
    path.write_text('{"schema_version": 1,\n  "messages": [,]}', encoding="utf-8")
    with pytest.raises(TranscriptFormatError, match="not valid JSON") as caught:
        Transcript.load(path)
    assert (caught.value.line, caught.value.column) == (2, 16)


def test_load_errors_for_truncated_json_and_a_folder(tmp_path: Path) -> None:
    path = tmp_path / "cut.json"
    make().save(path)
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(TranscriptFormatError, match="not valid JSON") as caught:
        Transcript.load(path)
    assert caught.value.line is not None
    with pytest.raises(TranscriptError, match="cannot read the transcript"):
        Transcript.load(tmp_path)


def test_load_accepts_a_file_without_assets_or_format(tmp_path: Path) -> None:
    path = write(tmp_path, {"schema_version": 1, "messages": [GOOD_MESSAGE]})
    assert Transcript.load(path) == Transcript([Message("a", "b")])


def test_an_integer_the_reader_would_refuse_is_refused_on_save(tmp_path: Path) -> None:
    # A sign makes 4,300 digits one character too many for the JSON reader.
    transcript = Transcript([Message("user", "hi", metadata={"n": -(10**4299)})])
    with pytest.raises(TranscriptFormatError, match="integer"):
        transcript.save(tmp_path / "t.json")
