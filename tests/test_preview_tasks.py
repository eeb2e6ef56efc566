"""GFM task lists in the preview (issue 26, "Earlier promises kept"): ``- [x] done`` shows
a disabled, checked checkbox, as 0.1 did, without changing the shared parse."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from test_preview_browser import Browser, browser  # noqa: F401  (the module's fixture)

from lmml_mdit import Bundle, render_html

TEXT = (
    "## Turn 1 -- user\n\n"
    "- [x] done\n- [ ] todo @notes.txt\n- plain\n\n"
    "1. [X]\tshipped *now*\n\n"
    "- no [ ] task here\n- [ ]\n\n"
    "> - [ ] quoted\n"
)


class _Inputs(HTMLParser):
    """The ``<input>`` elements of a page, and the class of each ``<li>`` and list."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: list[dict[str, str | None]] = []
        self.items: list[str | None] = []
        self.lists: list[str | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "input":
            self.inputs.append(dict(attrs))
        elif tag == "li":
            self.items.append(dict(attrs).get("class"))
        elif tag in ("ul", "ol"):
            self.lists.append(dict(attrs).get("class"))


def _page(bundle: Bundle) -> _Inputs:
    found = _Inputs()
    found.feed(render_html(bundle, fragment=True))
    return found


def test_task_items_are_disabled_checkboxes() -> None:
    bundle = Bundle.from_zip("t", TEXT, {"notes.txt": b"n\n"})
    before = [(token.type, token.content) for token in bundle.narrative.tokens]
    found = _page(bundle)
    assert [(box.get("checked"), box.get("disabled"), box.get("type")) for box in found.inputs] == [
        ("checked", "disabled", "checkbox"),
        (None, "disabled", "checkbox"),
        ("checked", "disabled", "checkbox"),
        (None, "disabled", "checkbox"),
    ]
    # The turn's lists first; the page's asset list (notes.txt) follows them.
    assert found.items[:7] == ["task-list-item", "task-list-item", None, "task-list-item", None,
                               None, "task-list-item"]  # fmt: skip
    assert found.lists[:4] == ["contains-task-list", "contains-task-list", None,
                               "contains-task-list"]  # fmt: skip
    page = render_html(bundle, fragment=True)
    assert "[x]" not in page and "[ ] todo" not in page and "no [ ] task here" in page
    assert 'data-lmml-name="notes.txt"' in page  # the reference after the box still renders
    # The shared parse is read, never changed: a second render is the same page.
    assert [(token.type, token.content) for token in bundle.narrative.tokens] == before
    assert render_html(bundle, fragment=True) == page


def test_task_items_in_every_turn() -> None:
    """Each turn's tasks, wherever its lists stand: not only those of the first turn with
    a list, nor only those before a near-miss delimiter's note."""
    text = (
        "## User\n- [x] first turn\n\n"
        "## Assistant\nSome text first.\n\nMore text.\n\n- [ ] second turn\n- plain\n\n"
        "**Assistant:**\n\n- [x] after the note\n\n"
        "<!-- user -->\n1. [X] ordered\n"
    )
    found = _page(Bundle.from_text("t", text))
    assert [box.get("checked") for box in found.inputs] == ["checked", None, "checked", "checked"]
    assert found.items == ["task-list-item", "task-list-item", None, "task-list-item",
                           "task-list-item"]  # fmt: skip
    assert found.lists == ["contains-task-list"] * 4
    assert "[ ]" not in render_html(Bundle.from_text("t", text), fragment=True)


@pytest.mark.browser
def test_task_items_in_the_browser(browser: Browser, tmp_path: Path) -> None:  # noqa: F811
    path = tmp_path / "tasks.html"
    path.write_text(render_html(Bundle.from_text("t", TEXT)), encoding="utf-8")
    browser.open(path.as_uri())
    boxes = browser.evaluate(
        "[...document.querySelectorAll('input[type=checkbox]')].map(b => [b.checked, b.disabled])"
    )
    assert boxes == [[True, True], [False, True], [True, True], [False, True]]
