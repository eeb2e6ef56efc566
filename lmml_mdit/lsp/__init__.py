"""The language server behind ``lmml lsp``: diagnostics, completion, hover, navigation, the
outline, quick fixes and the HTML preview of a narrative open in an editor.

It needs the optional ``lsp`` extra (pygls and lsprotocol). Every answer is read from the
library's one parse of the document and from :meth:`Bundle.validate
<lmml_mdit.bundle.Bundle.validate>`; nothing here parses LMML again. Its private
modules (one feature each) are listed in docs/architecture.md; its use in docs/editors.md.
Every name is imported from here, on first use, so pygls loads only with the server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_attributes

__all__ = [
    "DEFAULT_DEBOUNCE",
    "FIRST_WORDS",
    "PREVIEW_METHOD",
    "SERVER_NAME",
    "TRIGGER_CHARACTERS",
    "Analysis",
    "Columns",
    "LmmlLanguageServer",
    "analyse",
    "build_server",
    "code_actions",
    "complete",
    "definition",
    "diagnostics",
    "document_symbols",
    "first_words",
    "folding_ranges",
    "hover",
    "image_dimensions",
    "path_of",
    "preview",
    "references",
    "serve",
    "units",
]

if TYPE_CHECKING:
    from ._actions import code_actions
    from ._completion import TRIGGER_CHARACTERS, complete
    from ._diagnostics import diagnostics
    from ._dimensions import image_dimensions
    from ._document import Analysis, analyse, path_of
    from ._hover import hover
    from ._navigation import definition, references
    from ._outline import FIRST_WORDS, document_symbols, first_words, folding_ranges
    from ._positions import Columns, units
    from ._preview import PREVIEW_METHOD, preview
    from ._server import DEFAULT_DEBOUNCE, SERVER_NAME, LmmlLanguageServer, build_server, serve

_NAMES = {
    name: f".{module}"
    for module, names in {
        "_actions": ("code_actions",),
        "_completion": ("TRIGGER_CHARACTERS", "complete"),
        "_diagnostics": ("diagnostics",),
        "_dimensions": ("image_dimensions",),
        "_document": ("Analysis", "analyse", "path_of"),
        "_hover": ("hover",),
        "_navigation": ("definition", "references"),
        "_outline": ("FIRST_WORDS", "document_symbols", "first_words", "folding_ranges"),
        "_positions": ("Columns", "units"),
        "_preview": ("PREVIEW_METHOD", "preview"),
        "_server": (
            "DEFAULT_DEBOUNCE",
            "SERVER_NAME",
            "LmmlLanguageServer",
            "build_server",
            "serve",
        ),
    }.items()
    for name in names
}

__getattr__ = lazy_attributes(__name__, _NAMES)
