"""Memory and time bounded by the input: JSON and YAML embeds, zip end records and names.

Each test here is a problem class that a small crafted input turned into gigabytes, minutes
or a silently different value; each is refused at its root, with an error naming the place.
"""

from __future__ import annotations

import gc
import io
import json
import random
import sys
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import hostile_archives as corpus
import pytest
from markdown_it import MarkdownIt

import lmml_mdit
from lmml_mdit import Bundle, Limits
from lmml_mdit import open as open_bundle
from lmml_mdit.bundle import (
    MAX_YAML_BYTES,
    STREAM_CHUNK,
    check_entry_names,
    load_manifest,
    load_settings,
)
from lmml_mdit.bundle import _reserved as reserved  # patched on purpose: the YAML loaders
from lmml_mdit.errors import (
    CaseCollisionError,
    InvalidManifestError,
    InvalidSettingsError,
    InvalidToolCallError,
    InvalidZipError,
    LimitExceededError,
)
from lmml_mdit.jsonio import MAX_NUMBER_DIGITS, parse_json
from lmml_mdit.media import TEXT_SNIFF_BYTES

# --- YAML settings -------------------------------------------------------------------


def test_yaml_aliases_of_a_large_string_are_refused_while_composing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A 1 MB string named by many aliases is a small file that expands to gigabytes once
    anything walks or serialises it; the limit counts its characters at each alias."""
    big = "x" * 1_000_000
    aliases = "\n".join("  - *big" for _ in range(5_000))
    text = f"base: &big {big}\nmany:\n{aliases}\n"
    constructed: list[object] = []
    build = reserved._SettingsLoader.construct_document

    def recording(self: Any, node: Any) -> Any:
        constructed.append(node)
        return build(self, node)

    monkeypatch.setattr(reserved._SettingsLoader, "construct_document", recording)
    with pytest.raises(InvalidSettingsError, match="characters of text") as raised:
        load_settings(text.encode(), name="settings.yaml")
    assert constructed == [], "refused before anything is built"
    # The alias that crosses the limit is named: about MAX_YAML_BYTES / 1 MB aliases in.
    crossing = MAX_YAML_BYTES // len(big) + 3
    assert raised.value.line is not None and abs(raised.value.line - crossing) <= 2
    assert raised.value.hint


def test_validate_reports_an_alias_bomb_of_characters_quickly() -> None:
    """The 0.1 case: 50,000 aliases of a 1 MB string, a 1.4 MB file, passed validate."""
    text = "base: &big " + "x" * 1_000_000 + "\nmany:\n" + "  - *big\n" * 50_000
    bundle = Bundle.from_zip("c", "## user\nhi\n", {"settings.yaml": text.encode()})
    [issue] = bundle.validate()
    assert issue.kind == "invalid_settings" and "characters" in issue.message
    assert issue.line is not None


def test_yaml_duplicate_keys_are_refused_with_their_line() -> None:
    text = "model: a\ntemperature: 1\nmodel: b\n"
    with pytest.raises(InvalidSettingsError, match="'model' appears twice") as raised:
        load_settings(text.encode(), name="settings.yaml")
    assert raised.value.line == 3 and raised.value.hint
    nested = "outer:\n  a: 1\n  a: 2\n"
    with pytest.raises(InvalidSettingsError) as raised:
        load_settings(nested.encode(), name="settings.yaml")
    assert raised.value.line == 3


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("{{ card_data }}\n", "the key written as a mapping ({...})"),
        ("? [a, b]\n: 1\n", "the key written as a list ([...])"),
        ("1: x\n", "the key 1 "),
    ],
)
def test_a_key_that_is_not_a_string_is_shown_as_written(text: str, shown: str) -> None:
    """A template placeholder in front matter reads as a mapping key: the error says so,
    never a dump of the YAML library's node objects."""
    with pytest.raises(InvalidSettingsError, match="is not a string") as raised:
        load_settings(text.encode(), name="settings.yaml")
    assert shown in str(raised.value) and "Node" not in str(raised.value)
    assert raised.value.line == 1


def test_yaml_merge_keys_may_still_be_overridden() -> None:
    text = "base: &b {a: 1, c: 3}\nchild:\n  <<: *b\n  a: 2\n"
    assert load_settings(text.encode(), name="settings.yaml")["child"] == {"a": 2, "c": 3}


@pytest.mark.parametrize(
    "scalar",
    [
        "0x" + "f" * 10_000,
        "-0x" + "f" * 10_000,
        "0b" + "1" * 10_000,
        "0" + "7" * 10_000,
        "9" * 10_000,
        "1:" + "59:" * 3_000 + "1",
        "1.0e+999",
        "-1.0e+999",
        ".inf",
        "-.Inf",
        ".nan",
        "1." + "0" * 10_000,
    ],
    ids=[
        *("hex", "negative-hex", "binary", "octal", "decimal", "sexagesimal"),
        *("1e999", "-1e999", "inf", "-inf", "nan", "long-float"),
    ],
)
def test_yaml_numbers_are_bounded_and_finite(scalar: str) -> None:
    text = f"model: m\nvalue: {scalar}\n"
    with pytest.raises(InvalidSettingsError) as raised:
        load_settings(text.encode(), name="settings.yaml")
    assert raised.value.line == 2 and raised.value.hint


def test_yaml_ordinary_numbers_still_read() -> None:
    text = "a: 0x1F\nb: 1_000\nc: 3.5\nd: -7\ne: 1.5e+3\n"
    assert load_settings(text.encode(), name="settings.yaml") == {
        "a": 31,
        "b": 1000,
        "c": 3.5,
        "d": -7,
        "e": 1500.0,
    }


# --- JSON: settings, manifest, tool calls --------------------------------------------


@pytest.mark.parametrize(
    ("body", "line", "words"),
    [
        ('{\n  "a": 1,\n  "a": 2\n}', 3, "'a' appears twice"),
        ('{\n  "a": {"b": 1,\n "b": 2}\n}', 3, "'b' appears twice"),
        ('{\n  "a": "\\ud800"\n}', 2, "lone surrogate"),
        ('{\n  "a": ["ok", "\\udfff x"]\n}', 2, "lone surrogate"),
        ('{\n  "\\udc00": 1\n}', 2, "lone surrogate"),
        ('{\n  "a": NaN\n}', 2, "NaN"),
        ('{\n  "a": -Infinity\n}', 2, "Infinity"),
        ('{\n  "a": 1e999\n}', 2, "too large"),
        ('{\n  "a": ' + "1" * 10_000 + "\n}", 2, f"more than {MAX_NUMBER_DIGITS}"),
        ('{\n  "a": 0.' + "1" * 10_000 + "\n}", 2, f"more than {MAX_NUMBER_DIGITS}"),
    ],
    ids=[
        *("duplicate", "nested-duplicate", "surrogate", "surrogate-in-list", "surrogate-key"),
        *("nan", "infinity", "1e999", "long-int", "long-float"),
    ],
)
def test_json_embeds_refuse_with_the_line(body: str, line: int, words: str) -> None:
    for name, error in (
        ("settings.json", InvalidSettingsError),
        ("manifest.json", InvalidManifestError),
    ):
        narrative = f"Intro\n\n@@@{name}\n{body}\n@@@\n"
        bundle = Bundle.from_text("x", narrative)
        with pytest.raises(error, match=words) as raised:
            _ = bundle.settings if name.startswith("settings") else bundle.manifest
        assert raised.value.line == 3 + line, narrative
        assert raised.value.hint


def test_json_loaders_take_what_they_took() -> None:
    assert load_manifest(b'{"a": [1, 2.5, "\\ud83d\\ude00", {"b": null}], "c": true}') == {
        "a": [1, 2.5, "\U0001f600", {"b": None}],
        "c": True,
    }
    assert parse_json('"\\u00e9"') == "\u00e9"


def test_parse_json_takes_a_byte_order_mark_only_before_bytes() -> None:
    assert parse_json(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}
    with pytest.raises(json.JSONDecodeError, match="Unexpected UTF-8 BOM"):
        parse_json('\ufeff{"a": 1}')
    assert parse_json("1" * MAX_NUMBER_DIGITS) == int("1" * MAX_NUMBER_DIGITS)
    with pytest.raises(json.JSONDecodeError, match="more than"):
        parse_json('{"a": ' + "1" * (MAX_NUMBER_DIGITS + 1) + "}")


def test_tool_call_json_refuses_duplicates_and_nan() -> None:
    from lmml_mdit import parse
    from lmml_mdit.narrative import tool_calls

    for body in (
        '{"id": "a", "name": "f", "arguments": {}, "id": "b"}',
        '{"id": "a", "name": "f", "arguments": {"x": NaN}}',
    ):
        narrative = parse(f"## assistant\n@@@a.tool_call.json\n{body}\n@@@\n")
        with pytest.raises(InvalidToolCallError, match="not valid JSON"):
            tool_calls(narrative)


def test_parse_json_errors_are_json_decode_errors_with_a_position() -> None:
    with pytest.raises(json.JSONDecodeError) as raised:
        parse_json('[1,\n {"k": 1, "k": 2}]')
    assert (raised.value.lineno, raised.value.colno) == (2, 11)


# --- zip -----------------------------------------------------------------------------


def test_a_decoy_end_record_in_the_comment_is_counted_before_zipfile_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """zipfile takes the last end-record signature in the file, whatever its comment
    length says; the pre-count must count that record's directory, not another."""
    data = corpus.decoy_end_record(20_000)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("zipfile built the decoy directory before the limits ran")

    monkeypatch.setattr(zipfile, "ZipFile", refuse)
    with pytest.raises(LimitExceededError, match="max_entries") as raised:
        open_bundle(data, name="evil.lmmlz")
    assert raised.value.name == "x10000"


def test_the_overlap_check_counts_the_local_name_and_extra_field() -> None:
    with pytest.raises(InvalidZipError, match="overlaps") as raised:
        open_bundle(corpus.local_extra_overlap(), name="evil.lmmlz")
    assert raised.value.name == "a.txt"


def test_canonically_caseless_unicode_twins_collide() -> None:
    with pytest.raises(CaseCollisionError):
        open_bundle(corpus.unicode_caseless_twins(), name="evil.lmmlz")
    for first, second in (
        ("\u03aa\u0301.png", "\u0390.png"),  # Ϊ́ and ΐ
        ("\u00c5.png", "A\u030a.png"),  # Å composed and decomposed
        ("STRASSE.txt", "stra\u00dfe.txt"),
        ("\ufb01le.txt", "FILE.txt"),  # the ﬁ ligature
    ):
        with pytest.raises(CaseCollisionError):
            check_entry_names([first, second])
    check_entry_names(["a.png", "b.png", "\u00e9.png", "e.png"])


def _archive_of(path: Path, entries: dict[str, bytes], method: int) -> Path:
    with zipfile.ZipFile(path, "w", method) as archive:
        archive.writestr(
            path.stem + ".lmml", "<!-- user -->\n" + " ".join(f"@{n}" for n in entries)
        )
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_validate_reads_a_binary_entry_only_as_far_as_its_head(tmp_path: Path, method: int) -> None:
    """The unsendable check tells an image by its first bytes: an 8 MiB entry is not
    inflated whole (it was, then cut to its head)."""
    size = 8 * 1024 * 1024
    noise = random.Random(0).randbytes(size)
    entries = {"chart.png": b"\x89PNG\r\n\x1a\n" + noise, "scan.tiff": b"II*\x00" + noise}
    path = _archive_of(tmp_path / "big.lmmlz", entries, method)
    with open_bundle(path) as bundle:
        gc.collect()
        tracemalloc.start()
        try:
            issues = bundle.validate()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert [(issue.kind, issue.name) for issue in issues] == [("unsendable_embed", "scan.tiff")]
        assert peak < size // 8
        assert bundle.embed_head("chart.png", 16) == entries["chart.png"][:16]
        head = bundle.embed_head("scan.tiff", TEXT_SNIFF_BYTES)
        assert head == entries["scan.tiff"][:TEXT_SNIFF_BYTES]


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_the_head_of_a_short_entry_is_all_of_it_crc_checked(tmp_path: Path, method: int) -> None:
    path = _archive_of(tmp_path / "small.lmmlz", {"notes.txt": b"short text\n"}, method)
    with open_bundle(path) as bundle:
        assert bundle.embed_head("notes.txt", TEXT_SNIFF_BYTES) == b"short text\n"
        assert bundle.embed_head("notes.txt", 5) == b"short"
    if method == zipfile.ZIP_STORED:  # a flipped byte, found in the stored data
        damaged = bytearray(path.read_bytes())
        damaged[damaged.find(b"short text")] ^= 1
        bundle = open_bundle(bytes(damaged), name="small.lmmlz")
        with pytest.raises(InvalidZipError, match="CRC"):
            bundle.embed_head("notes.txt", TEXT_SNIFF_BYTES)


# --- the narrative -------------------------------------------------------------------


class _Stream(io.RawIOBase):
    """A binary stream of *size* bytes of *unit* that records each read's size and refuses
    an unbounded ``read()``."""

    def __init__(self, size: int, unit: bytes = b"word @a.png\n") -> None:
        self.left = size
        self.unit = unit
        self.asked: list[int] = []

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        assert size is not None and size >= 0, "an unbounded read of a stream"
        self.asked.append(size)
        count = min(size, self.left)
        self.left -= count
        return (self.unit * (count // len(self.unit) + 1))[:count]

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def readall(self) -> bytes:
        raise AssertionError("an unbounded read of a stream")


def test_the_narrative_limit_has_a_documented_default() -> None:
    assert Limits().max_narrative_bytes == 32 * 1024 * 1024
    with pytest.raises(ValueError, match="max_narrative_bytes"):
        Limits(max_narrative_bytes=0)


def test_a_text_narrative_over_the_limit_is_refused(tmp_path: Path) -> None:
    limits = Limits(max_narrative_bytes=1000)
    text = b"Some words.\n" * 100
    path = tmp_path / "big.lmml"
    path.write_bytes(text)
    for source in (str(path), text, io.BytesIO(text)):
        with pytest.raises(LimitExceededError, match="max_narrative_bytes") as raised:
            open_bundle(source, limits=limits)
        assert raised.value.hint and "max_narrative_bytes" in raised.value.hint
    assert open_bundle(text[:1000], limits=limits).narrative.text == text[:1000].decode()


def test_a_zip_narrative_over_the_limit_is_refused_before_it_is_inflated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = corpus.normal_zip({"big.lmml": b"Some words.\n" * 100, "a.txt": b"x"})
    reads = corpus.record_entry_reads(monkeypatch)
    with pytest.raises(LimitExceededError, match="max_narrative_bytes") as raised:
        open_bundle(data, limits=Limits(max_narrative_bytes=1000))
    assert raised.value.name == "big.lmml" and reads == []


def test_a_file_object_is_read_in_bounded_chunks_and_stops_at_the_limit() -> None:
    stream = _Stream(10 * STREAM_CHUNK)
    with pytest.raises(LimitExceededError, match="max_narrative_bytes"):
        open_bundle(stream, limits=Limits(max_narrative_bytes=2 * STREAM_CHUNK))
    assert max(stream.asked) <= STREAM_CHUNK
    assert sum(stream.asked) <= 3 * STREAM_CHUNK, "stopped soon after the limit"
    small = _Stream(3 * STREAM_CHUNK + 5)
    bundle = open_bundle(small, name="x.lmml")
    assert len(bundle.narrative.text) == 3 * STREAM_CHUNK + 5
    assert max(small.asked) <= STREAM_CHUNK


def test_standard_input_is_read_under_the_same_limits(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lmml_mdit import cli

    stream = _Stream(Limits().max_narrative_bytes + 4 * STREAM_CHUNK)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(stream)))
    assert cli.main(["validate", "-"]) != 0
    assert "max_narrative_bytes" in capsys.readouterr().err
    assert max(stream.asked) <= 2 * STREAM_CHUNK  # a BufferedReader may round up
    assert stream.left > 0, "standard input was not read to its end"


def test_parse_keeps_no_string_per_line_and_less_per_reference() -> None:
    """Peak memory of a parse against bare markdown-it on a text of references, one a line
    (0.1 took 1.86 times markdown-it's peak here). Text with words between references on
    one line stays above the goal, since every reference is a token of its own and splits
    the text token around it: ``benchmarks/bench_memory.py`` prints those shapes."""
    text = "@a.png\n" * 20_000
    ratio = _peak(lmml_mdit.parse, text) / _peak(MarkdownIt("commonmark").parse, text)
    assert ratio <= 1.5


def _peak(function: Any, text: str) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        result = function(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    del result
    return peak


# --- preview -------------------------------------------------------------------------


def test_long_code_is_shown_unhighlighted() -> None:
    pytest.importorskip("pygments")
    from lmml_mdit import render_html
    from lmml_mdit.preview import MAX_HIGHLIGHT_CHARS

    short = "x = 1\n" * 10
    long = "x = 1\n" * (MAX_HIGHLIGHT_CHARS // 6 + 1)
    for body, coloured in ((short, True), (long, False)):
        for narrative in (f"```python\n{body}```\n", f"@@@code.py\n{body}@@@\n"):
            page = render_html(Bundle.from_text("x", narrative), fragment=True)
            assert ('<span class="mi">1</span>' in page) is coloured, narrative[:20]
            assert ("x = 1\nx = 1" in page) is not coloured


@pytest.mark.parametrize(
    "text",
    [
        "## user\nhi\n\n@@@settings.yaml\n{items}\n@@@\n",
        "---\n{items}\n---\n## user\nhi\n",
    ],
    ids=["settings", "front-matter"],
)
def test_a_long_yaml_array_is_refused_before_it_is_composed(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Settings and front matter are mappings: an array at the top (0.35 MB here) is refused
    # at its first event, never composed item by item (that took seconds, read four times).
    import yaml

    composed: list[object] = []
    original = yaml.composer.Composer.compose_sequence_node

    def counting(self: yaml.composer.Composer, anchor: object) -> object:
        composed.append(anchor)
        return original(self, anchor)  # type: ignore[arg-type]

    monkeypatch.setattr(yaml.composer.Composer, "compose_sequence_node", counting)
    items = "\n".join(f"- {i}" for i in range(45_000))
    issues = Bundle.from_text("x", text.format(items=items)).validate()
    assert [issue.kind for issue in issues][:1] in (["invalid_settings"], ["invalid_front_matter"])
    assert "top level" in issues[0].message and "array" in issues[0].message
    assert composed == []


@pytest.mark.parametrize(
    "body",
    [
        "a: [" + ",".join("1" for _ in range(reserved.MAX_YAML_NODES)) + "]",
        "a:\n" + "\n".join("- 1" for _ in range(reserved.MAX_YAML_NODES)),
        "\n".join(f"k{i}: 1" for i in range(reserved.MAX_YAML_NODES // 2 + 1)),
    ],
    ids=["flow", "block", "keys"],
)
def test_a_yaml_document_over_the_node_limit_is_refused_before_it_is_composed(
    body: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Refused where the Python reader refuses it (same message, line and column), but from
    # the parser's events: nothing is composed, and the refusal is not worked out again.
    import yaml

    try:
        reserved._read_yaml_python(f"{body}\n", "settings.yaml", 4, "settings")
    except InvalidSettingsError as refused:
        expected = (str(refused), refused.line, refused.column)
    composed: list[object] = []
    original = yaml.composer.Composer.compose_node

    def counting(self: yaml.composer.Composer, parent: object, index: object) -> object:
        composed.append(index)
        return original(self, parent, index)  # type: ignore[arg-type]

    monkeypatch.setattr(yaml.composer.Composer, "compose_node", counting)
    bundle = Bundle.from_text("x", f"## user\nhi\n\n@@@settings.yaml\n{body}\n@@@\n")
    for _ in range(2):
        (issue,) = [issue for issue in bundle.validate() if issue.kind == "invalid_settings"]
        assert "more than 100000 nodes" in issue.message
        with pytest.raises(InvalidSettingsError) as raised:
            load_settings(f"{body}\n".encode(), name="settings.yaml", line=4)
        assert (str(raised.value), raised.value.line, raised.value.column) == expected
    if reserved._FastSettingsLoader is not None:
        assert composed == []
