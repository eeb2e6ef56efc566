"""pack and inline (ports of the reference's K1-K27, adjusted where we deliberately differ),
and round-trip properties with hypothesis."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import lmml_mdit
import lmml_mdit.cli
from lmml_mdit import Bundle, InlineReport, Narrative, OrphanedEntryWarning
from lmml_mdit.bundle import fence_text
from lmml_mdit.errors import (
    BundleError,
    ConflictingEmbedError,
    MissingEntryError,
    NotInlinableError,
    UnresolvableReferenceError,
    UnsafeEntryError,
)


def shape(narrative: Narrative) -> list[tuple[str, str | None, tuple[str, ...]]]:
    return [
        (turn.role, turn.heading, tuple(sorted({embed.name for embed in turn.embeds})))
        for turn in narrative.turns
    ]


def assets(bundle: Bundle) -> dict[str, bytes]:
    return {name: bundle.embed(name) for name in bundle.narrative.embed_names}


def test_k1_pack_externalizes_a_fence() -> None:
    packed = Bundle.from_text("foo", "@@@settings.yaml\nkey: value\n@@@").pack()
    assert packed.kind == "zip"
    assert packed.narrative.text == "@settings.yaml"
    assert packed.entries == ("settings.yaml",)
    assert packed.embed("settings.yaml") == b"key: value\n"


def test_k2_pack_leaves_prose_untouched() -> None:
    packed = Bundle.from_text("foo", "Before.\n\n@@@a.txt\nhello\n@@@\n\nAfter.\n").pack()
    assert packed.narrative.text == "Before.\n\n@a.txt\n\nAfter.\n"


def test_k3_k4_pack_keeps_references_and_merges_entries() -> None:
    packed = Bundle.from_zip("convo", "See @a.png here.", {"a.png": b"bytes"}).pack()
    assert packed.narrative.text == "See @a.png here."
    assert packed.embed("a.png") == b"bytes"
    merged = Bundle.from_zip("convo", "@a.png then:\n\n@@@b.yaml\nx: 1\n@@@", {"a.png": b"bytes"})
    packed = merged.pack()
    assert sorted(packed.entries) == ["a.png", "b.yaml"]
    assert packed.read("b.yaml") == b"x: 1\n"


def test_k5_dangling_reference_stays_dangling() -> None:
    packed = Bundle.from_text("foo", "See @missing.png please.").pack()
    assert packed.entries == ()
    with pytest.raises(MissingEntryError):
        packed.embed("missing.png")


def test_k6_pack_keeps_the_name() -> None:
    assert Bundle.from_text("foo", "plain").pack().name == "foo"


def test_k8_unsafe_fence_name_is_refused() -> None:
    with pytest.raises(UnsafeEntryError) as raised:
        Bundle.from_text("foo", "@@@../evil.txt\nx\n@@@").pack()
    assert raised.value.name == "../evil.txt"


def test_k9_k11_fence_conflicting_with_an_entry() -> None:
    with pytest.raises(ConflictingEmbedError) as raised:
        Bundle.from_zip(
            "convo", "@a.txt then:\n\n@@@a.txt\ninline copy\n@@@", {"a.txt": b"external bytes"}
        ).pack()
    assert (raised.value.name, raised.value.line, raised.value.column) == ("a.txt", 3, 1)
    with pytest.raises(ConflictingEmbedError) as raised:
        Bundle.from_zip(
            "convo", "No references:\n\n@@@a.txt\ninline content\n@@@", {"a.txt": b"existing"}
        ).pack()
    assert (raised.value.name, raised.value.line) == ("a.txt", 3)


def test_pack_refuses_two_fences_of_one_name_with_different_bytes() -> None:
    text = "@@@a.txt\none\n@@@\n\n@@@a.txt\ntwo\n@@@\n"
    with pytest.raises(ConflictingEmbedError) as raised:
        Bundle.from_text("foo", text).pack()
    assert (raised.value.name, raised.value.line) == ("a.txt", 5), "the later fence is named"
    same = Bundle.from_text("foo", "@@@a.txt\none\n@@@\n\n@@@a.txt\none\n@@@\n").pack()
    assert same.entries == ("a.txt",)
    assert same.read("a.txt") == b"one\n"


def test_inline_refuses_a_fence_conflicting_with_an_entry() -> None:
    text = "See @b.txt.\n\n@@@a.txt\ninline copy\n@@@\n"
    bundle = Bundle.from_zip("convo", text, {"a.txt": b"external bytes", "b.txt": b"b\n"})
    with pytest.raises(ConflictingEmbedError) as raised:
        bundle.inline()
    assert (raised.value.name, raised.value.line, raised.value.column) == ("a.txt", 3, 1)
    agreeing = Bundle.from_zip("convo", text, {"a.txt": b"inline copy\n", "b.txt": b"b\n"})
    assert agreeing.inline().embed("a.txt") == b"inline copy\n"


def test_k10_similar_names_do_not_conflict() -> None:
    packed = Bundle.from_zip(
        "convo", "@a.txt.bak then:\n\n@@@a.txt\ninline copy\n@@@", {"a.txt.bak": b"external"}
    ).pack()
    assert sorted(packed.entries) == ["a.txt", "a.txt.bak"]


def test_k12_all_fences_are_externalized() -> None:
    packed = Bundle.from_text("foo", "@@@a.txt\n1\n@@@\n\n@@@b.txt\n2\n@@@").pack()
    assert packed.narrative.text == "@a.txt\n\n@b.txt"
    assert sorted(packed.entries) == ["a.txt", "b.txt"]


def test_pack_keeps_orphans_differs_from_reference() -> None:
    """Deliberate difference: the reference drops unreferenced entries when packing."""
    packed = Bundle.from_zip("c", "@@@a.txt\nx\n@@@", {"orphan.png": b"o"}).pack()
    assert packed.entries == ("orphan.png", "a.txt")


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_pack_and_inline_keep_the_narratives_line_endings(newline: str) -> None:
    text = "## user\n\nsee\n\n@@@a.txt\nx\ny\n@@@\n\n## assistant\n\nok\n".replace("\n", newline)
    bundle = Bundle.from_text("s", text)
    packed = bundle.pack()
    assert packed.narrative.text == text.replace(
        f"@@@a.txt{newline}x{newline}y{newline}@@@", "@a.txt"
    )
    assert packed.read("a.txt") == b"x\ny\n"
    assert packed.inline().narrative.text == text


def test_pack_rewrites_fences_in_containers_at_their_position() -> None:
    text = "> quote:\n> @@@a.txt\n> x\n> @@@\n\n- item\n  @@@b.txt\n  y\n  @@@\n"
    packed = Bundle.from_text("foo", text).pack()
    assert packed.narrative.text == "> quote:\n> @a.txt\n\n- item\n  @b.txt\n"
    assert packed.read("a.txt") == b"x\n"
    assert packed.read("b.txt") == b"y\n"


def test_pack_handles_one_line_tail_close_and_crlf() -> None:
    packed = Bundle.from_text("foo", "Intro\r\n\r\n@@@a.txt\r\nno newline@@@\r\nafter\r\n").pack()
    assert packed.narrative.text == "Intro\r\n\r\n@a.txt\r\nafter\r\n"
    assert packed.read("a.txt") == b"no newline"


def test_pack_refuses_a_name_that_is_no_reference() -> None:
    with pytest.raises(BundleError, match="@reference"):
        Bundle.from_text("foo", "@@@my notes.txt\nx\n@@@").pack()


def test_k15_differs_inline_closes_on_its_own_line_in_place() -> None:
    """Deliberate difference: the reference strips the sigil and appends `hello@@@` at the
    end; we keep the reference and put the fence after its block, closing on its own line
    when the content ends with a newline."""
    inlined = Bundle.from_zip("convo", "See @notes.txt here.", {"notes.txt": b"hello\n"}).inline()
    assert inlined.kind == "text"
    assert inlined.narrative.text == "See @notes.txt here.\n\n@@@notes.txt\nhello\n@@@"
    assert inlined.embed("notes.txt") == b"hello\n"


def test_inline_content_without_final_newline_closes_on_its_last_line() -> None:
    inlined = Bundle.from_zip("convo", "See @notes.txt here.", {"notes.txt": b"hello"}).inline()
    assert inlined.narrative.text.endswith("@@@notes.txt\nhello@@@")
    assert inlined.embed("notes.txt") == b"hello"


def test_k16_k20_k21_inline_names_and_order() -> None:
    bundle = Bundle.from_zip(
        "convo",
        "See @report.pdf. And (@a.txt) plus @a.txt.bak,\n",
        {"report.pdf": b"r\n", "a.txt": b"a\n", "a.txt.bak": b"long\n"},
    )
    inlined = bundle.inline()
    assert inlined.inline_report == InlineReport(inlined=("report.pdf", "a.txt", "a.txt.bak"))
    assert assets(inlined) == {"report.pdf": b"r\n", "a.txt": b"a\n", "a.txt.bak": b"long\n"}
    text = inlined.narrative.text
    assert text.index("@@@report.pdf") < text.index("@@@a.txt\n") < text.index("@@@a.txt.bak")


def test_k17_inline_leaves_fences_alone() -> None:
    assert Bundle.from_text("foo", "@@@a.txt\nhello\n@@@").inline().narrative.text == (
        "@@@a.txt\nhello\n@@@"
    )


def test_k18_differs_orphans_are_reported_never_dropped_silently() -> None:
    """Deliberate difference: the reference drops unreferenced entries silently."""
    bundle = Bundle.from_zip("convo", "No references here.", {"orphan.txt": b"o\n"})
    with pytest.warns(OrphanedEntryWarning, match=r"orphan\.txt"):
        kept = bundle.inline()
    assert kept.embed("orphan.txt") == b"o\n"
    assert kept.inline_report == InlineReport(appended=("orphan.txt",))
    with pytest.warns(OrphanedEntryWarning, match=r"left out: orphan\.txt"):
        dropped = bundle.inline(orphans="drop")
    assert dropped.narrative.text == "No references here."
    assert dropped.inline_report == InlineReport(dropped=("orphan.txt",))
    with pytest.raises(BundleError, match=r"orphan\.txt"):
        bundle.inline(orphans="error")


def test_binary_orphan_cannot_be_inlined_and_is_named() -> None:
    bundle = Bundle.from_zip("convo", "No references.", {"blob.bin": b"\x00\xff\x10"})
    with pytest.warns(OrphanedEntryWarning), pytest.raises(NotInlinableError, match="blob"):
        bundle.inline()


def test_inline_always_keeps_reserved_entries() -> None:
    bundle = Bundle.from_zip("c", "Hi.", {"manifest.json": b'{"v": 1}\n'})
    inlined = bundle.inline()
    assert inlined.manifest == {"v": 1}
    assert inlined.inline_report == InlineReport(appended=("manifest.json",))


def test_k19_missing_or_unresolvable_reference_fails_without_partial_result() -> None:
    with pytest.raises(MissingEntryError):
        Bundle.from_zip("convo", "See @missing.png please.", {}).inline()
    with pytest.raises(UnresolvableReferenceError):
        Bundle.from_text("convo", "See @missing.png please.").inline()


def test_k23_binary_asset_is_not_inlinable() -> None:
    with pytest.raises(NotInlinableError) as raised:
        Bundle.from_zip("c", "See @image.png here.", {"image.png": b"\xff\xfe\x00\x01"}).inline()
    assert raised.value.name == "image.png"
    assert "keep_binary=True" in str(raised.value)  # the way out, as the CLI names its flag


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"a\x00b", "NUL"),
        (b"line\r\n", "carriage"),
        (b"x\n@@@\ny\n", "@@@"),
        (b"x\nends with @@@\ny\n", "@@@"),
        (b"\xef\xbb\xbfbom", "byte-order"),
    ],
)
def test_unfenceable_text_is_refused(data: bytes, reason: str) -> None:
    with pytest.raises(NotInlinableError, match=reason):
        fence_text("a.txt", data)


def test_k26_k27_round_trips() -> None:
    original = Bundle.from_text(
        "convo", "Intro prose.\n\n@@@settings.yaml\ntheme: dark\n@@@\n\nMore.\n"
    )
    packed = original.pack()
    assert packed.narrative.text == "Intro prose.\n\n@settings.yaml\n\nMore.\n"
    again = packed.inline()
    assert again.narrative.text == original.narrative.text
    mixed = Bundle.from_zip("convo", "@a.png then:\n\n@@@b.txt\nhello\n@@@", {"a.png": b"\x89PNG"})
    with pytest.raises(NotInlinableError):
        mixed.pack().inline()
    text_mixed = Bundle.from_zip("convo", "@a.txt then:\n\n@@@b.txt\nhello\n@@@", {"a.txt": b"A\n"})
    packed = text_mixed.pack()
    repacked = packed.inline().pack()
    assert sorted(repacked.entries) == sorted(packed.entries) == ["a.txt", "b.txt"]
    assert repacked.read("a.txt") == b"A\n"
    assert repacked.read("b.txt") == b"hello\n"


def test_round_trip_with_turns_and_delimiter_lines() -> None:
    text = (
        "Context @ctx.txt here.\n\n## Turn 1 -- user @u.txt\n\nLook:\n@@@code.py\nprint(1)\n@@@\n"
        "\n<!-- assistant -->\nDone @ctx.txt.\n"
    )
    bundle = Bundle.from_zip("c", text, {"ctx.txt": b"C\n", "u.txt": b"U"})
    inlined = bundle.inline()
    assert shape(inlined.narrative) == shape(bundle.narrative)
    assert assets(inlined) == assets(bundle)
    packed = inlined.pack()
    assert shape(packed.narrative) == shape(bundle.narrative)
    assert assets(packed) == assets(bundle)
    assert packed.inline().narrative.text == inlined.narrative.text


_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,6}\.(txt|md|json)", fullmatch=True)
_LINE = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs", "Cc"), blacklist_characters="@\u2028\u2029\x85"
    ),
    max_size=20,
)
_CONTENT = st.lists(_LINE, max_size=4).map(lambda lines: "".join(line + "\n" for line in lines))
_CONTENT_ANY = st.one_of(_CONTENT, _CONTENT.map(lambda text: text + "tail"))
_PROSE = st.sampled_from(["Some prose.", "More *text* here.", "- a list item", "> quoted"])
_DELIMITER = st.sampled_from(["## Turn -- user", "# assistant", "<!-- system -->", "### tool"])


@st.composite
def narratives(draw: st.DrawFn) -> tuple[str, dict[str, bytes]]:
    names = draw(st.lists(_NAMES, min_size=1, max_size=4, unique=True))
    contents = {name: draw(_CONTENT_ANY).encode() for name in names}
    blocks: list[str] = []
    for name in names:
        blocks.append(draw(st.one_of(_PROSE, _DELIMITER)))
        blocks.append(f"@@@{name}\n{contents[name].decode()}@@@")
    return "\n\n".join(blocks) + "\n", contents


@settings(max_examples=80, deadline=None)
@given(narratives())
def test_pack_then_inline_gives_back_the_text(case: tuple[str, dict[str, bytes]]) -> None:
    text, contents = case
    original = Bundle.from_text("h", text)
    packed = original.pack()
    assert {name: packed.read(name) for name in packed.entries} == contents
    assert shape(packed.narrative) == shape(original.narrative)
    again = packed.inline()
    assert again.narrative.text == original.narrative.text
    assert assets(again) == contents


@settings(max_examples=80, deadline=None)
@given(narratives(), st.data())
def test_inline_then_pack_keeps_turns_and_bytes(
    case: tuple[str, dict[str, bytes]], data: st.DataObject
) -> None:
    text, contents = case
    zipped = Bundle.from_text("h", text).pack()
    # Move some references mid-sentence so inline must add fences after their blocks.
    lines = zipped.narrative.text.split("\n")
    for index, line in enumerate(lines):
        if line.startswith("@") and data.draw(st.booleans()):
            lines[index] = f"Read {line} now."
    zipped = Bundle.from_zip(
        "h", "\n".join(lines), {name: zipped.read(name) for name in zipped.entries}
    )
    inlined = zipped.inline()
    assert shape(inlined.narrative) == shape(zipped.narrative)
    assert assets(inlined) == contents
    repacked = inlined.pack()
    assert shape(repacked.narrative) == shape(zipped.narrative)
    assert {name: repacked.read(name) for name in repacked.entries} == contents
    # And the model is sent the same: a fence an earlier reference in its turn sends
    # leaves no '@name' line, which would be sent as text.
    assert sent(inlined) == sent(repacked) == sent(zipped)


def sent(bundle: Bundle) -> list[object]:
    """What the model is sent, whatever the bundle's defects."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(bundle.messages("openai", strict=False))


def test_a_fence_its_turn_already_references_packs_to_no_line(tmp_path: Path) -> None:
    # The layout Transcript.save writes: a turn's text, then its assets' fences. Packed,
    # each fence left an '@notes.txt' line, sent as a second text part '@notes.txt'.
    text = (
        "## user\nWhat does @notes.txt say?\n\n@@@notes.txt\nThree lines.\n@@@\n\n"
        "## assistant\nThree.\n\n## user\nAnd @notes.txt again?\n\n@@@notes.txt\n"
        "Three lines.\n@@@\n"
    )
    original = Bundle.from_text("chat", text)
    packed = original.pack()
    assert packed.narrative.text == (
        "## user\nWhat does @notes.txt say?\n\n## assistant\nThree.\n\n"
        "## user\nAnd @notes.txt again?\n\n@notes.txt\n"
    )
    assert sent(packed) == sent(original)
    again = packed.inline()  # the fence goes where a reference stands alone
    assert again.narrative.text == (
        "## user\nWhat does @notes.txt say?\n\n## assistant\nThree.\n\n"
        "## user\nAnd @notes.txt again?\n\n@@@notes.txt\nThree lines.\n@@@\n"
    )
    assert sent(again) == sent(original)
    path = tmp_path / "chat.lmml"
    path.write_text(text, encoding="utf-8")
    assert lmml_mdit.cli.main(["pack", str(path)]) == 0
    with lmml_mdit.open(tmp_path / "chat.lmmlz") as bundle:
        assert sent(bundle) == sent(original)


_CONTAINERS = st.sampled_from(["> ", "- ", "1. ", ""])


@st.composite
def container_narratives(draw: st.DrawFn) -> tuple[str, dict[str, bytes]]:
    """Fences inside block quotes and list items, between turns."""
    names = draw(st.lists(_NAMES, min_size=1, max_size=3, unique=True))
    # Whitespace-only lines are written blank below (no trailing spaces after a container
    # prefix), so the expected content holds them blank too.
    contents = {
        name: "".join(
            (line if line.strip() else "") + "\n" for line in draw(_CONTENT).split("\n")[:-1]
        ).encode()
        for name in names
    }
    blocks: list[str] = []
    for name in names:
        blocks.append(draw(_DELIMITER))
        marker = draw(_CONTAINERS)
        follow = "> " if marker == "> " else " " * len(marker)
        body = contents[name].decode().split("\n")[:-1]
        lines = [f"{marker}@@@{name}", *(follow + line for line in body), f"{follow}@@@"]
        blocks.append("\n".join(line.rstrip() if not line.strip() else line for line in lines))
    return "\n\n".join(blocks) + "\n", contents


@settings(max_examples=60, deadline=None)
@given(container_narratives())
@example(
    (
        "## Turn -- user\n\n> @@@a.txt\n> @@@\n\n- @@@b.txt\n\n  @@@\n",
        {"a.txt": b"", "b.txt": b"\n"},
    )
)
def test_round_trips_keep_turns_and_bytes_for_fences_in_containers(
    case: tuple[str, dict[str, bytes]],
) -> None:
    text, contents = case
    original = Bundle.from_text("h", text)
    assert assets(original) == contents
    packed = original.pack()
    assert {name: packed.read(name) for name in packed.entries} == contents
    assert shape(packed.narrative) == shape(original.narrative)
    inlined = packed.inline()
    assert shape(inlined.narrative) == shape(original.narrative)
    assert assets(inlined) == contents
    assert shape(inlined.pack().narrative) == shape(original.narrative)


def test_pack_leaves_tool_calls_and_provider_items_in_the_narrative() -> None:
    text = (
        "## user\n\nWeather?\n\n## assistant\n\n"
        "@@@anthropic.thinking.1.json\n"
        '{"type": "thinking", "thinking": "t", "signature": "s"}\n@@@\n\n'
        '@@@call_1.tool_call.json\n{"id": "call_1", "name": "weather", "arguments": {}}\n@@@\n\n'
        "@@@notes.txt\nkept as an entry\n@@@\n\n"
        "## tool\n\n@call_1.tool_call.json\n\n18C\n"
    )
    bundle = Bundle.from_text("chat", text)
    packed = bundle.pack()
    assert packed.entries == ("notes.txt",)
    assert "@@@call_1.tool_call.json" in packed.narrative.text
    assert "@@@anthropic.thinking.1.json" in packed.narrative.text
    assert packed.validate() == []
    assert shape(packed.narrative) == shape(bundle.narrative)
    tool_turn = packed.messages("openai")[-1]
    assert tool_turn["role"] == "tool" and tool_turn["tool_call_id"] == "call_1"


def test_pack_and_inline_keep_a_loose_bundles_turns(tmp_path: Path) -> None:
    # The packed (or inlined) text is checked against the narrative as it was read:
    # with --delimiters loose, '## User question' stays a turn on both sides.
    from lmml_mdit.cli import main

    (tmp_path / "notes.txt").write_text("n\n", encoding="utf-8")
    source = tmp_path / "chat.lmml"
    source.write_text(
        "## User question\n\nHow?\n\n@notes.txt\n\n## Assistant answer\n\nLike this.\n",
        encoding="utf-8",
    )
    packed, inlined = tmp_path / "chat.lmmlz", tmp_path / "back.lmml"
    assert main(["pack", str(source), "--delimiters", "loose", "-q"]) == 0
    assert main(["inline", str(packed), str(inlined), "--delimiters", "loose", "-q"]) == 0
    for path in (packed, inlined):
        with lmml_mdit.open(str(path), delimiters="loose") as bundle:
            assert [turn.role for turn in bundle.narrative.turns] == ["user", "assistant"]
            assert bundle.embed("notes.txt") == b"n\n"
