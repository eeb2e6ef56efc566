"""The process pools the package's ``workers=`` / ``processes=`` options run on."""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

__all__ = ["process_pool"]


def process_pool(
    workers: int | None,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[object, ...] = (),
) -> ProcessPoolExecutor:
    """A pool of *workers* processes. A process with threads running forks none: its workers
    come from a fresh single-threaded server (``forkserver``), since a fork copies locks
    another thread may hold and the child can die or hang; a single-threaded process forks,
    as the platform's default pool does."""
    context = None
    if threading.active_count() > 1 and "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
    arguments: Any = initargs  # typeshed ties initargs to the initializer's own parameters
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=initializer, initargs=arguments
    )
