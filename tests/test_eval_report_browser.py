"""The eval report in a real browser, driven as the preview is (tests/test_preview_browser.py):
answers written by a real run through the OpenAI SDK, hostile ones from the XSS corpus among
them; no script runs, every cell is there and opens without JavaScript, the CSP holds."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from _wire_server import Said, WireServer, openai_chat
from test_preview_browser import Browser
from xss_corpus import CASES, SENTINEL

import lmml_mdit
from lmml_mdit.eval import Target, aevaluate, write_report

pytestmark = pytest.mark.browser

TEMPLATE = """\
---
inputs:
  city: string
expect:
  - equals: fine
---
## user

Say something about {{ city }}.
"""


def test_the_report_in_chromium(browser: Browser, tmp_path: Path, server: WireServer) -> None:
    hostile = [case.text for case in CASES]
    count = len(hostile)
    (tmp_path / "t.lmml").write_text(TEMPLATE, encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text(
        "".join(f'{{"city": "c{n}"}}\n' for n in range(count)), encoding="utf-8"
    )
    targets = [Target("openai", "a", server.url + "/v1"), Target("openai", "b", server.url + "/v1")]
    # target a gets the hostile answers (each fails equals), target b plain ones
    server.script(*(openai_chat(Said([text]), stream=False) for text in hostile))
    server.script(*(openai_chat(Said(["fine"]), stream=False) for _ in range(count)))
    bundle = lmml_mdit.open(tmp_path / "t.lmml")
    out = tmp_path / "out.jsonl"
    for target in targets:
        summary = asyncio.run(aevaluate(bundle, tmp_path / "cases.jsonl", [target], out))
        assert summary.rows == count and summary.errors == []
    report = tmp_path / "report.html"
    write_report(out, report)
    browser.open(report.as_uri())

    assert browser.page_scripts() == []
    assert browser.dialogs() == []
    assert browser.console_errors() == []
    assert browser.evaluate(f"typeof window.{SENTINEL}") == "undefined"
    policy = browser.evaluate(
        "document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]').content"
    )
    assert "default-src 'none'" in policy
    grid = browser.evaluate(
        "[...document.querySelectorAll('table')].at(-1).querySelectorAll('tr').length"
    )
    assert grid == count + 1  # the header row and one row a case
    cells = browser.evaluate(
        "[...document.querySelectorAll('details')].map(d => d.className"
        " + ':' + d.querySelector('pre').textContent)"
    )
    assert len(cells) == 2 * count
    shown = {cell.partition(":")[2] for cell in cells if cell.startswith("fail:")}
    assert shown == set(hostile)  # each hostile answer shown as its own text
    assert sum(cell == "pass:fine" for cell in cells) == count
    opened = browser.evaluate(
        "[...document.querySelectorAll('details')].forEach(d => d.open = true),"
        " [...document.querySelectorAll('details pre')].every(p => p.offsetHeight > 0)"
    )
    assert opened is True
    rates = browser.evaluate(
        "[...document.querySelectorAll('table')][0].innerText.replace(/\\s+/g, ' ')"
    )
    assert f"0/{count} (0%)" in rates and f"{count}/{count} (100%)" in rates
