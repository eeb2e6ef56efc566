"""Bundles opened from the same archive bytes share one parse, and answer as fresh ones do."""

from __future__ import annotations

from pathlib import Path

import pytest
from _messages_support import png, zip_bundle
from test_lazy_parse import _answers, full_parse

import lmml_mdit
from lmml_mdit.narrative import _narrative as narrative_module  # its cache, patched on purpose

NARRATIVE = (
    "---\ntitle: t\n---\n## system\nBe *brief*.\n\n## user\nLook at @cat.png, and "
    "![alt](cat.png) *here*.\n\n[ref]: https://example.com\n\n## assistant\nA [cat][ref], "
    "**surely**.\n\n- one\n- two\n\n## user\nAnd @notes.txt? \\@not a reference\n"
)


@pytest.fixture
def archive(tmp_path: Path) -> bytes:
    path = tmp_path / "case.lmmlz"
    entries = {"cat.png": png(), "notes.txt": b"notes\n", "settings.yaml": b"temperature: 0.5\n"}
    zip_bundle(NARRATIVE, entries).save(path)
    return path.read_bytes()


def test_a_shared_parse_answers_as_a_fresh_one(archive: bytes) -> None:
    narrative_module._parsed.clear()
    first = _answers(archive, "case.lmmlz")  # parses, then completes the stream (preview)
    again = _answers(archive, "case.lmmlz")  # the same narrative, already completed
    narrative_module._parsed.clear()
    fresh = _answers(archive, "case.lmmlz")
    with full_parse(True):
        full = _answers(archive, "case.lmmlz")
    for key in fresh:
        assert first[key] == fresh[key] == again[key] == full[key], key


def test_bundles_from_the_same_bytes_share_the_narrative(archive: bytes) -> None:
    narrative_module._parsed.clear()
    one = lmml_mdit.open(archive, name="case.lmmlz")
    two = lmml_mdit.open(archive, name="case.lmmlz")
    assert one is not two and one.narrative is two.narrative
    assert one.to_request("openai", model="m") == two.to_request("openai", model="m")


def test_the_key_holds_the_bytes_options_environment_and_version(
    archive: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    narrative_module._parsed.clear()
    first = lmml_mdit.open(archive, name="case.lmmlz").narrative
    loose = lmml_mdit.open(archive, name="case.lmmlz", delimiters="loose").narrative
    with full_parse(True):
        full = lmml_mdit.open(archive, name="case.lmmlz").narrative
    other = tmp_path / "other.lmmlz"
    zip_bundle(NARRATIVE, {"cat.png": png()}).save(other)  # other entry names
    fewer = lmml_mdit.open(other).narrative
    monkeypatch.setattr(narrative_module, "__version__", "0.0.0-other")
    newer = lmml_mdit.open(archive, name="case.lmmlz").narrative
    assert len({id(first), id(loose), id(full), id(fewer), id(newer)}) == 5
    assert first.embeds == full.embeds == newer.embeds
    assert fewer.embeds != first.embeds or fewer.turns == first.turns


def test_the_cache_keeps_a_bounded_number_of_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    narrative_module._parsed.clear()
    monkeypatch.setattr(narrative_module, "PARSE_CACHE_BYTES", 100)
    share = narrative_module.parse_shared
    options = {"name": "x.lmml", "known_names": frozenset(), "delimiters": "strict"}
    for index in range(5):
        share(
            f"## user\nturn {index}, thirty bytes long\n".encode(), references="assets", **options
        )  # type: ignore[arg-type]
    kept = sum(len(key[0]) for key in narrative_module._parsed)
    assert 0 < kept <= 100 and len(narrative_module._parsed) == 2
    share(b"x" * 200, references="assets", **options)  # type: ignore[arg-type]
    assert len(narrative_module._parsed) == 2  # too large to keep: nothing evicted for it


def test_the_delimiter_issues_of_a_shared_narrative_are_found_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every send warns the suspicious delimiters, read from the narrative the opens of one
    archive share: the tokens are scanned for them once, not twice a send."""
    import sys
    import warnings

    from lmml_mdit import syntax
    from lmml_mdit.errors import DefectWarning

    path = tmp_path / "case.lmmlz"
    zip_bundle("## user\nHi\n\n## asistant\nHello\n", {}).save(path)
    original = syntax.delimiter_issues
    calls: list[object] = []

    def counted(narrative: object) -> object:
        calls.append(narrative)
        return original(narrative)  # type: ignore[arg-type]

    # Wherever the package imported the function to (only its own modules are asked: another
    # package's lazy attributes may import what is not installed, transformers' torch).
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] != "lmml_mdit":
            continue
        if getattr(module, "delimiter_issues", None) is original:
            monkeypatch.setattr(module, "delimiter_issues", counted)
    narrative_module._parsed.clear()
    for _ in range(2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lmml_mdit.to_request(lmml_mdit.open(path), "openai", model="m")
        assert [str(w.message).count("asistant") > 0 for w in caught] == [True]
        assert all(isinstance(w.message, DefectWarning) for w in caught)
    assert len(calls) == 1
