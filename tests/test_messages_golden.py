"""Golden request bodies per provider for the shipped examples.

The files in ``tests/golden/`` are the contract. After an intended change, regenerate them
with ``UPDATE_GOLDEN=1 python -m pytest tests/test_messages_golden.py`` and review the diff.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import pytest

from lmml_mdit import open as open_bundle
from lmml_mdit import to_request
from lmml_mdit.atomic import atomic_write_bytes
from lmml_mdit.chat.providers import PROVIDERS

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
EXAMPLES = ["sales-review.lmmlz", "weather-tools.lmml"]


def _request(example: str, provider: str) -> dict[str, Any]:
    bundle = open_bundle(ROOT / "examples" / example)
    extra: dict[str, Any] = {}
    if provider == "anthropic" and not (bundle.settings or {}).get("max_tokens"):
        extra["settings"] = {"max_tokens": 1024}
    with warnings.catch_warnings(record=True):
        return to_request(bundle, provider, model="example-model", unknown_settings="warn", **extra)


@pytest.mark.parametrize("provider", list(PROVIDERS))
@pytest.mark.parametrize("example", EXAMPLES)
def test_golden_request(example: str, provider: str) -> None:
    path = GOLDEN / f"{example.rsplit('.', 1)[0]}.{provider}.json"
    actual = _request(example, provider)
    if os.environ.get("UPDATE_GOLDEN") == "1":
        text = json.dumps(actual, indent=2, ensure_ascii=False) + "\n"
        atomic_write_bytes(path, text.encode("utf-8"))
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert actual == expected


def test_golden_sales_review_has_every_kind_of_part() -> None:
    expected = json.loads((GOLDEN / "sales-review.anthropic.json").read_text(encoding="utf-8"))
    kinds = {
        (block["type"], block.get("source", {}).get("media_type"))
        for message in expected["messages"]
        for block in message["content"]
    }
    assert ("image", "image/png") in kinds
    assert ("document", "application/pdf") in kinds
    assert ("document", "text/plain") in kinds  # the CSV
    assert expected["max_tokens"] == 800  # from settings.yaml
