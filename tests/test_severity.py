"""One severity for each issue kind, everywhere (issue 26): the table in
:mod:`lmml_mdit.severity` is the one ``docs/errors.md`` prints, and for each kind a bundle
holding it gets the same verdict from the API, ``validate``, the pre-commit hook, ``render``
and ``export`` (each run in process, as typed)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest
import yaml

import lmml_mdit
from lmml_mdit import ERROR_KINDS, DefectWarning
from lmml_mdit.cli import main
from lmml_mdit.errors import DefectError
from lmml_mdit.severity import KIND_RULES, WARNED_KINDS, severity_of

ROOT = Path(__file__).resolve().parent.parent
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
TEMPLATE = (
    "---\ninputs:\n  topic:\n    type: string\n{extra}---\n"
    "## user\nTell me about {{{{ topic }}}}.{more}\n"
)
_ROW = re.compile(r"^\| `(\w+)` \| (error|warning) \| (refused|warned|validated) \|$", re.MULTILINE)


def test_the_docs_print_the_table() -> None:
    page = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    printed = {kind: (severity, on_send) for kind, severity, on_send in _ROW.findall(page)}
    assert printed == dict(KIND_RULES)


def test_errors_are_refused_and_warnings_are_not() -> None:
    errors = {kind for kind, (severity, _) in KIND_RULES.items() if severity == "error"}
    assert errors == ERROR_KINDS
    assert all(KIND_RULES[kind] == ("error", "refused") for kind in ERROR_KINDS)
    assert {"suspicious_delimiter"} == WARNED_KINDS
    assert severity_of("a_kind_no_one_made") == "warning"
    # What a provider refuses is an error (issue 26).
    for kind in ("invalid_tool_call", "unknown_tool_call_id", "unanswered_tool_call"):
        assert kind in ERROR_KINDS


def test_each_reserved_embed_declares_its_kinds_once_into_the_table() -> None:
    from lmml_mdit.bundle.reserved_embeds import RESERVED_EMBEDS

    declared = {kind: rule for embed in RESERVED_EMBEDS for kind, rule in embed.kinds.items()}
    assert declared == {
        "invalid_manifest": ("error", "refused"),
        "integrity_mismatch": ("error", "refused"),
        "invalid_front_matter": ("error", "refused"),
        "invalid_settings": ("error", "refused"),
        "invalid_setting": ("error", "refused"),
        "setting_out_of_range": ("warning", "validated"),
    }
    assert all(KIND_RULES[kind] == rule for kind, rule in declared.items())
    assert {"invalid_manifest", "invalid_setting"} <= ERROR_KINDS
    assert "setting_out_of_range" not in ERROR_KINDS
    assert severity_of("invalid_front_matter") == "error"


def test_the_table_is_whole_on_its_first_read_in_a_new_process() -> None:
    # Read before anything loads the bundle layer: the first read imports the reserved
    # embeds' declarations, so their kinds are there from the start.
    code = (
        "import json, lmml_mdit, sys\n"
        "assert 'lmml_mdit.bundle.reserved_embeds' not in sys.modules\n"
        "print(json.dumps(sorted(lmml_mdit.ERROR_KINDS)))\n"
        "from lmml_mdit.severity import KIND_RULES, severity_of\n"
        "print(len(KIND_RULES), severity_of('invalid_settings'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    first, second = done.stdout.splitlines()
    assert json.loads(first) == sorted(ERROR_KINDS)
    assert "invalid_settings" in first
    assert second == f"{len(KIND_RULES)} error"


def test_a_kind_declared_again_with_another_rule_is_refused() -> None:
    from lmml_mdit.severity import declare_kinds

    declare_kinds({"no_turns": ("warning", "validated")})  # the same rule: nothing changes
    with pytest.raises(ValueError, match="'no_turns' is already"):
        declare_kinds({"no_turns": ("error", "refused")})
    assert KIND_RULES["no_turns"] == ("warning", "validated")


def _zip(path: Path, narrative: str, entries: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(path.stem + ".lmml", narrative)
        for name, data in entries.items():
            archive.writestr(name, data)


def sample(kind: str, folder: Path) -> Path:
    """A bundle in *folder* whose defect is *kind*: its path."""
    folder.mkdir(parents=True, exist_ok=True)

    def text(body: str) -> Path:
        (folder / "chat.lmml").write_text(body, encoding="utf-8")
        return folder / "chat.lmml"

    if kind == "unclosed_embed":
        return text("## user\n\n@@@note.txt\nhello\n")
    if kind == "missing_reference":
        return text("## user\n\nsee @gone.png\n")
    if kind == "conflicting_embed":
        return text("## user\n\n@@@a.txt\none\n@@@\n\n@@@a.txt\ntwo\n@@@\n")
    if kind == "malformed_embed_name":
        return text("## user\n\n@@@a..b/../c.txt\nx\n@@@\n")
    if kind == "integrity_mismatch":
        path = folder / "chat.lmmlz"
        manifest = {"assets": {"a.txt": {"sha256": "0" * 64}}}
        _zip(path, "## user\n\n@a.txt\n", {"a.txt": "hi\n", "manifest.json": json.dumps(manifest)})
        return path
    if kind == "invalid_manifest":
        path = folder / "chat.lmmlz"
        _zip(path, "## user\n\nhi\n", {"manifest.json": "[1, 2"})
        return path
    if kind == "invalid_settings":
        return text("## user\n\nhi\n\n@@@settings.yaml\ntemperature: [oops\n@@@\n")
    if kind == "invalid_setting":
        return text("## user\n\nhi\n\n@@@settings.yaml\ntemperature: hot\n@@@\n")
    if kind == "invalid_front_matter":
        return text("---\ntitle: [oops\n---\n## user\n\nhi\n")
    if kind == "invalid_input":
        return text(TEMPLATE.format(extra="    default: 3\n", more=""))
    if kind == "invalid_tool_call":
        return text(
            '## user\n\nq\n\n## assistant\n\n@@@c1.tool_call.json\n{"id": "c1"\n@@@\n\n'
            "## tool\n\n@c1.tool_call.json\n\nok\n"
        )
    if kind == "unknown_tool_call_id":
        return text("## user\n\nq\n\n## tool\n\n@zz.tool_call.json\n\nres\n")
    if kind == "unanswered_tool_call":
        return text(
            "## user\n\nq\n\n## assistant\n\n@@@c1.tool_call.json\n"
            '{"id": "c1", "name": "f", "arguments": {}}\n@@@\n\n## user\n\nnext\n'
        )
    if kind == "invalid_remote_asset":
        (folder / "bad.remote.json").write_text('{"kind": 1}')
        return text("## user\n\nLook:\n\n@bad.remote.json\n")
    if kind == "unsendable_embed":
        (folder / "chart.png").write_bytes(b"")
        return text("## user\n\nLook at @chart.png\n")
    if kind == "suspicious_delimiter":
        return text("## user\n\nhi\n\n**Assistant:**\n\nhello\n")
    if kind == "orphaned_entry":
        path = folder / "chat.lmmlz"
        _zip(path, "## user\n\nhi\n", {"extra.txt": "x"})
        return path
    if kind == "setting_out_of_range":
        return text("## user\n\nhi\n\n@@@settings.yaml\ntemperature: 2.5\n@@@\n")
    if kind == "unsent_image":
        (folder / "chart.png").write_bytes(PNG)
        return text("## user\n\n![chart](chart.png)\n")
    if kind == "undeclared_input":
        return text(TEMPLATE.format(extra="    default: cats\n", more=" And {{ other }}."))
    if kind == "unused_input":
        spare = "    default: cats\n  spare:\n    type: string\n    required: false\n"
        return text(TEMPLATE.format(extra=spare, more=""))
    if kind == "no_turns":
        return text("just some notes\n")
    raise KeyError(kind)


KINDS = [kind for kind in KIND_RULES if kind != "missing_input"]

BYTES_REFUSED = "unsendable_embed"
"""The kind refused where the parts are built (the error names the provider and the media
type, after the call's own handlers had their say): no provider takes the bytes, so
``--force`` and ``strict=False`` cannot send it either."""


def _refused_bytes(status: int, err: str) -> None:
    assert status in (1, 2)
    assert "cannot take chart.png" in err and "holds no bytes" in err


def _kinds(path: Path) -> dict[str, str]:
    with lmml_mdit.open(path) as bundle:
        return {issue.kind: issue.severity for issue in bundle.validate()}


def _cli(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str]:
    capsys.readouterr()
    status = main([str(arg) for arg in args])
    return status, capsys.readouterr().err


def _hook_entry() -> list[str]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    [entry] = [hook["entry"] for hook in hooks if hook["id"] == "lmml-validate"]
    command = shlex.split(entry)
    assert command[0] == "lmml"
    return command[1:]


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_gets_one_verdict_from_every_command(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    severity, on_send = KIND_RULES[kind]
    path = sample(kind, tmp_path / "bundles")
    found = _kinds(path)
    assert found[kind] == severity
    error = severity == "error"

    # validate and the pre-commit hook: exit 1 exactly for an error.
    status, _ = _cli(capsys, "validate", path)
    assert status == (1 if error else 0)
    hook, _ = _cli(capsys, *_hook_entry(), path)
    assert hook == status

    # render: refused with the kind named; --force sends it, reporting it as a warning.
    status, err = _cli(capsys, "render", path)
    if kind == BYTES_REFUSED:
        _refused_bytes(status, err)
        _refused_bytes(*_cli(capsys, "render", "--force", path))
        out = tmp_path / "out.jsonl"
        _refused_bytes(*_cli(capsys, "export", path.parent, "-p", "openai", "--jsonl", out))
        with lmml_mdit.open(path) as bundle:
            for strict in (True, False):
                with pytest.raises(lmml_mdit.UnsupportedContentError):
                    bundle.messages("openai", strict=strict)
        return
    if error:
        assert status == 2 and f": {kind}: " in err and "lmml: error: " in err
        status, err = _cli(capsys, "render", "--force", path)
        assert status == 0, err
        assert re.search(rf"^lmml: warning: .*: {kind}: ", err, re.MULTILINE), err
    else:
        assert status == 0, err
        assert (f": {kind}: " in err) == (on_send == "warned")
        status, err = _cli(capsys, "render", "--strict", path)
        assert status == (2 if on_send == "warned" else 0), err

    # export: the bundle is a failure exactly when render refuses it.
    out = tmp_path / "out.jsonl"
    status, err = _cli(capsys, "export", path.parent, "--provider", "openai", "--jsonl", out)
    if error:
        assert status == 1 and f": {kind}: " in err
        status, err = _cli(
            capsys, "export", path.parent, "--provider", "openai", "--jsonl", out, "--force"
        )
        assert status == 0 and re.search(rf"^lmml: warning: .*: {kind}: ", err, re.MULTILINE)
    else:
        assert status == 0, err
        assert (f": {kind}: " in err) == (on_send == "warned")
        status, err = _cli(
            capsys, "export", path.parent, "--provider", "openai", "--jsonl", out, "--strict"
        )
        assert status == (1 if on_send == "warned" else 0), err

    # The API: messages() refuses an error and sends it with strict=False, warning it.
    with lmml_mdit.open(path) as bundle:
        if error:
            with pytest.raises(DefectError) as refused:
                bundle.messages("openai")
            assert refused.value.kind == kind
            with pytest.warns(DefectWarning) as caught:
                bundle.messages("openai", strict=False)
        else:
            with warnings.catch_warnings(record=True) as caught_list:
                warnings.simplefilter("always")
                bundle.messages("openai")
            caught = caught_list  # type: ignore[assignment]
        reported = {w.message.issue.kind for w in caught if isinstance(w.message, DefectWarning)}
        assert (kind in reported) == (error or on_send == "warned")


def test_missing_input_is_an_error_given_values(tmp_path: Path) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text(TEMPLATE.format(extra="", more=""), encoding="utf-8")
    with lmml_mdit.open(path) as bundle:
        [issue] = bundle.validate(inputs={})
        assert (issue.kind, issue.severity) == ("missing_input", "error")
    assert main(["validate", "--inputs", str(_inputs(tmp_path, {})), str(path)]) == 1


def _inputs(folder: Path, values: dict[str, object]) -> Path:
    path = folder / "inputs.json"
    path.write_text(json.dumps(values), encoding="utf-8")
    return path


def test_every_kind_validation_finds_is_in_the_table() -> None:
    # A kind missing from the table would be judged a warning by default, without a row in
    # the docs: every kind that validation can find has its row.
    from lmml_mdit.bundle import SETTING_OUT_OF_RANGE
    from lmml_mdit.severity import KIND_RULES

    texts = [
        "---\nsettings:\n  temperature: 2.5\n---\n## user\nHi\n",
        "---\nsettings:\n  temperature: hot\n---\n## user\nHi @x.png\n",
        "Asistant:\n\nno turns here\n",
        "## user\nHi\n\n## tool\n@call_1.tool_call.json\n",
        "---\ninputs: [\n---\n## user\nHi\n",
    ]
    found = {
        issue.kind for text in texts for issue in lmml_mdit.Bundle.from_text("x", text).validate()
    }
    assert SETTING_OUT_OF_RANGE in found
    assert found <= set(KIND_RULES)


@pytest.mark.parametrize("command", ["preview", "turns", "to-md", "info"])
def test_the_commands_that_show_a_bundle_report_what_render_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    broken = tmp_path / "broken.lmml"
    broken.write_text("---\ninputs: [\n---\n## user\nhi @gone.png and @gone.png\n")
    written = {"preview": ["-o", str(tmp_path / "page.html")], "to-md": [str(tmp_path / "x.md")]}
    out = written.get(command, [])
    status, err = _cli(capsys, command, broken, *out)
    assert status == 0  # shown all the same
    assert f"lmml: warning: {broken}:2:10: invalid_front_matter: " in err
    assert err.count(": missing_reference: ") == 2
    assert "2 missing reference(s): gone.png (2)" in err
    status, refused = _cli(capsys, "render", broken)
    assert status == 2 and "invalid_front_matter" in refused
    clean = tmp_path / "clean.lmml"
    clean.write_text("## user\nhi\n")
    status, err = _cli(capsys, command, clean, *out)
    assert status == 0 and "warning" not in err


def test_info_shows_a_bundle_whose_settings_do_not_decode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # info failed on settings YAML that does not parse, where turns and preview show the
    # bundle and warn; an invalid value was shown with no word at all.
    broken = tmp_path / "broken.lmml"
    broken.write_text("## user\n\nhi\n\n@@@settings.yaml\n: : [\n@@@\n")
    status, err = _cli(capsys, "info", broken)
    assert status == 0
    assert f"lmml: warning: {broken}:6:1: invalid_settings: " in err
    invalid = tmp_path / "invalid.lmml"
    invalid.write_text("---\nsettings:\n  temperature: hot\n---\n## user\n\nhi\n")
    status, err = _cli(capsys, "info", invalid)
    assert status == 0
    assert f"lmml: warning: {invalid}:3:16: invalid_setting: " in err


@pytest.mark.parametrize("kind", sorted(k for k in ERROR_KINDS if k != "missing_input"))
def test_run_refuses_and_forces_each_kind_as_render_does(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # lmml run --dry-run says each error-level kind as render does: refused, and with
    # --force the body is shown and the defect said as the same warning (an unreadable
    # manifest.json stopped run --dry-run --force, which render --force sends).
    path = sample(kind, tmp_path / "bundles")
    status, refused = _cli(capsys, "render", "--provider", "openai", path)
    assert status == 2
    status, err = _cli(capsys, "run", "--dry-run", "--model", "m", path)
    assert (status, err) == (2, refused)
    if kind == BYTES_REFUSED:
        forced = _cli(capsys, "render", "--force", "--provider", "openai", path)
        assert _cli(capsys, "run", "--dry-run", "--force", "--model", "m", path) == forced
        _refused_bytes(*forced)
        return
    status, forced = _cli(capsys, "render", "--force", "--provider", "openai", path)
    assert status == 0
    status, err = _cli(capsys, "run", "--dry-run", "--force", "--model", "m", path)
    assert status == 0, err
    assert [line for line in err.splitlines() if f": {kind}: " in line] == [
        line for line in forced.splitlines() if f": {kind}: " in line
    ]


def test_run_refuses_to_record_a_reply_in_a_manifest_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --force sends a defect, but a run writes its reply's record into manifest.json: it
    # refuses before anything is sent (no connection is tried), saying so, the file kept.
    path = sample("invalid_manifest", tmp_path / "bundles")
    before = path.read_bytes()
    url = "http://127.0.0.1:9/v1"
    status, err = _cli(capsys, "run", "--force", "--model", "m", "--base-url", url, path)
    assert status == 2
    assert err == (
        f"lmml: error: {path}!manifest.json:1:6: invalid_manifest: not valid JSON: Expecting "
        "',' delimiter (a run records each reply in manifest.json, so it cannot send a "
        "bundle whose manifest it cannot read, even with --force: fix the manifest first "
        "(--dry-run --force shows the body))\n"
    )
    assert path.read_bytes() == before
    with lmml_mdit.open(path) as bundle, pytest.raises(lmml_mdit.LmmlError) as raised:
        bundle.send("openai", model="m", base_url=url, strict=False)
    assert raised.value.kind == "invalid_manifest"
    assert "even with strict=False" in str(raised.value)


def test_export_says_a_setting_out_of_the_providers_range_as_render_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The body goes out with temperature 2.5 either way; render --request and run said so,
    # export said nothing (its workers dropped the SettingRangeWarning).
    path = sample("setting_out_of_range", tmp_path / "bundles")
    status, said = _cli(capsys, "render", "--request", "--model", "m", path)
    assert status == 0
    [warning] = said.splitlines()
    assert re.match(
        rf"lmml: warning: {re.escape(str(path))}:\d+:\d+: setting 'temperature' is 2\.5: ", warning
    )
    out = tmp_path / "out.jsonl"
    status, err = _cli(capsys, "export", path.parent, "--provider", "openai", "--jsonl", out)
    assert status == 0
    assert err.splitlines()[0] == warning
    assert json.loads(out.read_text(encoding="utf-8"))["temperature"] == 2.5
    report = lmml_mdit.export_folder(path.parent, "openai", tmp_path / "api.jsonl")
    located = f"{path.name}{warning.split(str(path), 1)[1]}"
    assert [(p, w) for p, w in report.warnings] == [(str(path), located)]


def test_a_missing_reference_sent_anyway_is_sent_once_as_written(tmp_path: Path) -> None:
    # In a sentence the text already holds the mention: no second '@chart.png' part. On a
    # line of its own the line left the text, so its '@name' stands where it was.
    text = "## user\n\nLook at @chart.png please\n\n@other.png\n"
    bundle = lmml_mdit.Bundle.from_text("m", text, base_dir=tmp_path)
    with pytest.warns(DefectWarning):
        [message] = bundle.messages(strict=False)
    said = [part["text"] for part in message["content"]]
    assert said == ["Look at @chart.png please", "@other.png"]


def test_the_force_help_and_docs_name_what_force_cannot_send(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--force`` sends every refused kind but ``unsendable_embed``: its help and the CLI
    docs say so, rather than "every kind"."""
    assert main(["render", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "an embed the provider cannot take still fails" in help_text
    docs = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text("utf-8")
    assert "(every kind)" not in docs
    assert "So is an\nembed the provider cannot take (`unsendable_embed`" in docs


@pytest.mark.parametrize(
    "command",
    [
        ["render"],
        ["render", "--request", "--model", "m"],
        ["run", "--api-key", "k", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"],
        ["eval", "--cases", "CASES", "--target", "openai:m"],
    ],
)
def test_a_refused_send_says_every_defect_that_refuses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """validate lists them all; a refusal said only the first, so a fix, a rerun and the
    next refusal took as many runs as there were defects."""
    path = tmp_path / "chat.lmml"
    path.write_text("## user\nsee @gone.png and @gone.png\n\n## assistant\n@@@notes.txt\nhi\n")
    before = path.read_bytes()
    (tmp_path / "cases.jsonl").write_text("{}\n")
    command = [str(tmp_path / "cases.jsonl") if arg == "CASES" else arg for arg in command]
    status, err = _cli(capsys, *command[:1], path, *command[1:])
    assert status == 2
    first, unclosed, count = err.splitlines()
    assert first.startswith(f"lmml: error: {path}:2:5: missing_reference: ")
    assert first.endswith(
        "(fix it, or add --force to send anyway); 2 missing reference(s): gone.png (2)"
    )
    assert unclosed.startswith(f"lmml: error: {path}:5:1: unclosed_embed: ")
    assert count == (
        f"lmml: error: {path}: 3 error-level defects refuse the send (fix them, or add "
        "--force to send anyway)"
    )
    assert path.read_bytes() == before
    # One defect is said as before, on one line.
    path.write_text("## user\nsee @gone.png\n")
    status, err = _cli(capsys, *command[:1], path, *command[1:])
    [line] = err.splitlines()
    assert status == 2 and line.startswith(f"lmml: error: {path}:2:5: missing_reference: ")
