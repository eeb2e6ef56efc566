"""``lmml inline --keep-binary`` and ``lmml to-md`` on inline text assets (issue 26,
"Writing files people read"): text assets become fences, binary ones stay archive entries;
the exported Markdown keeps a text asset's text as a fenced block."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

import lmml_mdit
from lmml_mdit.cli import main

ROOT = Path(__file__).resolve().parent.parent
ZIP_EXAMPLE = ROOT / "examples" / "sales-review.lmmlz"


def test_keep_binary_inlines_text_and_keeps_binary_entries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with lmml_mdit.open(ZIP_EXAMPLE) as source:
        texts = {
            name: source.read(name)
            for name in source.entries
            if name.endswith((".csv", ".py", ".md", ".txt"))
        }
        binaries = {
            name: source.read(name) for name in source.entries if name.endswith((".png", ".pdf"))
        }
        before = source.messages(strict=False)
    assert texts and binaries
    # Without the flag, a binary asset is refused, with the flag named as the way out.
    assert main(["inline", str(ZIP_EXAMPLE), str(tmp_path / "x.lmml")]) == 2
    assert "--keep-binary" in capsys.readouterr().err
    out = tmp_path / "review.lmmlz"
    assert main(["inline", "--keep-binary", str(ZIP_EXAMPLE), str(out)]) == 0
    assert zipfile.is_zipfile(out)
    with lmml_mdit.open(out) as inlined:
        fenced = {embed.name for embed in inlined.narrative.embeds if embed.is_inline}
        assert set(texts) <= fenced
        assert not set(binaries) & fenced
        assert set(binaries) <= set(inlined.entries)
        assert not set(texts) & set(inlined.entries)
        for name, data in {**texts, **binaries}.items():
            assert inlined.embed(name) == data
        assert [i for i in inlined.validate() if i.severity == "error"] == []
        assert inlined.messages(strict=False) == before
    # A .lmml DEST cannot hold the binary entries.
    assert main(["inline", "--keep-binary", str(ZIP_EXAMPLE), str(tmp_path / "y.lmml")]) == 2
    assert "give a DEST ending in .lmmlz" in capsys.readouterr().err
    assert not (tmp_path / "y.lmml").exists()


def test_keep_binary_without_binary_assets_writes_a_bare_file(tmp_path: Path) -> None:
    source = tmp_path / "notes.lmmlz"
    lmml_mdit.Bundle.from_zip("notes", "## user\n\nSee @a.txt\n", {"a.txt": b"A\n"}).save(source)
    assert main(["inline", "--keep-binary", "-q", str(source)]) == 0
    written = tmp_path / "notes.lmml"
    assert not zipfile.is_zipfile(written)
    assert written.read_text() == "## user\n\nSee @a.txt\n\n@@@a.txt\nA\n@@@\n"


def test_to_md_keeps_an_inline_text_asset_as_a_fenced_block(tmp_path: Path) -> None:
    source = tmp_path / "chat.lmml"
    source.write_text(
        "## Turn 1 -- user\n\nPlease review:\n\n@@@plot.py\nprint('```')\n@@@\n\n"
        "> @@@quote.md\n> # title\n> @@@\n\n"
        "## Turn 2 -- assistant\n\n@@@call_1.tool_call.json\n"
        '{"id": "call_1", "name": "f", "arguments": {}}\n@@@\n',
        encoding="utf-8",
    )
    assert main(["to-md", "-q", str(source)]) == 0
    assert (tmp_path / "chat.md").read_text(encoding="utf-8") == (
        "## Turn 1 -- user\n\nPlease review:\n\nplot.py:\n````py\nprint('```')\n````\n\n"
        "> quote.md:\n> ```md\n> # title\n> ```\n\n"
        "## Turn 2 -- assistant\n\n[Attachment: call_1.tool_call.json]\n"
    )
