"""Bundles on Ray Data, on a real local cluster started here: ``ray.init`` with 2 CPUs, then
a two-node ``ray.cluster_utils.Cluster`` (one CPU each). Every test runs on both.

The folder is 2,000 generated bundles (text, images, tool calls, inline fences, one in
twenty broken). Ray's rows must equal the single-process ``to_arrow`` rows, row for row.

Driver memory: the driver's resident set is sampled while it streams every row of the
folder (``iter_batches``), and its growth over the baseline is compared between 200 and
2,000 bundles (10x). The 2,000 bundles hold about 30 MiB of images, so a driver holding
the rows would grow by at least that; a streaming one stays within the allowance. The
check is fast because it reads the same folders the other tests read.
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest
import ray
from _dataset_folder import PNG, image, write_folder
from ray.cluster_utils import Cluster

import lmml_mdit
from lmml_mdit.dataset import from_arrow, to_arrow
from lmml_mdit.ray import (
    add_payloads,
    read_lmml,
    render_case_batch,
    validate_batch,
    write_lmml,
)

PICTURE = image(64 * 1024)
MiB = 1024 * 1024
OBJECT_STORE = 256 * MiB
ALLOWANCE = 12 * MiB
"""How much more the driver may grow reading 2,000 bundles than reading 200."""


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    small = write_folder(tmp_path_factory.mktemp("small"), 200, PICTURE)
    large = write_folder(tmp_path_factory.mktemp("large"), 2000, PICTURE)
    return small, large


@pytest.fixture(scope="module")
def expected(folders: tuple[Path, Path]) -> pa.Table:
    return to_arrow(folders[1]).read_all()


@pytest.fixture(scope="module", params=["local", "two-node"])
def cluster(request: pytest.FixtureRequest) -> Iterator[str]:
    """A running Ray cluster, local (2 CPUs) or two nodes (1 CPU each)."""
    two_nodes: Cluster | None = None
    if request.param == "local":
        ray.init(
            address="local",  # a cluster of its own, never one that happens to be running
            num_cpus=2,
            object_store_memory=OBJECT_STORE,
            include_dashboard=False,
            log_to_driver=False,
        )
    else:
        two_nodes = Cluster(
            initialize_head=True,
            head_node_args={"num_cpus": 1, "object_store_memory": OBJECT_STORE},
        )
        two_nodes.add_node(num_cpus=1, object_store_memory=OBJECT_STORE)
        ray.init(address=two_nodes.address, log_to_driver=False)
        two_nodes.wait_for_nodes()
        assert len([node for node in ray.nodes() if node["Alive"]]) == 2
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    try:
        yield request.param
    finally:
        ray.shutdown()
        if two_nodes is not None:
            two_nodes.shutdown()


def rows_of(dataset: ray.data.Dataset) -> pa.Table:
    return pa.concat_tables(dataset.iter_batches(batch_format="pyarrow", batch_size=None))


def test_ray_rows_equal_to_arrow_row_for_row(
    cluster: str, folders: tuple[Path, Path], expected: pa.Table
) -> None:
    got = rows_of(read_lmml(str(folders[1]), files_per_task=128))
    assert got.num_rows == 2000
    assert got.column_names == expected.column_names
    assert got.to_pylist() == expected.to_pylist()
    broken = [row for row in got.to_pylist() if row["error"] is not None]
    assert len(broken) == 100 and {row["error"]["type"] for row in broken} == {"InvalidZipError"}


def rss() -> int:
    """The driver's resident set, in bytes."""
    with open("/proc/self/statm", encoding="ascii") as stream:
        return int(stream.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def driver_growth(folder: Path) -> int:
    """How far the driver's resident set rises above its start while it streams every
    row of *folder* (the batches are counted and let go, as a consumer would)."""
    gc.collect()
    start = peak = rss()
    rows = 0
    for batch in read_lmml(str(folder), files_per_task=64).iter_batches(
        batch_format="pyarrow", batch_size=None
    ):
        rows += batch.num_rows
        peak = max(peak, rss())
        del batch
    assert rows == sum(1 for _ in folder.rglob("*.lmml*"))
    return peak - start


def test_driver_memory_stays_flat_as_the_folder_grows_10x(
    cluster: str, folders: tuple[Path, Path]
) -> None:
    small, large = folders
    driver_growth(small)  # warm up: the first read loads Ray Data's own modules
    grew_small = driver_growth(small)
    grew_large = driver_growth(large)
    images = sum(path.stat().st_size for path in large.rglob("*.lmmlz"))
    assert images > 2 * ALLOWANCE  # holding the rows would show
    assert grew_large - grew_small < ALLOWANCE, (grew_small, grew_large)


def test_map_batches_add_payloads_and_validate(cluster: str, folders: tuple[Path, Path]) -> None:
    small = folders[0]
    dataset = (
        read_lmml(str(small))
        .map_batches(add_payloads, fn_kwargs={"providers": ["openai"]}, batch_format="pyarrow")
        .map_batches(validate_batch, batch_format="pyarrow")
    )
    got = rows_of(dataset)
    reference = to_arrow(small, providers=["openai"]).read_all()
    assert got["request_openai"].to_pylist() == reference["request_openai"].to_pylist()
    assert got["issues"].to_pylist() == reference["issues"].to_pylist()
    assert got["ok"].to_pylist() == [error is None for error in reference["error"].to_pylist()]
    failed = [row for row in got.to_pylist() if row["error"] is not None]
    assert failed and all(row["request_notes"][0]["severity"] == "error" for row in failed)


def test_write_lmml_writes_the_bundles_back(
    cluster: str, folders: tuple[Path, Path], tmp_path: Path
) -> None:
    small = folders[0]
    report = write_lmml(read_lmml(str(small)), tmp_path / "out")
    assert len(report.written) == 190 and len(report.failures) == 10
    assert all("holds no bundle" in reason for _, reason in report.failures)
    originals = {row["path"]: row for row in to_arrow(small).read_all().to_pylist()}
    for path in report.written:
        relative = Path(path).relative_to(tmp_path / "out").as_posix()
        with lmml_mdit.open(path) as bundle:
            [back] = from_arrow(to_arrow([bundle]).read_all())
            assert back.narrative.text == originals[relative]["narrative"]
            assert [bundle.read(name) for name in bundle.entries] == [
                asset["data"] for asset in originals[relative]["assets"]
            ]


def test_write_lmml_never_lets_one_row_overwrite_another(cluster: str, tmp_path: Path) -> None:
    """Two files of one name read from two folders are two rows at one path, and two bare
    narratives may hold different files of one name: the first row writes, the later one
    is a failure naming it, as import_parquet refuses them (before, the later row silently
    replaced the earlier one's files)."""
    for folder, word, picture in (("a", "first", PNG), ("b", "second", PNG + b"!")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.lmml").write_text(f"## user\n{word}\n", encoding="utf-8")
        (tmp_path / folder / f"{folder}.lmml").write_text("## user\n@pic.png\n", encoding="utf-8")
        (tmp_path / folder / "pic.png").write_bytes(picture)
    sources = [str(tmp_path / f / n) for f in ("a", "b") for n in ("x.lmml", f"{f}.lmml")]
    report = write_lmml(read_lmml(sources), tmp_path / "out")
    assert sorted(Path(path).name for path in report.written) == ["a.lmml", "x.lmml"]
    assert [path for path, _ in report.failures] == ["x.lmml", "b.lmml"]
    first, second = (reason for _, reason in report.failures)
    assert f"also written by the row read from {tmp_path / 'a' / 'x.lmml'}" in first
    assert f"'pic.png' differs from the row read from {tmp_path / 'a' / 'a.lmml'}" in second
    assert (tmp_path / "out" / "x.lmml").read_text(encoding="utf-8") == "## user\nfirst\n"
    assert (tmp_path / "out" / "pic.png").read_bytes() == PNG


def test_a_hostile_archive_is_a_row_not_a_crashed_job(cluster: str, tmp_path: Path) -> None:
    lmml_mdit.Bundle.from_zip("ok", "## user\n@a.png\n", {"a.png": PICTURE}).save(
        tmp_path / "ok.lmmlz"
    )
    (tmp_path / "bad.lmmlz").write_bytes(b"PK\x03\x04\x00\x00")
    got = rows_of(read_lmml([str(tmp_path / "bad.lmmlz"), str(tmp_path / "ok.lmmlz")])).to_pylist()
    assert [row["path"] for row in got] == ["bad.lmmlz", "ok.lmmlz"]
    assert got[0]["error"]["type"] == "InvalidZipError" and got[1]["error"] is None
    # a file:// URL reads the same rows (memory:// lives in one process: no use to workers)
    assert rows_of(read_lmml(tmp_path.as_uri())).to_pylist() == got
    limited = rows_of(read_lmml(str(tmp_path), limits=lmml_mdit.Limits(max_entry_size=1024)))
    [ok] = [row for row in limited.to_pylist() if row["path"] == "ok.lmmlz"]
    assert ok["error"]["type"] == "LimitExceededError"


TEMPLATE = """---
inputs:
  customer: {type: string}
  count: {type: number, default: 1}
---
## Turn 1 -- user

Hello, I am {{ customer }} and I ordered {{ count }} kettles.
"""


def test_map_batches_renders_eval_cases(cluster: str, tmp_path: Path) -> None:
    template = tmp_path / "support.lmml"
    template.write_text(TEMPLATE, encoding="utf-8")
    cases: list[dict[str, object]] = [
        {"customer": f"c{number}", "count": number} for number in range(24)
    ]
    cases[7] = {"count": 3}  # no customer: this row holds its error
    cases[9] = {"customer": "d"}  # a null count: its default
    (tmp_path / "cases.jsonl").write_text(
        "".join(json.dumps(case) + "\n" for case in cases), encoding="utf-8"
    )
    expected = list(lmml_mdit.render_cases(lmml_mdit.open(template), cases, model="m"))
    for source in (str(template), template.read_bytes()):
        dataset = ray.data.read_json(str(tmp_path / "cases.jsonl")).map_batches(
            render_case_batch,
            fn_kwargs={"template": source, "model": "m", "name": "support.lmml"},
            batch_format="pyarrow",
            batch_size=5,
        )
        got = rows_of(dataset).to_pylist()
        assert len(got) == len(cases)
        for row, result in zip(got, expected, strict=True):
            body = row["request_openai"]
            assert (json.loads(body) if body is not None else None) == result.value
            assert row["case_error"] == result.error and row["case_kind"] == result.kind
        assert [row["case_kind"] for row in got if row["case_error"]] == ["missing_input"]
        assert "I am d and I ordered 1 kettles" in got[9]["request_openai"]
        assert "I am c3 and I ordered 3 kettles" in got[3]["request_openai"]


def test_render_case_batch_on_a_plain_arrow_batch() -> None:
    # No cluster: the function works on any Arrow batch.
    batch = pa.table({"customer": ["Ada", None]})
    out = render_case_batch(batch, TEMPLATE.encode(), "anthropic", request=False)
    assert out.column_names == ["customer", "messages_anthropic", "case_error", "case_kind",
                                "case_warnings"]  # fmt: skip
    first, second = out.to_pylist()
    assert json.loads(first["messages_anthropic"])[0]["content"][0]["text"].startswith(
        "Hello, I am Ada and I ordered 1"
    )
    assert second["messages_anthropic"] is None and second["case_kind"] == "missing_input"
    with pytest.raises(TypeError, match="inputs"):
        render_case_batch(batch, TEMPLATE.encode(), inputs={"customer": "x"})
    with pytest.raises(ValueError):
        render_case_batch(batch, TEMPLATE.encode(), "nope")


def test_render_case_batch_holds_a_case_path_inside_the_template_folder(tmp_path: Path) -> None:
    # A dataset's rows are data: a row's image path is held inside the template's folder
    # (or base_dir), like a cases file's, so no row sends a file from elsewhere.
    folder = tmp_path / "evals"
    folder.mkdir()
    (folder / "cat.png").write_bytes(image(1))
    (tmp_path / "secret.png").write_bytes(image(2))
    template = folder / "t.lmml"
    template.write_text(
        "---\ninputs:\n  photo:\n    type: image\n---\n## user\nLook: {{ photo }}\n",
        encoding="utf-8",
    )
    rows = ["cat.png", "../secret.png", str(tmp_path / "secret.png")]
    out = render_case_batch(pa.table({"photo": rows}), str(template), request=False)
    inside, above, absolute = out.to_pylist()
    assert inside["case_error"] is None and inside["messages_openai"] is not None
    for row in (above, absolute):
        assert row["messages_openai"] is None and row["case_kind"] == "invalid_input"
        assert "secret.png" in row["case_error"]
    # base_dir moves the folder the paths are held in.
    out = render_case_batch(
        pa.table({"photo": ["secret.png"]}), str(template), request=False, base_dir=tmp_path
    )
    assert out.to_pylist()[0]["case_error"] is None


def test_render_case_batch_never_writes_a_messages_cell_without_its_system_content() -> None:
    # Anthropic keeps system content outside the messages list: a list alone lost it.
    template = TEMPLATE.replace("## Turn 1 -- user", "## system\n\nBe brief.\n\n## Turn 1 -- user")
    batch = pa.table({"customer": ["Ada"]})
    [row] = render_case_batch(batch, template.encode(), "anthropic", request=False).to_pylist()
    assert row["messages_anthropic"] is None
    assert "keeps system content outside the messages list" in row["case_error"]
    out = render_case_batch(batch, template.encode(), "anthropic", request=False, system="separate")
    [row] = out.to_pylist()
    cell = json.loads(row["messages_anthropic"])
    assert cell["system"][0]["text"] == "Be brief." and row["case_error"] is None
    assert cell["messages"][0]["content"][0]["text"].startswith("Hello, I am Ada")
    [row] = render_case_batch(batch, template.encode(), "openai", request=False).to_pylist()
    assert json.loads(row["messages_openai"])[0]["role"] == "system"  # in the list itself
