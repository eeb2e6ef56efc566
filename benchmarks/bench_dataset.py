"""Rows per second from a folder of bundles to Arrow rows, and how the cost per bundle grows
(a script, not a test).

Run ``python benchmarks/bench_dataset.py``. The script writes two folders of generated
bundles (2,000 and 20,000 by default: text chats, archives holding an image, tool calls,
inline fences, one in twenty broken) and reads each into conversation rows three ways:

- ``one process``: :func:`lmml_mdit.dataset.to_arrow` in this process;
- ``process pool``: ``to_arrow(..., workers=2)``;
- ``ray``: :func:`lmml_mdit.ray.read_lmml` on a local Ray cluster of 2 CPUs (started by the
  script; its start-up is not timed), the rows streamed to the driver.

Every row is consumed and let go (a count), as a job writing them out would. Each way is
warmed up on the smaller folder, then timed on both sizes in turn, ``--repeat`` times, the
best time of each size kept (the machine may be shared: alternating keeps a slow spell
from landing on one size only). For each way it prints the wall-clock seconds and rows per
second at both sizes, and the cost per bundle: CPU time for ``one`` and ``pool`` (this
process and its pool workers, which other load on a shared machine leaves steady), the wall
clock for ``ray`` (its workers are not this process's children). The cost per bundle at the
larger size is then given as a multiple of the cost at the smaller (goal:
at most 1.1x, so the cost stays linear in the folder's size), and exits with status 1 when
a ratio misses its goal. Ray's rows per second at the smaller size include the fixed cost
of starting a Ray Data job (planning, scheduling its read tasks: a few seconds), which the
larger folder spreads thinner.

Options: ``--sizes 2000 20000``, ``--modes one pool ray``, ``--workers 2``, ``--repeat N``
(default 3), ``--address ADDR`` (run the Ray part on an existing
cluster instead, ``auto`` for the one this machine belongs to), ``--folder DIR`` (read
folders ``DIR/2000`` and ``DIR/20000`` instead of writing new ones under a temporary
folder; with ``--write``, write them there first, for instance on storage every node of a
cluster reads). See "Running the benchmark on a cluster" in
``docs/datasets.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _dataset_folder import write_folder  # the tests' generator: one source for the shapes

from lmml_mdit.dataset import to_arrow

GOAL = 1.1
"""The most the cost per bundle may grow from the smaller folder to the larger."""


def consume(batches: Iterable[object]) -> int:
    """Count the rows of *batches*, holding one batch at a time."""
    rows = 0
    for batch in batches:
        rows += batch.num_rows  # type: ignore[attr-defined]
    return rows


def one_process(folder: Path, workers: int) -> int:
    return consume(to_arrow(folder))


def process_pool(folder: Path, workers: int) -> int:
    return consume(to_arrow(folder, workers=workers))


def on_ray(folder: Path, workers: int) -> int:
    from lmml_mdit.ray import read_lmml

    dataset = read_lmml(str(folder))
    return consume(dataset.iter_batches(batch_format="pyarrow", batch_size=None))


MODES: dict[str, tuple[str, Callable[[Path, int], int]]] = {
    "one": ("one process", one_process),
    "pool": ("process pool", process_pool),
    "ray": ("ray", on_ray),
}


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the pool's workers)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def timed(run: Callable[[Path, int], int], folder: Path, workers: int) -> tuple[float, float]:
    """The wall-clock and CPU seconds of reading every row of *folder*."""
    start, cpu = time.perf_counter(), cpu_seconds()
    rows = run(folder, workers)
    seconds, used = time.perf_counter() - start, cpu_seconds() - cpu
    expected = sum(1 for _ in folder.rglob("*.lmml*"))
    if rows != expected:
        raise SystemExit(f"read {rows} rows from {folder}, expected {expected}")
    return seconds, used


def folders(root: Path, sizes: list[int], write: bool) -> dict[int, Path]:
    found: dict[int, Path] = {}
    for size in sizes:
        folder = root / str(size)
        if write:
            started = time.perf_counter()
            write_folder(folder, size)
            print(f"wrote {size} bundles in {time.perf_counter() - started:.1f} s", flush=True)
        elif not folder.is_dir():
            raise SystemExit(f"--folder: no folder {folder}")
        found[size] = folder
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="bundles to Arrow rows: rows/s and growth")
    parser.add_argument("--sizes", type=int, nargs=2, default=[2000, 20000], metavar="N")
    parser.add_argument("--modes", nargs="+", choices=sorted(MODES), default=["one", "pool", "ray"])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--address", help="an existing Ray cluster (default: start 2 CPUs)")
    parser.add_argument("--folder", type=Path, help="read DIR/<size> instead of writing them")
    parser.add_argument("--write", action="store_true", help="with --folder: write them first")
    args = parser.parse_args(argv)
    sizes = sorted(args.sizes)

    with tempfile.TemporaryDirectory() as scratch:
        root = args.folder if args.folder is not None else Path(scratch)
        by_size = folders(root, sizes, args.folder is None or args.write)
        if "ray" in args.modes:
            import ray

            if args.address:
                ray.init(address=args.address, log_to_driver=False)
            else:
                ray.init(
                    address="local",  # its own cluster, not one that happens to be running
                    num_cpus=args.workers,
                    include_dashboard=False,
                    log_to_driver=False,
                )
            ray.data.DataContext.get_current().enable_progress_bars = False

        print(f"\n{'way':14} {'bundles':>8} {'seconds':>9} {'rows/s':>9} {'cost µs':>10}")
        missed = False
        ratios: list[tuple[str, float]] = []
        for mode in args.modes:
            label, run = MODES[mode]
            run(by_size[sizes[0]], args.workers)  # warm up: caches, imports, the pool
            wall = dict.fromkeys(sizes, float("inf"))
            cpu = dict.fromkeys(sizes, float("inf"))
            for _ in range(max(args.repeat, 1)):
                for size in sizes:
                    seconds, used = timed(run, by_size[size], args.workers)
                    wall[size], cpu[size] = min(wall[size], seconds), min(cpu[size], used)
            # The cost of a bundle: CPU time where all of it is counted here (this process
            # and the pool's workers, steady whatever else the machine runs), else the wall
            # clock (Ray's workers are not this process's children).
            cost = wall if mode == "ray" else cpu
            costs = []
            for size in sizes:
                costs.append(cost[size] / size)
                print(
                    f"{label:14} {size:8} {wall[size]:9.2f} {size / wall[size]:9.0f} "
                    f"{cost[size] / size * 1e6:10.1f}",
                    flush=True,
                )
            ratios.append((label, costs[1] / costs[0]))

        print(f"\ncost per bundle at {sizes[1]} / at {sizes[0]} (goal: at most {GOAL}x)")
        for label, ratio in ratios:
            verdict = "ok" if ratio <= GOAL else "MISSED"
            missed = missed or ratio > GOAL
            print(f"{label:14} {ratio:6.2f}x  {verdict}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
