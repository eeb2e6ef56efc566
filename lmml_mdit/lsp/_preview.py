"""The ``lmml/preview`` request: the document's HTML preview
(:func:`~lmml_mdit.preview.render_html`), for a client that shows it beside the text.

Params: ``{"textDocument": {"uri": URI}}`` (or ``{"uri": URI}``). Result: ``{"uri", "version",
"html", "error"}``; for a text that cannot be opened, ``html`` is a short page saying why and
``error`` holds the same message (None otherwise). The defects the page would warn of
are left to the diagnostics.
"""

from __future__ import annotations

import html
import warnings

from ..errors import DefectWarning
from ..jsontypes import JSONObject
from ..preview import render_html
from ._document import Analysis

__all__ = ["PREVIEW_METHOD", "preview", "preview_uri"]

PREVIEW_METHOD = "lmml/preview"
"""The request's method name."""


def preview_uri(params: object) -> str | None:
    """The document URI a request's *params* name, or None (params arrive as JSON objects
    or as the attribute objects the JSON-RPC layer makes of them)."""
    document = _field(params, "textDocument")
    uri = _field(document, "uri") if document is not None else _field(params, "uri")
    return uri if isinstance(uri, str) else None


def _field(value: object, name: str) -> object:
    if isinstance(value, dict):
        return value.get(name)
    return getattr(value, name, None)


def preview(analysis: Analysis) -> JSONObject:
    """The preview of *analysis*'s document."""
    error: str | None = None
    if analysis.bundle is None:
        failure = analysis.failure
        error = str(failure) if failure is not None else "the document could not be opened"
        page = (
            '<!doctype html><html><head><meta charset="utf-8"><title>LMML preview</title>'
            f"</head><body><p>{html.escape(error)}</p></body></html>"
        )
    else:
        # The defects are the diagnostics' to show: rendering does not write them to the
        # server's standard error again at every request.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DefectWarning)
            page = render_html(analysis.bundle)
    return {"uri": analysis.uri, "version": analysis.version, "html": page, "error": error}
