"""``lmml`` on hostile and mistaken input found outside the test suite: every failure is one
``lmml: error: FILE...`` line naming the file to fix and a remedy that exists, and no
message grows with the input (commands run in-process through ``lmml_mdit.cli.main``)."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()


def one_error(capsys: pytest.CaptureFixture[str], status: int, *fragments: str) -> str:
    """Exit 2 and exactly one ``lmml: error:`` line on stderr holding every fragment."""
    captured = capsys.readouterr()
    assert status == 2, (status, captured.err)
    [line] = captured.err.splitlines()
    assert line.startswith("lmml: error: "), line
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    return line


def _chat_with_image(tmp_path: Path) -> Path:
    path = tmp_path / "chat.json"
    content = [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
    ]
    path.write_text(json.dumps({"messages": [{"role": "user", "content": content}]}))
    return path


def test_import_to_a_bare_narrative_with_an_image_names_the_output_and_a_real_remedy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = _chat_with_image(tmp_path)
    out = tmp_path / "chat.lmml"
    status = main(["import", str(chat), "-o", str(out)])
    line = one_error(capsys, status, f"lmml: error: {out}: ", ".png", "binary", ".lmmlz")
    assert "--keep-binary" not in line  # an inline option import does not have
    assert not out.exists()


def test_import_path_to_a_bare_narrative_with_an_image_names_the_output(tmp_path: Path) -> None:
    chat = _chat_with_image(tmp_path)
    out = tmp_path / "chat.lmml"
    with pytest.raises(lmml_mdit.NotInlinableError) as caught:
        lmml_mdit.import_path(chat, out)
    assert caught.value.name == str(out)
    assert ".png" in caught.value.message
    assert caught.value.hint is not None and ".lmmlz" in caught.value.hint
    assert not out.exists()


def _tool_call_chat(folder: Path) -> Path:
    folder.mkdir()
    path = folder / "weather.lmml"
    shutil.copy(EXAMPLES / "weather-tools.lmml", path)
    return path


def test_convert_names_a_bundle_in_another_folder_by_the_path_typed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _tool_call_chat(tmp_path / "chats")
    out = tmp_path / "weather.prompty"
    status = main(["convert", str(source), str(out)])
    one_error(capsys, status, f"lmml: error: {source}:13: Prompty cannot hold the tool call")
    assert not out.exists()


def test_convert_lossy_warnings_name_the_bundle_by_the_path_typed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _tool_call_chat(tmp_path / "chats")
    status = main(["convert", "-q", "--lossy", str(source), str(tmp_path / "weather.prompty")])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    said = captured.err.splitlines()
    assert said and all(line.startswith(f"lmml: warning: {source}: ") for line in said), said


LONG = "Q" * 200_000
_LONG_NARRATIVES = {
    "a suspicious heading": f"## user\n\nhi\n\n## Turn 2 -- assistant{LONG}\n\nok\n",
    "an input's type": f"---\ninputs:\n  country: {LONG}\n---\n## user\n\n{{{{ country }}}}\n",
    "a manifest digest": (
        '@@@manifest.json\n{"schema": "lmml/1", "assets": {"a.txt": {"sha256": "'
        + LONG
        + '"}}}\n@@@\n\n## user\n\n@@@a.txt\nhi\n@@@\n'
    ),
}


def test_a_damaged_archive_is_named_by_every_command_and_the_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A truncated ``.lmmlz`` names itself: ``lmml_mdit.open`` and ``lmml convert`` said
    only "the archive has no end-of-central-directory record", naming no file."""
    cut = tmp_path / "cut.lmmlz"
    cut.write_bytes((EXAMPLES / "sales-review.lmmlz").read_bytes()[:1000])
    with pytest.raises(lmml_mdit.InvalidZipError) as raised:
        lmml_mdit.open(cut)
    assert str(raised.value).startswith(f"{cut}: the archive has no end-of-central-directory")
    assert raised.value.place() == (str(cut), None, None)
    for argv in (["convert", str(cut), str(tmp_path / "o.prompty")], ["validate", str(cut)]):
        status = main(argv)
        line = one_error(capsys, 2 if argv[0] == "convert" else status, f"{cut}: the archive")
        assert line.count(str(cut)) == 1, line
    assert not (tmp_path / "o.prompty").exists()


@pytest.mark.parametrize("what", sorted(_LONG_NARRATIVES))
@pytest.mark.parametrize("command", ["validate", "turns"])
def test_a_huge_line_is_quoted_short_in_what_commands_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str, command: str
) -> None:
    path = tmp_path / "long.lmml"
    path.write_text(_LONG_NARRATIVES[what], encoding="utf-8")
    main([command, str(path)])
    captured = capsys.readouterr()
    said = [line for line in captured.out.splitlines() + captured.err.splitlines() if "Q" in line]
    assert said, (captured.out[:300], captured.err[:300])  # the defect is still reported
    assert all(len(line) < 1000 and str(path) in line for line in said), [
        (len(line), line[:200]) for line in said
    ]


_LONG_PAYLOADS = {
    "an unknown object's keys": {LONG: 1, "id": 2},
    "a Gemini part's keys": {"contents": [{"role": "user", "parts": [{LONG: "x"}]}]},
    "a tool result's call id": {
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": LONG, "content": "x"},
        ]
    },
}


@pytest.mark.parametrize("what", sorted(_LONG_PAYLOADS))
def test_import_quotes_a_huge_payload_value_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(_LONG_PAYLOADS[what]), encoding="utf-8")
    status = main(["import", str(chat), "-o", str(tmp_path / "chat.lmmlz")])
    line = one_error(capsys, status, f"lmml: error: {chat}: ", "QQQ...")
    assert len(line) < 1000, line[:300]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("p.prompt.yml", "messages:\n  - role: {long}\n    content: hi\n"),
        ("p.prompt", '---\nmodel: m\n---\n{{{{role "{long}"}}}}\nhi\n'),
        ("p.prompt", '---\nmodel: m\n---\n{{{{role "user"}}}}\nhi {{{{ {long} x }}}}\n'),
        ("p.prompty", "---\nname: p\ninputs:\n  q:\n    type: {long}\n---\nuser:\nhi\n"),
    ],
)
def test_convert_quotes_a_huge_role_type_or_expression_short(
    name: str, text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 100 KB role, input type or template expression made a 100 KB error line."""
    source = tmp_path / name
    source.write_text(text.format(long="x" * 100_000), encoding="utf-8")
    line = one_error(capsys, main(["convert", str(source), str(tmp_path / "o.lmml")]), "x...")
    assert len(line) < 600, line[:300]
    assert not (tmp_path / "o.lmml").exists()


@pytest.mark.parametrize(
    "value",
    [
        "0x" + "f" * 5000,  # about 6,000 decimal digits: read by YAML, unwritable as JSON
        "0b" + "1" * 20_000,
        "9" * 5000,
        "[1, 0x" + "f" * 5000 + "]",
    ],
)
def test_a_set_number_too_long_for_json_is_a_usage_error_naming_the_key(
    capsys: pytest.CaptureFixture[str], value: str
) -> None:
    # A hexadecimal one used to end in "internal error (ValueError: Exceeds the limit ...)".
    bundle = str(EXAMPLES / "sales-review.lmmlz")
    status = main(["render", bundle, "--request", "-p", "openai", "--set", f"max_tokens={value}"])
    line = one_error(capsys, status, "--set", "max_tokens: ", "more than 4,300 digits")
    assert len(line) < 400


@pytest.mark.parametrize(
    ("name", "escaped"),
    [("z\x85.txt", "z\\x85.txt"), ("a\nb.txt", "a\\nb.txt"), ("c\rd.txt", "c\\rd.txt")],
)
def test_an_error_names_an_entry_with_its_control_characters_escaped_not_blanked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, escaped: str
) -> None:
    # The error's place went through the whitespace folding first, so NEL, a newline or a
    # line separator in a name was printed as a space: a name that is not the entry's.
    import zipfile

    path = tmp_path / "x.lmmlz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.lmml", "## user\n\nhi\n")
        archive.writestr(name, "x")
    for command in ("validate", "ls", "render"):
        status = main([command, str(path)])
        captured = capsys.readouterr()
        assert status != 0, command
        assert f": {escaped}: unsafe entry name" in captured.err, (command, captured.err)


@pytest.mark.parametrize("command", [["render", "-p", "anthropic"], ["pack"]])
def test_a_file_name_with_a_control_character_starts_its_error_once(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
) -> None:
    # The error's place is escaped before the command line names the file in it; the file
    # was then not recognised at the start and named a second time ("n\x1b.lmml: n\x1b...").
    monkeypatch.chdir(tmp_path)
    name = "n\x1b[31mred.lmml"
    (tmp_path / name).write_text("## Turn 1 -- user\n\nhi\n\n@@@f g.txt\nx\n@@@\n")
    status = main([command[0], name, *command[1:]])
    line = one_error(capsys, status, "n\\x1b[31mred.lmml:5:1: ")
    assert line.count("n\\x1b[31mred.lmml") == 1, line
    assert "\x1b" not in line


def test_a_path_with_a_control_character_in_its_folder_is_spelt_as_typed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "d\x07"
    folder.mkdir()
    (folder / "b\x1b.lmml").write_text("## Turn 1 -- user\n\nhi\n\n@@@f g.txt\nx\n@@@\n")
    status = main(["render", "-p", "anthropic", "d\x07/b\x1b.lmml"])
    line = one_error(capsys, status, "lmml: error: d\\x07/b\\x1b.lmml:5:1: ")
    assert line.count("b\\x1b.lmml") == 1, line
