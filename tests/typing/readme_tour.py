"""A user's program: the README's API tour as code a user checks with ``mypy --strict`` and
pyright in strict mode (tests/test_typing.py runs both on it; it is not run)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

import lmml_mdit
from lmml_mdit.dataset import from_arrow, to_arrow


def tour(folder: Path) -> list[str]:
    """Every step of the README's tour, each result kept in a typed name."""
    md = MarkdownIt("commonmark").use(lmml_mdit.lmml_plugin)
    env: dict[str, Any] = {}
    html: str = md.render("See @chart.png.\n\n@@@notes.txt\nhello\n@@@\n", env)
    embeds: list[lmml_mdit.Embed] = env["lmml_embeds"]

    narrative: lmml_mdit.Narrative = lmml_mdit.parse("## Turn 1 -- user\nLook.\n")
    turns: list[tuple[lmml_mdit.Role | None, str]] = [
        (turn.role, turn.text) for turn in narrative.turns
    ]

    bundle: lmml_mdit.Bundle = lmml_mdit.open(folder / "sales-review.lmmlz")
    issues: list[lmml_mdit.Issue] = bundle.validate()
    severities = [issue.severity for issue in issues]
    chart: bytes = bundle.embed("chart.png")
    model = (bundle.settings or {}).get("model")

    messages = bundle.messages(provider="openai")
    body = bundle.to_request(provider="anthropic", model="claude-x")
    parts = lmml_mdit.render_turns(bundle)

    page: str = lmml_mdit.render_html(bundle)
    text: str = lmml_mdit.to_markdown(bundle)

    transcript = lmml_mdit.Transcript.from_bundle(bundle)
    transcript.append("user", "And next year?")
    transcript.to_bundle("sales-review").save(folder / "edited.lmmlz")

    imported: lmml_mdit.Bundle = lmml_mdit.import_messages(
        {"messages": [{"role": "user", "content": "hi"}]}
    )

    rows = to_arrow(str(folder), providers=["openai"]).read_all()
    bundles = list(from_arrow(rows))

    warnings.filterwarnings("ignore", category=lmml_mdit.LmmlWarning)
    try:
        lmml_mdit.open(folder / "missing.lmml")
    except lmml_mdit.LmmlError as error:
        return [str(error)]
    return [
        html,
        str(len(embeds)),
        str(turns),
        str(severities),
        str(len(chart)),
        str(model),
        str(len(messages)),
        str(sorted(body)),
        str(len(parts)),
        page,
        text,
        imported.name,
        str(len(bundles)),
        lmml_mdit.__version__,
    ]
