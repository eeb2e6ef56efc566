"""Bundles on Ray Data: :func:`read_lmml`, :func:`write_lmml` and ``map_batches`` functions.

Install the ``ray`` extra (``ray[data]``). Rows are the conversation rows of
:func:`lmml_mdit.dataset.conversation_schema`; Ray is imported with the first name used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes, public_names

if TYPE_CHECKING:
    from ._batches import add_payloads as add_payloads
    from ._batches import render_case_batch as render_case_batch
    from ._batches import validate_batch as validate_batch
    from ._datasink import LmmlDatasink as LmmlDatasink
    from ._datasink import write_lmml as write_lmml
    from ._datasource import LmmlDatasource as LmmlDatasource
    from ._datasource import read_lmml as read_lmml
    from ._evaluation import eval_batches as eval_batches

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

if not TYPE_CHECKING:  # type checkers read the explicit re-exports above instead
    __all__ = public_names(_NAMES)
