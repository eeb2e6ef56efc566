"""Bundle.validate (ports of the reference's B13-B22, plus unclosed fences, integrity and
ordering)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit import Bundle, Issue
from lmml_mdit.cli import main


def kinds(issues: list[Issue]) -> set[tuple[str, str]]:
    return {(issue.kind, issue.name) for issue in issues}


def checked(bundle: Bundle) -> list[Issue]:
    """The issues of *bundle* (whose narrative has no role delimiter) besides the one
    ``no_turns`` warning it must get for that."""
    issues = bundle.validate()
    assert [(i.kind, i.severity) for i in issues].count(("no_turns", "warning")) == 1
    return [issue for issue in issues if issue.kind != "no_turns"]


def test_b13_b14_clean_bundles() -> None:
    assert checked(Bundle.from_zip("convo", "See @a.png.", {"a.png": b"bytes"})) == []
    assert checked(Bundle.from_text("foo", "@@@a.txt\nhello\n@@@")) == []


def test_b15_b16_missing_references() -> None:
    zipped = checked(Bundle.from_zip("convo", "See @missing.png.", {}))
    assert kinds(zipped) == {("missing_reference", "missing.png")}
    assert (zipped[0].line, zipped[0].column) == (1, 5)
    text = checked(Bundle.from_text("foo", "See @image.png."))
    assert kinds(text) == {("missing_reference", "image.png")}
    assert "base_dir" in text[0].message


def test_b17_orphaned_entry_has_no_line() -> None:
    issues = checked(Bundle.from_zip("convo", "No references here.", {"orphan.png": b"x"}))
    assert kinds(issues) == {("orphaned_entry", "orphan.png")}
    assert issues[0].line is None
    assert "@orphan.png" in issues[0].message


def test_orphaned_entry_no_reference_can_spell_says_to_rename_it() -> None:
    # "reference it as @Chart (1).png" would be advice that cannot work: it reads as none.
    issues = checked(Bundle.from_zip("convo", "See @Chart (1).png", {"Chart (1).png": b"x"}))
    assert kinds(issues) == {("orphaned_entry", "Chart (1).png")}
    assert "reference it as" not in issues[0].message
    assert "rename it" in issues[0].message


def test_b18_differs_malformed_names_come_from_fences() -> None:
    """Deliberate difference: `@../secret.txt` is no reference in our grammar (a name starts
    with a letter or digit), so unsafe names can only come from fences."""
    assert checked(Bundle.from_text("foo", "See @../secret.txt please.")) == []
    issues = checked(Bundle.from_text("foo", "@@@../secret.txt\nx\n@@@"))
    assert kinds(issues) == {("malformed_embed_name", "../secret.txt")}


def test_fence_name_that_cannot_be_a_reference_is_malformed() -> None:
    issues = checked(Bundle.from_text("foo", "@@@my notes.txt\nx\n@@@"))
    assert kinds(issues) == {("malformed_embed_name", "my notes.txt")}


def test_b19_b20_conflicting_fences() -> None:
    conflict = checked(Bundle.from_text("foo", "@@@a.txt\nhello\n@@@\n\n@@@a.txt\nworld\n@@@"))
    assert kinds(conflict) == {("conflicting_embed", "a.txt")}
    assert conflict[0].line == 5
    same = Bundle.from_text("foo", "@@@a.txt\nhello\n@@@\n\n@@@a.txt\nhello\n@@@")
    assert checked(same) == []


def test_fence_and_entry_with_different_bytes_conflict() -> None:
    text = "@a.txt then:\n\n@@@a.txt\ninline copy\n@@@"
    issues = checked(Bundle.from_zip("convo", text, {"a.txt": b"external bytes"}))
    assert kinds(issues) == {("conflicting_embed", "a.txt")}
    assert (issues[0].line, issues[0].column) == (3, 1), "at the fence"
    assert checked(Bundle.from_zip("convo", text, {"a.txt": b"inline copy\n"})) == []


@pytest.mark.parametrize("folder_bytes", [b"edited since\n", b"inline copx\n"])
def test_fence_hiding_a_different_folder_file_conflicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], folder_bytes: bytes
) -> None:
    # The fence wins by the resolution order, so the folder file, edited since, was never
    # sent and nothing said so. Another size is not read; the same size is compared.
    (tmp_path / "a.txt").write_bytes(folder_bytes)
    path = tmp_path / "chat.lmml"
    path.write_text("See @a.txt\n\n@@@a.txt\ninline copy\n@@@\n")
    issues = checked(lmml_mdit.open(path))
    assert kinds(issues) == {("conflicting_embed", "a.txt")}
    assert (issues[0].line, issues[0].column) == (3, 1), "at the fence"
    assert "the file 'a.txt' in the folder" in issues[0].message
    assert main(["validate", str(path)]) == 1
    assert main(["pack", str(path), str(tmp_path / "out.lmmlz")]) == 2
    assert "the fence and the file of this name in the folder" in capsys.readouterr().err
    assert not (tmp_path / "out.lmmlz").exists()
    (tmp_path / "a.txt").write_bytes(b"inline copy\n")
    assert checked(lmml_mdit.open(path)) == []
    assert checked(lmml_mdit.open(path, base_dir=False)) == []


def test_b21_b22_every_issue_at_once_ordered_by_line() -> None:
    text = "See @missing.png.\n\n@@@a.txt\n1\n@@@\n\n@@@a.txt\n2\n@@@\n\n@@@../secret.txt\nx\n@@@"
    issues = checked(Bundle.from_zip("convo", text, {"orphan.png": b"bytes"}))
    assert kinds(issues) == {
        ("missing_reference", "missing.png"),
        ("orphaned_entry", "orphan.png"),
        ("malformed_embed_name", "../secret.txt"),
        ("conflicting_embed", "a.txt"),
    }
    assert [issue.line for issue in issues] == [1, 7, 11, None]


def test_unclosed_fence() -> None:
    issues = checked(Bundle.from_text("foo", "Intro\n\n@@@a.txt\nnever closed\n"))
    assert kinds(issues) == {("unclosed_embed", "a.txt")}
    assert issues[0].line == 3
    assert "@@@" in issues[0].message


def test_integrity_mismatch() -> None:
    good = hashlib.sha256(b"A").hexdigest()
    manifest = {"assets": {"a.txt": {"sha256": good}, "b.txt": {"sha256": good}}}
    bundle = Bundle.from_zip(
        "c",
        "@a.txt @b.txt @gone.txt",
        {"manifest.json": json.dumps(manifest).encode(), "a.txt": b"A", "b.txt": b"changed"},
    )
    issues = [issue for issue in bundle.validate() if issue.kind == "integrity_mismatch"]
    assert [issue.name for issue in issues] == ["b.txt"]
    manifest["assets"]["nothere.txt"] = {"sha256": good}
    bundle = Bundle.from_zip("c", "@a.txt", {"manifest.json": json.dumps(manifest).encode()})
    names = {issue.name for issue in bundle.validate() if issue.kind == "integrity_mismatch"}
    assert names == {"a.txt", "b.txt", "nothere.txt"}


def test_invalid_manifest_and_settings_are_issues_not_exceptions() -> None:
    text = "@@@manifest.json\n[1]\n@@@\n\n@@@settings.yaml\n- x\n@@@"
    issues = checked(Bundle.from_text("foo", text))
    assert [(issue.kind, issue.line) for issue in issues] == [
        ("invalid_manifest", 2),
        ("invalid_settings", 6),
    ]


def test_tool_call_issues_are_included() -> None:
    text = (
        "## Turn 1 -- assistant\n\n@@@call_1.tool_call.json\n"
        '{"id": "call_1", "name": "f", "arguments": {}}\n@@@\n'
    )
    issues = Bundle.from_text("foo", text).validate()
    assert "unanswered_tool_call" in {issue.kind for issue in issues}


def test_the_error_embed_raises_for_a_missing_reference_reads_as_validate(tmp_path: Path) -> None:
    # One wording: validate's issue, the error embed() raises and the preview's "missing"
    # chip all suggest the near-miss name and say how to escape a mention.
    (tmp_path / "screenshot.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    path = tmp_path / "chat.lmml"
    path.write_text("## user\n\nsee @screenshot.pgn\n")
    bundle = lmml_mdit.open(path)
    [issue] = bundle.validate()
    with pytest.raises(lmml_mdit.LmmlError) as raised:
        bundle.embed("screenshot.pgn")
    error = raised.value
    assert (error.kind, error.line, error.column) == ("missing_reference", 3, 5)
    assert f"{error.message}; {error.hint}" == issue.message
    assert "did you mean screenshot.png?" in str(error)
    assert "escape the mention as \\@screenshot.pgn" in str(error)
    text = lmml_mdit.open(path, base_dir=False)
    with pytest.raises(lmml_mdit.LmmlError) as raised:
        text.embed("screenshot.pgn")
    assert "--base-dir DIR" in raised.value.format(cli=True)
    assert "base_dir=" not in raised.value.format(cli=True)
    assert "escape the mention as \\@screenshot.pgn" in str(raised.value)
    from lmml_mdit import render_html

    page = render_html(bundle)
    assert "did you mean screenshot.png?" in page and "\\@screenshot.pgn" in page


def test_the_did_you_mean_search_is_bounded() -> None:
    """Each missing name is compared with every asset name: past a budget of comparisons
    a bundle stops suggesting, so hundreds of missing references among hundreds of fences
    validate in linear time, the first ones still with their suggestion."""
    from lmml_mdit.bundle import CLOSEST_NAME_BUDGET

    fences = "".join(f"@@@fence{i}.txt\nx\n@@@\n\n" for i in range(200))
    mentions = "".join(f"See @fenc{i}.txt.\n\n" for i in range(200))
    bundle = Bundle.from_text("b", fences + mentions)
    missing = [issue for issue in bundle.validate() if issue.kind == "missing_reference"]
    assert len(missing) == 200
    suggested = [issue for issue in missing if "did you mean" in issue.message]
    assert "did you mean fence0.txt?" in missing[0].message
    assert 1 <= len(suggested) <= CLOSEST_NAME_BUDGET // 199 + 1
    assert suggested == missing[: len(suggested)]


def test_a_reference_to_a_folder_or_a_broken_link_says_what_is_there(tmp_path: Path) -> None:
    # A name a file browser shows is not reported as "no file": it says why it is none.
    (tmp_path / "shots.png").mkdir()
    (tmp_path / "old.png").symlink_to(tmp_path / "gone.png")
    (tmp_path / "chat.lmml").write_text("# user\n\n@shots.png @old.png @new.png\n", "utf-8")
    with lmml_mdit.open(str(tmp_path / "chat.lmml")) as bundle:
        said = {issue.name: issue.message for issue in bundle.validate()}
    assert said["shots.png"].startswith(
        f"'shots.png' in the folder {tmp_path} is a folder, not a file; name a file in it; "
    )
    assert said["old.png"].startswith(
        f"'old.png' in the folder {tmp_path} is not a regular file (a broken link, a device "
        "or a pipe); name a file; "
    )
    assert said["new.png"].startswith(f"no file 'new.png' in the folder {tmp_path}")
