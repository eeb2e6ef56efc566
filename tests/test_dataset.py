"""Bundles as Arrow rows: the schema, to_arrow / from_arrow, Parquet, fsspec URLs, the CLI
and Hugging Face datasets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _dataset_folder import PNG, bundle_shape, write_folder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lmml_mdit
from lmml_mdit import Bundle, Limits
from lmml_mdit.chat import export_bundle
from lmml_mdit.cli import main
from lmml_mdit.dataset import (
    SCHEMA_VERSION,
    conversation_schema,
    from_arrow,
    hf_features,
    hf_fingerprint,
    hf_rows,
    import_parquet,
    iter_from_arrow,
    read_parquet,
    template_messages,
    to_arrow,
    write_parquet,
)
from lmml_mdit.errors import (
    BundleError,
    BundleNotFoundError,
    LimitExceededError,
    LmmlError,
    UnsafeEntryError,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_folder(tmp_path_factory.mktemp("bundles"), 40)


@pytest.fixture(scope="module")
def table(folder: Path) -> pa.Table:
    return to_arrow(folder).read_all()


def content(bundle: Bundle) -> tuple[Any, ...]:
    """What a bundle is: kind, names, narrative and assets byte for byte."""
    return (
        bundle.kind,
        bundle.name,
        bundle.narrative_name,
        bundle.narrative.text,
        {name: bundle.read(name) for name in bundle.entries},
    )


def without(rows: pa.Table, *columns: str) -> list[dict[str, Any]]:
    return rows.drop_columns(list(columns)).to_pylist()


# --- the schema ----------------------------------------------------------------------------


def test_the_schema_is_versioned_and_adds_a_column_per_provider() -> None:
    schema = conversation_schema()
    assert schema.metadata[b"lmml.schema_version"] == SCHEMA_VERSION.encode()
    assert schema.names[:4] == ["name", "path", "source", "kind"]
    for column in ("turns", "settings", "manifest", "issues", "assets", "error"):
        assert column in schema.names
    assert "request_openai" not in schema.names
    wide = conversation_schema(["openai", "anthropic", "openai"])
    assert wide.names[-3:] == ["request_openai", "request_anthropic", "request_notes"]
    with pytest.raises(BundleError, match="unknown provider"):
        conversation_schema(["nobody"])


def test_the_docs_list_every_column() -> None:
    page = (ROOT / "docs" / "datasets.md").read_text(encoding="utf-8")
    for name in conversation_schema(["openai"]).names:
        column = name if name != "request_openai" else "request_<provider>"
        assert f"`{column}`" in page, column


# --- to_arrow ---------------------------------------------------------------------------------


def test_a_folder_becomes_one_row_per_bundle_in_walk_order(folder: Path, table: pa.Table) -> None:
    assert table.num_rows == 40
    paths = table["path"].to_pylist()
    assert paths == sorted(paths, key=lambda path: path.split("/"))
    assert set(paths) == {
        str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file()
    }
    errors = [row for row in table.to_pylist() if row["error"] is not None]
    assert {row["path"] for row in errors} == {"g9/b19.lmmlz", "g9/b39.lmmlz"}
    assert all(row["error"]["type"] == "InvalidZipError" for row in errors)
    assert all(row["turns"] == [] and row["narrative"] is None for row in errors)


def row_of(table: pa.Table, path: str) -> dict[str, Any]:
    return next(row for row in table.to_pylist() if row["path"] == path)


def test_the_row_holds_turns_parts_settings_issues_and_assets(table: pa.Table) -> None:
    image = row_of(table, "g1/b1.lmmlz")
    assert bundle_shape(1) == "image"
    assert image["kind"] == "zip" and image["narrative_name"] == "b1.lmml"
    assert [turn["role"] for turn in image["turns"]] == ["user", "assistant"]
    assert image["turns"][0]["parts"] == [
        {"type": "text", "text": "What is in @img1.png?", "asset": None, "line": 2},
        {"type": "asset", "text": None, "asset": "img1.png", "line": 2},
    ]
    [asset] = image["assets"]
    assert asset["name"] == "img1.png" and asset["media_type"] == "image/png"
    assert asset["data"] == PNG and asset["size"] == len(PNG) and asset["location"] is None

    tool = row_of(table, "g2/b2.lmml")
    assert [turn["role"] for turn in tool["turns"]] == ["user", "assistant", "tool", "assistant"]
    assert [part["type"] for part in tool["turns"][1]["parts"]] == ["tool_call"]
    assert tool["issues"] == []

    text = row_of(table, "g0/b0.lmml")
    assert json.loads(text["settings"]) == {"temperature": 0.0}
    assert json.loads(text["front_matter"]) == {"settings": {"temperature": 0.0}}


def test_a_text_part_names_its_own_line_after_lines_that_leave_the_text(tmp_path: Path) -> None:
    """A settings fence inside a turn leaves the text; the text after it names its own
    line, not a line of the fence (the lines left out are not counted off)."""
    (tmp_path / "a.lmml").write_text(
        "## user\n\n@@@settings.yaml\ntemperature: 0.5\n@@@\n\nHello\n\n## assistant\n\nok\n",
        encoding="utf-8",
    )
    [row] = to_arrow(tmp_path).read_all().to_pylist()
    assert row["turns"][0]["parts"] == [
        {"type": "text", "text": "Hello", "asset": None, "line": 7},
    ]


def test_validation_issues_are_columns(tmp_path: Path) -> None:
    (tmp_path / "a.lmml").write_text("## user\nsee @missing.png\n", encoding="utf-8")
    [row] = to_arrow(tmp_path).read_all().to_pylist()
    [issue] = row["issues"]
    assert issue["kind"] == "missing_reference" and issue["severity"] == "error"
    assert (issue["name"], issue["line"], issue["column"]) == ("missing.png", 2, 5)


def test_provider_columns_hold_the_request_bodies(folder: Path) -> None:
    reader = to_arrow(folder, providers=["openai", "anthropic"])
    rows = reader.read_all().to_pylist()
    for row in rows:
        if row["error"] is not None:
            assert row["request_openai"] is None and row["request_notes"] == []
            continue
        with lmml_mdit.open(folder / row["path"]) as bundle:
            for provider in ("openai", "anthropic"):
                body = json.loads(row[f"request_{provider}"])
                assert body == export_bundle(bundle, provider)


def test_a_bundle_the_provider_refuses_gets_a_note(tmp_path: Path) -> None:
    (tmp_path / "a.lmml").write_text("## user\nsee @missing.png\n", encoding="utf-8")
    [row] = to_arrow(tmp_path, providers=["openai"]).read_all().to_pylist()
    assert row["request_openai"] is None
    [note] = row["request_notes"]
    assert note["provider"] == "openai" and note["severity"] == "error"
    assert "missing_reference" in note["message"]


def test_a_refused_bundle_is_built_anyway_when_not_strict(tmp_path: Path) -> None:
    """``strict=False`` builds the body as ``export_bundle(strict=False)`` does, in
    ``to_arrow`` and in ``add_payloads`` on a batch of rows; the defect is a warning."""
    from lmml_mdit.ray import add_payloads

    (tmp_path / "a.lmml").write_text("## user\nsee @missing.png\n", encoding="utf-8")
    table = to_arrow(tmp_path, providers=["openai"], strict=False).read_all()
    [row] = table.to_pylist()
    with lmml_mdit.open(tmp_path / "a.lmml") as bundle, pytest.warns(UserWarning):
        expected = export_bundle(bundle, "openai", strict=False)
    assert json.loads(row["request_openai"]) == expected
    assert [note["severity"] for note in row["request_notes"]] == ["warning"]
    again = add_payloads(table.drop_columns(["request_openai", "request_notes"]), ["openai"])
    assert again.column("request_openai").to_pylist() == [None]
    forced = add_payloads(table, ["openai"], strict=False)
    assert forced.column("request_openai").to_pylist() == [row["request_openai"]]


def test_batches_are_bounded_by_rows_and_bytes(folder: Path) -> None:
    batches = list(to_arrow(folder, batch_rows=7))
    assert [batch.num_rows for batch in batches] == [7] * 5 + [5]
    by_bytes = list(to_arrow(folder, batch_bytes=len(PNG)))
    # every row holding an image closes its batch
    assert len(by_bytes) > 9 and sum(batch.num_rows for batch in by_bytes) == 40


def test_to_arrow_streams_lazily_from_an_iterable(folder: Path) -> None:
    taken: list[str] = []

    def paths() -> Any:
        for path in sorted(folder.rglob("*.lmml")):
            taken.append(str(path))
            yield path

    reader = to_arrow(paths(), batch_rows=3)
    assert taken == []
    first = reader.read_next_batch()
    assert first.num_rows == 3 and len(taken) == 3


def test_errors_raise_stops_at_a_broken_bundle(tmp_path: Path) -> None:
    (tmp_path / "bad.lmmlz").write_bytes(b"PK\x03\x04broken")
    with pytest.raises(BundleError, match=r"bad\.lmmlz"):
        to_arrow(tmp_path, errors="raise").read_all()
    with pytest.raises(BundleError, match="unknown asset mode"):
        to_arrow(tmp_path, assets="inline")  # type: ignore[arg-type]


def test_the_process_pool_gives_the_same_rows(folder: Path, table: pa.Table) -> None:
    assert to_arrow(folder, workers=2).read_all().equals(table)


def test_bundle_objects_and_paths_mix(folder: Path) -> None:
    bundle = Bundle.from_text("chat", "## user\nhi\n")
    rows = to_arrow([bundle, folder / "g0" / "b0.lmml"]).read_all().to_pylist()
    assert [row["path"] for row in rows] == ["chat.lmml", "b0.lmml"]
    assert rows[0]["source"] is None and rows[1]["source"] == str(folder / "g0" / "b0.lmml")


def test_local_sources_are_absolute(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder)
    rows = to_arrow(["g0", "g1/b1.lmmlz"]).read_all().to_pylist()
    assert rows[0]["source"] == str(folder / "g0" / "b0.lmml") and rows[0]["path"] == "b0.lmml"
    assert rows[-1]["source"] == str(folder / "g1" / "b1.lmmlz")


def test_the_cli_says_what_to_install_without_pyarrow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name)
    )
    assert main(["export", str(tmp_path), "--parquet", str(tmp_path / "x.parquet")]) == 2
    assert "pip install 'lmml-mdit[datasets]'" in capsys.readouterr().err


# --- from_arrow -------------------------------------------------------------------------------


def test_from_arrow_gives_the_bundles_back(folder: Path, table: pa.Table) -> None:
    good = table.filter(table["error"].is_null())
    back = from_arrow(table, errors="skip")
    assert len(back) == good.num_rows == 38
    for bundle, path in zip(back, good["path"].to_pylist(), strict=True):
        with lmml_mdit.open(folder / path) as original:
            assert content(bundle) == content(original)
            assert bundle.validate() == original.validate()
    again = to_arrow(back).read_all()
    assert without(again, "source", "path") == without(good, "source", "path")


def test_a_failed_row_is_refused_or_skipped(table: pa.Table) -> None:
    with pytest.raises(BundleError, match=r"holds no bundle.*InvalidZipError"):
        from_arrow(table)
    assert len(list(iter_from_arrow(table.to_batches()[0], errors="skip"))) == 38


def test_text_bundles_keep_the_files_beside_them(tmp_path: Path) -> None:
    (tmp_path / "chat.lmml").write_text("## user\nlook @pic.png and @README\n", encoding="utf-8")
    (tmp_path / "pic.png").write_bytes(PNG)
    (tmp_path / "README").write_text("read me\n", encoding="utf-8")
    (tmp_path / "unrelated.txt").write_text("not referenced\n", encoding="utf-8")
    table = to_arrow(tmp_path).read_all()
    [row] = table.to_pylist()
    assert [asset["name"] for asset in row["assets"]] == ["pic.png", "README"]
    [bundle] = from_arrow(table)
    assert bundle.kind == "text" and bundle.embed("pic.png") == PNG
    assert bundle.narrative.turns == lmml_mdit.open(tmp_path / "chat.lmml").narrative.turns
    assert bundle.validate() == []


def test_assets_by_reference_are_read_where_they_live(tmp_path: Path) -> None:
    source = tmp_path / "in"
    write_folder(source, 8)
    table = to_arrow(source, assets="reference").read_all()
    image = row_of(table, "g1/b1.lmmlz")
    [asset] = image["assets"]
    assert asset["data"] is None
    assert (asset["location"], asset["entry"]) == (str(source / "g1" / "b1.lmmlz"), "img1.png")
    embedded = from_arrow(to_arrow(source).read_all(), errors="skip")
    assert [content(b) for b in from_arrow(table, errors="skip")] == [content(b) for b in embedded]
    # the archive changes after the export: the digest tells
    Bundle.from_zip("b1", "## user\n@img1.png\n", {"img1.png": PNG + b"x"}).save(
        source / "g1" / "b1.lmmlz"
    )
    with pytest.raises(BundleError, match="sha256"):
        from_arrow(table.filter(pa.compute.equal(table["path"], "g1/b1.lmmlz")))


def row_table(**changes: Any) -> pa.Table:
    bundle = Bundle.from_zip("z", "## user\n@a.png\n", {"a.png": PNG})
    row = to_arrow([bundle]).read_all().to_pylist()[0]
    row.update(changes)
    return pa.Table.from_pylist([row], schema=conversation_schema())


def test_rows_are_held_to_the_limits_and_the_name_rules() -> None:
    table = row_table()
    with pytest.raises(LimitExceededError, match="max_entry_size"):
        from_arrow(table, limits=Limits(max_entry_size=100))
    with pytest.raises(LimitExceededError, match="max_narrative_bytes"):
        from_arrow(table, limits=Limits(max_narrative_bytes=5))
    [asset] = table["assets"].to_pylist()[0]
    hostile = row_table(assets=[{**asset, "name": "../etc/passwd"}])
    with pytest.raises(UnsafeEntryError):
        from_arrow(hostile)
    with pytest.raises(BundleError, match="no narrative"):
        from_arrow(row_table(narrative=None))
    with pytest.raises(BundleError, match="parse options"):
        from_arrow(row_table(delimiters="sloppy"))


# --- the round trip, as a property --------------------------------------------------------

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=80)
_NAME = st.from_regex(
    r"[a-z][a-z0-9]{0,6}(/[a-z][a-z0-9]{0,4})?\.(png|txt|json|bin)", fullmatch=True
)


@st.composite
def bundles(draw: st.DrawFn) -> Bundle:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        lines.append(f"## {draw(st.sampled_from(['user', 'assistant', 'system', 'tool']))}")
        lines.append(draw(_TEXT))
        if draw(st.booleans()):
            lines.extend([f"@@@{draw(_NAME)}", draw(_TEXT).replace("@@@", ""), "@@@"])
    assets = draw(st.dictionaries(_NAME, st.binary(max_size=64), max_size=4))
    lines.extend(f"@{name}" for name in assets if draw(st.booleans()))
    text = "\n".join(lines) + "\n"
    name = draw(st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True))
    if draw(st.booleans()):
        return Bundle.from_text(name, text)
    try:
        return Bundle.from_zip(name, text, assets)
    except LmmlError:  # two asset names differing only in case, and the like
        return Bundle.from_text(name, text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(bundles(), max_size=4))
def test_from_arrow_inverts_to_arrow(originals: list[Bundle]) -> None:
    table = to_arrow(originals, batch_rows=2).read_all()
    back = from_arrow(table)
    assert [content(bundle) for bundle in back] == [content(bundle) for bundle in originals]
    assert to_arrow(back).read_all().to_pylist() == table.to_pylist()


def test_an_entry_shadowed_by_a_fence_keeps_its_own_bytes() -> None:
    """A fence and an entry of one name: the fence is in the narrative, and the row keeps
    the entry's bytes, so the bundle comes back as it was (found by the property above)."""
    original = Bundle.from_zip("a", "## user\n\n@@@a.png\n\n@@@\n", {"a.png": b""})
    (back,) = from_arrow(to_arrow([original]).read_all())
    assert content(back) == content(original)
    assert back.read("a.png") == b"" and back.embed("a.png") == original.embed("a.png")


# --- Parquet ---------------------------------------------------------------------------------


def test_parquet_round_trip_on_local_files(folder: Path, table: pa.Table, tmp_path: Path) -> None:
    out = tmp_path / "rows.parquet"
    report = write_parquet(folder, out, ["openai"], batch_rows=8)
    assert report.rows == 40 and [path for path, _ in report.failures] == [
        "g9/b19.lmmlz",
        "g9/b39.lmmlz",
    ]
    assert pq.ParquetFile(out).metadata.num_row_groups == 5
    read = read_parquet(out)
    assert read.drop_columns(["request_openai", "request_notes"]).to_pylist() == table.to_pylist()
    imported = import_parquet(out, tmp_path / "back")
    assert len(imported.written) == 38 and len(imported.failures) == 2
    for path in imported.written:
        relative = Path(path).relative_to(tmp_path / "back")
        with lmml_mdit.open(path) as got, lmml_mdit.open(folder / relative) as original:
            assert content(got) == content(original)


def test_parquet_through_memory_urls(folder: Path) -> None:
    memory = fsspec.filesystem("memory")
    for path in sorted(folder.rglob("*.lmml*"))[:12]:
        memory.pipe(f"/src/{path.relative_to(folder).as_posix()}", path.read_bytes())
    rows = to_arrow("memory://src").read_all()
    assert rows.num_rows == 12
    assert rows["source"][0].as_py().startswith("memory://")
    report = write_parquet("memory://src", "memory://out/rows.parquet")
    assert report.rows == 12 and memory.exists("/out/rows.parquet")
    assert read_parquet("memory://out/rows.parquet").to_pylist() == rows.to_pylist()
    imported = import_parquet("memory://out/rows.parquet", "memory://back")
    assert len(imported.written) == 12 - len(imported.failures)
    for written in imported.written:
        relative = written.removeprefix("memory://back/")
        assert memory.cat(f"/back/{relative}") and memory.exists(f"/src/{relative}")
        with lmml_mdit.open(written) as got, lmml_mdit.open(f"memory://src/{relative}") as was:
            assert content(got) == content(was)


def test_a_write_that_fails_midway_leaves_no_file(tmp_path: Path) -> None:
    def items() -> Any:
        yield Bundle.from_text("a", "## user\nhi\n")
        raise RuntimeError("the source went away")

    for out in ("memory://fail/rows.parquet", str(tmp_path / "rows.parquet")):
        with pytest.raises(RuntimeError, match="went away"):
            write_parquet(items(), out, batch_rows=1)
    assert not fsspec.filesystem("memory").exists("/fail/rows.parquet")
    assert list(tmp_path.iterdir()) == []


def _cut_short() -> Any:
    yield Bundle.from_text("a", "## user\nhi\n")
    raise RuntimeError("the source went away")


@pytest.mark.parametrize("scheme", ["memory", "local", "file"])
def test_a_url_write_that_fails_midway_leaves_the_old_file(tmp_path: Path, scheme: str) -> None:
    if scheme == "memory":
        url = f"memory://keep-{tmp_path.name}/old.parquet"
    else:
        url = f"{scheme}://{tmp_path.as_posix()}/old.parquet"
    fs, path = fsspec.core.url_to_fs(url)
    old = [Bundle.from_text(name, f"## user\n{name}\n") for name in ("b", "c", "d")]
    write_parquet(old, url)
    before = fs.cat_file(path)
    with pytest.raises(RuntimeError, match="went away"):
        write_parquet(_cut_short(), url, errors="raise", batch_rows=1)
    assert fs.cat_file(path) == before
    assert fs.ls(path.rsplit("/", 1)[0], detail=False) == [path]
    report = write_parquet([Bundle.from_text("e", "## user\ne\n")], url)
    assert report.rows == 1
    assert read_parquet(url).column("path").to_pylist() == ["e.lmml"]
    fs.rm(path)
    with pytest.raises(RuntimeError, match="went away"):
        write_parquet(_cut_short(), url, batch_rows=1)
    assert not fs.exists(path)


def test_parquet_files_of_something_else_are_refused(tmp_path: Path) -> None:
    (tmp_path / "x.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(BundleError, match="not a Parquet file"):
        read_parquet(tmp_path / "x.parquet")
    pq.write_table(pa.table({"a": [1]}), tmp_path / "other.parquet")
    with pytest.raises(BundleError, match="no conversation rows"):
        read_parquet(tmp_path / "other.parquet")
    with pytest.raises(BundleNotFoundError):
        read_parquet(tmp_path / "missing.parquet")


# --- fsspec for lmml_mdit.open ----------------------------------------------------------------


def test_open_reads_memory_urls_lazily(tmp_path: Path) -> None:
    memory = fsspec.filesystem("memory")
    big = Bundle.from_zip("big", "## user\n@a.png @b.bin\n", {"a.png": PNG, "b.bin": b"\0" * 4096})
    big.save(tmp_path / "big.lmmlz")
    memory.pipe("/lazy/big.lmmlz", (tmp_path / "big.lmmlz").read_bytes())
    reads: list[int] = []
    real_open = memory.open

    def counting_open(path: str, mode: str = "rb", **kwargs: Any) -> Any:
        stream = real_open(path, mode, **kwargs)
        original = stream.read

        def read(size: int = -1) -> bytes:
            data = original(size)
            reads.append(len(data))
            return data

        stream.read = read
        return stream

    memory.open = counting_open  # type: ignore[method-assign]
    try:
        with lmml_mdit.open("memory://lazy/big.lmmlz") as bundle:
            before = sum(reads)
            assert bundle.read("a.png") == PNG
            assert sum(reads) - before < 4096  # b.bin was never read
    finally:
        del memory.open
    assert bundle.file_name == "big.lmmlz"


def test_open_urls_keep_the_limits_and_errors(tmp_path: Path) -> None:
    memory = fsspec.filesystem("memory")
    Bundle.from_zip("a", "## user\n@a.png\n", {"a.png": PNG}).save(tmp_path / "a.lmmlz")
    memory.pipe("/lim/a.lmmlz", (tmp_path / "a.lmmlz").read_bytes())
    with pytest.raises(LimitExceededError):
        lmml_mdit.open("memory://lim/a.lmmlz", limits=Limits(max_entry_size=100)).read("a.png")
    with pytest.raises(BundleNotFoundError):
        lmml_mdit.open("memory://lim/none.lmmlz")
    memory.pipe("/lim/pic.lmml", PNG)
    with pytest.raises(lmml_mdit.NotLmmlError, match="PNG image"):
        lmml_mdit.open("memory://lim/pic.lmml")
    with pytest.raises(BundleError, match="filesystem"):
        lmml_mdit.open("nosuchscheme://x/a.lmml")


def test_file_urls_are_local_paths(tmp_path: Path) -> None:
    (tmp_path / "chat.lmml").write_text("## user\n@pic.png\n", encoding="utf-8")
    (tmp_path / "pic.png").write_bytes(PNG)
    with lmml_mdit.open((tmp_path / "chat.lmml").as_uri()) as bundle:
        assert bundle.embed("pic.png") == PNG  # the folder is seen, as for the path


def test_plain_opens_never_import_fsspec(tmp_path: Path) -> None:
    (tmp_path / "a.lmml").write_text("## user\nhi\n", encoding="utf-8")
    code = (
        "import sys, lmml_mdit; lmml_mdit.open(sys.argv[1]).validate(); "
        "print('fsspec' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "a.lmml")],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.stdout.strip() == "False"


# --- the command line -----------------------------------------------------------------------


def test_cli_export_parquet_and_import_back(
    folder: Path, table: pa.Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rows.parquet"
    status = main(["export", str(folder), "--parquet", str(out), "--payload", "openai"])
    assert status == 1  # two bundles are broken
    err = capsys.readouterr().err
    assert f"lmml: error: {folder / 'g9' / 'b19.lmmlz'}: " in err
    assert "Exported 38 of 40 bundle(s)" in err
    rows = read_parquet(out)
    assert "request_openai" in rows.column_names
    assert rows.drop_columns(["request_openai", "request_notes"]).to_pylist() == table.to_pylist()
    status = main(["import", str(out), "-o", str(tmp_path / "back")])
    assert status == 1
    err = capsys.readouterr().err
    assert "Imported 38 bundle(s)" in err and "g9/b39.lmmlz" in err
    for path in folder.rglob("*.lmml"):
        assert (tmp_path / "back" / path.relative_to(folder)).read_bytes() == path.read_bytes()


def test_cli_parquet_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", str(tmp_path / "nope"), "--parquet", str(tmp_path / "x.parquet")]) == 2
    assert "not a folder" in capsys.readouterr().err
    assert not (tmp_path / "x.parquet").exists()
    (tmp_path / "y.parquet").write_bytes(b"junk")
    assert main(["import", str(tmp_path / "y.parquet"), "-o", str(tmp_path / "o")]) == 2
    assert "not a Parquet file" in capsys.readouterr().err
    assert main(["export", str(tmp_path), "--parquet", "a.parquet", "--jsonl", "b.jsonl"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


# --- Hugging Face datasets ------------------------------------------------------------------


def test_dataset_from_generator_over_a_folder(
    folder: Path, table: pa.Table, tmp_path: Path
) -> None:
    from datasets import Dataset

    dataset = Dataset.from_generator(
        hf_rows,
        gen_kwargs={"folder": str(folder)},
        features=hf_features(),
        cache_dir=str(tmp_path / "cache"),
    )
    assert dataset.num_rows == 40
    assert dataset["path"] == table["path"].to_pylist()
    row = dataset[0]
    assert row["messages"] == [
        {"role": "system", "content": "Be kind."},
        {"role": "user", "content": "Hello number 0."},
        {"role": "assistant", "content": "Hi!"},
    ]
    assert row["messages"] == template_messages(table.to_pylist()[0])


def test_template_messages_feed_a_chat_template(table: pa.Table) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.train_from_iterator(["hello hi"], trainers.WordLevelTrainer(special_tokens=["[UNK]"]))
    template = (
        "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}</{{ m['role'] }}>{% endfor %}"
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, chat_template=template, unk_token="[UNK]"
    )
    messages = template_messages(row_of(table, "g1/b1.lmmlz"))
    rendered = tokenizer.apply_chat_template(messages, tokenize=False)
    assert (
        rendered == "<user>What is in @img1.png?</user><assistant>A test pattern (1).</assistant>"
    )


def test_parts_and_messages_leave_out_what_the_chat_payloads_leave_out(tmp_path: Path) -> None:
    """A paragraph only of references whose parts follow it, and a tool turn's line naming
    the call it answers, are no text of a turn, as in every provider's payload (before, a
    tool message's content began with ``@c1.tool_call.json``)."""
    name, fence = lmml_mdit.tool_call_fence("c1", "get_weather", {"city": "Paris"})
    (tmp_path / "tool.lmml").write_text(
        f"## user\n@pic.png\n\nWeather here?\n\n## assistant\n{fence}\n"
        f"## tool\n@{name}\n\nSunny.\n\n## assistant\nSunny, look @pic.png.\n",
        encoding="utf-8",
    )
    (tmp_path / "pic.png").write_bytes(PNG)
    [row] = to_arrow(tmp_path).read_all().to_pylist()
    assert template_messages(row) == [
        {"role": "user", "content": "Weather here?"},
        {"role": "tool", "content": "Sunny."},
        {"role": "assistant", "content": "Sunny, look @pic.png."},
    ]
    user, _, tool, _ = row["turns"]
    assert [(part["type"], part["text"]) for part in user["parts"]] == [
        ("asset", None),
        ("text", "Weather here?"),
    ]
    assert [part["text"] for part in tool["parts"]] == ["Sunny."]
    body = export_bundle(lmml_mdit.open(tmp_path / "tool.lmml"), "openai")
    assert body["messages"][2]["content"] == [{"type": "text", "text": "Sunny."}]


def test_the_example_script_builds_a_dataset(folder: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "hf_dataset.py"),
            str(folder),
            str(tmp_path / "ds"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "HF_DATASETS_CACHE": str(tmp_path / "c")},
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "38 conversations" in result.stdout
    assert "skipped g9/b19.lmmlz" in result.stderr
    from datasets import load_from_disk

    saved = load_from_disk(str(tmp_path / "ds"))
    assert saved.num_rows == 38 and "messages" in saved.column_names


def test_a_changed_folder_gives_a_new_dataset_not_the_cached_one(tmp_path: Path) -> None:
    """The recipe of docs/datasets.md: without the listing's fingerprint ``datasets`` hands
    back its cache, keyed by the folder's name alone, after a bundle is added."""
    from datasets import Dataset

    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "a.lmml").write_text("## user\nHi.\n", encoding="utf-8")
    cache = str(tmp_path / "cache")

    def build(**fingerprint: str) -> Dataset:
        return Dataset.from_generator(
            hf_rows,
            gen_kwargs={"folder": str(folder)},
            features=hf_features(),
            cache_dir=cache,
            **fingerprint,
        )

    first = hf_fingerprint(folder)
    assert build(fingerprint=first).num_rows == 1
    assert hf_fingerprint(folder) == first  # nothing changed: the cache serves
    assert build().num_rows == 1
    (folder / "b.lmml").write_text("## user\nHello.\n", encoding="utf-8")
    assert build().num_rows == 1  # the default key: stale rows, without a word
    second = hf_fingerprint(folder)
    assert second != first
    assert build(fingerprint=second).num_rows == 2
    (folder / "b.lmml").write_text("## user\nHello again.\n", encoding="utf-8")
    assert hf_fingerprint(folder) != second  # a changed bundle too
    assert hf_fingerprint(folder, providers=["openai"]) != hf_fingerprint(folder)


def test_the_fingerprint_lists_url_folders_too(tmp_path: Path) -> None:
    fs = fsspec.filesystem("memory")
    base = f"memory://fingerprint-{tmp_path.name}"
    Bundle.from_text("a", "## user\nHi.\n").save(f"{base}/a.lmml")
    first = hf_fingerprint(base)
    Bundle.from_text("b", "## user\nHello.\n").save(f"{base}/sub/b.lmml")
    assert hf_fingerprint(base) != first
    fs.rm(f"/fingerprint-{tmp_path.name}", recursive=True)


def test_bundle_save_takes_the_urls_open_takes(tmp_path: Path) -> None:
    base = f"memory://save-{tmp_path.name}"
    archive = Bundle.from_text("chat", "## user\nLook at @a.png.\n\n@@@a.txt\nnote\n@@@\n")
    archive.pack().save(f"{base}/out/chat.lmmlz")
    again = lmml_mdit.open(f"{base}/out/chat.lmmlz")
    assert again.kind == "zip" and again.narrative_name == "chat.lmml"
    assert again.embed("a.txt") == b"note\n"
    text = Bundle.from_text("t", "## user\nHi.\n")
    text.save(f"{base}/t.lmml")
    assert lmml_mdit.open(f"{base}/t.lmml").narrative.source == "## user\nHi.\n"
    local = tmp_path / "local.lmml"
    text.save(local.as_uri())  # file:// is the local path, written atomically
    assert local.read_text(encoding="utf-8") == "## user\nHi.\n"
    assert list(tmp_path.iterdir()) == [local]


def test_a_url_write_that_fails_midway_leaves_no_file(tmp_path: Path) -> None:
    from lmml_mdit.bundle import url_output

    url = f"memory://broken-{tmp_path.name}/y.lmmlz"
    with pytest.raises(RuntimeError, match="cut"), url_output(url) as stream:
        stream.write(b"partial")
        raise RuntimeError("cut")
    fs = fsspec.filesystem("memory")
    assert not fs.exists(f"/broken-{tmp_path.name}/y.lmmlz")
    bundle = Bundle.from_text("x", "## user\n\n@@@n.txt\nhi\n@@@\n").pack()
    bundle.save(url)
    before = fs.cat_file(f"/broken-{tmp_path.name}/y.lmmlz")
    from lmml_mdit.bundle import save_bundle

    with pytest.raises(lmml_mdit.WriteError, match="already there"):
        save_bundle(Bundle.from_zip("z", "## user\nOther.\n", {}), url, exclusive=True)
    assert fs.cat_file(f"/broken-{tmp_path.name}/y.lmmlz") == before


@pytest.mark.parametrize("scheme", ["memory", "file"])
def test_url_output_replaces_a_file_whole_or_not_at_all(tmp_path: Path, scheme: str) -> None:
    from lmml_mdit.bundle import url_output

    if scheme == "memory":
        url = f"memory://whole-{tmp_path.name}/chat.lmml"
    else:
        url = (tmp_path / "chat.lmml").as_uri()
    fs, path = fsspec.core.url_to_fs(url)
    Bundle.from_text("chat", "## user\nThe old one, longer than what follows.\n").save(url)
    before = fs.cat_file(path)
    with pytest.raises(RuntimeError, match="cut"), url_output(url) as stream:
        stream.write(b"## user\nHalf")
        assert fs.cat_file(path) == before  # nothing shows while it is written
        raise RuntimeError("cut")
    assert fs.cat_file(path) == before
    with (
        pytest.raises(lmml_mdit.WriteError, match="No space left") as caught,
        url_output(url),
    ):
        raise OSError(28, "No space left on device")  # the local copy's disk is full
    assert str(caught.value.name).endswith("chat.lmml") and fs.cat_file(path) == before
    with url_output(url) as stream:
        stream.write(b"## user\nNew.\n")
    assert fs.cat_file(path) == b"## user\nNew.\n"
    fs.rm(path)
    with pytest.raises(RuntimeError, match="cut"), url_output(url) as stream:
        stream.write(b"partial")
        raise RuntimeError("cut")
    assert not fs.exists(path)


def test_an_exclusive_url_write_keeps_a_file_that_appeared_meanwhile(tmp_path: Path) -> None:
    from lmml_mdit.bundle import url_output

    fs = fsspec.filesystem("memory")
    url = f"memory://race-{tmp_path.name}/chat.lmml"
    with (
        pytest.raises(lmml_mdit.WriteError, match="already there"),
        url_output(url, exclusive=True) as stream,
    ):
        stream.write(b"mine")
        fs.pipe_file(f"/race-{tmp_path.name}/chat.lmml", b"theirs")
    assert fs.cat_file(f"/race-{tmp_path.name}/chat.lmml") == b"theirs"
