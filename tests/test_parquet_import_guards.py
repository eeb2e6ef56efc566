"""``import_parquet`` never overwrites one row's files with another's, refuses row groups
whose declared sizes are a bomb, and reports a malformed row and goes on."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lmml_mdit import Limits
from lmml_mdit.cli import main
from lmml_mdit.dataset import import_parquet, read_parquet, write_parquet


def _rows(tmp_path: Path) -> pa.Table:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.lmml").write_text("## user\n\nfirst @pic.txt\n", encoding="utf-8")
    (source / "pic.txt").write_text("picture text", encoding="utf-8")
    (source / "b.lmml").write_text("## user\n\nsecond\n", encoding="utf-8")
    (source / "c.lmml").write_text("## user\n\nthird\n", encoding="utf-8")
    write_parquet(source, tmp_path / "rows.parquet")
    return read_parquet(tmp_path / "rows.parquet")


def _with(table: pa.Table, column: str, values: list[object], out: Path) -> Path:
    index = table.schema.get_field_index(column)
    field = table.schema.field(index)
    changed = table.set_column(index, field, pa.array(values, type=field.type))
    pq.write_table(changed.replace_schema_metadata(table.schema.metadata), out)
    return out


def test_two_rows_at_one_path_are_both_refused_and_nothing_is_overwritten(
    tmp_path: Path,
) -> None:
    table = _rows(tmp_path)
    paths = table.column("path").to_pylist()
    assert sorted(paths) == ["a.lmml", "b.lmml", "c.lmml"]
    b, c = paths.index("b.lmml"), paths.index("c.lmml")
    paths[c] = "b.lmml"
    rows = _with(table, "path", paths, tmp_path / "dup.parquet")
    out = tmp_path / "out"
    report = import_parquet(rows, out)
    assert [path for path, _ in report.failures] == ["b.lmml", "b.lmml"]
    assert all("also written by row" in reason for _, reason in report.failures)
    assert not (out / "b.lmml").exists()
    assert [Path(path).name for path in report.written] == ["a.lmml"]
    assert b != c
    # Each refused row names the other one, never itself.
    first, second = sorted((b, c))
    reasons = [reason for _, reason in report.failures]
    assert f"row {second + 1}," in reasons[0] and f"row {first + 1}," in reasons[1]


def test_a_row_refused_for_another_rows_asset_names_that_row(tmp_path: Path) -> None:
    table = _rows(tmp_path)
    paths = table.column("path").to_pylist()
    a, b = paths.index("a.lmml"), paths.index("b.lmml")
    paths[b] = "pic.txt"
    report = import_parquet(_with(table, "path", paths, tmp_path / "clash.parquet"), tmp_path / "o")
    failures = dict(report.failures)
    assert "the row is not written: its file 'pic.txt' is " in failures["a.lmml"]
    assert f"row {b + 1}," in failures["a.lmml"]
    assert f"row {a + 1}" in failures["pic.txt"]


def test_an_asset_named_like_another_rows_narrative_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = _rows(tmp_path)
    paths = table.column("path").to_pylist()
    paths[paths.index("b.lmml")] = "pic.txt"  # row b would be written over a's asset
    rows = _with(table, "path", paths, tmp_path / "clash.parquet")
    out = tmp_path / "out"
    assert main(["import", str(rows), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "pic.txt" in err and "row" in err
    assert "Imported 1 bundle(s)" in err
    assert not (out / "pic.txt").exists() and not (out / "a.lmml").exists()


def test_a_compression_bomb_row_group_is_refused_before_it_is_read(tmp_path: Path) -> None:
    table = _rows(tmp_path)
    huge = "a" * (64 * 1024 * 1024)  # 64 MiB of one letter: a few KiB compressed
    bomb = tmp_path / "bomb.parquet"
    index = table.schema.get_field_index("narrative")
    field = table.schema.field(index)
    one = table.slice(0, 1)
    one = one.set_column(index, field, pa.array([huge], type=field.type))
    pq.write_table(one.replace_schema_metadata(table.schema.metadata), bomb, compression="zstd")
    del huge, one
    assert bomb.stat().st_size < 64 * 1024
    tracemalloc.start()
    pool_before = pa.total_allocated_bytes()
    report = import_parquet(bomb, tmp_path / "out")
    peak_arrow = pa.total_allocated_bytes() - pool_before
    _, peak_python = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert not report.written
    assert len(report.failures) == 1 and "max_ratio" in report.failures[0][1]
    assert peak_python < 8 * 1024 * 1024 and peak_arrow < 8 * 1024 * 1024


def test_a_row_over_the_narrative_limit_is_refused_from_arrows_lengths(tmp_path: Path) -> None:
    table = _rows(tmp_path)
    rows = tmp_path / "rows.parquet"
    report = import_parquet(rows, tmp_path / "out", limits=Limits(max_narrative_bytes=18))
    assert len(report.written) == 2
    assert [path for path, _ in report.failures] == ["a.lmml"]
    assert "max_narrative_bytes" in report.failures[0][1]
    assert table.num_rows == 3


def test_a_wrongly_typed_row_and_a_deep_path_are_reported_and_the_rest_imported(
    tmp_path: Path,
) -> None:
    table = _rows(tmp_path)
    paths = table.column("path").to_pylist()
    deep = "/".join(["d"] * 3000) + "/x.lmml"
    paths[paths.index("b.lmml")] = deep
    rows = _with(table, "path", paths, tmp_path / "deep.parquet")
    report = import_parquet(rows, tmp_path / "out")
    assert [path for path, _ in report.failures] == [deep]
    assert len(report.written) == 2
    # A column of the wrong type: turns as plain strings.
    index = table.schema.get_field_index("delimiters")
    changed = table.set_column(index, "delimiters", pa.array([1, 2, 3]))
    typed = tmp_path / "typed.parquet"
    pq.write_table(changed.replace_schema_metadata(table.schema.metadata), typed)
    report = import_parquet(typed, tmp_path / "out2")
    assert len(report.failures) == 3 and not report.written


def _referenced_rows(tmp_path: Path) -> pa.Table:
    source = tmp_path / "src"
    source.mkdir()
    (source / "a.lmml").write_text("## user\n\nfirst @pic.txt\n", encoding="utf-8")
    (source / "pic.txt").write_text("picture text", encoding="utf-8")
    write_parquet(source, tmp_path / "ref.parquet", assets="reference")
    return read_parquet(tmp_path / "ref.parquet")


def _with_location(table: pa.Table, location: str, out: Path) -> Path:
    rows = table.to_pylist()
    rows[0]["assets"][0]["location"] = location
    changed = pa.Table.from_pylist(rows, schema=table.schema)
    pq.write_table(changed, out)
    return out


def test_a_fifo_location_is_refused_without_hanging(tmp_path: Path) -> None:
    import os

    table = _referenced_rows(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    rows = _with_location(table, str(fifo), tmp_path / "fifo.parquet")
    report = import_parquet(rows, tmp_path / "out")
    assert not report.written
    assert "not a regular file" in report.failures[0][1]


def test_a_url_location_is_fetched_only_when_allowed(tmp_path: Path) -> None:
    import fsspec

    table = _referenced_rows(tmp_path)
    with fsspec.open("memory://harden/pic.txt", "wb") as stream:
        stream.write(b"picture text")
    rows = _with_location(table, "memory://harden/pic.txt", tmp_path / "url.parquet")
    refused = import_parquet(rows, tmp_path / "out")
    assert not refused.written and "not fetched" in refused.failures[0][1]
    assert main(["import", str(rows), "-o", str(tmp_path / "cli")]) == 1
    allowed = import_parquet(rows, tmp_path / "out2", allow_remote=True)
    assert allowed.ok and len(allowed.written) == 1
