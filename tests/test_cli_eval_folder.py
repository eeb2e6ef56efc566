"""``lmml eval PATH`` with no ``--cases``, over a folder (or a Parquet file) of bundles: a
bundle that does not open, or whose front matter ``expect`` is malformed, is that case's
error, said once at the bundle's own path, line and column, the others still evaluated;
the clients of the targets are closed when the run ends. Run in-process against the
loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _sdk_clients import open_clients
from _wire_server import Said, WireServer, openai_chat

from lmml_mdit.cli import main
from lmml_mdit.eval import BundleFailure, iter_bundle_cases

BAD_UTF8 = b"## user\n\nCapital of \xff?\n"
BAD_EXPECT = "---\nexpect:\n  - contanes: Paris\n---\n## user\n\nCapital of France?\n"
KINDS = (
    "the kinds are equals, contains, not-contains, regex, json, json-schema, tool-call, "
    "max-latency, max-tokens, judge (write expect as a list of one-key mappings, e.g. "
    "[{contains: Paris}]; see docs/eval.md)"
)


def _eval(path: Path, out: Path, target: str, *more: str) -> int:
    argv = ["eval", str(path), "--target", target, "--concurrency", "1", "--no-cache"]
    return main([*argv, "--out", str(out), *more])


def _runs(tmp_path: Path, *bad: str) -> Path:
    """``runs/a.lmml`` (good), and of *bad*: ``runs/b.lmml`` (not UTF-8 on its line 3),
    ``runs/sub/c.lmml`` (an unknown assertion in its front matter ``expect``, line 2)."""
    runs = tmp_path / "runs"
    (runs / "sub").mkdir(parents=True)
    (runs / "a.lmml").write_text("## user\n\nCapital of France?\n", encoding="utf-8")
    if "b.lmml" in bad:
        (runs / "b.lmml").write_bytes(BAD_UTF8)
    if "sub/c.lmml" in bad:
        (runs / "sub" / "c.lmml").write_text(BAD_EXPECT, encoding="utf-8")
    return runs


def _one_row(tmp_path: Path, server: WireServer, said: list[str]) -> None:
    """The run wrote a.lmml's row alone, after the errors; one request was sent."""
    assert said[-1].startswith("1 row(s): 1 passed, 0 failed")
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [(row["bundle"], row["passed"]) for row in rows] == [("a.lmml", True)]
    assert len(server.requests) == 1


@pytest.mark.parametrize("name", ["b.lmml", "x!b.lmml"])
def test_a_bundle_that_does_not_open_is_said_once_at_its_own_place(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Not ``runs/b.lmml:2: b.lmml:3: ...`` (the case's number where a line goes, the
    place said twice): the bundle's path and its own line, once, with the hint. A ``!``
    in a bare narrative's name is no archive entry's mark: ``runs/x!b.lmml:3``, as for
    any bundle (not the error whole after the path, as when its place was text split at
    the ``!``)."""
    runs = _runs(tmp_path)
    (runs / name).write_bytes(BAD_UTF8)
    server.script(openai_chat(Said(["Paris"]), stream=False))
    assert _eval(runs, tmp_path / "out.jsonl", f"openai:m@{server.url}/v1") == 1
    said = capsys.readouterr().err.splitlines()
    assert said[:-1] == [
        f"lmml: error: {runs / name}:3:12: invalid UTF-8 at byte offset 20 (invalid start "
        "byte) (save the narrative as UTF-8)",
    ]
    _one_row(tmp_path, server, said)


def test_a_malformed_front_matter_expect_is_that_bundles_error(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """It no longer stops the run (exit 2, naming ``c.lmml`` without its folder): it is
    said at the bundle's path and the ``expect:`` key's line and column, the other
    bundles still evaluated, and the run exits 1 as for a bundle that does not render."""
    runs = _runs(tmp_path, "sub/c.lmml")
    server.script(openai_chat(Said(["Paris"]), stream=False))
    assert _eval(runs, tmp_path / "out.jsonl", f"openai:m@{server.url}/v1") == 1
    said = capsys.readouterr().err.splitlines()
    assert said[:-1] == [
        f"lmml: error: {runs / 'sub' / 'c.lmml'}:2:1: unknown assertion 'contanes'; " + KINDS,
    ]
    _one_row(tmp_path, server, said)


def test_iter_bundle_cases_carries_the_error_of_a_bundle_that_does_not_open(
    tmp_path: Path,
) -> None:
    """What it yields is the text it always gave, now carrying the error and its place."""
    runs = _runs(tmp_path, "b.lmml", "sub/c.lmml")
    found = {name: opened for _, name, opened in iter_bundle_cases(runs)}
    failure = found["b.lmml"]
    assert isinstance(failure, BundleFailure) and isinstance(failure, str)
    assert failure == "b.lmml:3:12: invalid UTF-8 at byte offset 20 (invalid start byte)"
    assert failure.error.place() == ("b.lmml", 3, 12)
    assert not isinstance(found["a.lmml"], str) and not isinstance(found["sub/c.lmml"], str)


def test_a_row_of_a_parquet_file_of_bundles_is_named_by_its_row_and_bundle(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """``bundles.parquet:ROW: BUNDLE:LINE:COL: reason``: the row, then the row's bundle
    with its own place, each said once (was ``bundles.parquet/BUNDLE:ROW: ...``)."""
    pytest.importorskip("pyarrow")
    runs = _runs(tmp_path, "b.lmml", "sub/c.lmml")
    rows = tmp_path / "bundles.parquet"
    assert main(["export", str(runs), "--parquet", str(rows), "--workers", "1"]) == 1
    capsys.readouterr()  # export's own report of b.lmml
    target = f"openai:m@{server.url}/v1"
    server.script(openai_chat(Said(["Paris"]), stream=False))
    assert _eval(rows, tmp_path / "out.jsonl", target) == 1
    said = capsys.readouterr().err.splitlines()
    assert said[:2] == [
        f"lmml: error: {rows}:2: b.lmml: the row holds no bundle: it failed with "
        "LmmlSyntaxError: b.lmml:3:12: invalid UTF-8 at byte offset 20 (invalid start byte) "
        "(save the narrative as UTF-8) (fix the bundle and export it again, or pass "
        "errors='skip')",
        f"lmml: error: {rows}:3: sub/c.lmml:2:1: unknown assertion 'contanes'; " + KINDS,
    ]
    assert f"{rows}/" not in "\n".join(said)
    assert len(server.requests) == 1


@pytest.mark.usefixtures("only_this_tests_objects")
@pytest.mark.parametrize("front", ["", "---\ntemperature: 9\n---\n"])
def test_no_client_is_left_open_after_a_run(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str], front: str
) -> None:
    """The client of each target is closed when the run ends (it was cached open past the
    run's event loop, its connection reported as an unclosed transport at exit), a bundle
    whose rendering warns (a temperature out of range) included."""
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a.lmml").write_text(f"{front}## user\n\nCapital of France?\n", encoding="utf-8")
    target = f"openai:m@{server.url}/v1"
    before = open_clients()
    for out in ("one.jsonl", "two.jsonl"):
        server.script(openai_chat(Said(["Paris"]), stream=False))
        assert _eval(runs, tmp_path / out, target) == 0
    assert len(server.requests) == 2
    assert open_clients() <= before  # none left open by these runs
    capsys.readouterr()


def test_each_bundles_warning_is_said_at_its_own_place_as_render_says_it(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two bundles of the folder with the same near miss each have it said (the second
    was dropped: the warnings were said once a target by their text, which named only
    the bundle's bare file name), at the bundle's path, line and column, once: as
    ``lmml render --force`` and an eval error place it (it was
    ``runs/a/chat.lmml: TARGET: chat.lmml:5:3: ...``)."""
    runs = tmp_path / "runs"
    for folder in ("a", "b"):
        (runs / folder).mkdir(parents=True)
        (runs / folder / "chat.lmml").write_text(
            "## user\n\nhi\n\n**Assistant:**\n\nhello\n", encoding="utf-8"
        )
    server.script(*[openai_chat(Said(["Paris"]), stream=False)] * 2)
    target = f"openai:m@{server.url}/v1"
    assert _eval(runs, tmp_path / "out.jsonl", target) == 0
    warned = [line for line in capsys.readouterr().err.splitlines() if "lmml: warning" in line]
    assert main(["render", str(runs / "a" / "chat.lmml")]) == 0
    [rendered] = [line for line in capsys.readouterr().err.splitlines() if "lmml: warning" in line]
    wording = rendered.partition(":5:3: ")[2]
    assert wording.startswith("suspicious_delimiter: the line '**Assistant:**'")
    assert warned == [
        f"lmml: warning: {runs / folder / 'chat.lmml'}:5:3: {target}: {wording}"
        for folder in ("a", "b")
    ]


@pytest.mark.parametrize("force", [False, True])
def test_a_front_matter_that_does_not_parse_is_that_bundles_defect(
    tmp_path: Path, server: WireServer, capsys: pytest.CaptureFixture[str], force: bool
) -> None:
    """It stopped the whole run (exit 2, ``c.lmml:2:13`` without its folder, and
    ``--force`` could not send it): it is now that bundle's ``invalid_front_matter``, said
    at its path, line and column as ``lmml render`` says it, the others still evaluated;
    ``--force`` sends it with the defect said as a warning."""
    runs = _runs(tmp_path)
    bad = runs / "sub" / "c.lmml"
    bad.write_text("---\ntitle: [oops\n---\n## user\n\nhi\n", encoding="utf-8")
    assert main(["render", str(bad)]) == 2
    [refused] = capsys.readouterr().err.splitlines()
    wording = refused.partition(f"{bad}:2:13: ")[2]
    assert wording.startswith("invalid_front_matter: not valid front matter YAML")
    server.script(*[openai_chat(Said(["Paris"]), stream=False)] * 2)
    target = f"openai:m@{server.url}/v1"
    more = ["--force"] if force else []
    status = _eval(runs, tmp_path / "out.jsonl", target, *more)
    said = capsys.readouterr().err.splitlines()
    if force:
        assert status == 0
        sent = wording.removesuffix(" (fix it, or add --force to send anyway)")
        assert said[0] == f"lmml: warning: {bad}:2:13: {target}: {sent}"
        assert len(server.requests) == 2
    else:
        assert status == 1
        assert said[:-1] == [f"lmml: error: {bad}:2:13: {target}: {wording}"]
        _one_row(tmp_path, server, said)
