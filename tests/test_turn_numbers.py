"""One turn numbering: ``lmml turns``, the preview, validate and error messages agree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from xss_corpus import parse_document, sample_bundle

import lmml_mdit
from lmml_mdit import Bundle, render_html
from lmml_mdit.errors import DefectError
from lmml_mdit.narrative import CONTEXT_TURN_NUMBER, numbered_turns, turn_label

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

MIXED = (
    "Preamble.\n\n"
    "<!-- system -->\nBe brief.\n\n"
    "## Turn 1 -- user\nhi\n\n"
    "# Assistant\nhello\n\n"
    "## Tool\nno reference on the first line\n"
)


def _cli_numbers(path: Path) -> list[int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "lmml_mdit", "turns", "--json", str(path)],
        capture_output=True,
        env=env,
        timeout=120,
        check=True,
    )
    return [row["number"] for row in json.loads(result.stdout)]


def _card_anchors(bundle: Bundle) -> list[str | None]:
    root = parse_document(render_html(bundle)).root
    return [card.get("id") for card in root.find_all("section", "lmml-turn")]


def _anchor(number: int) -> str:
    return "turn-context" if number == CONTEXT_TURN_NUMBER else f"turn-{number}"


def test_message_turns_count_from_one_and_context_is_zero() -> None:
    narrative = lmml_mdit.parse(MIXED)
    numbered = [(number, turn.role) for number, turn in numbered_turns(narrative.turns)]
    assert numbered == [(0, "context"), (1, "system"), (2, "user"), (3, "assistant"), (4, "tool")]
    assert [narrative.turn_number(turn) for turn in narrative.turns] == [0, 1, 2, 3, 4]
    without_context = lmml_mdit.parse("## User\na\n## Assistant\nb\n")
    assert [n for n, _ in numbered_turns(without_context.turns)] == [1, 2]
    assert list(numbered_turns(())) == []
    with pytest.raises(KeyError):
        narrative.turn_number(without_context.turns[1])


def test_turn_label() -> None:
    narrative = lmml_mdit.parse(MIXED)
    labels = [turn_label(number, turn) for number, turn in numbered_turns(narrative.turns)]
    assert labels == [
        "the context turn",
        "turn 1 (system)",
        "turn 2 (user)",
        "turn 3 (assistant)",
        "turn 4 (tool)",
    ]


def test_cli_preview_validate_and_errors_agree(tmp_path: Path) -> None:
    path = tmp_path / "mixed.lmml"
    path.write_text(MIXED, encoding="utf-8")
    bundle = Bundle.from_text("mixed", MIXED)
    expected = [number for number, _ in numbered_turns(bundle.narrative.turns)]
    assert _cli_numbers(path) == expected == [0, 1, 2, 3, 4]
    assert _card_anchors(bundle) == [_anchor(number) for number in expected]
    (issue,) = [i for i in bundle.validate() if i.kind == "unknown_tool_call_id"]
    assert issue.message.startswith("turn 4 (tool) does not start with a reference")
    with pytest.raises(DefectError, match=r"turn 4 \(tool\) does not start"):
        bundle.messages("openai")


def test_a_tool_turn_naming_an_unknown_call_is_named_by_its_number() -> None:
    text = "## User\nq\n\n## Tool\n@nope.tool_call.json\nresult\n"
    bundle = Bundle.from_text("t", text)
    (issue,) = [i for i in bundle.validate() if i.kind == "unknown_tool_call_id"]
    assert issue.message.startswith("turn 2 (tool) answers nope.tool_call.json")
    with pytest.raises(DefectError, match=r"turn 2 \(tool\) answers nope"):
        bundle.messages("openai")


def test_shown_numbers_are_the_cli_numbers_when_the_author_agrees() -> None:
    bundle = sample_bundle()  # context, then "## Turn 1 -- system", ...
    root = parse_document(render_html(bundle)).root
    cards = root.find_all("section", "lmml-turn")
    shown = [[n.text for n in card.find_all("span", "lmml-turn-number")] for card in cards]
    numbers = [number for number, _ in numbered_turns(bundle.narrative.turns)]
    assert shown == [[] if n == 0 else [f"Turn {n}"] for n in numbers]
    # The author's own "Turn N" headings are the same numbers, so none is repeated.
    assert root.find_all("span", "lmml-turn-title") == []


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.lmml*")), ids=lambda p: p.name)
def test_examples_agree_between_cli_and_preview(path: Path) -> None:
    with lmml_mdit.open(path, base_dir=path.parent) as bundle:
        numbers = [number for number, _ in numbered_turns(bundle.narrative.turns)]
        markup = render_html(bundle)
        anchors = _card_anchors(bundle)
        headings = [turn.heading for turn in bundle.narrative.turns]
    assert _cli_numbers(path) == numbers
    assert anchors == [_anchor(number) for number in numbers]
    root = parse_document(markup).root
    shown = {n.text for n in root.find_all("span", "lmml-turn-number")}
    for number, heading in zip(numbers, headings, strict=True):
        # Never the page's "Turn N" beside an author's heading stating another number.
        if (
            heading is not None
            and heading.startswith("Turn ")
            and f"Turn {number} " not in (heading + " ")
        ):
            assert shown == set()


def test_the_weather_example_shows_the_authors_numbers_only() -> None:
    # Its author does not count the leading <!-- system --> turn: "## Turn 1 -- user" is
    # turn 2 to lmml turns and validate, so the page shows the headings, not its numbers.
    path = EXAMPLES / "weather-tools.lmml"
    with lmml_mdit.open(path, base_dir=path.parent) as bundle:
        root = parse_document(render_html(bundle)).root
    cards = root.find_all("section", "lmml-turn")
    assert [card.find_all("span", "lmml-turn-number") for card in cards] == [[]] * len(cards)
    titles = [[t.text for t in card.find_all("span", "lmml-turn-title")] for card in cards]
    assert titles == [
        [],
        ["Turn 1 -- user"],
        ["Turn 2 -- assistant"],
        ["Turn 3 -- tool"],
        ["Turn 4 -- assistant"],
    ]
    assert [card.get("id") for card in cards] == [f"turn-{n}" for n in range(1, 6)]
