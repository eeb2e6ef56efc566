"""Functions for ``Dataset.map_batches(..., batch_format="pyarrow")`` over conversation rows.

Each takes a batch as an Arrow table and gives one back, rebuilding each row's bundle in
memory (:func:`~lmml_mdit.dataset.rows.row_bundle`, held to the limits):

- :func:`add_payloads` adds a provider's request body per row, as ``to_arrow(providers=)``
  does (``fn_kwargs={"providers": ["openai"]}``);
- :func:`validate_batch` validates each bundle again (rows read elsewhere, or after a
  change of the validation rules) and adds ``ok``: no error, no error-level issue.

Rendering eval cases from a template's inputs is a function of the same shape, added with
the template inputs. Nothing here imports Ray: the functions work on any Arrow batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..bundle.archive import Limits
from ..dataset.rows import Row, request_cells, row_bundle
from ..dataset.schema import ISSUE_TYPE, NOTE_TYPE, checked_providers, request_column
from ..errors import LmmlError

__all__ = ["add_payloads", "validate_batch"]


def add_payloads(
    batch: pa.Table, providers: Sequence[str] = ("openai",), limits: Limits | None = None
) -> pa.Table:
    """*batch* with a ``request_<provider>`` column per provider (its request body as
    JSON, null when the bundle cannot be sent to it) and ``request_notes`` (why, and each
    warning); a failed bundle's row gets nulls and a note.

    :raises BundleError: for an unknown provider.
    """
    chosen = checked_providers(providers)
    cells: list[Row] = []
    for row in batch.to_pylist():
        try:
            cells.append(request_cells(row_bundle(row, limits), chosen))
        except LmmlError as error:
            empty: Row = {request_column(p): None for p in chosen}
            empty["request_notes"] = [
                {"provider": p, "severity": "error", "message": error.format(hint=False)}
                for p in chosen
            ]
            cells.append(empty)
    for provider in chosen:
        name = request_column(provider)
        values = pa.array([cell[name] for cell in cells], pa.large_string())
        batch = _replaced(batch, name, values)
    notes = pa.array([cell["request_notes"] for cell in cells], pa.list_(NOTE_TYPE))
    return _replaced(batch, "request_notes", notes)


def validate_batch(batch: pa.Table, limits: Limits | None = None) -> pa.Table:
    """*batch* with its ``issues`` found again and an ``ok`` column: True for a bundle
    read without error and with no error-level issue."""
    issues: list[list[Row]] = []
    ok: list[bool] = []
    for row in batch.to_pylist():
        if row.get("error") is not None:
            issues.append(row.get("issues") or [])
            ok.append(False)
            continue
        try:
            found = row_bundle(row, limits).validate()
        except LmmlError:
            issues.append(row.get("issues") or [])
            ok.append(False)
            continue
        issues.append([dict(issue.record()) for issue in found])
        ok.append(all(issue.severity != "error" for issue in found))
    batch = _replaced(batch, "issues", pa.array(issues, pa.list_(ISSUE_TYPE)))
    return _replaced(batch, "ok", pa.array(ok, pa.bool_()))


def _replaced(table: pa.Table, name: str, values: pa.Array[Any]) -> pa.Table:
    """*table* with column *name* set to *values* (replaced in place, or appended)."""
    if name in table.column_names:
        return table.set_column(table.column_names.index(name), name, values)
    return table.append_column(name, values)
