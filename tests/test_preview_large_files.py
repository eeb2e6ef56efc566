"""The preview of a bare narrative whose files beside it are large: a chip that says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from xss_corpus import make_png, parse_document

import lmml_mdit
from lmml_mdit import Limits, render_html


def _chip_classes(markup: str, name: str) -> str:
    document = parse_document(markup)
    found = [
        element.get("class") or ""
        for element in document.root.iter()
        if element.tag == "span"
        and element.get("data-lmml-name") == name
        and "lmml-ref" in (element.get("class") or "")
    ]
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    image = make_png(40, 30)
    (tmp_path / "chart.png").write_bytes(image + b"\0" * (4000 - len(image)))
    (tmp_path / "chat.lmml").write_text("## user\n\nSee @chart.png.\n", encoding="utf-8")
    return tmp_path


def test_a_file_beyond_the_bundle_limits_is_too_large_not_missing(folder: Path) -> None:
    """The file is there: the page says it is too large, as for an archive entry, rather
    than marking a file that exists "missing"."""
    limits = Limits(max_entry_size=1000)
    with lmml_mdit.open(folder / "chat.lmml", base_dir=folder, limits=limits) as bundle:
        assert bundle.has_asset("chart.png")
        markup = render_html(bundle)
    classes = _chip_classes(markup, "chart.png")
    assert "lmml-too-large" in classes
    assert "lmml-missing" not in classes
    assert "<img" not in markup


def test_a_large_file_beside_the_narrative_is_sized_not_read(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above the page's limits a file is a chip, known by its size alone (as an archive
    entry is): the preview does not read hundreds of megabytes to show a chip."""
    with lmml_mdit.open(folder / "chat.lmml", base_dir=folder) as bundle:
        read: list[str] = []
        real_embed = bundle.embed
        monkeypatch.setattr(bundle, "embed", lambda name: read.append(name) or real_embed(name))
        markup = render_html(bundle, max_image_bytes=1000, max_text_bytes=1000)
    assert read == []
    assert "lmml-too-large" in _chip_classes(markup, "chart.png")
    assert "3.9 KiB" in markup


def test_an_image_input_used_many_times_spends_the_page_budget() -> None:
    """A template's image value is an image the page copies in, each time it is shown, as a
    referenced asset is: once ``max_embedded_bytes`` is spent, the rest are named only."""
    image = make_png(20, 20)
    places = "\n\n".join(["look {{ pic }}"] * 10)
    text = f"---\ninputs:\n  pic: image\n---\n\n## user\n\n{places}\n"
    bundle = lmml_mdit.Bundle.from_text("t", text)
    markup = render_html(bundle, inputs={"pic": image}, max_embedded_bytes=3 * len(image))
    assert markup.count("<img") == 3
    assert markup.count("(max_embedded_bytes) is spent") == 7
    unlimited = render_html(bundle, inputs={"pic": image})
    assert unlimited.count("<img") == 10


def test_an_image_input_above_max_image_bytes_is_not_shown() -> None:
    image = make_png(20, 20)
    text = "---\ninputs:\n  pic: image\n---\n\n## user\n\nlook {{ pic }}\n"
    bundle = lmml_mdit.Bundle.from_text("t", text)
    assert "<img" not in render_html(bundle, inputs={"pic": image}, max_image_bytes=10)
    assert "<img" in render_html(bundle, inputs={"pic": image}, max_image_bytes=len(image))
