"""``read_lmml``: bundles read by Ray Data, one read task per group of files.

The driver lists the files (walking folders, local or behind a URL) and cuts the list into
groups; each read task opens its group's bundles with the same limits and safety as
:func:`lmml_mdit.open` and yields blocks in the conversation schema, at most
``batch_rows`` rows each. A bundle that fails is a row holding its ``error``: a read task
never fails for a bad file. The driver holds only the file list, never a row.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, cast

import pyarrow as pa
from ray.data import Datasource, ReadTask, read_datasource
from ray.data.block import BlockMetadata

from ..bundle import Limits
from ..dataset import (
    ASSET_MODES,
    DEFAULT_BATCH_ROWS,
    AssetMode,
    OpenOptions,
    absolute,
    checked_providers,
    conversation_schema,
    is_folder,
    rows_to_batches,
    source_row,
    walk,
)
from ..errors import BundleError
from ..syntax import DelimiterMode, ReferenceMode

if TYPE_CHECKING:
    import ray.data

__all__ = ["DEFAULT_FILES_PER_TASK", "LmmlDatasource", "read_lmml"]

DEFAULT_FILES_PER_TASK = 256
"""The most bundles one read task opens."""
MIN_FILES_PER_TASK = 32
"""The fewest bundles a read task opens when there are more (a task costs more to start
than a few bundles take to read, so Ray's default parallelism is not followed below this)."""

PathInput = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
"""What :func:`read_lmml` reads: a folder, file or URL, or a list of them."""


def _sources(paths: PathInput) -> Iterator[tuple[str, str]]:
    """Each bundle's ``(source, path inside the dataset)``: folders walked, files as given."""
    items: Iterable[str | os.PathLike[str]] = (
        [paths] if isinstance(paths, (str, os.PathLike)) else paths
    )
    for item in items:
        text = absolute(item)
        if is_folder(text):
            yield from walk(text)
        else:
            yield text, os.path.basename(text.rstrip("/")) or text


def _read_group(
    group: Sequence[tuple[str, str]], options: OpenOptions, batch_rows: int
) -> Iterator[pa.Table]:
    """A read task's work: the rows of its bundles, as tables of at most *batch_rows*."""
    rows = (source_row(source, path, options) for source, path in group)
    schema = conversation_schema(options.providers)
    for batch in rows_to_batches(rows, schema, batch_rows=batch_rows):
        yield pa.Table.from_batches([batch])


class LmmlDatasource(Datasource):
    """A Ray Datasource of conversation rows (see :func:`read_lmml`).

    :param paths: folders, files or fsspec URLs of bundles.
    :param options: how each bundle is opened and read.
    :param files_per_task: the most bundles one read task opens.
    :param batch_rows: the most rows in one block.
    """

    def __init__(
        self,
        paths: PathInput,
        options: OpenOptions,
        *,
        files_per_task: int = DEFAULT_FILES_PER_TASK,
        batch_rows: int = DEFAULT_BATCH_ROWS,
    ) -> None:
        if files_per_task < 1 or batch_rows < 1:
            raise ValueError("files_per_task and batch_rows must be positive")
        self._sources = list(_sources(paths))
        self._options = options
        self._files_per_task = files_per_task
        self._batch_rows = batch_rows

    def get_name(self) -> str:
        """The name Ray shows for the read."""
        return "LMML"

    def estimate_inmemory_data_size(self) -> int | None:
        """Unknown until read: an archive's assets are counted when opened."""
        return None

    def get_read_tasks(
        self,
        parallelism: int,
        per_task_row_limit: int | None = None,
        data_context: object | None = None,
    ) -> list[ReadTask]:
        """One read task per group of bundles: *parallelism* groups, each of at least
        :data:`MIN_FILES_PER_TASK` and at most ``files_per_task`` bundles."""
        count = len(self._sources)
        if count == 0:
            return []
        wanted = -(-count // max(parallelism, 1))
        size = min(self._files_per_task, max(MIN_FILES_PER_TASK, wanted))
        schema = conversation_schema(self._options.providers)
        tasks = []
        for start in range(0, count, size):
            group = self._sources[start : start + size]
            metadata = BlockMetadata(
                num_rows=len(group),
                size_bytes=None,
                input_files=tuple(source for source, _ in group),
                exec_stats=None,
            )
            tasks.append(
                ReadTask(
                    functools.partial(_read_group, group, self._options, self._batch_rows),
                    metadata,
                    schema=schema,
                    per_task_row_limit=per_task_row_limit,
                )
            )
        return tasks


def read_lmml(
    paths: PathInput,
    *,
    providers: Sequence[str] | None = None,
    assets: AssetMode = "embed",
    limits: Limits | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    delimiters: DelimiterMode = "strict",
    references: ReferenceMode = "assets",
    files_per_task: int = DEFAULT_FILES_PER_TASK,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    override_num_blocks: int | None = None,
    concurrency: int | None = None,
    strict: bool = True,
) -> ray.data.Dataset:
    """A Ray dataset of the conversation rows of the bundles under *paths*, the rows
    :func:`~lmml_mdit.dataset.to_arrow` gives for them (in the same order when Ray
    keeps order, ``DataContext.execution_options.preserve_order``).

    :param paths: a folder, file or fsspec URL of bundles, or a list of them.
    :param providers: request columns to add, as for ``to_arrow``.
    :param assets: ``"embed"`` or ``"reference"``, as for ``to_arrow``.
    :param limits: the limits every bundle is opened with, as by :func:`lmml_mdit.open`.
    :param base_dir: the folder bare ``.lmml`` files resolve against (default: their own;
        it must exist on every node).
    :param delimiters: as for :func:`lmml_mdit.open`.
    :param references: likewise.
    :param files_per_task: the most bundles one read task opens.
    :param batch_rows: the most rows in one block.
    :param override_num_blocks: as for Ray's readers: how many read tasks to aim for.
    :param concurrency: as for Ray's readers: the most read tasks run at once.
    :param strict: build the request columns strictly, as for ``to_arrow``.
    :raises BundleError: for an unknown provider or asset mode.
    """
    if assets not in ASSET_MODES:
        raise BundleError(f"unknown asset mode {assets!r}", hint="use 'embed' or 'reference'")
    options = OpenOptions(
        limits=limits if limits is not None else Limits(),
        base_dir=None if base_dir is None else absolute(base_dir),
        delimiters=delimiters,
        references=references,
        assets=assets,
        providers=checked_providers(providers),
        strict=strict,
    )
    source = LmmlDatasource(paths, options, files_per_task=files_per_task, batch_rows=batch_rows)
    # read_datasource is wrapped by a decorator that hides its return type.
    return cast(
        "ray.data.Dataset",
        read_datasource(source, override_num_blocks=override_num_blocks, concurrency=concurrency),
    )
