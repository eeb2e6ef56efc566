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
    from ._batches import add_payloads, render_case_batch, validate_batch
    from ._datasink import LmmlDatasink, write_lmml
    from ._datasource import LmmlDatasource, read_lmml
    from ._evaluation import eval_batches

_NAMES = {
    "LmmlDatasink": "._datasink",
    "write_lmml": "._datasink",
    "LmmlDatasource": "._datasource",
    "read_lmml": "._datasource",
    "add_payloads": "._batches",
    "validate_batch": "._batches",
    "render_case_batch": "._batches",
    "eval_batches": "._evaluation",
}


# Ray and pyarrow load with the first name used, not with the package.
__getattr__ = lazy_attributes(__name__, _NAMES)
