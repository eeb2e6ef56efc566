"""What a bundle sends: its own folder, defects that stop the send, severities and the
one location format of errors."""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

import pytest
from _bundle_files import make_zip, write_chat

import lmml_mdit
from lmml_mdit import ERROR_KINDS, Bundle, DefectWarning, Issue, render_turns, to_request
from lmml_mdit.bundle import FolderNames
from lmml_mdit.bundle import _bundle as bundles  # patched on purpose: find_issues
from lmml_mdit.bundle import _opening as bundle_opening  # patched on purpose: parse
from lmml_mdit.chat import messages
from lmml_mdit.errors import (
    BundleError,
    BundleNotFoundError,
    DefectError,
    LmmlError,
    MissingNarrativeError,
    NotLmmlError,
    UnresolvableReferenceError,
)

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


# -- a bare .lmml sees its own folder -------------------------------------------------------


def test_a_path_resolves_against_its_own_folder_by_default(tmp_path: Path) -> None:
    path = write_chat(tmp_path, "## user\n\nSee @chart.png\n", **{"chart.png": PNG})
    with lmml_mdit.open(path) as bundle:
        assert bundle.base_dir == str(tmp_path)
        assert bundle.embed("chart.png") == PNG
        assert bundle.validate() == []
        assert messages(bundle)[0]["content"][1]["type"] == "image_url"


def test_base_dir_false_turns_the_folder_off(tmp_path: Path) -> None:
    path = write_chat(tmp_path, "## user\n\nSee @chart.png\n", **{"chart.png": PNG})
    bundle = lmml_mdit.open(path, base_dir=False)
    assert bundle.base_dir is None
    with pytest.raises(UnresolvableReferenceError):
        bundle.embed("chart.png")
    assert [issue.kind for issue in bundle.validate()] == ["missing_reference"]


def test_bytes_have_no_folder_unless_given(tmp_path: Path) -> None:
    (tmp_path / "chart.png").write_bytes(PNG)
    text = b"## user\n\n@chart.png\n"
    assert lmml_mdit.open(text).base_dir is None
    assert lmml_mdit.open(text, base_dir=tmp_path).embed("chart.png") == PNG


def test_the_default_folder_keeps_the_base_dir_safety(tmp_path: Path) -> None:
    outside = tmp_path / "outside.png"
    outside.write_bytes(PNG)
    folder = tmp_path / "chat"
    folder.mkdir()
    (folder / "link.png").symlink_to(outside)
    path = write_chat(folder, "## user\n\n@link.png and @../outside.png\n")
    bundle = lmml_mdit.open(path)
    with pytest.raises(BundleError, match="outside"):
        bundle.embed("link.png")
    with pytest.raises(BundleError):
        bundle.embed("../outside.png")
    assert "link.png" not in FolderNames(str(folder))
    assert "../outside.png" not in FolderNames(str(folder))


def test_known_names_reach_the_parser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    real_parse = bundle_opening.parse

    def spy(text: Any, **options: Any) -> Any:
        seen.append(options.get("known_names"))
        return real_parse(text, **options)

    real_shared = bundle_opening.parse_shared

    def shared_spy(data: Any, **options: Any) -> Any:  # an archive's narrative
        seen.append(options.get("known_names"))
        return real_shared(data, **options)

    monkeypatch.setattr(bundle_opening, "parse", spy)
    monkeypatch.setattr(bundle_opening, "parse_shared", shared_spy)
    path = write_chat(tmp_path, "## user\n\n@Dockerfile\n", Dockerfile=b"FROM x\n")
    lmml_mdit.open(path)
    assert "Dockerfile" in seen[-1] and "Makefile" not in seen[-1]
    assert "../chat.lmml" not in seen[-1]
    zipped = make_zip(tmp_path / "z.lmmlz", "## user\n\n@Dockerfile\n", {"Dockerfile": b"x"})
    lmml_mdit.open(zipped).close()
    assert seen[-1] == frozenset({"Dockerfile"})  # the narrative entry is no asset
    lmml_mdit.open(path, base_dir=False)
    assert seen[-1] is None


def test_a_missing_path_is_a_file_not_found_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as raised:
        lmml_mdit.open(tmp_path / "nope.lmml")
    assert isinstance(raised.value, LmmlError)
    assert isinstance(raised.value, BundleNotFoundError)
    assert "nope.lmml" in str(raised.value)


# -- severity -----------------------------------------------------------------------------


def test_severity_comes_from_one_table() -> None:
    assert {
        "unclosed_embed",
        "missing_reference",
        "conflicting_embed",
        "malformed_embed_name",
        "integrity_mismatch",
        "invalid_settings",
        "invalid_manifest",
    } <= ERROR_KINDS
    assert Issue("missing_reference", "a.png", 1, 1, "m").severity == "error"
    for kind in ("orphaned_entry", "no_turns", "suspicious_delimiter", "unsent_image"):
        assert Issue(kind, "x", None, None, "m").severity == "warning"


def test_no_turns_warns_for_text_without_a_delimiter() -> None:
    [issue] = Bundle.from_text("notes", "Just some notes.\n").validate()
    assert (issue.kind, issue.severity) == ("no_turns", "warning")
    assert Bundle.from_text("empty", "").validate() == []
    assert Bundle.from_text("chat", "## user\nhi\n").validate() == []


# -- what is wrong stops the send -----------------------------------------------------------

DEFECTS = {
    "unclosed_embed": ("## user\n\n@@@a.txt\nnever closed\n", {}),
    "missing_reference": ("## user\n\nsee @gone.png\n", {}),
    "conflicting_embed": ("## user\n\n@@@a.txt\none\n@@@\n\n@@@a.txt\ntwo\n@@@\n", {}),
    "malformed_embed_name": ("## user\n\n@@@my notes.txt\nx\n@@@\n", {}),
    "invalid_settings": ("## user\n\nhi\n\n@@@settings.yaml\n- a list\n@@@\n", {}),
    "invalid_manifest": ("## user\n\nhi\n\n@@@manifest.json\n[1]\n@@@\n", {}),
    "invalid_setting": ("## user\n\nhi\n\n@@@settings.yaml\ntemperature: hot\n@@@\n", {}),
    "integrity_mismatch": (
        "## user\n\n@a.txt\n",
        {
            "a.txt": b"changed",
            "manifest.json": json.dumps({"assets": {"a.txt": {"sha256": "0" * 64}}}).encode(),
        },
    ),
}


@pytest.mark.parametrize("kind", sorted(DEFECTS))
def test_each_error_level_defect_stops_every_send(kind: str) -> None:
    text, entries = DEFECTS[kind]
    bundle = Bundle.from_zip("b", text, entries) if entries else Bundle.from_text("b", text)
    [issue] = [i for i in bundle.validate() if i.severity == "error"]
    assert issue.kind == kind
    for send in (
        lambda **o: messages(bundle, **o),
        lambda **o: to_request(bundle, "openai", model="m", **o),
        lambda **o: render_turns(bundle, **o),
        lambda **o: bundle.messages("anthropic", system="separate", **o),
    ):
        with pytest.raises(DefectError) as raised:
            send()
        error = raised.value
        assert error.issue == issue and error.kind == kind
        assert (error.line, error.column) == (issue.line, issue.column)
        where = bundle.location(issue)
        assert str(error).startswith(f"{where}:{issue.line}:{issue.column}: {kind}: ")
        with pytest.warns(DefectWarning) as caught:
            send(strict=False)
        assert [w.message.issue for w in caught.list if isinstance(w.message, DefectWarning)] == [
            issue
        ]


def test_strict_false_sends_a_missing_reference_as_its_text() -> None:
    bundle = Bundle.from_text("b", "## user\n\nsee @gone.png\n")
    with pytest.warns(DefectWarning, match=r"^b\.lmml:3:5: missing_reference: "):
        [message] = messages(bundle, strict=False)
    assert "@gone.png" in json.dumps(message)


def test_validation_runs_once_per_bundle(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Bundle] = []
    real = bundles.find_issues

    def counting(bundle: Bundle) -> list[Issue]:
        calls.append(bundle)
        return real(bundle)

    monkeypatch.setattr(bundles, "find_issues", counting)
    bundle = Bundle.from_text("b", "## user\n\nhi\n")
    for _ in range(3):
        messages(bundle)
        to_request(bundle, model="m")
    assert calls == [bundle]


def test_warnings_alone_do_not_stop_the_send() -> None:
    bundle = Bundle.from_zip("b", "## user\n\nhi\n", {"orphan.txt": b"x"})
    assert [issue.kind for issue in bundle.validate()] == ["orphaned_entry"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", DefectWarning)
        assert messages(bundle) == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


# -- locations ----------------------------------------------------------------------------


def test_settings_lines_count_in_the_entry_they_lie_in(tmp_path: Path) -> None:
    path = make_zip(tmp_path / "s.lmmlz", "## user\n\nhi\n", {"settings.yaml": b"a: 1\nb: [1\n"})
    with lmml_mdit.open(path) as bundle:
        [issue] = bundle.validate()
        assert (issue.kind, issue.file, issue.line) == ("invalid_settings", "settings.yaml", 3)
        assert bundle.location(issue) == "s.lmmlz!settings.yaml"
        with pytest.raises(DefectError, match=r"^s\.lmmlz!settings\.yaml:3:1: invalid_settings"):
            messages(bundle)
        with pytest.raises(LmmlError, match=r"^s\.lmmlz!settings\.yaml:3:1: "):
            _ = bundle.settings


def test_a_settings_fence_counts_narrative_lines() -> None:
    bundle = Bundle.from_text("b", '## user\n\nhi\n\n@@@settings.json\n{\n  "a": nope\n}\n@@@\n')
    [issue] = bundle.validate()
    assert (issue.file, issue.line, issue.column) == (None, 7, 8)
    with pytest.raises(LmmlError, match=r"^b\.lmml:7:8: "):
        _ = bundle.settings


def test_a_near_miss_suggests_the_entry_and_says_how_to_escape(tmp_path: Path) -> None:
    zipped = Bundle.from_zip("b", "## user\n\n@screenshot.pgn\n", {"screenshot.png": PNG})
    [issue] = [i for i in zipped.validate() if i.kind == "missing_reference"]
    assert "did you mean screenshot.png?" in issue.message
    assert "\\@screenshot.pgn" in issue.message
    path = write_chat(tmp_path, "## user\n\n@chrat.png\n", **{"chart.png": PNG})
    [issue] = lmml_mdit.open(path).validate()
    assert "did you mean chart.png?" in issue.message


def test_a_missing_reference_without_a_folder_words_the_cli_hint_apart() -> None:
    [issue] = Bundle.from_text("b", "## user\n\n@a.png\n").validate()
    assert "base_dir=" in issue.message
    assert issue.cli_message is not None
    assert "--base-dir DIR" in issue.cli_message and "base_dir=" not in issue.cli_message


# -- what is not LMML -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (PNG, "this is a PNG image, not an LMML narrative"),
        (b"%PDF-1.7\n...", "this is a PDF document, not an LMML narrative"),
        (b"\xff\xd8\xff\xe0rest", "this is a JPEG image, not an LMML narrative"),
    ],
)
def test_a_binary_file_says_what_it_is(tmp_path: Path, data: bytes, what: str) -> None:
    path = tmp_path / "x.lmml"
    path.write_bytes(data)
    with pytest.raises(NotLmmlError, match=what):
        lmml_mdit.open(path)


def test_a_zip_without_a_narrative_says_so(tmp_path: Path) -> None:
    path = tmp_path / "x.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.txt", "x")
    with pytest.raises(MissingNarrativeError, match="zip archive without a narrative"):
        lmml_mdit.open(path)


def test_a_json_chat_says_to_import_it(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps({"messages": [{"role": "system", "content": "x"}]}))
    with pytest.raises(NotLmmlError, match="looks like an OpenAI chat; run `lmml import`"):
        lmml_mdit.open(path)
    gemini = json.dumps({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]})
    with pytest.raises(NotLmmlError, match="looks like a Gemini chat"):
        lmml_mdit.open(gemini.encode())
    # JSON that is no chat, and a narrative that merely starts with a brace, stay narratives.
    assert lmml_mdit.open(b'{"foo": 1}').narrative.text == '{"foo": 1}'
    assert lmml_mdit.open(b"[]").narrative.text == "[]"
    assert lmml_mdit.open(b"{curly} prose\n\n## user\nhi\n").narrative.turns


def test_resolution_errors_use_the_same_location_format(tmp_path: Path) -> None:
    path = write_chat(tmp_path, "## user\n\nsee @gone.png\n")
    with pytest.raises(LmmlError, match=r"^chat\.lmml:3:5: missing_reference: .*'gone\.png'"):
        lmml_mdit.open(path).embed("gone.png")
    with pytest.raises(LmmlError, match=r"^chat\.lmml:3:5: missing_reference: .*@gone\.png"):
        lmml_mdit.open(path, base_dir=False).embed("gone.png")
    zipped = make_zip(tmp_path / "z.lmmlz", "## user\n\nsee @gone.png\n", {})
    with pytest.raises(LmmlError, match=r"^z\.lmmlz:3:5: missing_reference: "):
        lmml_mdit.open(zipped).embed("gone.png")
    conflict = Bundle.from_text("c", "## user\n\n@@@a.txt\none\n@@@\n\n@@@a.txt\ntwo\n@@@\n")
    with pytest.raises(LmmlError, match=r"^c\.lmml:7:1: @@@a\.txt: "):
        conflict.pack()


def test_text_nested_too_deeply_for_json_is_read_as_a_narrative() -> None:
    # The not-LMML check tries JSON; nesting past the json module's depth is no chat.
    bundle = lmml_mdit.open(b"[" * 100_000, name="deep.lmml")
    assert bundle.narrative.text == "[" * 100_000


def test_an_unresolvable_settings_reference_sent_anyway_gives_no_settings() -> None:
    bundle = Bundle.from_text("t", "## user\nhi, with @settings.yaml\n")
    with pytest.warns(DefectWarning):
        body = bundle.to_request("openai", model="m", strict=False)
    assert set(body) == {"model", "messages"}
