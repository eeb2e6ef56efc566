"""The language server's parts that need no client: positions in each encoding, image
dimensions from headers, the outline's words, and every feature on any document. (The
server is driven end to end in tests/test_lsp.py.)"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from lmml_mdit import cli
from lmml_mdit.lsp import (
    Columns,
    analyse,
    code_actions,
    complete,
    definition,
    diagnostics,
    document_symbols,
    first_words,
    folding_ranges,
    hover,
    image_dimensions,
    path_of,
    preview,
    references,
    units,
)

UTF8, UTF16, UTF32 = (
    types.PositionEncodingKind.Utf8,
    types.PositionEncodingKind.Utf16,
    types.PositionEncodingKind.Utf32,
)


def test_units_per_encoding() -> None:
    text = "a\u00e9\U0001f600"  # 1 + 2 + 4 bytes; 1 + 1 + 2 UTF-16 units; 3 code points
    assert units(text, UTF8) == 7
    assert units(text, UTF16) == 4
    assert units(text, UTF32) == 3


@pytest.mark.parametrize("encoding", [UTF8, UTF16, UTF32])
def test_columns_round_trip(encoding: str) -> None:
    lines = ["\U0001f600 see @x.png", "plain"]
    columns = Columns(lines, encoding)
    for column in range(len(lines[0]) + 1):
        position = columns.position(0, column)
        assert columns.column(position) == column
    assert columns.position(0, 2).character == {UTF8: 5, UTF16: 3, UTF32: 2}[encoding]
    # Past the end: clamped to the line; a line past the document's end is empty.
    assert columns.column(types.Position(line=1, character=99)) == 5
    assert columns.line(7) == ""


def test_one_line_columns() -> None:
    columns = Columns.of_line(3, "## Tu\U0001f600", UTF16)
    assert columns.line(3) == "## Tu\U0001f600" and columns.line(2) == ""
    assert columns.end_of(3).character == 7


def _riff(chunk: bytes, body: bytes) -> bytes:
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + chunk + body


@pytest.mark.parametrize(
    ("head", "size"),
    [
        (b"GIF89a" + struct.pack("<HH", 10, 20) + b"\x00" * 8, (10, 20)),
        (b"BM" + b"\x00" * 16 + struct.pack("<ii", 7, -9) + b"\x00" * 8, (7, 9)),
        (
            _riff(
                b"VP8X",
                struct.pack("<I", 10)
                + b"\x00" * 4
                + (99).to_bytes(3, "little")
                + (49).to_bytes(3, "little"),
            ),
            (100, 50),
        ),
        (
            _riff(
                b"VP8L", struct.pack("<I", 5) + b"\x2f" + ((31) | (15 << 14)).to_bytes(4, "little")
            ),
            (32, 16),
        ),
        (
            _riff(
                b"VP8 ",
                struct.pack("<I", 10) + b"\x00\x00\x00\x9d\x01\x2a" + struct.pack("<HH", 640, 480),
            ),
            (640, 480),
        ),
        (
            b"\xff\xd8"
            + b"\xff\xe0"
            + struct.pack(">H", 16)
            + b"JFIF\x00"
            + b"\x00" * 9
            + b"\xff\xc0"
            + struct.pack(">HBHH", 17, 8, 300, 400)
            + b"\x03",
            (400, 300),
        ),
        (
            b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", 3, 2),
            (3, 2),
        ),
    ],
    ids=["gif", "bmp", "webp-vp8x", "webp-vp8l", "webp-vp8", "jpeg", "png"],
)
def test_image_dimensions(head: bytes, size: tuple[int, int]) -> None:
    assert image_dimensions(head) == size


@pytest.mark.parametrize(
    "head", [b"", b"GIF8", b"\xff\xd8\xff\xe0\x00", b"\x89PNG\r\n\x1a\n", b"%PDF-1.7"]
)
def test_no_dimensions_for_short_or_other_heads(head: bytes) -> None:
    assert image_dimensions(head) is None


def test_first_words() -> None:
    assert first_words("\n\n  Hello   there,\nsecond line") == "Hello there,"
    assert first_words("one two three four five six seven eight nine ten") == (
        "one two three four five six seven eight"
    )
    long = first_words("x" * 100)
    assert len(long) == 60 and long.endswith("…")
    assert first_words("") == ""


def test_an_unsaved_buffer_has_no_folder() -> None:
    assert path_of("untitled:Untitled-1") is None
    analysis = analyse("untitled:Untitled-1", "## user\nSee @chart.png.\n", 1)
    assert analysis.folder is None and analysis.path is None
    (issue,) = analysis.issues
    assert issue.kind == "missing_reference"
    # The fix an editor has is saving the buffer: neither a Python argument nor a flag.
    (shown,) = diagnostics(analysis, Columns(analysis.lines, UTF16))
    assert shown.message == (
        "an unsaved document cannot resolve @chart.png; save it in the folder that holds "
        "the asset, or inline it as a @@@ fence; if it is not meant as an asset, escape the "
        "mention as \\@chart.png"
    )


def test_a_lone_surrogate_is_a_failure_not_an_exception() -> None:
    analysis = analyse("untitled:x", "## user\nbad \ud800 here\n", 1)
    assert analysis.bundle is None and analysis.failure is not None
    assert analysis.failure.line == 2
    assert analysis.lines == ("## user", "bad \ud800 here")


_FRAGMENTS = st.sampled_from(
    [
        "## Turn 1 -- user\n",
        "## Turn 2: assistant\n",
        "# asistant\n",
        "<!-- system -->\n",
        "@@@data.json\n",
        "@@@\n",
        '{"a": 1}\n',
        "> @@@q.txt\n> quoted\n",
        "- @@@item.py\n  x = 1\n",
        "See @chart.png and @gone.pdf.\n",
        "\\@escaped.png\n",
        "`@code.png`\n",
        "\U0001f600 @emoji.png\n",
        "plain words\n",
        "\n",
        "---\ntitle: x\n---\n",
        "setext\n===\n",
        "tail@@@\n",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    parts=st.lists(_FRAGMENTS, max_size=12),
    spots=st.lists(st.tuples(st.integers(0, 30), st.integers(0, 40)), max_size=6),
)
def test_every_feature_answers_any_document(
    tmp_path_factory: pytest.TempPathFactory,
    parts: list[str],
    spots: list[tuple[int, int]],
) -> None:
    """Whatever the text and wherever the cursor, each feature answers (no exception)."""
    folder = tmp_path_factory.mktemp("any", numbered=True)
    (folder / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    text = "".join(parts)
    analysis = analyse((folder / "doc.lmml").as_uri(), text, 1)
    columns = Columns(analysis.lines, UTF16)
    diagnostics(analysis, columns)
    narrative = analysis.narrative
    if narrative is not None:
        document_symbols(narrative, columns)
        folding_ranges(narrative)
    code_actions(analysis, columns, 0, len(analysis.lines))
    for line, character in spots:
        column = columns.column(types.Position(line=line, character=character))
        hover(analysis, columns, line, column)
        definition(analysis, columns, line, column)
        references(analysis, columns, line, column, declaration=True)
        current = Columns.of_line(line, columns.line(line)[:column], UTF16)
        complete(analysis, current, line, column)
    preview(analysis)


@pytest.mark.parametrize(
    ("typed", "offered"),
    [
        ("See @ch", True),
        ("@ch", True),
        ("(@ch", True),
        ("mail me at ada@ch", False),
        ("a path/@ch", False),
        ("https://x/@ch", False),
        ("escaped \\@ch", False),
        ("twice @@ch", False),
    ],
)
def test_asset_names_are_offered_where_the_reference_rule_starts_one(
    tmp_path: Path, typed: str, offered: bool
) -> None:
    """Completion after ``@`` follows the reference rule's own boundary
    (``syntax.may_start_reference``)."""
    folder = tmp_path
    (folder / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    analysis = analyse((folder / "doc.lmml").as_uri(), typed + "\n", 1)
    current = Columns.of_line(0, typed, UTF16)
    labels = [item.label for item in complete(analysis, current, 0, len(typed)).items]
    assert ("chart.png" in labels) is offered


def test_many_references_on_one_long_line_convert_in_any_encoding(tmp_path: Path) -> None:
    # Each position used to count the code units from the line's start: with one wide
    # character on a line of 10,000 references, diagnostics took minutes in UTF-16.
    count = 10_000
    line = "\u00e9\U0001f600 " + "word @gone.png " * count
    analysis = analyse((tmp_path / "doc.lmml").as_uri(), f"## user\n\n{line}\n", 1)
    assert len(analysis.issues) == count
    for encoding, before in ((UTF8, 7), (UTF16, 4), (UTF32, 3)):
        columns = Columns(analysis.lines, encoding)
        found = diagnostics(analysis, columns)
        last = line.rindex("@")
        assert found[-1].range.start.character == before + (last - 3)
        assert found[-1].range.end.character == before + (last - 3) + len("@gone.png")
        position = found[-1].range.start
        assert columns.column(position) == last
        spans = references(analysis, columns, 2, last, declaration=True)  # the names, no "@"
        assert [(s.range.start.character - 1, s.range.end) for s in spans] == [
            (d.range.start.character, d.range.end) for d in found
        ]


def test_the_quick_fixes_of_a_name_missing_many_times_are_offered_once(tmp_path: Path) -> None:
    # Each mention used to get its own copy of every fix, each copy editing every mention:
    # a line naming one missing file 2,000 times gave 6,000 actions of 2,000 edits each.
    (tmp_path / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    count = 2_000
    analysis = analyse(
        (tmp_path / "doc.lmml").as_uri(), "## user\n\n" + "see @chart.pgn " * count + "\n", 1
    )
    columns = Columns(analysis.lines, UTF16)
    actions = code_actions(analysis, columns, 2, 2)
    assert [action.title.split(" ")[0] for action in actions] == ["Did", "Create", "Escape"]
    for action in actions:
        assert action.diagnostics is not None and len(action.diagnostics) == count
    edits = actions[0].edit
    assert edits is not None and edits.changes is not None
    assert len(edits.changes[analysis.uri]) == count


def test_the_preview_leaves_the_defects_to_the_diagnostics(tmp_path: Path) -> None:
    # render_html warned of each suspicious delimiter, and `lmml lsp` printed the warnings on
    # its standard error at every preview request (each edit shifting their lines).
    import warnings

    from lmml_mdit import DefectWarning

    text = "## user\n\nhi\n\n**Assistant:**\n\nhello\n"
    analysis = analyse((tmp_path / "doc.lmml").as_uri(), text, 1)
    assert [issue.kind for issue in analysis.issues] == ["suspicious_delimiter"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        page = preview(analysis)
    assert page["error"] is None and "hello" in str(page["html"])
    assert not [w for w in caught if issubclass(w.category, DefectWarning)]


def _diagnostics_of(path: Path, text: str) -> list[types.Diagnostic]:
    """The diagnostics the server publishes for *text*, the document at *path*."""
    analysis = analyse(path.as_uri(), text, 1)
    return diagnostics(analysis, Columns(analysis.lines, UTF16))


def test_a_chat_payload_names_the_import_command(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    text = '[{"role": "user", "content": "hi"}]\n'
    path.write_text(text, encoding="utf-8")
    (found,) = _diagnostics_of(path, text)
    assert found.code == "NotLmmlError"
    # The command, as `lmml validate` words it, for this very file; no Python call.
    assert f"(lmml import {path} -o {tmp_path / 'chat.lmmlz'})" in found.message
    assert "lmml_mdit" not in found.message and "()" not in found.message
    # Edited later (a re-parse from the previous analysis): the same hint.
    edited = text.replace("hi", "hello")
    again = analyse(path.as_uri(), edited, 2, previous=analyse(path.as_uri(), "## user\n", 1))
    assert again.failure is not None
    (later,) = diagnostics(again, Columns(again.lines, UTF16))
    assert later.message == found.message


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_invalid_utf8_points_at_the_first_bad_byte_as_the_cli_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], newline: str
) -> None:
    path = tmp_path / "latin1.lmml"
    data = newline.join(["## user", "", "caf\u00e9 \u00e0 la cr\u00e8me", ""]).encode("latin-1")
    path.write_bytes(data)
    assert cli.main(["validate", str(path)]) == 2
    said = capsys.readouterr().err
    assert f"{path}:3:4: invalid UTF-8 at byte offset" in said
    # What an editor shows: the bytes decoded with replacement characters.
    (found,) = _diagnostics_of(path, data.decode("utf-8", "replace"))
    assert found.range.start == types.Position(line=2, character=3)
    assert "invalid UTF-8 at byte offset" in found.message


def test_a_deleted_folder_is_not_named_after_the_next_edit(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    uri = (project / "n.lmml").as_uri()
    text = "## user\nSee @chart.png.\n"
    before = analyse(uri, text, 1)
    assert before.folder == str(project)
    (project / "n.lmml").parent.rmdir()
    after = analyse(uri, text + "More.\n", 2, previous=before)
    assert after.folder is None
    (issue,) = after.issues
    assert str(project) not in issue.message and "without a folder" in issue.message
