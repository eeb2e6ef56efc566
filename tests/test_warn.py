"""Every warning of the package names the caller's file and line, whichever public function
the call came through."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from lmml_mdit import (
    Bundle,
    MissingSettingWarning,
    NativeItemDroppedWarning,
    UnknownSettingWarning,
    to_request,
)

CHAT = (
    "## user\n\nHi\n\n## assistant\n\n"
    '@@@anthropic.thinking.1.json\n{"type": "thinking", "thinking": "t", "signature": "s"}\n@@@\n\n'
    "Hello.\n"
)


def _caught(call: object) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert callable(call)
        call()
    return caught


@pytest.mark.parametrize(
    "call",
    [
        lambda: to_request(Bundle.from_text("c", CHAT), "openai", model="m", settings={"top_k": 3}),
        lambda: Bundle.from_text("c", CHAT).to_request("openai", model="m", settings={"top_k": 3}),
        lambda: Bundle.from_text("c", CHAT).to_request("anthropic", model="m"),
        lambda: Bundle.from_text("c", CHAT).messages("gemini"),
    ],
)
def test_warnings_point_at_the_caller(call: object) -> None:
    caught = _caught(call)
    assert caught
    for found in caught:
        assert issubclass(
            found.category, (UnknownSettingWarning, MissingSettingWarning, NativeItemDroppedWarning)
        )
        assert found.filename == __file__, (found.filename, found.message)


def test_a_prompt_file_warning_points_at_the_caller(tmp_path: Path) -> None:
    from lmml_mdit.errors import PromptFileWarning
    from lmml_mdit.promptfiles import convert, import_prompt_file

    source = tmp_path / "p.prompty"
    source.write_text(
        "---\nmodel:\n  api: chat\n  parameters:\n    logprobs_x: 2\n---\nuser:\nhi\n", "utf-8"
    )
    for call in (
        lambda: import_prompt_file(source, tmp_path / "a.lmml"),
        lambda: convert(source, tmp_path / "b.lmml"),
    ):
        caught = _caught(call)
        assert [found.category for found in caught] == [PromptFileWarning]
        assert caught[0].filename == __file__, (caught[0].filename, caught[0].message)
