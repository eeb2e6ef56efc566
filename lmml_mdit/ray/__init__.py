"""Bundles on Ray Data: :func:`read_lmml`, :func:`write_lmml` and ``map_batches`` functions.

Install the ``ray`` extra (``ray[data]``). Rows are the conversation rows of
:func:`lmml_mdit.dataset.conversation_schema`; Ray is imported with the first name used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = [
    "LmmlDatasink",
    "LmmlDatasource",
    "add_payloads",
    "eval_batches",
    "read_lmml",
    "render_case_batch",
    "validate_batch",
    "write_lmml",
]

if TYPE_CHECKING:
    from .batches import add_payloads, render_case_batch, validate_batch
    from .datasink import LmmlDatasink, write_lmml
    from .datasource import LmmlDatasource, read_lmml
    from .evaluation import eval_batches

_NAMES = {
    "LmmlDatasink": ".datasink",
    "write_lmml": ".datasink",
    "LmmlDatasource": ".datasource",
    "read_lmml": ".datasource",
    "add_payloads": ".batches",
    "validate_batch": ".batches",
    "render_case_batch": ".batches",
    "eval_batches": ".evaluation",
}


# Ray and pyarrow load with the first name used, not with the package.
__getattr__ = lazy_attributes(__name__, _NAMES)
