"""Every command that sends or shows a bundle reports each ``suspicious_delimiter``
(issue 26): one ``lmml: warning:`` line for the CLI, a ``DefectWarning`` for the API, a mark
in the preview at that line; ``render --strict`` and ``export --strict`` fail on it."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from lmml_mdit import Bundle, DefectWarning, render_html
from lmml_mdit.cli import main
from lmml_mdit.errors import DefectError

CHAT = "## Turn 1 - user\n\nhi\n\n**Assistant:**\n\nhello\n\n## Turn 3: user\n\nthanks\n"
"""Two new delimiter forms, and a bold label between them (line 5, column 3)."""


def _defects(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if isinstance(w.message, DefectWarning)]


def test_the_api_warns_each_near_miss_on_every_send_and_show() -> None:
    bundle = Bundle.from_text("chat", CHAT)
    assert [t.role for t in bundle.narrative.turns] == ["user", "user"]
    for send in (
        lambda: bundle.messages("openai"),
        lambda: bundle.to_request("anthropic", model="m"),
        lambda: render_html(bundle),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            send()
        [text] = _defects(caught)
        assert text.startswith("chat.lmml:5:3: suspicious_delimiter: the line '**Assistant:**'")
        assert "did you mean '## assistant'?" in text


def test_a_warning_filter_turns_the_near_miss_into_a_refusal() -> None:
    bundle = Bundle.from_text("chat", CHAT)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DefectWarning)
        with pytest.raises(DefectWarning) as raised:
            bundle.messages("openai")
    assert isinstance(raised.value.error, DefectError)
    assert raised.value.issue.kind == "suspicious_delimiter"


def test_the_preview_marks_the_line() -> None:
    page = render_html(Bundle.from_text("chat", CHAT))
    marks = re.findall(
        r'<p class="lmml-suspicious"[^>]*data-lmml-line="(\d+)"[^>]*>(.*?)</p>', page
    )
    assert [line for line, _ in marks] == ["5"]
    assert "suspicious delimiter" in marks[0][1] and "did you mean" in marks[0][1]
    # The mark stands in the first turn's card, just before the label it is about.
    card = page[page.index('id="turn-1"') : page.index('id="turn-2"')]
    assert card.index("lmml-suspicious") < card.index("<strong>Assistant:</strong>")


@pytest.fixture
def chat(tmp_path: Path) -> Path:
    folder = tmp_path / "chats"
    folder.mkdir()
    path = folder / "chat.lmml"
    path.write_text(CHAT, encoding="utf-8")
    return path


def _run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    "command",
    [
        ["render"],
        ["render", "--request", "--provider", "gemini", "--model", "m"],
        ["preview", "-o", "-"],
        ["turns"],
    ],
    ids=["render", "render-request", "preview", "turns"],
)
def test_each_command_prints_one_warning_line(
    command: list[str], chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _run(capsys, *command, chat)
    assert status == 0 and out
    assert err.splitlines() == [
        f"lmml: warning: {chat}:5:3: suspicious_delimiter: the line '**Assistant:**' looks "
        "like a role label but is no delimiter, so what follows stays in the turn before it "
        "(did you mean '## assistant'?); write the label as a heading on its own line, or "
        "reword it"
    ]


def test_to_md_prints_it_too(chat: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "to-md", chat, "-")
    assert status == 0 and "**Assistant:**" in out
    [line] = err.splitlines()
    assert line.startswith(f"lmml: warning: {chat}:5:3: suspicious_delimiter: the line ")


def test_export_reports_it_and_strict_fails(chat: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = chat.parent.parent / "out.jsonl"
    status, _, err = _run(capsys, "export", chat.parent, "--provider", "openai", "--jsonl", out)
    assert status == 0 and out.read_text(encoding="utf-8").count("\n") == 1
    [line] = [line for line in err.splitlines() if "suspicious_delimiter" in line]
    assert line.startswith(f"lmml: warning: {chat}:5:3: suspicious_delimiter: the line ")
    out.unlink()
    status, _, err = _run(
        capsys, "export", chat.parent, "--provider", "openai", "--jsonl", out, "--strict"
    )
    assert status == 1 and "lmml: error: " in err and "suspicious_delimiter" in err
    assert out.read_text(encoding="utf-8") == ""


def test_render_strict_fails_and_writes_nothing(
    chat: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _run(capsys, "render", "--strict", chat)
    assert status == 2 and out == ""
    assert err.splitlines() == [
        f"lmml: error: {chat}:5:3: suspicious_delimiter: the line '**Assistant:**' looks like "
        "a role label but is no delimiter, so what follows stays in the turn before it (did "
        "you mean '## assistant'?); write the label as a heading on its own line, or reword it"
    ]
    status, _, err = _run(capsys, "render", "--strict", "--force", chat)
    assert status == 2 and "cannot be given together" in err


def test_a_refused_send_still_reports_the_near_miss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "chat.lmml"
    path.write_text(CHAT + "\nsee @gone.png\n", encoding="utf-8")
    status, _, err = _run(capsys, "render", path)
    lines = err.splitlines()
    assert status == 2 and len(lines) == 2
    assert lines[0].startswith(f"lmml: warning: {path}:5:3: suspicious_delimiter: ")
    assert lines[1].startswith(f"lmml: error: {path}:13:5: missing_reference: ")


def test_near_misses_are_the_same_through_every_parse() -> None:
    """The fast parse (inline content parsed on demand), the full parse and a user's own
    pipeline with the plugin mark the same near misses, with html on or off."""
    from markdown_it import MarkdownIt

    from lmml_mdit import lmml_plugin, parse
    from lmml_mdit.syntax import delimiter_issues

    chats = Path(__file__).resolve().parent / "pasted_chats"
    texts = [path.read_text(encoding="utf-8") for path in sorted(chats.glob("*.lmml"))]
    texts.append("<!-- asistant -->\nhi\n\n<!-- bot -->\n\n**User:** @x.png here\n")
    for text in texts:
        fast = delimiter_issues(parse(text))
        assert fast == delimiter_issues(parse(text, full_parse=True))
        for preset in ("commonmark", "gfm-like"):
            md = MarkdownIt(preset).use(lmml_plugin)
            assert delimiter_issues(parse(text, md=md)) == fast


def test_label_lines_with_no_blank_line_between_are_each_reported_and_marked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A chat pasted with one label per line, no blank line between: each line is a near
    miss, said by render and marked in the preview at its own line."""
    path = tmp_path / "chat.lmml"
    path.write_text(
        "User: my build fails\nAssistant: which error?\nUser: no space left\n", encoding="utf-8"
    )
    status, _, err = _run(capsys, "render", path)
    assert status == 0
    assert [line.split(": suspicious_delimiter")[0] for line in err.splitlines()] == [
        f"lmml: warning: {path}:{n}:1" for n in (1, 2, 3)
    ]
    page = render_html(Bundle.from_text("chat", path.read_text(encoding="utf-8")))
    marks = re.findall(r'<p class="lmml-suspicious"[^>]*data-lmml-line="(\d+)"', page)
    assert marks == ["1", "2", "3"]


def test_render_cases_keeps_each_near_miss_on_the_case_result() -> None:
    """``render_cases`` says a near miss as data on each result (docs/templates.md), as
    ``lmml render --cases`` prints it."""
    from lmml_mdit import render_cases

    template = "---\ninputs:\n  q: string\n---\n\n## system\nBe brief.\n\n**User:**\n{{ q }}\n"
    bundle = Bundle.from_text("t", template)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        [result] = render_cases(bundle, [{"q": "hi"}], model="m")
    assert _defects(caught) == []
    [said] = result.warnings
    assert said.startswith("t.lmml:9:3: suspicious_delimiter: the line '**User:**'")
