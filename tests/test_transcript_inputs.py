"""A template's values in a transcript read back as the text ``messages(inputs=...)``
sends (issue 26, "Earlier promises kept"): a value's own backslash is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from lmml_mdit import Bundle, Transcript

PNG = b"\x89PNG\r\n\x1a\n" + bytes(32)
HEAD = "---\ninputs:\n  q: {type: string}\n---\n## Turn 1 -- user\n\n"


def sent_text(bundle: Bundle, value: str) -> str:
    content = bundle.messages(inputs={"q": value}, strict=False)[0]["content"]
    return "".join(part["text"] for part in content if part["type"] == "text")


@pytest.mark.parametrize("line", ["Ask: {{ q }}", "{{ q }}", "- item {{ q }} end", "> {{ q }}"])
@pytest.mark.parametrize("kind", ["zip", "text"])
@pytest.mark.parametrize("value", ["\\@secret.png", "see \\@secret.png and \\@x.txt"])
def test_a_backslash_before_at_in_a_value_is_kept(
    line: str, kind: str, value: str, tmp_path: Path
) -> None:
    text = HEAD + line + "\n"
    bundle = (
        Bundle.from_zip("t", text, {"secret.png": PNG})
        if kind == "zip"
        else Bundle.from_text("t", text)
    )
    sent = sent_text(bundle, value)
    assert value in sent
    transcript = Transcript.from_bundle(bundle, inputs={"q": value})
    assert transcript[0].content == sent
    assert transcript.render_roles(pov="assistant")[0]["content"] == sent
    parts = transcript.render_roles(pov="assistant", parts=True)[0]["content"]
    assert [part["type"] for part in parts] == ["text"]  # the value references no asset
    path = tmp_path / "filled.lmmlz"
    transcript.save(path)
    assert Transcript.load(path)[0].content == sent
