"""Functions for ``Dataset.map_batches(..., batch_format="pyarrow")`` over conversation rows.

:func:`add_payloads` adds request bodies, :func:`validate_batch` validates each bundle
again, and :func:`render_case_batch` renders a batch of eval cases from one template.
Nothing here imports Ray: the functions work on any Arrow batch. See docs/datasets.md,
"Ray Data".
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ..bundle import Bundle, Limits
from ..chat import DEFAULT_PROVIDER, CaseResult, Rendering, system_outside
from ..dataset import (
    ISSUE_TYPE,
    NOTE_TYPE,
    Row,
    checked_providers,
    request_cells,
    request_column,
    row_bundle,
)
from ..errors import LmmlError

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..chat import RequestOptions

__all__ = [
    "CASE_ERROR",
    "CASE_KIND",
    "CASE_WARNINGS",
    "add_payloads",
    "render_case_batch",
    "validate_batch",
]

CASE_ERROR = "case_error"
"""The column of a case's failure (``FILE:LINE:COL: kind: message``), null when it rendered."""

CASE_KIND = "case_kind"
"""The column of a failed case's kind (``missing_input``, ``invalid_input``, ...)."""

CASE_WARNINGS = "case_warnings"
"""The column of what rendering a case warned about, one line each."""


def add_payloads(
    batch: pa.Table,
    providers: Sequence[str] = (DEFAULT_PROVIDER,),
    limits: Limits | None = None,
    *,
    strict: bool = True,
) -> pa.Table:
    """*batch* with a ``request_<provider>`` column per provider (its request body as
    JSON, null when the bundle cannot be sent to it; built *strict* or not, as for
    ``to_arrow``) and ``request_notes`` (why, and each warning); a failed bundle's row
    gets nulls and a note.

    :raises BundleError: for an unknown provider.
    """
    chosen = checked_providers(providers)
    cells: list[Row] = []
    for row in batch.to_pylist():
        try:
            cells.append(request_cells(row_bundle(row, limits), chosen, strict=strict))
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


Template = str | os.PathLike[str] | bytes
"""A template bundle as :func:`render_case_batch` takes it: a path or fsspec URL every
worker can read, or the bundle file's bytes."""

_OPENED: list[tuple[tuple[object, ...], Bundle]] = []
"""The template this worker process opened last, with the key it was opened for."""


def _template(template: Template, limits: Limits | None, name: str | None) -> Bundle:
    """*template* opened once per worker process (the batches of a job share it)."""
    source = template if isinstance(template, bytes) else os.fspath(template)
    key = (source, limits, name)
    if _OPENED and _OPENED[0][0] == key:
        return _OPENED[0][1]
    from ..chat import open as open_bundle

    bundle = open_bundle(source, limits=limits, name=name)
    if _OPENED:
        _OPENED.pop()[1].close()
    _OPENED.append((key, bundle))
    return bundle


def render_case_batch(
    batch: pa.Table,
    template: Template,
    provider: str = DEFAULT_PROVIDER,
    *,
    request: bool = True,
    model: str | None = None,
    limits: Limits | None = None,
    name: str | None = None,
    base_dir: str | os.PathLike[str] | None = None,
    **options: Unpack[RequestOptions],
) -> pa.Table:
    """*batch* (one eval case per row, one column per input; a null cell is a value not
    given) with each case rendered from *template*: a ``request_<provider>`` column (with
    ``request=False``, ``messages_<provider>``) holding the request body or messages list
    as JSON, null for a case that failed, and :data:`CASE_ERROR`, :data:`CASE_KIND` and
    :data:`CASE_WARNINGS`. A failed case is a row holding its error, never a failed batch.

    For ``Dataset.map_batches(render_case_batch, batch_format="pyarrow",
    fn_kwargs={"template": "s3://evals/support.lmml", "model": "gpt-4o"})``.

    :param template: the template bundle: a path or URL every worker reads, or its bytes;
        each worker process opens it once.
    :param provider: the chat format, as for :func:`~lmml_mdit.render_cases`.
    :param request: True (default) for request bodies, False for messages lists.
    :param model: the model, for a request.
    :param limits: the limits the template is opened with.
    :param name: the template's file name, as errors name it (for bytes; a path's own
        name otherwise).
    :param base_dir: the folder a case's ``image`` or ``file`` path names a file inside, as
        for :func:`~lmml_mdit.render_cases`: by default the template's folder (for a URL
        or bytes, the worker's working directory). A path leading out is that row's error.
    :param options: the options of ``messages()`` / ``to_request()`` (not ``inputs``).
    :raises TypeError: for ``inputs`` among *options*, or an unknown option.
    :raises ValueError: for an unknown provider.
    :raises LmmlError: when the template cannot be opened (every case needs it).
    """
    if "inputs" in options:
        raise TypeError("render_case_batch() takes the inputs from the batch, not inputs=")
    bundle = _template(template, limits, name)
    rendering = Rendering.of(provider, request, model, options).holding_paths(bundle, base_dir)
    results: list[CaseResult] = []
    for number, row in enumerate(batch.to_pylist(), 1):
        case = {name: value for name, value in row.items() if value is not None}
        results.append(rendering.case(bundle, number, case))
    if not request:
        separate = options.get("system") == "separate"
        results = [_kept_system(result, rendering.provider.target, separate) for result in results]
    column = (request_column if request else _messages_column)(rendering.provider.name)
    values = [_json(result.value) if result.ok else None for result in results]
    batch = _replaced(batch, column, pa.array(values, pa.large_string()))
    batch = _replaced(batch, CASE_ERROR, pa.array([r.error for r in results], pa.string()))
    batch = _replaced(batch, CASE_KIND, pa.array([r.kind for r in results], pa.string()))
    warned = [list(result.warnings) for result in results]
    return _replaced(batch, CASE_WARNINGS, pa.array(warned, pa.list_(pa.string())))


def _kept_system(result: CaseResult, target: str, separate: bool) -> CaseResult:
    """*result*, a messages list, as its cell can hold it: with the system content
    Anthropic and Gemini keep outside the list beside it when *separate* (``system=
    "separate"``), else failed, as ``lmml render --cases`` fails such a case (a list alone
    would lose it)."""
    system = getattr(result.value, "system", None) if result.ok else None
    if not system:
        return result
    if separate:
        return dataclasses.replace(result, value={"system": system, "messages": result.value})
    said = (
        f"{system_outside(target)} (pass request=True for the whole request body, or "
        "system='separate' / 'user' / 'drop')"
    )
    return dataclasses.replace(result, value=None, error=said, problem=said)


def _messages_column(provider: str) -> str:
    """The column holding *provider*'s messages list: ``messages_openai``."""
    return f"messages_{provider}"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
